"""Signed bundles: an Ed25519 signature over the exact bytes of ``manifest.json``.

The manifest holds the SHA-256 of every other file, so one signature covers the whole
bundle; ``signature.json`` (``engine.bundle.schema.SignatureFile``) holds the algorithm, the
public key (base64 of 32 raw bytes), its fingerprint and the signature (base64 of 64 bytes).
A zip export copies both files byte for byte, so it verifies the same.

The engine takes key material and never stores it: the key is created and kept in the OS
keyring by the callers outside ``engine/`` (``app/`` and the ``arl`` entry point).
Cryptography is the ``cryptography`` package's Ed25519 (RFC 8032), nothing of our own.

Trusted signers: a JSON file ``{"sha256:<64 hex>": "name", "fingerprint": "name", ...}``
in the program's data folder (``trusted_keys_path()``), edited from the GUI or ``arl
bundle trust``. Trusting the signer of a bundle (``engine.bundle.bundle.trust_signer``: the GUI's "Trust this
signer", ``arl bundle trust BUNDLE NAME``) records the full SHA-256 of its public key
(``key_id``) and matches on all 256 bits. A 16-hex-digit fingerprint entry (``arl bundle
trust FINGERPRINT NAME``, and every entry written before) is still honoured but weaker: a
key whose fingerprint collides takes 2^64 work to find, within reach of a large budget; the
signature line says "by fingerprint only" then. A signature that verifies but whose key is
not trusted is "signed by an unknown key", told apart from a bad signature.

Two signers are trusted without the user doing anything: this computer's own signing key
(``trust_own_key``, called by the key's keeper outside ``engine/`` once it exists; its line
reads "signed by you on this computer") and the project's release key, which signs the
shipped example and demo (``shipped_trust``, named for the project). Either can be renamed
or removed like any entry; a removal is kept as an entry with an empty name, so neither
comes back by itself.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

ALGORITHM = "Ed25519"


def _crypto() -> Any:
    from cryptography.hazmat.primitives.asymmetric import ed25519

    return ed25519


def new_private_key() -> bytes:
    """32 bytes of fresh Ed25519 private key material."""
    from cryptography.hazmat.primitives import serialization

    key = _crypto().Ed25519PrivateKey.generate()
    return key.private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    )


def public_key(private: bytes) -> bytes:
    """The 32-byte raw public key of ``private``. Raises ValueError for bad material."""
    from cryptography.hazmat.primitives import serialization

    key = _crypto().Ed25519PrivateKey.from_private_bytes(private)
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def fingerprint(public: bytes) -> str:
    """Short fingerprint of a raw public key: the first 16 hex digits of its SHA-256, in
    groups of four ("3f2a 9c01 77be 0d42")."""
    h = hashlib.sha256(public).hexdigest()[:16]
    return " ".join(h[i : i + 4] for i in range(0, 16, 4))


def key_fingerprint(private: bytes) -> str:
    return fingerprint(public_key(private))


def key_id(public: bytes) -> str:
    """The full identity of a raw public key in the trusted-keys store:
    ``"sha256:" + 64 hex digits`` (its first 16 digits are the fingerprint)."""
    return "sha256:" + hashlib.sha256(public).hexdigest()


def sign_manifest(manifest_bytes: bytes, private: bytes) -> dict[str, str]:
    """The ``signature.json`` object signing ``manifest_bytes`` with ``private``."""
    key = _crypto().Ed25519PrivateKey.from_private_bytes(private)
    pub = public_key(private)
    return {
        "algorithm": ALGORITHM,
        "public_key": base64.b64encode(pub).decode("ascii"),
        "fingerprint": fingerprint(pub),
        "signature": base64.b64encode(key.sign(manifest_bytes)).decode("ascii"),
        "signed_file": "manifest.json",
    }


SignatureState = Literal["signed", "unsigned", "bad"]


@dataclass(frozen=True)
class SignatureStatus:
    """``state``: ``signed`` (the signature verifies), ``unsigned`` or ``bad`` (present but
    does not verify, or malformed: ``reason`` says how). ``fingerprint``: the signer's,
    when a public key could be read; ``trusted_as``: the name the user gave it, or ""."""

    state: SignatureState
    fingerprint: str = ""
    reason: str = ""
    trusted_as: str = ""
    #: Files that do not match the manifest the signature covers (the signature itself
    #: verifies): the state is then ``bad``, never ``signed``.
    uncovered: tuple[str, ...] = ()
    #: The signer is trusted by a 16-hex-digit fingerprint entry, not by its full key.
    trusted_by_fingerprint: bool = False

    @property
    def bad(self) -> bool:
        return self.state == "bad"

    @property
    def trusted(self) -> bool:
        return self.state == "signed" and bool(self.trusted_as)

    def _not_covered(self, signed: str) -> str:
        """The files the signature does not cover (at most five named), as not matching
        ``signed``."""
        names = ", ".join(self.uncovered[:5])
        more = f" and {len(self.uncovered) - 5} more" if len(self.uncovered) > 5 else ""
        verb = "does" if len(self.uncovered) == 1 else "do"
        return f"THE SIGNATURE DOES NOT COVER THESE FILES: {names}{more} {verb} not match {signed}"

    def line(self) -> str:
        """One line for people: "signed by 3f2a 9c01 77be 0d42 (trusted: laptop)"."""
        if self.state == "unsigned":
            return "unsigned: no signature, so who made it cannot be checked"
        if self.state == "bad" and self.uncovered:
            return self._not_covered(f"what {self.fingerprint} signed")
        if self.state == "bad":
            return f"BAD SIGNATURE: {self.reason}" + (
                f" (claims key {self.fingerprint})" if self.fingerprint else ""
            )
        if self.trusted_as == OWN_KEY_NAME and not self.trusted_by_fingerprint:
            return f"signed by you on this computer (key {self.fingerprint})"
        who = f"trusted: {self.trusted_as}" if self.trusted_as else "an unknown key: not trusted"
        if self.trusted_as and self.trusted_by_fingerprint:
            who += ", by fingerprint only"
        return f"signed by {self.fingerprint} ({who})"

    def words(self) -> str:
        """``line`` in the reader's words, with no key fingerprint (a row of hex digits
        says nothing to a reader; ``line`` and ``FINGERPRINT_MEANS`` go in a tooltip):
        "signed by the Agent Review Loop project, a signer you trust", "signed by a key
        you have not chosen to trust", "signed by you on this computer"."""
        if self.state == "unsigned":
            return self.line()
        if self.state == "bad" and self.uncovered:
            return self._not_covered("what was signed")
        if self.state == "bad":
            return f"BAD SIGNATURE: {self.reason}"
        if self.trusted_as == OWN_KEY_NAME and not self.trusted_by_fingerprint:
            return "signed by you on this computer"
        if not self.trusted_as:
            return "signed by a key you have not chosen to trust, so who made it is not known"
        who = f"signed by {self.trusted_as}, a signer you trust"
        if self.trusted_by_fingerprint:
            who += " (recognised by the short form of its key only)"
        return who


#: What a key fingerprint is, for the tooltip that shows one.
FINGERPRINT_MEANS = (
    "The fingerprint is the short form of the signing key: the same run of digits means "
    "the same key. To trust a signer, compare it with the one its owner gives you."
)


# -- refusing weak keys and signatures (RFC 8032 section 5.1.3, and the small-order points) --

_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493  # the prime order of the base point
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _decode_point(b: bytes) -> tuple[int, int, int, int] | None:
    """The Edwards point ``b`` encodes (extended coordinates), or None when the encoding
    is not canonical (y >= p, or x = 0 with the sign bit set) or not on the curve."""
    y = int.from_bytes(b, "little") & ((1 << 255) - 1)
    sign = b[31] >> 7
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    if x2 == 0:
        return None if sign else (0, y, 1, 0)
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P:
        return None
    if x & 1 != sign:
        x = _P - x
    return (x, y, 1, x * y % _P)


def _double(q: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    x1, y1, z1, t1 = q
    a = (y1 - x1) * (y1 - x1) % _P
    b = (y1 + x1) * (y1 + x1) % _P
    c = 2 * t1 * t1 * _D % _P
    d = 2 * z1 * z1 % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def weak_point(b: bytes) -> str | None:
    """Why the 32-byte encoding ``b`` (a public key, or a signature's R) is refused, or
    None: not canonical, not on the curve, or of small order ([8]P is the identity: the
    eight small-order points, with which one signature "verifies" over every message)."""
    q = _decode_point(b)
    if q is None:
        return "not a canonical encoding of a curve point"
    for _ in range(3):
        q = _double(q)
    if q[0] % _P == 0 and (q[1] - q[2]) % _P == 0:
        return "a point of small order (it would verify a forged signature over any manifest)"
    return None


def weak_signature(public: bytes, signature: bytes) -> str | None:
    """Why a 32-byte key and 64-byte signature are refused before the signature is
    checked, or None: a weak key or R (``weak_point``), or S not below the group order
    (a non-canonical S)."""
    why = weak_point(public)
    if why is not None:
        return f"the public key is {why}"
    why = weak_point(signature[:32])
    if why is not None:
        return f"the signature's R is {why}"
    if int.from_bytes(signature[32:], "little") >= _L:
        return "the signature's S is not canonical (not below the group order)"
    return None


def verify_signature(
    manifest_bytes: bytes, signature: Any, trusted: dict[str, str] | None = None
) -> SignatureStatus:
    """Check a parsed ``signature.json`` (None: unsigned) against the manifest bytes."""
    if signature is None:
        return SignatureStatus("unsigned")
    if not isinstance(signature, dict) or signature.get("algorithm") != ALGORITHM:
        return SignatureStatus("bad", reason="signature.json is not an Ed25519 signature")
    try:
        pub = base64.b64decode(str(signature.get("public_key", "")), validate=True)
        sig = base64.b64decode(str(signature.get("signature", "")), validate=True)
    except ValueError:
        return SignatureStatus("bad", reason="signature.json is not valid base64")
    if len(pub) != 32 or len(sig) != 64:
        return SignatureStatus(
            "bad", reason="signature.json has a key or signature of the wrong size"
        )
    fp = fingerprint(pub)
    if signature.get("fingerprint") != fp:
        return SignatureStatus(
            "bad", fp, "the stated fingerprint does not belong to the public key"
        )
    weak = weak_signature(pub, sig)
    if weak is not None:
        return SignatureStatus("bad", fp, weak)
    from cryptography.exceptions import InvalidSignature

    try:
        _crypto().Ed25519PublicKey.from_public_bytes(pub).verify(sig, manifest_bytes)
    except InvalidSignature:
        return SignatureStatus(
            "bad", fp, "the signature does not match manifest.json (changed after signing)"
        )
    except ValueError:
        return SignatureStatus("bad", fp, "the public key is not a valid Ed25519 key")
    names = trusted if trusted is not None else load_trusted()
    full = names.get(key_id(pub), "")
    if full:
        return SignatureStatus("signed", fp, trusted_as=full)
    by_fp = names.get(fp, "")
    return SignatureStatus("signed", fp, trusted_as=by_fp, trusted_by_fingerprint=bool(by_fp))


def trust_key(public: bytes, name: str, path: Path | None = None) -> str:
    """Trust the raw public key ``public`` as ``name`` by its full ``key_id`` (the user's
    own reviewer key, trusted as theirs when they first decide); returns the key id.
    Raises ValueError for an empty name, OSError when the store cannot be written."""
    if not name.strip():
        raise ValueError("give the key a name")
    ident = key_id(public)
    _write_trusted({**_load_raw(path), ident: name.strip()}, path)
    return ident


def trust_own_key(public: bytes, path: Path | None = None) -> bool:
    """Trust this computer's own signing key as ``OWN_KEY_NAME``, once: nothing is
    written when the store already has an entry for it (a name the user gave it, or an
    empty one: removed by the user). True when it was added. Raises OSError when the store
    cannot be written."""
    ident = key_id(public)
    raw = _load_raw(path)
    if ident in raw or fingerprint(public) in raw:
        return False
    _write_trusted({**raw, ident: OWN_KEY_NAME}, path)
    return True


def check_bundle(bundle: Any, trusted: dict[str, str] | None = None) -> SignatureStatus:
    """The signature status of an opened ``engine.bundle.Bundle``. A signature that
    verifies over ``manifest.json`` while files fail that manifest's hashes is ``bad``
    with ``uncovered`` naming them: it vouches for the files that were signed, not these."""
    if "signature.json" in bundle.tampered:
        return SignatureStatus("bad", reason="signature.json is not readable")
    raw = getattr(bundle, "signature_present", False)
    if raw and bundle.signature is None:
        return SignatureStatus("bad", reason="signature.json does not fit its schema")
    status = verify_signature(bundle.manifest_bytes, bundle.signature, trusted)
    if status.state == "signed" and bundle.tampered:
        return SignatureStatus(
            "bad",
            status.fingerprint,
            "the files do not match the manifest that was signed",
            status.trusted_as,
            tuple(bundle.tampered),
        )
    return status


# -- trusted fingerprints -------------------------------------------------------------------


def trusted_keys_path() -> Path:
    """``<data folder>/trusted-keys.json`` (``ARL_TRUSTED_KEYS`` overrides, for tests)."""
    env = os.environ.get("ARL_TRUSTED_KEYS")
    if env:
        return Path(env)
    from engine.workspace import default_home

    return default_home() / "trusted-keys.json"


#: The name the store gives this computer's own signing key (``trust_own_key``): the
#: signature line then reads "signed by you on this computer".
OWN_KEY_NAME = "you on this computer"
#: The project's release key, which signs the shipped example and demo bundles: trusted
#: by default under the project's name, so the first bundle a new user opens does not warn
#: about an unknown key. The user can remove it like any entry (``set_trusted`` with an
#: empty name leaves an empty entry behind, which keeps it removed).
PROJECT_PUBLIC_KEY = "5ZxG0nJMrFEGzrVOKtgB6shNzqqcxF19FaAAia92Cqs="
PROJECT_KEY_NAME = "the Agent Review Loop project"


def shipped_trust() -> dict[str, str]:
    """The signers trusted before the user trusts any: the project's release key."""
    return {key_id(base64.b64decode(PROJECT_PUBLIC_KEY)): PROJECT_KEY_NAME}


def load_trusted(path: Path | None = None) -> dict[str, str]:
    """Key id or fingerprint -> name: the store's entries over ``shipped_trust()``; an
    entry with an empty name (a shipped signer the user removed) is left out."""
    merged = {**shipped_trust(), **_load_raw(path)}
    return {k: v for k, v in merged.items() if v}


def _load_raw(path: Path | None = None) -> dict[str, str]:
    """The store's own entries, empty names included; {} when the file is missing or
    unreadable."""
    p = path or trusted_keys_path()
    try:
        if not p.is_file() or p.stat().st_size > 1_000_000:
            return {}
        obj = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(obj, dict):
        return {}
    return {str(k): str(v) for k, v in obj.items() if isinstance(v, str)}


def normalise_fingerprint(text: str) -> str | None:
    """``text`` as a fingerprint ("3f2a 9c01 77be 0d42"), or None when it is not 16 hex
    digits (spaces and colons are ignored)."""
    digits = "".join(ch for ch in text.lower() if ch not in " :-")
    if len(digits) != 16 or any(ch not in "0123456789abcdef" for ch in digits):
        return None
    return " ".join(digits[i : i + 4] for i in range(0, 16, 4))


def set_trusted(fp: str, name: str, path: Path | None = None) -> dict[str, str]:
    """Name a trusted fingerprint (an empty name removes it); written atomically.
    Raises ValueError for a malformed fingerprint, OSError when it cannot be written."""
    norm = normalise_fingerprint(fp)
    if norm is None:
        raise ValueError(f"{fp!r} is not a fingerprint (16 hex digits)")
    names = _load_raw(path)
    if name.strip():
        names[norm] = name.strip()
    else:  # untrust the fingerprint and every full key it is the start of
        digits = norm.replace(" ", "")
        names = {
            k: v for k, v in names.items() if k != norm and not k.startswith("sha256:" + digits)
        }
        for ident in shipped_trust():  # a shipped signer stays removed: an empty entry
            if ident.startswith("sha256:" + digits):
                names[ident] = ""
    _write_trusted(names, path)
    return {k: v for k, v in {**shipped_trust(), **names}.items() if v}


def _write_trusted(names: dict[str, str], path: Path | None = None) -> None:
    """Write the store atomically. Raises OSError."""
    p = path or trusted_keys_path()
    from engine.atomic import write_atomic

    p.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(p, json.dumps(names, indent=1, ensure_ascii=False) + "\n")
