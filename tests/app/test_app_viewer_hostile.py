"""Hostile documents in the viewer: no network at the socket level (preconnect, DNS
prefetch, prefetch, preload), no trust in page globals (DOM clobbering), and a pane that
says so when highlighting fails."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import replace

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.hints import neutralise_hints


class Listener:
    """A TCP listener on 127.0.0.1 that counts every connection made to it."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        self.sock.close()


@pytest.fixture
def listener():
    lst = Listener()
    yield lst
    lst.close()


def load(qtbot, view, raw, kind="html"):
    with qtbot.waitSignal(view.rendered, timeout=20000) as blocker:
        view.show_document(raw, kind)
    return blocker.args[0]


def hints_page(port: int) -> str:
    url = f"http://127.0.0.1:{port}"
    links = "".join(
        f"<link rel={rel} href='{url}/{i}'{extra}>"
        for i, (rel, extra) in enumerate(
            [
                ("preconnect", ""),
                ("preconnect", " crossorigin"),
                ('"dns-prefetch"', ""),
                ("'PreConnect'", ""),
                ('"stylesheet preconnect"', ""),
                ("prefetch", ""),
                ("preload", " as=style"),
                ("preload", " as=font crossorigin"),
                ("modulepreload", ""),
                ("prerender", ""),
                ("next", ""),
            ]
        )
    )
    return (
        f"<!doctype html><html><head><meta charset=utf-8>{links}"
        f"<LINK REL=PRECONNECT HREF='{url}/upper'>"
        f"<link\nrel\n=\npreconnect\nhref={url}/newlines></head>"
        f"<body><p>A document with hints.</p><link rel=preconnect href='{url}/body'>"
        f"<svg><link rel=preconnect href='{url}/svg'/></svg></body></html>"
    )


def test_no_connection_from_resource_hints(qtbot, view, listener):
    """preconnect / dns-prefetch / prefetch / preload must not open a socket (a local
    listener sees every TCP connection; it must see none)."""
    load(qtbot, view, hints_page(listener.port).encode("utf-8"))
    # Also through a document given as already-decoded text and as UTF-16 bytes.
    load(qtbot, view, hints_page(listener.port))
    load(qtbot, view, b"\xff\xfe" + hints_page(listener.port).encode("utf-16-le"))
    deadline = time.monotonic() + 2.5
    while time.monotonic() < deadline:
        qtbot.wait(100)
    assert listener.connections == 0


def test_the_listener_does_see_a_connection():
    """The listener test above can fail: a plain connection is counted."""
    lst = Listener()
    try:
        socket.create_connection(("127.0.0.1", lst.port), timeout=2).close()
        deadline = time.monotonic() + 2
        while lst.connections == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lst.connections == 1
    finally:
        lst.close()


def test_neutralise_hints_keeps_the_text_and_drops_the_hints():
    raw = hints_page(9).encode("utf-8")
    out = neutralise_hints(raw)
    assert b"preconnect" in out  # the attribute value stays; the attribute is renamed
    assert b'arl="preconnect"' in out  # the start tag written again from the parse
    assert not any(
        f"rel={v}".encode() in out.lower()
        for v in ("preconnect", '"dns-prefetch"', "prefetch", "preload")
    )
    keep = b"<link rel=stylesheet href=x><link rel=icon href=y><p>rel=preconnect</p>"
    assert neutralise_hints(keep) == keep


def test_named_hosts_are_never_resolved_even_if_a_hint_got_through(qtbot, view, listener):
    """Second guard (Chromium's host resolver answers 'not found' for every name): a hint
    naming localhost, served without the neutralising pass, still opens no socket."""
    page = (
        f"<link rel=preconnect href='http://localhost:{listener.port}/'>"
        f"<link rel=dns-prefetch href='http://localhost:{listener.port}/'><p>x</p>"
    ).encode()
    url = view.server.add(b"<p>placeholder</p>")
    docs = view.server._server.docs
    docs[url.path()] = replace(
        docs[url.path()], body=page, ctype="text/html; charset=utf-8", cut=len(page)
    )
    view._page.allowed_url = url
    with qtbot.waitSignal(view._page.loadFinished, timeout=20000):
        view._page.load(url)
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        qtbot.wait(100)
    assert listener.connections == 0


CLOBBER = (
    "<!doctype html><html><head><meta charset=utf-8></head><body>"
    "<p id='__arl'>One</p><img name='body'><form name='createRange'></form>"
    "<img name='createTreeWalker'><img name='createElement'><img name='getElementById'>"
    "<img name='documentElement'><img name='head'><img id='addEventListener'>"
    "<img id='qt'><img id='QWebChannel'><form id='CSS'></form>"
    "<p>The target phrase is here.</p></body></html>"
)


def test_clobbered_page_globals_do_not_stop_the_helper(qtbot, view):
    from engine.text.html_text import body_text

    assert load(qtbot, view, CLOBBER.encode("utf-8")) is True
    text = body_text(CLOBBER)
    start = text.index("target phrase")
    spans = [{"id": "c1", "kind": "edited", "start": start, "end": start + 13, "label": "1"}]
    with qtbot.waitSignal(view.highlighted, timeout=10000) as blocker:
        view.set_highlights(spans)
    assert blocker.args[0].get("made") == 1 and blocker.args[0].get("failed") == []
    assert view.problem == "" and not view.notice.isVisible()
    with qtbot.waitCallback(timeout=10000) as cb:
        view.body_text(cb)
    assert cb.args[0] == text
    with qtbot.waitCallback(timeout=10000) as cb:
        view.select_offsets(start, start + 13, cb)
    assert cb.args[0] is True
    with qtbot.waitCallback(timeout=10000) as cb:
        view.selection_anchor(cb)
    assert cb.args[0]["quote"] == "target phrase"


def test_marks_that_cannot_be_placed_are_said_on_the_pane(qtbot, view):
    assert load(qtbot, view, b"<p>short text</p>") is True
    spans = [
        {"id": "a", "kind": "edited", "start": 0, "end": 5, "label": "1"},
        {"id": "b", "kind": "edited", "start": 500, "end": 600, "label": "2"},
    ]
    with qtbot.waitSignal(view.problemChanged, timeout=10000) as blocker:
        view.set_highlights(spans)
    assert "1 of 2 marks points outside" in blocker.args[0]
    assert view.notice.isVisible() and "could not all be drawn" in view.notice.text()
    # a new document clears the notice
    load(qtbot, view, b"<p>another</p>")
    assert not view.notice.isVisible()


def test_a_helper_that_never_starts_is_said_on_the_pane(qtbot, view, monkeypatch):
    from app import docview

    monkeypatch.setattr(docview, "HELPER_PRESENT", "false")
    view.bridge.ready.disconnect()
    view.set_highlights([{"id": "a", "kind": "edited", "start": 0, "end": 3}])
    with qtbot.waitSignal(view.highlighted, timeout=20000) as blocker:
        view.show_document(b"<p>text here</p>")
        view.set_highlights([{"id": "a", "kind": "edited", "start": 0, "end": 3}])
    assert "did not start" in blocker.args[0]["error"]
    assert view.notice.isVisible() and "did not start" in view.notice.text()


def hostile_markdown(port: int) -> str:
    """A Markdown file whose raw HTML tries to run script and to fetch from ``port``."""
    here = f"http://127.0.0.1:{port}"
    return (
        "# A memo\n\nThe budget is **ten** million, wrapped\nover two lines.\n\n"
        f'<img src="{here}/raw.png" onerror="document.title=\'ran\'">\n\n'
        f"![alt text]({here}/md.png)\n\n"
        "<script>document.title='ran'</script>\n\n"
        f'<link rel="stylesheet" href="{here}/s.css">\n\n'
        f'<div style="background:url({here}/bg.png)">styled words</div>\n\n'
        f'<iframe src="{here}/frame"></iframe>\n\n'
        f'<object data="{here}/obj"></object><video src="{here}/v.mp4"></video>\n\n'
        f'<meta http-equiv="refresh" content="0;url={here}/away">\n\n'
        f"<style>@import url({here}/imp.css);</style>\n\n"
        "| a | b |\n|---|---|\n| cell one | cell two |\n"
    )


def test_markdown_raw_html_runs_nothing_and_loads_nothing(qtbot, view, listener):
    from engine.score.scoring import Version

    source = hostile_markdown(listener.port)
    assert load(qtbot, view, source, "markdown") is True
    url = view.url()
    qtbot.wait(1500)  # time for any fetch, refresh or handler to happen
    with qtbot.waitCallback(timeout=10000) as cb:
        view.body_text(cb)
    engine_text = Version.from_source(source, "markdown").text
    assert cb.args[0] == engine_text  # the reader's page is the scored text
    assert "ten million, wrapped over two lines." in engine_text
    assert "<script>document.title='ran'</script>" in engine_text  # shown as text
    with qtbot.waitCallback(timeout=10000) as cb:
        view.run_js("document.title", cb)
    assert cb.args[0] == ""  # no handler, no script ran (the page's title is empty)
    assert listener.connections == 0
    assert view.url() == url  # the refresh was refused, the memo is still shown


def test_a_reviewer_selection_in_rendered_markdown_is_an_anchor_on_its_text(qtbot, view):
    from engine.score.scoring import Version
    from engine.text import utf16

    source = "# Memo\n\nSpend *up to*\n**two days** per week. 中文\n内容\n"
    load(qtbot, view, source, "markdown")
    text = Version.from_source(source, "markdown").text
    assert "up to two days per week. 中文内容" in text
    for quote in ("up to two days", "中文内容"):
        start = utf16.to_utf16(text, text.index(quote))
        end = start + utf16.utf16_length(quote)
        with qtbot.waitSignal(
            view.anchorSelected, timeout=10000, check_params_cb=lambda a: bool(a)
        ) as blocker:
            view.select_offsets(start, end)
        anchor = blocker.args[0]
        assert anchor["quote"] == quote
        assert (anchor["start_offset"], anchor["end_offset"]) == (start, end)
