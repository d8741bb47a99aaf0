"""Rendering untrusted documents: a loopback server and a locked-down QWebEngineView.

Documents under review are untrusted (docs/gui.md):

- ``DocServer`` serves each document's bytes from memory on 127.0.0.1 (random port) under an
  unguessable path, with ``Content-Security-Policy: script-src 'none'``: every page script is
  blocked while the HTML parser's scripting flag stays on, so ``<noscript>`` parses as raw
  text and the page's ``document.body.textContent`` equals the engine's ``body_text``.
- ``DocumentView`` uses an off-the-record profile whose request interceptor blocks every URL
  except the document's own path (and ``data:``); it refuses navigation and new windows.
- Our own scripts (``qwebchannel.js`` and ``resources/web/arl-page.js``) run in the isolated
  ApplicationWorld. The bridge is one QObject, ``PageBridge``, with ``@Slot(str)`` JSON methods.

Offsets exchanged with the page count UTF-16 code units into body textContent.

Why this module is long: the loopback server, the locked-down profile and its interceptor,
the page bridge and the view are the one security boundary around untrusted documents;
they are kept together so it can be reviewed in one read.
"""

from __future__ import annotations

import atexit
import http.server
import json
import logging
import re
import secrets
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from PySide6.QtCore import QFile, QIODevice, QObject, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineScript,
    QWebEngineSettings,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
)
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QLabel

from app import webflags
from engine import vocabulary as vocab

webflags.apply()  # before QtWebEngine starts: no preconnect or DNS prefetch to any name
log = logging.getLogger(__name__)
WORLD = QWebEngineScript.ScriptWorldId.ApplicationWorld
# Page names can be clobbered (an element with id="__arl" is window.__arl): the helper is
# there only as an own property of the isolated world's window, and the body text is read
# through the prototypes' getters, which no element can shadow.
HELPER_PRESENT = "Object.prototype.hasOwnProperty.call(window, '__arl')"


def _found(result: Any) -> tuple[int, int]:
    """The page's find answer ``{count, at}`` as ``(count, at)``; ``(0, -1)`` for anything
    else (no helper, a page that answered nothing)."""
    if not isinstance(result, dict):
        return 0, -1
    count, at = _whole(result.get("count")), _whole(result.get("at"))
    if count is None or count <= 0:
        return 0, -1
    return count, at if at is not None and 0 <= at < count else -1


def _whole(value: Any) -> int | None:
    """A JavaScript number that is a whole number, as an int (None otherwise)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value) if float(value).is_integer() else None


PRISTINE_BODY_TEXT = (
    "(function(){var b=Object.getOwnPropertyDescriptor(Document.prototype,'body')"
    ".get.call(document);return b?Object.getOwnPropertyDescriptor(Node.prototype,"
    "'textContent').get.call(b):'';})()"
)
# A document longer than this (bytes of its source, or characters) is laid out as it is
# seen (arl-early.js): Chromium lays out and paints only the blocks on screen. Below it the
# whole page is laid out at once, which takes no time worth saving.
LAZY_BYTES = 512_000
# A long document shown with its first screen first (``show_document(first_part=True)``) is
# served in two parts: about this many bytes of its body at once, the rest once the marks of
# that first part are drawn (``DocServer.release``), or after HOLD_SECONDS at most.
FIRST_BYTES = 128_000
HOLD_SECONDS = 20.0


# "shadowroot" as bytes in an ASCII-compatible encoding and in UTF-16 (either byte order,
# a NUL beside each letter); see _declares_shadow_root.
_SHADOW_ROOT_WORDS = tuple(
    "shadowroot".encode(codec) for codec in ("ascii", "utf-16-le", "utf-16-be")
)


def _declares_shadow_root(raw: bytes | str) -> bool:
    """Whether ``raw`` (a document's bytes, or its text) says ``shadowroot`` in any case:
    where it may declare a shadow root (``<template shadowrootmode>``, or the older
    ``shadowroot`` attribute). A mention anywhere counts (the cost is only speed).
    Lowered, then searched (8 ms on 5 MB; a case-blind pattern took 54): no character
    but an ASCII one lowers to one of the word's letters (tests/app/test_app_viewer_grouped.py)."""
    if isinstance(raw, str):
        return "shadowroot" in raw.lower()
    lowered = raw.lower()  # bytes: ASCII letters alone, so UTF-16's too
    return any(word in lowered for word in _SHADOW_ROOT_WORDS)


CSP = (
    "script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; "
    "frame-src 'none'; worker-src 'none'"
)

# -------------------------------------------------------------------------------------------
# Verdict styles: Okabe-Ito colours (colour-blind safe), and never colour alone: each kind
# has its own underline style, an icon and a label (the words from engine.vocabulary).
# -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpanStyle:
    label: str
    icon: str
    line: str  # underline / badge colour
    bg: str  # translucent fill
    style: str  # CSS text-decoration-style
    badge_text: str = "#000000"
    description: str = ""


# The Okabe-Ito hues (colour-blind safe), each at a relative luminance between 0.18 and
# 0.29: every mark has 3:1 against a white page and against the dark theme's base (WCAG
# 1.4.11), and black badge text on it has 4.5:1 (1.4.3); tests/app/test_app_theme.py
# checks both. Vermilion and bluish green are Okabe-Ito's own; blue, reddish purple and
# orange are the same hues made darker or lighter; the neutral "comment" (an unverified
# mark, a comment in the wizard) is a grey.
STYLES: dict[str, SpanStyle] = {
    "edited": SpanStyle(
        vocab.VERDICT_LABELS["edited"],
        vocab.VERDICT_ICONS["edited"],
        "#009E73",
        "rgba(0,158,115,.22)",
        "solid",
        description=vocab.VERDICT_MEANINGS["edited"],
    ),
    "untouched": SpanStyle(
        vocab.VERDICT_LABELS["untouched"],
        vocab.VERDICT_ICONS["untouched"],
        "#D55E00",
        "rgba(213,94,0,.22)",
        "wavy",
        description=vocab.VERDICT_MEANINGS["untouched"],
    ),
    "deleted": SpanStyle(
        vocab.VERDICT_LABELS["deleted"],
        vocab.VERDICT_ICONS["deleted"],
        "#0084CE",
        "rgba(0,132,206,.20)",
        "double",
        description=vocab.VERDICT_MEANINGS["deleted"],
    ),
    "stale_anchor": SpanStyle(
        vocab.VERDICT_LABELS["stale_anchor"],
        vocab.VERDICT_ICONS["stale_anchor"],
        "#C15B94",
        "rgba(193,91,148,.22)",
        "dotted",
        description=vocab.VERDICT_MEANINGS["stale_anchor"],
    ),
    "comment": SpanStyle(
        "comment",
        "\u270d",
        "#7F7F7F",
        "rgba(127,127,127,.22)",
        "solid",
        description="a review comment",
    ),
    "collateral": SpanStyle(
        "changed outside every anchor",
        "\u25b3",
        "#A97500",
        "rgba(230,159,0,.28)",
        "dashed",
        description="text the agent changed that no comment points at",
    ),
}


# What changed between two versions (``engine.diff.marks``), drawn over the verdict
# marks: deleted text struck through (in the earlier version), inserted text with a thick
# underline (in the later one); the legend names both, so colour is never the only cue.
CHANGE_STYLES: dict[str, dict[str, str | int]] = {
    "removed": {
        "bg": "rgba(179,27,27,.14)",
        "line": "#B31B1B",
        "style": "solid",
        "deco": "line-through",
        "thick": "2px",
        "priority": 2,
    },
    "added": {
        "bg": "rgba(0,90,181,.12)",
        "line": "#005AB5",
        "style": "solid",
        "deco": "underline",
        "thick": "3px",
        "priority": 2,
    },
    # The document's own tracked changes, a layer the reviewer toggles (app.tracked_layer)
    "tracked": {
        "bg": "rgba(0,0,0,0)",
        "line": "#6A3D9A",
        "style": "dotted",
        "deco": "underline",
        "thick": "2px",
        "priority": 3,
    },
    "untracked": {
        "bg": "rgba(0,0,0,0)",
        "line": "#B31B1B",
        "style": "wavy",
        "deco": "underline",
        "thick": "2px",
        "priority": 3,
    },
}
CHANGE_WORDS = {
    "removed": "struck through: deleted",
    "added": "underlined: inserted",
}


def style_spec(underline: bool = True) -> dict[str, dict[str, str | int]]:
    """The ``kinds`` object for ``__arl.highlight`` (JS): the verdict kinds and the change
    kinds. ``underline`` False draws the verdict kinds as a fill alone (the changes view,
    where an underline means inserted text)."""
    spec: dict[str, dict[str, str | int]] = {
        k: {
            "bg": s.bg,
            "line": s.line,
            "style": s.style,
            "badge": s.line,
            "badgeText": s.badge_text,
            **({} if underline else {"deco": "none"}),
        }
        for k, s in STYLES.items()
    }
    spec.update(CHANGE_STYLES)
    return spec


# -------------------------------------------------------------------------------------------
# Loopback server
# -------------------------------------------------------------------------------------------


@dataclass
class _Doc:
    """A registered document: its bytes and Content-Type; ``cut`` (bytes) is where its
    first part ends, the rest sent once ``released`` is set (a document not held: ``cut``
    is its length and ``released`` is set)."""

    body: bytes
    ctype: str
    cut: int
    released: threading.Event


def first_part_end(data: bytes) -> int:
    """Where the first part of a held document ends (bytes): FIRST_BYTES past its
    ``<body`` (or its start), moved to just after the next ``>`` when one is near; the
    whole length when the rest would be short. Only a size: the page checks that the part
    it read keeps its text (``arl-page.js`` ``firstScreen``)."""

    m = re.search(rb"<body[\s>/]", data[:4_000_000], re.IGNORECASE)
    cut = (m.start() if m else 0) + FIRST_BYTES
    if cut >= len(data) - FIRST_BYTES:
        return len(data)
    close = data.find(b">", cut, cut + 4096)
    return close + 1 if close >= 0 else cut


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self):
        doc = self.server.docs.get(self.path)
        if doc is None:
            self.send_error(404)
            return
        body, ctype = doc.body, doc.ctype
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        if doc.cut < len(body):
            self.wfile.write(body[: doc.cut])
            self.wfile.flush()
            doc.released.wait(HOLD_SECONDS)
            self.wfile.write(body[doc.cut :])
        else:
            self.wfile.write(body)

    def log_message(self, *args: Any) -> None:  # quiet
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    docs: dict[str, _Doc]

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A page that went away mid-answer (a new document replaced it) is not an error:
        nothing on the user's terminal for it."""
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def content_type(raw: bytes, kind: str) -> str:
    """The Content-Type for a document, with the charset the engine decoded it with.

    The engine decides the encoding (``engine.text.encoding.decode_html``: BOM, else the
    ``<meta charset>`` prescan, else UTF-8 when valid, else windows-1252; ``decode_text``
    for plain text). Sending that decision as the transport charset makes the browser
    decode exactly as the engine did: a BOM still wins in the browser (as in the engine),
    and the HTTP charset overrides any ``<meta>`` the browser might read differently
    (a ``content=`` without ``http-equiv``, an unknown label, a late declaration).
    """
    from engine.text.encoding import decode_html, decode_text

    if kind in ("text", "txt", "plain"):
        return f"text/plain; charset={decode_text(raw)[1]}"
    return f"text/html; charset={decode_html(raw)[1]}"


def _without_hints(raw: bytes | str) -> bytes | str:
    """``raw`` with its resource hints neutralised (``app.hints``), as already-decoded text
    when anything changed; ``raw`` itself when nothing did, or when the change would alter
    the body text the engine extracts (then the Chromium switches of ``app.webflags`` are
    the only guard, and the log says so)."""
    from app.hints import neutralise_hints
    from engine.text.encoding import decode_html
    from engine.text.html_text import body_text

    if isinstance(raw, bytes):
        if raw.find(b"<") < 0:
            return raw
        text = decode_html(raw)[0]
    else:
        text = raw
    new = neutralise_hints(text)
    if new is text or new == text:
        from app.hints import live_hints

        if live_hints(text):
            log.warning("resource hints left in place: the proxy switches are the guard")
        return raw
    if body_text(new) != body_text(raw):
        log.warning("resource hints left in place: neutralising them would change the text")
        return raw
    return new


def _markdown_page(raw: bytes | str) -> str:
    """The page a Markdown source renders to (bytes decoded as the engine decodes text)."""
    from engine.text.encoding import decode_text
    from engine.text.markdown import markdown_page

    return markdown_page(decode_text(raw)[0] if isinstance(raw, bytes) else raw)


class DocServer:
    """Serves registered documents on 127.0.0.1:random port, one unguessable path each."""

    _instance: DocServer | None = None

    def __init__(self) -> None:
        reserved = webflags.reserved_socket()  # the one port the page may reach
        if reserved is None:
            self._server = _Server(("127.0.0.1", 0), _Handler)
        else:
            self._server = _Server(reserved.getsockname(), _Handler, bind_and_activate=False)
            self._server.socket.close()
            self._server.socket = reserved
            self._server.server_address = reserved.getsockname()
            self._server.server_activate()
        self._server.docs = {}
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="arl-docserver", daemon=True
        )
        self._thread.start()

    @classmethod
    def instance(cls) -> DocServer:
        if cls._instance is None:
            cls._instance = DocServer()
        return cls._instance

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(self, raw: bytes | str, kind: str = "html", hold: bool = False) -> QUrl:
        """Register a document; returns its URL. ``kind``: html, text or markdown.

        ``hold``: serve its first part at once and the rest after ``release(url)`` (or
        HOLD_SECONDS), when it is long enough to have a rest (``first_part_end``).

        ``raw`` as bytes is served as it is (the browser decodes it by the engine's rules);
        ``raw`` as str was already decoded, so it is served as UTF-8 and says so in the
        header, which takes precedence over any ``<meta charset>`` inside it. Markdown is
        served as the page the engine renders it to
        (``engine.text.markdown.markdown_page``), whose body text the engine scores.
        """
        if kind == "markdown":
            raw, kind = _markdown_page(raw), "html"
        if kind not in ("text", "txt", "plain"):
            raw = _without_hints(raw)
        if isinstance(raw, str):
            data = raw.encode("utf-8", "surrogatepass")
            ctype = content_type(data, kind)
            if ctype.startswith("text/html"):
                ctype = "text/html; charset=utf-8"
        else:
            data, ctype = raw, content_type(raw, kind)
        path = f"/d/{secrets.token_urlsafe(24)}/"
        released = threading.Event()
        cut = first_part_end(data) if hold else len(data)
        if cut >= len(data):
            released.set()
        self._server.docs[path] = _Doc(data, ctype, cut, released)
        return QUrl(self.origin + path)

    def first_part_bytes(self, url: QUrl) -> int:
        """How many bytes of the document at ``url`` its first part has (all of them for
        one not held; 0 for one not registered)."""
        doc = self._server.docs.get(url.path())
        return 0 if doc is None else doc.cut

    def held(self, url: QUrl) -> bool:
        """Whether the document at ``url`` is served in two parts and the rest still
        waits."""
        doc = self._server.docs.get(url.path())
        return doc is not None and not doc.released.is_set()

    def release(self, url: QUrl) -> None:
        """Send the rest of a held document (nothing for one that is not held)."""
        doc = self._server.docs.get(url.path())
        if doc is not None:
            doc.released.set()

    def remove(self, url: QUrl) -> None:
        doc = self._server.docs.pop(url.path(), None)
        if doc is not None:
            doc.released.set()  # a page still reading it gets the rest and goes

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if DocServer._instance is self:
            DocServer._instance = None


# -------------------------------------------------------------------------------------------
# Profile, interceptor, page
# -------------------------------------------------------------------------------------------


class DocInterceptor(QWebEngineUrlRequestInterceptor):
    """Blocks every request except the loopback server's document paths and ``data:``."""

    def __init__(self, origin: str, parent: QObject | None = None):
        super().__init__(parent)
        self.origin = origin
        self.blocked: list[str] = []

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        url = info.requestUrl()
        if url.scheme() == "data":
            return
        s = url.toString()
        if s.startswith(self.origin + "/d/"):
            return
        if len(self.blocked) < 1000:
            self.blocked.append(s[:200])
        info.block(True)


_profile: QWebEngineProfile | None = None
_scripts_source: str | None = None


def _read_qwebchannel_js() -> str:
    f = QFile(":/qtwebchannel/qwebchannel.js")
    if not f.open(QIODevice.OpenModeFlag.ReadOnly):
        raise RuntimeError("qwebchannel.js not found in Qt resources")
    try:
        return bytes(f.readAll().data()).decode("utf-8")
    finally:
        f.close()


def page_script_source() -> str:
    """arl-early.js, qwebchannel.js and arl-page.js, in that order, as one script run in the
    ApplicationWorld when the document is created (before it is parsed): arl-early.js lays
    a long document's blocks out as they are seen and reserves the badges' room;
    arl-page.js gives a held page (#arl-first) its helper at once and any other page once
    it is read whole."""
    global _scripts_source
    if _scripts_source is None:
        web = resources.files("resources").joinpath("web")
        _scripts_source = "\n;\n".join(
            (
                web.joinpath("arl-early.js").read_text("utf-8"),
                _read_qwebchannel_js(),
                web.joinpath("arl-page.js").read_text("utf-8"),
            )
        )
    return _scripts_source


def document_profile() -> QWebEngineProfile:
    """The shared off-the-record profile for untrusted documents (created once)."""
    global _profile
    if _profile is None:
        from PySide6.QtWidgets import QApplication

        server = DocServer.instance()
        profile = QWebEngineProfile(QApplication.instance())  # no storage name: off the record
        profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.MemoryHttpCache)
        profile.setPersistentCookiesPolicy(
            QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies
        )
        profile.setSpellCheckEnabled(False)
        interceptor = DocInterceptor(server.origin, profile)
        profile.setUrlRequestInterceptor(interceptor)
        profile._arl_interceptor = interceptor  # keep a Python reference
        s = profile.settings()
        A = QWebEngineSettings.WebAttribute
        for attr, on in (
            (A.JavascriptEnabled, True),  # page scripts are stopped by CSP
            (A.JavascriptCanOpenWindows, False),
            (A.JavascriptCanAccessClipboard, False),
            (A.LocalContentCanAccessRemoteUrls, False),
            (A.LocalContentCanAccessFileUrls, False),
            (A.PluginsEnabled, False),
            (A.PdfViewerEnabled, False),
            (A.AutoLoadIconsForPage, False),
            (A.HyperlinkAuditingEnabled, False),
            (A.FocusOnNavigationEnabled, False),
            (A.DnsPrefetchEnabled, False),
            (A.NavigateOnDropEnabled, False),
            (A.WebGLEnabled, False),
        ):
            s.setAttribute(attr, on)
        script = QWebEngineScript()
        script.setName("arl-page")
        script.setSourceCode(page_script_source())
        script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
        script.setWorldId(WORLD)
        script.setRunsOnSubFrames(False)
        profile.scripts().insert(script)
        _profile = profile
    return _profile


class PageBridge(QObject):
    """The one object the page's isolated world can reach. Slots take JSON strings."""

    selection = Signal(object)  # dict anchor or None
    ready = Signal(int)  # body textContent length, UTF-16 units

    @Slot(str)
    def selectionChanged(self, payload: str) -> None:
        try:
            self.selection.emit(json.loads(payload))
        except ValueError:
            self.selection.emit(None)

    @Slot(str)
    def pageReady(self, payload: str) -> None:
        try:
            self.ready.emit(int(json.loads(payload).get("length", 0)))
        except (ValueError, AttributeError):
            self.ready.emit(0)


_pages: weakref.WeakSet = weakref.WeakSet()


def _release_pages() -> None:
    """At exit, delete the pages before their profile (QtWebEngine warns otherwise)."""
    import shiboken6

    for page in list(_pages):
        try:
            if shiboken6.isValid(page):
                shiboken6.delete(page)
        except RuntimeError:
            pass


atexit.register(_release_pages)


class DocumentPage(QWebEnginePage):
    """Loads one URL and refuses every other navigation and every new window."""

    def __init__(self, profile: QWebEngineProfile, parent: QObject | None = None):
        super().__init__(profile, parent)
        _pages.add(self)
        self.allowed_url: QUrl | None = None
        self.refused: list[str] = []

    def acceptNavigationRequest(self, url, nav_type, is_main_frame) -> bool:
        if (
            self.allowed_url is not None
            and url == self.allowed_url
            and nav_type
            in (
                QWebEnginePage.NavigationType.NavigationTypeTyped,
                QWebEnginePage.NavigationType.NavigationTypeReload,
                QWebEnginePage.NavigationType.NavigationTypeOther,
            )
        ):
            return True
        if len(self.refused) < 100:
            self.refused.append(url.toString()[:200])
        return False

    def createWindow(self, _type):
        return None

    def javaScriptConsoleMessage(self, level, message, line, source):
        pass  # page messages are untrusted noise


# -------------------------------------------------------------------------------------------
# The view
# -------------------------------------------------------------------------------------------


class DocumentView(QWebEngineView):
    """Shows one untrusted document with highlights painted by offsets.

    Signals: ``rendered(ok)`` after the page loaded and our script is ready;
    ``highlighted(dict)`` after ``set_highlights`` was applied (``made``, ``failed``);
    ``firstDrawn(dict)`` once per document, when its first screen shows its marks (a held
    first part's, ``first`` True, or the whole page's, the same dict as ``highlighted``);
    ``anchorSelected(dict|None)`` with the anchor of the user's selection (UTF-16 offsets,
    quote/prefix/suffix from the page's own textContent).
    """

    rendered = Signal(bool)
    highlighted = Signal(object)
    firstDrawn = Signal(object)
    anchorSelected = Signal(object)
    problemChanged = Signal(str)  # why marks are missing here ("" once they are all drawn)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.server = DocServer.instance()
        self._page = DocumentPage(document_profile(), self)
        self.setPage(self._page)
        self.bridge = PageBridge(self)
        self.channel = QWebChannel(self)
        self.channel.registerObject("bridge", self.bridge)
        self._page.setWebChannel(self.channel, WORLD)
        self.bridge.selection.connect(self.anchorSelected)
        self.bridge.ready.connect(self._on_bridge_ready)
        self._page.loadFinished.connect(self._on_load_finished)
        self.setContextMenuPolicy(self.contextMenuPolicy().NoContextMenu)
        self.setAcceptDrops(False)
        self._url: QUrl | None = None
        self.lazy = False  # the page shown is laid out as it is seen (LAZY_BYTES)
        self.held = False  # the page shown came in two parts (first_part)
        self._first_said = True  # firstDrawn was emitted for the page shown
        self._first_asking = False  # a firstScreen call is on its way to the page
        self._first_tries = 0
        self._first_length = -1  # the text length the last "wait" answer had
        self._finds: list[tuple[str, bool, Callable[[Any], None] | None]] = []
        self._pending: dict | None = None
        self.in_flight = 0  # highlight calls sent to the page and not answered yet
        self.is_ready = False
        self.length = 0
        self._loaded_ok = False
        self.scriptErrors: list[str] = []
        self.problem = ""
        self.notice = QLabel(self)
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.notice.setWordWrap(True)
        self.notice.setAccessibleName("Problem with this pane's marks")
        self.notice.setStyleSheet(
            "background:#FFF4CE;color:#3B2300;border-bottom:1px solid #C8A600;padding:6px;"
        )
        self.notice.setVisible(False)
        # Covers the previous document at once while the next one loads and gets its marks
        # (Chromium keeps showing the old page until the new one paints).
        self.cover = QLabel("Loading the document and its marks\u2026", self)
        self.cover.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.cover.setAutoFillBackground(True)
        self.cover.setStyleSheet("background: palette(base); color: palette(placeholder-text);")
        self.cover.setVisible(False)

    # -- loading --------------------------------------------------------------------------

    def show_document(
        self,
        raw: bytes | str,
        kind: str = "html",
        labels: bool = True,
        snap: bool = False,
        dark: bool = False,
        first_part: bool = False,
    ) -> None:
        """Render ``raw`` (bytes of an HTML document, or text for ``kind`` text; Markdown
        source for ``kind`` markdown, shown rendered).

        ``labels``: leave room above each line for verdict badges from the first layout;
        ``snap``: the user's selections snap to whole words and lose their end spaces (Alt
        keeps them exact); ``dark``: mark the page's root ``arl-dark`` (this program's own
        pages, the scorecard, have dark rules under it; a document under review keeps its
        colours). A document over ``LAZY_BYTES`` is laid out as it is seen
        (``resources/web/arl-early.js``: its text blocks get ``content-visibility:auto``;
        the text, its offsets, Find and the marks are the same). ``first_part``: such a
        document comes in two parts, its first screen first (``FIRST_BYTES``): the marks
        given to ``set_highlights`` are drawn on the first part as soon as the page has
        it (``firstDrawn``), then the rest is sent, and every mark is drawn on the whole
        page (``highlighted``), as for any page. The URL fragment tells our page scripts;
        nothing reaches the server.
        """
        if self._url is not None:
            self.server.remove(self._url)
        self.is_ready = False
        self._loaded_ok = False
        self._set_problem("")
        self._show_cover(True)
        self.lazy = len(raw) > LAZY_BYTES
        # (a long document that declares a shadow root keeps its blocks where they are: a
        # group would take their place in a slot; any mention of one counts)
        nogroup = self.lazy and _declares_shadow_root(raw)
        self._url = self.server.add(raw, kind, hold=first_part and self.lazy)
        self.held = self.server.held(self._url)
        self._first_said = False
        self._first_tries, self._first_length = 0, -1
        self._answer_finds()  # a find still waiting for the page replaced
        if self.held:
            url = self._url
            QTimer.singleShot(int(HOLD_SECONDS * 1000), self, lambda: self.server.release(url))
        fragment = "-".join(
            f
            for f, on in (
                ("arl-labels", labels),
                ("arl-snap", snap),
                ("arl-lazy", self.lazy),
                ("arl-first", self.held),
                ("arl-dark", dark),
                ("arl-nogroup", nogroup),
            )
            if on
        )
        if fragment:
            self._url.setFragment(fragment)
        self._page.allowed_url = self._url
        self._page.load(self._url)

    def show_message(self, text: str) -> None:
        """Show a plain sentence in place of a document (nothing to render)."""
        import html as _html

        self.show_document(
            "<!doctype html><meta charset=utf-8><body style='font:15px system-ui,sans-serif;"
            "color:#444;margin:2em'><p>" + _html.escape(text) + "</p></body>",
            labels=False,
        )

    def _on_load_finished(self, ok: bool) -> None:
        if not ok and (self.is_ready or self._loaded_ok):
            # A navigation away from the loaded document (a <meta http-equiv="refresh">,
            # even to its own URL) was refused: Chromium reports the refused load as a
            # failure, but the document is still shown and its marks stand.
            return
        self._loaded_ok = ok
        if not ok:
            self._set_problem("the document could not be loaded")
            self._answer_finds()
            self.rendered.emit(False)
            return
        # The bridge normally says "ready" itself; ask explicitly too in case the channel
        # connected before loadFinished was seen.
        self._asks = 0
        self._ask_length()

    def _ask_length(self) -> None:
        self.run_js(HELPER_PRESENT + " ? __arl.length() : -1", self._on_length)

    def _on_length(self, n: Any) -> None:
        if self.is_ready or not self._loaded_ok:
            return
        if isinstance(n, (int, float)) and n >= 0:
            self._on_bridge_ready(int(n))
            return
        # The helper has not started (yet): ask again a few times, then say so.
        self._asks = getattr(self, "_asks", 0) + 1
        if self._asks < 6:
            QTimer.singleShot(250, self, self._ask_length)
            return
        self._set_problem("the page helper did not start")
        self._answer_finds()
        if self._pending is not None:
            self._pending = None
            self.highlighted.emit({"error": "the page helper did not start"})

    def _on_bridge_ready(self, length: int) -> None:
        # Only the current page counts: a late message from the page being replaced
        # arrives before this load finished and is ignored.
        if self.is_ready or not self._loaded_ok:
            return
        self.is_ready = True
        self.length = length
        self.rendered.emit(True)
        if self._pending is not None:
            spec, self._pending = self._pending, None
            self._apply(spec)
        else:
            self._show_cover(False)
        finds, self._finds = self._finds, []
        for words, backward, callback in finds:
            self.find_text(words, backward, callback)

    # -- page scripts -----------------------------------------------------------------------

    def run_js(self, source: str, callback: Callable[[Any], None] | None = None) -> None:
        """Run the expression ``source`` in the isolated ApplicationWorld.

        The value travels as JSON (objects made in an isolated world do not convert to
        Python directly); ``callback`` gets the decoded value, None on a script error.
        """
        wrapped = (
            "(function(){try{return JSON.stringify({v:(" + source + ")});}"
            "catch(e){return JSON.stringify({e:String(e)});}})()"
        )
        if callback is None:
            self._page.runJavaScript(wrapped, WORLD)
            return

        def done(result: Any) -> None:
            try:
                obj = json.loads(result) if isinstance(result, str) else {}
            except ValueError:
                obj = {}
            if "e" in obj:
                self.scriptErrors.append(obj["e"])
            callback(obj.get("v"))

        self._page.runJavaScript(wrapped, WORLD, done)

    def set_highlights(
        self, spans: list[dict], labels: bool = True, underline: bool = True
    ) -> None:
        """Paint ``spans`` ({id, kind, start, end, label?}; UTF-16 offsets) once ready.
        ``underline`` False: verdict kinds as a fill alone (``style_spec``)."""
        spec = {"kinds": style_spec(underline), "spans": spans, "labels": labels}
        if not self.is_ready:
            self._pending = spec
            if self.held and not self._first_said:
                self._ask_first()
            return
        self._apply(spec)

    # -- the first screen of a held page -----------------------------------------------------

    def _ask_first(self) -> None:
        """Draw the marks waiting (``_pending``) on the first part of a held page
        (``__arl.firstScreen``); the rest of the page is sent once they are drawn, or once
        the page says they cannot be (a table open where the part ends, a part that does
        not fill the view). Asked again every 50 ms while the page has not read its first
        part yet, 100 times at most."""
        if self._first_asking or self._first_said or self._pending is None or self._url is None:
            return
        if not self.server.held(self._url):
            return  # the rest was sent: the whole page draws them (``_on_bridge_ready``)
        self._first_asking = True
        url, path = self._url, self._url.path()
        # A character of the body text (one or two UTF-16 units) comes from at least as many
        # bytes of the page, in every encoding: a span ending past the first part's bytes
        # cannot be in its text, and is not sent.
        cut = self.server.first_part_bytes(url)
        spans = self._pending.get("spans") or []
        sent = [sp for sp in spans if isinstance(sp.get("end"), int) and sp["end"] <= cut]
        source = (
            f"{HELPER_PRESENT} ? __arl.firstScreen({json.dumps(self._pending | {'spans': sent})},"
            f" {json.dumps(path)}) : {{wait: 'no helper yet'}}"
        )

        def done(r: Any) -> None:
            self._first_asking = False
            if url != self._url or self._first_said:
                return
            if not isinstance(r, dict):  # no answer (a script error): the whole page draws them
                self.server.release(url)
                return
            if r.get("complete"):
                return  # the whole page is read: it draws them itself
            if r.get("first") and isinstance(r.get("made"), int):
                r["later"] = int(r.get("later") or 0) + len(spans) - len(sent)
                self._first_drawn(r)
                self.server.release(url)
                return
            self._first_tries += 1
            length = r.get("length")
            stalled = isinstance(length, int) and length > 0 and length == self._first_length
            self._first_length = length if isinstance(length, int) else -1
            if r.get("unsafe") or stalled or self._first_tries >= 100:
                log.info("first part not drawn alone: %s", r.get("unsafe") or r.get("wait"))
                self.server.release(url)
                return
            QTimer.singleShot(50, self, self._ask_first)

        self.run_js(source, done)

    def _first_drawn(self, result: dict) -> None:
        if self._first_said:
            return
        self._first_said = True
        self._show_cover(False)
        self.firstDrawn.emit(result)

    def _apply(self, spec: dict) -> None:
        total = len(spec.get("spans") or [])
        self.in_flight += 1

        def done(r: Any) -> None:
            self.in_flight -= 1
            if not isinstance(r, dict) or not isinstance(r.get("made"), int):
                detail = self.scriptErrors[-1] if self.scriptErrors else "no answer"
                r = {"error": f"a script error ({detail[:120]})"}
                self._set_problem(f"the page helper failed: {detail[:120]}")
            elif r.get("failed"):
                n = len(r["failed"])
                verb = "points" if n == 1 else "point"
                self._set_problem(
                    f"{n} of {total} mark{'s' if total != 1 else ''} {verb} outside this "
                    "version's text"
                )
            else:
                self._set_problem("")
            self._show_cover(False)
            self._first_drawn(r)
            self.highlighted.emit(r)

        self.run_js("__arl.highlight(" + json.dumps(spec) + ")", done)

    def set_loading(self, on: bool) -> None:
        """Cover the pane with "Loading the document and its marks..." (or uncover it)."""
        self._show_cover(on)

    def _show_cover(self, on: bool) -> None:
        self.cover.setVisible(on)
        if on:
            self.cover.setGeometry(self.rect())
            self.cover.raise_()
            self.notice.raise_()

    def _set_problem(self, reason: str) -> None:
        """Say on the pane itself that the marks are missing or incomplete (``reason``;
        empty hides the notice)."""
        self.problem = reason
        if reason:
            self._show_cover(False)
            self.notice.setText(
                f"\u26a0 The marks could not all be drawn here: {reason}. "
                "The table lists every verdict."
            )
            self.notice.setVisible(True)
            self._place_notice()
            self.notice.raise_()
        else:
            self.notice.setVisible(False)
        self.problemChanged.emit(reason)

    def _place_notice(self) -> None:
        self.notice.setFixedWidth(max(self.width(), 100))
        self.notice.adjustSize()
        self.notice.move(0, 0)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if self.notice.isVisible():
            self._place_notice()
        if self.cover.isVisible():
            self.cover.setGeometry(self.rect())

    def focus_span(self, span_id: str, callback: Callable[[Any], None] | None = None) -> None:
        """Scroll to the span ``span_id`` and mark it; callback gets True if it exists."""
        self.run_js("__arl.focus(" + json.dumps(span_id) + ")", callback)

    def find_text(
        self, words: str, backward: bool = False, callback: Callable[[Any], None] | None = None
    ) -> None:
        """Go to the next (``backward``: previous) match of ``words`` in the page's text,
        laid out or not, every match painted, the current one underlined; "" clears.
        ``callback`` gets ``(count, at)``: the number of matches and the 0-based index of
        the current one (``(0, -1)`` when none, or the helper is not there). Asked
        before the page is read whole (a held page's rest still coming), it is answered
        once it is, over the whole text."""
        if not self.is_ready and self._url is not None and not self.problem:
            self._finds.append((words, backward, callback))
            return
        source = f"__arl.find({json.dumps(words)}, {'true' if backward else 'false'})"
        self.run_js(
            HELPER_PRESENT + " ? " + source + " : null",
            None if callback is None else (lambda r: callback(*_found(r))),
        )

    def _answer_finds(self) -> None:
        """Answer the finds waiting for a page that will not be read: nothing found."""
        finds, self._finds = self._finds, []
        for _words, _backward, callback in finds:
            if callback is not None:
                callback(0, -1)

    def top_offset(self, callback: Callable[[Any], None]) -> None:
        """The UTF-16 offset of the first character at the top of the view (None when
        there is none), for panes that scroll together."""
        self.run_js(HELPER_PRESENT + " ? __arl.topOffset() : null", callback)

    def top_place(self, callback: Callable[[Any], None]) -> None:
        """Where the first character at the top of the view stands: ``{"off": UTF-16
        offset, "y": CSS px below the view's top, "top": the page is at its very top}``,
        or None when there is none."""
        self.run_js(HELPER_PRESENT + " ? __arl.topPlace() : null", callback)

    def link_quiet(self, seconds: float, hold: int) -> None:
        """The page counts no move of the text at its top for ``seconds`` (the scroll link
        is about to move it, or a comment was picked: ``app/scroll_link.py``), and counts
        again from 0 after it; ``hold``: the link's number for this hold."""
        ms = float(seconds) * 1000
        self.run_js(HELPER_PRESENT + f" ? __arl.linkQuiet({ms!r}, {int(hold)}) : false")

    def scroll_to_offset(self, offset: int, y: float | None = None) -> None:
        """Scroll so that the character at UTF-16 ``offset`` stands ``y`` CSS px below the
        top of the view (None: at the top)."""
        at = "undefined" if y is None else repr(float(y))
        self.run_js(HELPER_PRESENT + f" ? __arl.scrollToOffset({int(offset)}, {at}) : false")

    def scroll_to_top(self) -> None:
        self.run_js("window.scrollTo({top: 0, left: 0, behavior: 'instant'})")

    def select_span(self, span_id: str, callback: Callable[[Any], None] | None = None) -> None:
        self.run_js("__arl.selectSpan(" + json.dumps(span_id) + ")", callback)

    def select_offsets(
        self, start: int, end: int, callback: Callable[[Any], None] | None = None
    ) -> None:
        self.run_js(f"__arl.selectOffsets({int(start)}, {int(end)})", callback)

    def selection_anchor(self, callback: Callable[[Any], None]) -> None:
        self.run_js("__arl.selectionAnchor()", callback)

    def body_text(self, callback: Callable[[Any], None]) -> None:
        """The page's own ``document.body.textContent``."""
        self.run_js(PRISTINE_BODY_TEXT, callback)

    def blocked_requests(self) -> list[str]:
        return list(document_profile()._arl_interceptor.blocked)

    def closeEvent(self, event):
        if self._url is not None:
            self.server.remove(self._url)
        super().closeEvent(event)
