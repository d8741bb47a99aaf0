"""Chromium switches every QtWebEngine in this program runs with (no Qt import here).

Documents render with no network, down to the socket: the request interceptor
(``app.docview.DocInterceptor``) stops every fetch, but resource hints (``<link
rel=preconnect>``, ``dns-prefetch``) open connections and send DNS queries before any
request exists. So Chromium's host resolver answers "not found" for every name but the
loopback address the document server listens on (``--host-resolver-rules``: no DNS query,
no connection to any named host), background networking is off, and DNS prefetching is off;
hints that name an IP address directly are neutralised in the document itself
(``app.hints``).

The switches travel in ``QTWEBENGINE_CHROMIUM_FLAGS``: when that variable is set, QtWebEngine
ignores ``--webEngineArgs`` on the command line, and the program sets it (``--disable-gpu``
offscreen). It must be set before QtWebEngine starts (the first page or profile).
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

ENV = "QTWEBENGINE_CHROMIUM_FLAGS"
CHROMIUM_SWITCHES: tuple[str, ...] = (
    '--host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"',
    "--disable-background-networking",
    "--dns-prefetch-disable",
)


def apply(environ: MutableMapping[str, str] | None = None) -> str:
    """Add ``CHROMIUM_SWITCHES`` to ``QTWEBENGINE_CHROMIUM_FLAGS`` (once; the user's own
    flags stay first). Returns the new value."""
    env = os.environ if environ is None else environ
    flags = env.get(ENV, "")
    for switch in CHROMIUM_SWITCHES:
        name = switch.split("=", 1)[0]
        if name not in flags:
            flags = f"{flags} {switch}".strip()
    env[ENV] = flags
    return flags
