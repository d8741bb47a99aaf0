"""Chromium switches every QtWebEngine in this program runs with (no Qt import here).

Documents render with no network, down to the socket: the request interceptor
(``app.docview.DocInterceptor``) stops every fetch, but resource hints (``<link
rel=preconnect>``, ``dns-prefetch``) open connections and send DNS queries before any
request exists. So Chromium's host resolver answers "not found" for every name but the
loopback address the document server listens on (``--host-resolver-rules``: no DNS query,
no connection to any named host), background networking is off, and DNS prefetching is off;
hints are neutralised in the document itself on a real HTML5 parse (``app.hints``).

Loopback is unreachable from the page except the document server's own origin: every
connection goes through a proxy that is a port of ours bound but never listening (so any
connection to it is refused at once, and nothing else can take the port), and only the
document server's ``127.0.0.1:<port>`` bypasses it (``--proxy-bypass-list`` with
``<-loopback>``, which removes Chromium's implicit loopback bypass). A hint naming
``127.0.0.1:<any other port>`` that got past ``app.hints`` opens no connection there. The
document server's port is reserved here, before QtWebEngine starts (``reserved_socket``),
and ``app.docview.DocServer`` listens on it.

The switches travel in ``QTWEBENGINE_CHROMIUM_FLAGS``: when that variable is set, QtWebEngine
ignores ``--webEngineArgs`` on the command line, and the program sets it (``--disable-gpu``
offscreen). It must be set before QtWebEngine starts (the first page or profile).
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import MutableMapping

ENV = "QTWEBENGINE_CHROMIUM_FLAGS"
CHROMIUM_SWITCHES: tuple[str, ...] = (
    '--host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"',
    "--disable-background-networking",
    "--dns-prefetch-disable",
)

_document: socket.socket | None = None  # bound for the document server, not yet listening
_document_port: int | None = None  # its port, kept after the server took the socket
_dead_end: socket.socket | None = None  # bound, never listening: the proxy of everything else
#: This program's own proxy switches, as a parent process (the program, a test run) may
#: have left them in the inherited environment: they name that process's ports, so they
#: are replaced by this process's own, never kept.
_OURS = re.compile(
    r"\s*--proxy-server=http://127\.0\.0\.1:\d+(?=\s|$)"
    r'|\s*--proxy-bypass-list="<-loopback>;127\.0\.0\.1:\d+"'
)


def _bound() -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    return s


def document_port() -> int:
    """The port reserved for the document server (reserved on first call)."""
    global _document, _document_port
    if _document_port is None:
        _document = _bound()
        _document_port = int(_document.getsockname()[1])
    return _document_port


def reserved_socket() -> socket.socket | None:
    """The bound socket of ``document_port`` for the document server to listen on (once;
    None after it was taken or when ``apply`` did not reserve one)."""
    global _document
    s, _document = _document, None
    return s


def loopback_switches() -> tuple[str, ...]:
    """The proxy switches that keep the page off every loopback port but the document
    server's (see the module doc)."""
    global _dead_end
    if _dead_end is None:
        _dead_end = _bound()
    dead = _dead_end.getsockname()[1]
    return (
        f"--proxy-server=http://127.0.0.1:{dead}",
        f'--proxy-bypass-list="<-loopback>;127.0.0.1:{document_port()}"',
    )


def apply(environ: MutableMapping[str, str] | None = None) -> str:
    """Add ``CHROMIUM_SWITCHES`` and ``loopback_switches`` to ``QTWEBENGINE_CHROMIUM_FLAGS``
    (once; the user's own flags stay first, a ``--proxy-server`` of the user's own is kept
    and then the loopback switches are not added; this program's own switches inherited
    from a parent process are replaced by this process's). Returns the new value."""
    env = os.environ if environ is None else environ
    flags = _OURS.sub("", env.get(ENV, "")).strip()
    switches = CHROMIUM_SWITCHES
    if "--proxy-server" not in flags:
        switches += loopback_switches()
    for switch in switches:
        name = switch.split("=", 1)[0]
        if name not in flags:
            flags = f"{flags} {switch}".strip()
    env[ENV] = flags
    return flags
