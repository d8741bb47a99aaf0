"""The API key of the desktop program: the one rule of ``engine.credentials``.

``OPENAI_API_KEY`` overrides the keyring (explicit beats stored); keyring keys are stored
per endpoint host (``arl_keys.store``: service ``agent-review-loop``, account
``api-key@<host>``), the same entries ``arl`` reads; a key is never sent to a host it was
not saved for. When no keyring works the caller shows a plain message and may keep the key
for this session only (``keep_for_session``), in memory, per host, never on disk.

Keyring calls can block (D-Bus, a locked wallet): GUI code runs them in an executor.
"""

from __future__ import annotations

from arl_keys import api_key_for, store
from arl_keys.store import NO_KEYRING_MESSAGE, KeyringUnavailable, backend_name, keyring_works
from engine.credentials import ENV_VAR, KeyChoice, key_host
from engine.redact import remember

__all__ = [
    "ENV_VAR",
    "NO_KEYRING_MESSAGE",
    "KeyChoice",
    "KeyringUnavailable",
    "backend_name",
    "delete_key",
    "get_key",
    "keep_for_session",
    "key_host",
    "keyring_works",
    "save_key",
]

_session_keys: dict[str, str] = {}


def choose_key(base_url: str | None) -> KeyChoice:
    """The key for ``base_url`` with where it came from and the host (never raises). The
    key is registered with ``engine.redact``: never shown or stored from then on."""
    choice = api_key_for(base_url, session=_session_keys.get)
    remember(choice.key)
    return choice


def get_key(base_url: str | None) -> tuple[str | None, str]:
    """The key for ``base_url`` and where it came from: ``env``, ``keyring``, ``session``
    or ``none``. Never raises: a failing keyring falls through to the session key."""
    choice = choose_key(base_url)
    return choice.key, choice.source


def save_key(key: str, base_url: str) -> None:
    """Store ``key`` in the OS keyring for ``base_url``'s host. Raises KeyringUnavailable
    when none works, ValueError when the URL names no host."""
    remember(key)
    store.set_key(key_host(base_url), key)


def delete_key(base_url: str | None = None) -> None:
    """Forget the key for ``base_url``'s host (keyring and session); None: every session
    key and the host-less entry of earlier versions."""
    if base_url is None:
        _session_keys.clear()
        store.delete_key(None)
        return
    host = key_host(base_url)
    _session_keys.pop(host, None)
    store.delete_key(host)


def keep_for_session(key: str | None, base_url: str | None = None) -> None:
    """Keep ``key`` in memory for ``base_url``'s host for this process only (when no keyring
    works); a None key forgets it (with no URL: forgets every session key)."""
    if base_url is None:
        if key:
            raise ValueError("a session key is kept for an endpoint: give its URL")
        _session_keys.clear()
        return
    host = key_host(base_url)
    if key:
        remember(key)
        _session_keys[host] = key
    else:
        _session_keys.pop(host, None)
