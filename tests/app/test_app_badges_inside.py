"""A verdict badge stands above its text; for text on the view's first line (the page's
first line, or a line the view is scrolled to) it came out above the view's top edge and
was cut; brought down over the top of its line, it hid the line's first words. It now
stands under its text's first box, inside the view, while its text is in view, and covers
neither its own line's text nor the next line's (``resources/web/arl-page.js``,
``keepBadgesInside``)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.docview import DocumentView

PARAS = 60


def page(margin: str) -> tuple[str, list[dict]]:
    """A page of ``PARAS`` paragraphs with no margin above its first line
    (``body{margin:<margin>}``) and one span on each paragraph's first word."""
    parts, spans, at = [], [], 0
    for k in range(PARAS):
        text = f"Word{k:02d} of paragraph {k} says what it says."
        parts.append(f"<p style='margin:0'>{text}</p>")
        spans.append(
            {"id": f"c{k}", "kind": "edited", "start": at, "end": at + 6, "label": f"\u270e {k}"}
        )
        at += len(text)
    html = (
        "<!doctype html><html><head><meta charset=utf-8><title>t</title></head>"
        f"<body style='margin:{margin}'>" + "".join(parts) + "</body></html>"
    )
    return html, spans


def js(qtbot, view, source):
    with qtbot.waitCallback(timeout=20000) as cb:
        view.run_js(source, cb)
    return cb.args[0]


@pytest.fixture
def view(qtbot):
    v = DocumentView()
    qtbot.addWidget(v)
    v.resize(700, 400)
    v.show()
    return v


def show(qtbot, view, html, spans):
    with qtbot.waitSignal(view.rendered, timeout=60000):
        view.show_document(html)
    with qtbot.waitSignal(view.highlighted, timeout=60000):
        view.set_highlights(spans)


def boxes(qtbot, view) -> dict:
    js(qtbot, view, "new Promise(function(ok){requestAnimationFrame(ok)}) && 0")
    qtbot.wait(150)  # the badges are drawn again on the frame after a scroll
    return js(qtbot, view, "__arl.badgeBoxes()")


def text_top(qtbot, view, sp) -> float:
    return js(qtbot, view, f"__arl.rangeFor({sp['start']},{sp['end']}).getClientRects()[0].top")


def text_box(qtbot, view, sp) -> tuple[float, float]:
    """The top and bottom of the first box of ``sp``'s text (viewport CSS px)."""
    rect = f"__arl.rangeFor({sp['start']},{sp['end']}).getClientRects()[0]"
    return tuple(js(qtbot, view, f"[{rect}.top, {rect}.bottom]"))


def hides_no_text(qtbot, view, spans, k: int, box) -> None:
    """``box`` (a badge's [top, bottom]) covers neither span ``k``'s line nor the next."""
    top, bottom = box
    for line in (k, k + 1):
        t, b = text_box(qtbot, view, spans[line])
        assert bottom <= t or top >= b, (line, box, (t, b))


def test_the_first_lines_badge_is_inside_the_page(qtbot, view):
    html, spans = page("0")
    show(qtbot, view, html, spans)
    got = boxes(qtbot, view)
    assert got["c0"][0] >= 0, got["c0"]  # was about -3: cut by the pane's top edge
    hides_no_text(qtbot, view, spans, 0, got["c0"])
    # The others stand above their text, as before.
    top = text_top(qtbot, view, spans[3])
    assert abs(got["c3"][1] - (top - 1)) <= 2


def test_a_badge_on_the_line_scrolled_to_the_top_stays_inside_the_view(qtbot, view):
    html, spans = page("8px")
    show(qtbot, view, html, spans)
    sp = spans[30]
    js(qtbot, view, f"__arl.scrollToOffset({sp['start']})")  # its line at the very top
    assert text_top(qtbot, view, sp) < 10
    got = boxes(qtbot, view)
    assert got[sp["id"]][0] >= 0, got[sp["id"]]
    # it came down over the first words of its line; now under them, clear of the next
    hides_no_text(qtbot, view, spans, 30, got[sp["id"]])
    assert got[sp["id"]][0] < text_box(qtbot, view, spans[31])[0]  # still by its own line


def test_a_chosen_comments_outline_stays_inside_the_view_too(qtbot, view):
    html, spans = page("0")
    show(qtbot, view, html, spans)
    with qtbot.waitCallback(timeout=20000) as cb:
        view.focus_span("c0", cb)
    got = boxes(qtbot, view)
    assert got["c0"][0] >= 4  # the 3 px outline and its 1 px offset fit above it
    t, b = text_box(qtbot, view, spans[0])
    assert got["c0"][0] >= b + 4  # ... and between it and its text
