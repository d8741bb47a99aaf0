"""Keys in the OS keyring, outside ``engine/`` (which never imports keyring).

Used by the ``arl`` command (``arl_keys.cli``, its entry point) and by the desktop program
(``app.secrets``), so both apply the one rule of ``engine.credentials`` to the same store:
``OPENAI_API_KEY`` overrides the keyring; keyring keys are stored per endpoint host.

``api_key_for(base_url) -> engine.credentials.KeyChoice``. Keyring calls can block (D-Bus,
a locked wallet): GUI code runs them in a worker thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arl_keys import store

if TYPE_CHECKING:  # engine.credentials (urllib.parse) is loaded where a key is chosen
    from collections.abc import Mapping

    from engine.credentials import KeyChoice, Lookup

__all__ = ["api_key_for", "store"]


def api_key_for(
    base_url: str | None,
    *,
    environ: Mapping[str, str] | None = None,
    session: Lookup | None = None,
) -> KeyChoice:
    """The key to send to ``base_url``: ``OPENAI_API_KEY``, else the keyring's key for its
    host, else ``session(host)``, else none. Never raises."""
    from engine.credentials import choose_api_key

    return choose_api_key(
        base_url,
        environ=environ,
        stored=store.get_key,
        session=session,
        unbound=store.has_unbound_key,
    )
