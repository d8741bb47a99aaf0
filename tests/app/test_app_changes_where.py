"""The changes view says where the reader is: the headings above the top of the view
("You are in: Policy ▸ Travel"), from the engine's outline of the merged text
(``engine.diff.marks.merged_outline``), followed as the view scrolls."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.changes_view import ChangesView, where_words
from engine.text.outline import Heading


def section(title: str, tag: str, n: int) -> str:
    body = "".join(f"<p>{title} paragraph {k} says what it says at length.</p>" for k in range(n))
    return f"<{tag}>{title}</{tag}>{body}"


V1 = (
    "<!doctype html><meta charset=utf-8><body>"
    + section("Policy", "h1", 2)
    + section("Equipment", "h2", 12)
    + section("Travel", "h2", 12)
    + section("Trains \U0001f686", "h3", 40)
    + "</body>"
)
V2 = V1.replace("<h2>Travel</h2>", "<h2>Travel and trips</h2>").replace("<h2>Equipment</h2>", "")


def js(qtbot, view, source):
    with qtbot.waitCallback(timeout=20000) as cb:
        view.run_js(source, cb)
    return cb.args[0]


@pytest.fixture
def changes(qtbot):
    v = ChangesView()
    qtbot.addWidget(v)
    v.resize(900, 500)
    v.show()
    with qtbot.waitSignal(v.view.highlighted, timeout=30000):
        v.set_bundle(V1, V2, [], "html")
        v.show_current()
    return v


def scroll_to_text(qtbot, v, words: str) -> None:
    off = v.cv.merged.index(words)
    off += sum(1 for ch in v.cv.merged[:off] if ord(ch) > 0xFFFF)  # to UTF-16 units
    js(qtbot, v.view, f"__arl.scrollToOffset({off})")


def test_the_line_follows_the_heading_above_the_top_of_the_view(qtbot, changes):
    v = changes
    assert v.where.text() == "You are in: Policy"
    assert v.where.accessibleName() == "Where you are in the document"
    scroll_to_text(qtbot, v, "Travel paragraph 5")
    qtbot.waitUntil(lambda: "Travel and trips" in v.where.text(), timeout=5000)
    assert v.where.text() == "You are in: Policy \u25b8 Travel and trips"
    scroll_to_text(qtbot, v, "Trains \U0001f686 paragraph 3")
    qtbot.waitUntil(lambda: "Trains" in v.where.text(), timeout=5000)
    assert v.where.text() == "You are in: Policy \u25b8 Travel and trips \u25b8 Trains \U0001f686"
    # A section whose heading the revision deleted says so.
    scroll_to_text(qtbot, v, "Equipment paragraph 6")
    qtbot.waitUntil(lambda: "Equipment" in v.where.text(), timeout=5000)
    assert v.where.text() == "You are in: Policy \u25b8 Equipment (deleted)"


def test_where_words_for_no_headings_and_before_the_first():
    assert where_words([], 10) == "This document has no headings."
    heads = [Heading(20, 26, 1, "Policy")]
    assert where_words(heads, 5) == "You are at the start, before the first heading."
    assert where_words(heads, 20) == "You are in: Policy"
    assert where_words(heads, None) == "You are at the start, before the first heading."
