"""The bundle-signing key in the OS keyring (service ``agent-review-loop``, account
``bundle-signing-key``, the 32 raw Ed25519 bytes in base64), outside ``engine/``.

``signing_key() -> SigningKey``: the stored key, created on first use, and trusted on
this computer as the user's own (``engine.bundle.signing.trust_own_key``: "signed by you on this
computer"). When no keyring works the key is kept in a file in the user's data folder,
``<data folder>/signing-key`` (mode 0600: readable by this user only; ``where ==
"datafile"``, ``note`` says so), so the same key signs every run. Only when that file cannot
be written either does the key live in memory for this session only (``where ==
"session"``). Keyring calls can block: GUI code runs this in a worker thread.

``ARL_SIGNING_KEY_FILE`` names a file holding the key (base64 of the 32 bytes) instead:
for release builds of the shipped example bundles, or CI (``where == "file"``).
"""

from __future__ import annotations

import base64
import binascii
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arl_keys.store import failures, keyring_module, keyring_ready
from engine.bundle import signing

SERVICE = "agent-review-loop"
ACCOUNT = "bundle-signing-key"

DATAFILE_NOTE = (
    "No working password store (keyring): the signing key is kept in {path}, a file only "
    "you can read."
)
SESSION_NOTE = (
    "No working password store (keyring): this session signs bundles with a key kept in "
    "memory only, forgotten when the program ends; the next session's bundles carry "
    "another fingerprint."
)


@dataclass(frozen=True)
class SigningKey:
    """``material``: 32 bytes for ``engine.bundle.signing``; ``where``: ``keyring`` | ``session``;
    ``fingerprint``; ``note``: a plain sentence when the key is session-only ("" else)."""

    material: bytes
    where: Literal["keyring", "datafile", "session", "file"]
    fingerprint: str
    note: str = ""


_session: bytes | None = None


def signing_key() -> SigningKey:
    """The signing key, created and stored on first use. Never raises for a missing or
    broken keyring (falls back to a session key); raises ``store.KeyringConfigError`` (an
    OSError naming the file) when keyring's own configuration file cannot be used."""
    global _session
    path = os.environ.get("ARL_SIGNING_KEY_FILE")
    if path:
        material = load_key_file(Path(path))
        return SigningKey(material, "file", signing.key_fingerprint(material), f"from {path}")
    keyring_ready()  # a broken keyringrc.cfg: one line naming it, never a traceback
    keyring = keyring_module()
    try:
        stored = keyring.get_password(SERVICE, ACCOUNT)
    except failures():
        stored = None
        works = False
    else:
        works = True
    if stored:
        try:
            material = base64.b64decode(stored, validate=True)
            return _own(SigningKey(material, "keyring", signing.key_fingerprint(material)))
        except (binascii.Error, ValueError):
            pass  # a damaged entry: replaced below
    if works:
        material = signing.new_private_key()
        try:
            keyring.set_password(SERVICE, ACCOUNT, base64.b64encode(material).decode("ascii"))
            return _own(SigningKey(material, "keyring", signing.key_fingerprint(material)))
        except failures():
            pass
    kept = _datafile_key()
    if kept is not None:
        return kept
    if _session is None:
        _session = signing.new_private_key()
    return _own(SigningKey(_session, "session", signing.key_fingerprint(_session), SESSION_NOTE))


def datafile_path() -> Path:
    """Where the key is kept when no keyring works: ``<data folder>/signing-key``."""
    from engine.workspace import default_home

    return default_home() / "signing-key"


def _datafile_key() -> SigningKey | None:
    """The key in the user's data folder, created there (0600) when missing; None when the
    file can be neither read nor written."""
    path = datafile_path()
    note = DATAFILE_NOTE.format(path=path)
    try:
        material = load_key_file(path)
    except ValueError:
        if path.exists():
            return None  # a file that is not a key: never overwritten
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_key_file(path)
            material = load_key_file(path)
        except (OSError, ValueError):
            return None
    return _own(SigningKey(material, "datafile", signing.key_fingerprint(material), note))


def _own(key: SigningKey) -> SigningKey:
    """``key`` trusted on this computer as the user's own (once; a removal is kept)."""
    try:
        signing.trust_own_key(signing.public_key(key.material))
    except OSError:
        pass  # the store cannot be written: its bundles read "unknown key", nothing worse
    return key


def load_key_file(path: Path) -> bytes:
    """The key in ``path`` (base64 of 32 bytes). Raises ValueError naming the file."""
    try:
        text = path.read_text(encoding="ascii").strip()
        material = base64.b64decode(text, validate=True)
        signing.public_key(material)
    except (OSError, UnicodeDecodeError, binascii.Error, ValueError) as exc:
        raise ValueError(f"{path}: not a signing key file ({exc})") from None
    return material


def write_key_file(path: Path) -> str:
    """Create a new key in ``path`` (mode 0600, refused if it exists); its fingerprint."""
    material = signing.new_private_key()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(base64.b64encode(material).decode("ascii") + "\n")
    return signing.key_fingerprint(material)
