"""A long document's first screen first (``DocumentView.show_document(first_part=True)``,
docs/gui.md "Long documents"): the server sends the first part and holds the rest until
the marks of that part are drawn; then every mark is drawn on the whole page, Find waits
for the whole text, and a jump reaches the last comment."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.docview import FIRST_BYTES, LAZY_BYTES, DocServer, first_part_end
from tests.app.test_app_viewer_lazy import badge_at_its_text, js, long_page, painted_text


@pytest.fixture(scope="module")
def page():
    return long_page(seed=5, size=LAZY_BYTES + 200_000)


def plain(spans: list[dict]) -> list[dict]:
    return [{k: v for k, v in sp.items() if k != "quote"} for sp in spans]


def show_held(qtbot, view, html, spans) -> tuple[dict, dict]:
    """Show ``html`` in two parts with ``spans``: (the firstDrawn answer, the highlighted
    answer of the whole page)."""
    firsts: list[dict] = []
    view.firstDrawn.connect(firsts.append)
    view.show_document(html, first_part=True)
    assert view.held
    with qtbot.waitSignal(view.highlighted, timeout=60000) as whole:
        view.set_highlights(plain(spans))
    assert len(firsts) == 1
    return firsts[0], whole.args[0]


def test_the_first_part_is_marked_first_then_every_mark_on_the_whole_page(qtbot, view, page):
    from engine.text.html_text import body_text

    html, text, spans = page
    first, whole = show_held(qtbot, view, html, spans)
    assert first.get("first") is True
    # Only the spans inside the part read were drawn, and none was said to fail.
    assert first["failed"] == [] and 0 < first["made"] < len(spans)
    assert first["made"] + first["later"] == len(spans)
    assert first["made"] == sum(1 for sp in spans if sp["end"] <= first["length"])
    assert first["length"] < len(text)
    assert whole["made"] == len(spans) and whole["failed"] == []
    assert js(qtbot, view, "__arl.complete()") is True
    assert js(qtbot, view, "__arl.firstPartHeld()") is True  # the part was the text's start
    with qtbot.waitCallback(timeout=20000) as cb:
        view.body_text(cb)
    assert cb.args[0] == text == body_text(html)
    # The mark in the last block, sent after the first screen, is there on its own text.
    assert painted_text(qtbot, view, spans[-1]) == spans[-1]["quote"]
    assert painted_text(qtbot, view, spans[0]) == spans[0]["quote"]


def test_jump_to_the_last_comment_of_a_held_page(qtbot, view, page):
    html, _text, spans = page
    show_held(qtbot, view, html, spans)
    last = spans[-1]
    with qtbot.waitCallback(timeout=20000) as cb:
        view.focus_span(last["id"], cb)
    assert cb.args[0] is True
    qtbot.waitUntil(lambda: badge_at_its_text(qtbot, view, last), timeout=10000)


def test_find_asked_while_the_rest_is_held_searches_the_whole_text(qtbot, view, page):
    html, _text, spans = page
    view.show_document(html, first_part=True)
    view.set_highlights(plain(spans))
    # Asked at once: the last paragraph is not even sent yet.
    with qtbot.waitCallback(timeout=60000) as cb:
        view.find_text("zebraquartz", callback=lambda n, at: cb(n, at))
    assert cb.args == [1, 0]
    with qtbot.waitCallback(timeout=20000) as cb:
        view.find_text("marker", callback=lambda n, at: cb(n, at))
    assert cb.args[0] == len(html.split("marker")) - 1


def test_a_table_open_where_the_part_ends_waits_for_the_whole_page(qtbot, view):
    """Text misplaced in a table goes before the table (foster parenting): a first part
    ending inside a table could still gain text before its own, so its marks wait."""
    from engine.text.html_text import body_text

    rows = "".join(f"<tr><td>cell {i} of the table</td></tr>" for i in range(15_000))
    html = (
        "<!doctype html><meta charset=utf-8><body><p>Before the table.</p>"
        f"<table>{rows}<tr>stray words<td>last cell</td></tr></table>"
        "<p>After the table, the end.</p></body>"
    )
    assert len(html) > LAZY_BYTES
    text = body_text(html)
    assert text.index("stray words") < text.index("cell 0 of")  # fostered before the table
    spans = []
    for i, quote in enumerate(("cell 3 of the table", "last cell", "the end")):
        s = text.index(quote)
        spans.append({"id": f"c{i}", "kind": "edited", "start": s, "end": s + len(quote)})
        spans[-1]["quote"] = quote
    first, whole = show_held(qtbot, view, html, spans)
    assert "first" not in first  # drawn with the whole page, not on the first part
    assert js(qtbot, view, "__arl.firstPartHeld()") is None
    assert whole["made"] == len(spans) and whole["failed"] == []
    for sp in spans:
        assert painted_text(qtbot, view, sp) == sp["quote"]


def test_a_short_document_or_one_not_asked_for_is_sent_whole(qtbot, view, page):
    html, _text, spans = page
    view.show_document(html)
    assert not view.held
    short, _t, _s = long_page(seed=2, size=40_000)
    view.show_document(short, first_part=True)
    assert not view.held


def test_the_first_part_ends_past_the_body_start_after_a_tag():
    head = b"<!doctype html><head><style>" + b"x" * 300_000 + b"</style></head>"
    body = b"<BODY class=a>" + b"<p>words here</p>" * 40_000
    data = head + body
    cut = first_part_end(data)
    assert len(head) + FIRST_BYTES <= cut < len(head) + FIRST_BYTES + 4096
    assert data[cut - 1 : cut] == b">"
    assert first_part_end(b"<body>" + b"a" * (FIRST_BYTES + 10)) == FIRST_BYTES + 16


def test_the_server_holds_the_rest_until_released():
    import urllib.request

    server = DocServer.instance()
    data = b"<body>" + b"<p>words here</p>" * 40_000
    url = server.add(data, hold=True)
    assert server.held(url)
    got: dict = {}

    def read():
        with urllib.request.urlopen(url.toString(), timeout=30) as r:
            got["first"] = r.read(first_part_end(data))
            got["rest"] = r.read()

    import threading

    t = threading.Thread(target=read)
    t.start()
    t.join(1.0)
    assert "first" in got and "rest" not in got  # the rest waits
    server.release(url)
    t.join(30)
    assert got["first"] + got["rest"] == data
    assert not server.held(url)
    server.remove(url)


def _opacity(qtbot, view) -> str:
    return js(qtbot, view, "getComputedStyle(document.documentElement).opacity")


def test_a_held_page_is_unseen_until_its_first_marks_are_made(qtbot, view, page):
    """The text and its marks come in one frame: a held page is transparent while its first
    part is read and the marks are not made yet (the pane's cover does not always stay on
    top of the page), and seen from the firstScreen call that makes them."""
    html, _text, spans = page
    view.show_document(html, first_part=True)
    qtbot.waitUntil(
        lambda: (
            (js(qtbot, view, "document.body ? document.body.textContent.length : 0") or 0) > 10_000
        ),
        timeout=20000,
    )
    assert _opacity(qtbot, view) == "0"
    with qtbot.waitSignal(view.firstDrawn, timeout=60000) as first:
        view.set_highlights(plain(spans))
    assert first.args[0].get("first") is True
    assert _opacity(qtbot, view) == "1"


def test_a_held_page_whose_marks_never_come_is_shown_once_loaded(qtbot, view, page):
    html, _text, _spans = page
    view.show_document(html, first_part=True)
    view.server.release(view._url)  # the rest sent, no mark asked for
    qtbot.waitUntil(lambda: js(qtbot, view, "document.readyState") == "complete", timeout=30000)
    qtbot.waitUntil(lambda: _opacity(qtbot, view) == "1", timeout=8000)


def _wait_text(qtbot, view, n: int = 10_000) -> None:
    qtbot.waitUntil(
        lambda: (js(qtbot, view, "document.body ? document.body.textContent.length : 0") or 0) > n,
        timeout=20000,
    )


@pytest.mark.parametrize(
    ("head", "attrs"),
    [
        ("<style>@layer a{html{opacity:1 !important}}</style>", ""),
        ("<style>html:root{opacity:1 !important}</style>", ""),
        ("<style>:root:root{opacity:.9 !important}</style>", ""),
        ("", "style='opacity:1 !important; color: #123'"),
    ],
)
def test_the_documents_own_css_cannot_show_a_held_page_before_its_marks(
    qtbot, view, page, head, attrs
):
    """A rule in a cascade layer, of higher specificity or in the root's own style beats
    an adopted sheet's; the root's own style set from here beats them all (an attacker's
    cases). Its own style attribute is as it was once the page is seen."""
    html, _text, spans = page
    html = html.replace("<head>", "<head>" + head, 1)
    if attrs:
        html = html.replace("<html>", f"<html {attrs}>", 1)
        assert attrs in html
    view.show_document(html, first_part=True)
    _wait_text(qtbot, view)
    assert _opacity(qtbot, view) == "0"
    with qtbot.waitSignal(view.firstDrawn, timeout=60000):
        view.set_highlights(plain(spans))
    assert float(_opacity(qtbot, view)) > 0.89
    own = js(qtbot, view, "document.documentElement.getAttribute('style') || ''")
    assert own == (attrs.split("=", 1)[1].strip("'") if attrs else "")


@pytest.mark.parametrize(
    "css",
    ["html{transition:opacity 0s 30s}", "*{transition:all 3s linear}"],
)
def test_the_documents_transitions_neither_delay_nor_fade_the_reveal(qtbot, view, page, css):
    html, _text, spans = page
    view.show_document(html.replace("<head>", f"<head><style>{css}</style>", 1), first_part=True)
    _wait_text(qtbot, view)
    with qtbot.waitSignal(view.firstDrawn, timeout=60000):
        view.set_highlights(plain(spans))
    assert _opacity(qtbot, view) == "1"
    qtbot.wait(300)
    assert _opacity(qtbot, view) == "1"


def test_a_first_screen_of_more_ranges_than_a_spread_takes(qtbot, view, page):
    """60,000 marks of one kind on the first part: a Highlight made by spreading them
    overflowed the call stack, the page showed no mark and the rest waited 20 s."""
    html, _text, _spans = page
    many = [
        {"id": f"z{i}", "kind": "edited", "start": 10 + i % 1000, "end": 11 + i % 1000}
        for i in range(60_000)
    ]
    view.show_document(html, first_part=True)
    with qtbot.waitSignal(view.firstDrawn, timeout=60000) as first:
        view.set_highlights(many)
    assert first.args[0].get("made") == 60_000
    assert not view.server.held(view._url)
    assert js(qtbot, view, "CSS.highlights.size") >= 1
