"""The one credentials rule of ``arl`` and the desktop program: which API key a run sends.

**An environment variable overrides the keyring** (explicit beats stored, as the ``gh``
and AWS command-line tools do):

1. ``OPENAI_API_KEY`` set and not empty: that key, for whatever endpoint the user named
   (setting it is the user's explicit choice for this process);
2. else the key stored for the endpoint's host (``key_host``): keys are stored per host,
   so a key saved for ``api.openai.com`` is never sent to ``127.0.0.1:8089`` or any other
   host it was not saved for;
3. else a key kept in memory for this session for that host (the desktop program, when no
   keyring works);
4. else no key (local servers need none).

The engine never touches a keyring (docs/conventions.md, layers): callers pass the stored
and session look-ups as callables (``arl_keys`` for the CLI, ``app.secrets`` for the
desktop program). Look-ups that raise count as "nothing stored there".
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

ENV_VAR = "OPENAI_API_KEY"

KeySource = Literal["env", "keyring", "session", "none"]
Lookup = Callable[[str], str | None]

_DEFAULT_PORTS = {"http": 80, "https": 443}


def key_host(base_url: str | None) -> str:
    """The host a key is stored for: the URL's host in lower case, with ``:port`` when the
    port is not the scheme's default (``https://API.openai.com:443/v1`` ->
    ``api.openai.com``; ``http://127.0.0.1:8089/v1`` -> ``127.0.0.1:8089``). User info is
    dropped. "" when the URL names no host or cannot be parsed."""
    if not base_url:
        return ""
    try:
        parts = urlsplit(base_url.strip())
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return ""
    if not host:
        return ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    if port is not None and port != _DEFAULT_PORTS.get(parts.scheme.lower()):
        return f"{host}:{port}"
    return host


@dataclass(frozen=True)
class KeyChoice:
    """The key a run sends (``None``: none) and where it came from. ``host``: the endpoint's
    ``key_host``. ``note``: a plain sentence when a stored key was deliberately not used.
    ``repr`` never shows the key."""

    key: str | None
    source: KeySource
    host: str
    note: str = ""

    def __repr__(self) -> str:
        return f"KeyChoice(source={self.source!r}, host={self.host!r})"

    def describe(self) -> str:
        """Where the key came from, never the key: ``OPENAI_API_KEY``, ``keyring (saved for
        api.openai.com)``, ``session (for ...)``, ``none``."""
        words = {
            "env": ENV_VAR,
            "keyring": f"keyring (saved for {self.host})",
            "session": f"session (kept for {self.host})",
            "none": "none",
        }[self.source]
        return f"{words}; {self.note}" if self.note else words


def _safe(lookup: Lookup | None, host: str) -> str | None:
    if lookup is None or not host:
        return None
    try:
        value = lookup(host)
    except Exception:  # a locked or missing keyring means "nothing stored there"
        return None
    return value or None


def choose_api_key(
    base_url: str | None,
    *,
    environ: Mapping[str, str] | None = None,
    stored: Lookup | None = None,
    session: Lookup | None = None,
    unbound: Callable[[], bool] | None = None,
) -> KeyChoice:
    """Apply the rule above for an endpoint. ``environ``: default ``os.environ``.
    ``stored(host)`` / ``session(host)``: the key kept for that host, or None.
    ``unbound()``: True when a key saved without a host exists (an earlier version's single
    keyring entry); it is never sent, and the choice's note says so."""
    env = (os.environ if environ is None else environ).get(ENV_VAR, "")
    host = key_host(base_url)
    if env.strip():
        return KeyChoice(env.strip(), "env", host)
    if key := _safe(stored, host):
        return KeyChoice(key, "keyring", host)
    if key := _safe(session, host):
        return KeyChoice(key, "session", host)
    note = ""
    if unbound is not None:
        try:
            has_unbound = unbound()
        except Exception:
            has_unbound = False
        if has_unbound:
            note = (
                "a key saved by an earlier version for no particular endpoint is not sent; "
                f"save it again for {host or 'this endpoint'} or set {ENV_VAR}"
            )
    return KeyChoice(None, "none", host, note)


def is_loopback_host(host: str) -> bool:
    """True for a ``key_host`` on this computer: ``localhost`` (and ``*.localhost``),
    ``127.0.0.0/8`` and ``::1``, with or without a port."""
    import ipaddress

    name = host.rsplit(":", 1)[0] if host.count(":") == 1 or host.startswith("[") else host
    name = name.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def sent_to_words(base_url: str | None) -> str:
    """Where a run sends the document and its comments, in one sentence for its log."""
    host = key_host(base_url) or str(base_url or "the model's server")
    if is_loopback_host(host):
        return (
            f"The document and its comments stay on this computer (the model's server is {host})."
        )
    return f"The document and its comments are sent to {host}, the model's server."
