"""The API key: OS keyring first, ``OPENAI_API_KEY`` overrides, memory as a last resort.

One fixed service and account (as Maestral does): service ``agent-review-loop``, account
``api-key``. Every keyring call is guarded: on a headless Linux box even ``get_password``
raises ``NoKeyringError``. When no keyring works the caller shows a plain message and may
keep the key for this session only (``keep_for_session``), in memory, never on disk.

Keyring calls can block (D-Bus, a locked wallet): GUI code runs them in an executor.
"""

from __future__ import annotations

import os

import keyring
from keyring.errors import KeyringError, NoKeyringError, PasswordDeleteError

SERVICE = "agent-review-loop"
ACCOUNT = "api-key"
ENV_VAR = "OPENAI_API_KEY"

NO_KEYRING_MESSAGE = (
    "This computer has no working password store (keyring), so the API key cannot be "
    "saved. You can keep it for this session only: it stays in memory and is forgotten "
    "when the program closes."
)

_session_key: str | None = None


class KeyringUnavailable(RuntimeError):
    """No keyring backend works. ``str()`` is the plain message for people."""

    def __init__(self, detail: str = ""):
        self.detail = detail
        super().__init__(NO_KEYRING_MESSAGE)


def backend_name() -> str:
    """The keyring backend's name, e.g. ``SecretService Keyring``, or why there is none."""
    try:
        kr = keyring.get_keyring()
    except Exception as exc:
        return f"unavailable ({exc})"
    name = getattr(kr, "name", None) or type(kr).__name__
    if type(kr).__module__.startswith("keyring.backends.fail"):
        return f"{name} (no usable keyring)"
    return str(name)


def keyring_works() -> bool:
    try:
        keyring.get_password(SERVICE, ACCOUNT)
        return not type(keyring.get_keyring()).__module__.startswith("keyring.backends.fail")
    except (NoKeyringError, KeyringError, RuntimeError):
        return False


def get_key() -> tuple[str | None, str]:
    """The key and where it came from: ``env``, ``keyring``, ``session`` or ``none``.

    Never raises: a failing keyring falls through to the session key.
    """
    env = os.environ.get(ENV_VAR)
    if env:
        return env, "env"
    try:
        stored = keyring.get_password(SERVICE, ACCOUNT)
    except (NoKeyringError, KeyringError, RuntimeError):
        stored = None
    if stored:
        return stored, "keyring"
    if _session_key:
        return _session_key, "session"
    return None, "none"


def save_key(key: str) -> None:
    """Store ``key`` in the OS keyring. Raises KeyringUnavailable when none works."""
    try:
        keyring.set_password(SERVICE, ACCOUNT, key)
    except (NoKeyringError, KeyringError, RuntimeError) as exc:
        raise KeyringUnavailable(str(exc)) from exc


def delete_key() -> None:
    """Forget the key everywhere this program keeps it (keyring and session)."""
    global _session_key
    _session_key = None
    try:
        keyring.delete_password(SERVICE, ACCOUNT)
    except (PasswordDeleteError, NoKeyringError, KeyringError, RuntimeError):
        pass


def keep_for_session(key: str | None) -> None:
    """Keep ``key`` in memory for this process only (when no keyring works)."""
    global _session_key
    _session_key = key or None
