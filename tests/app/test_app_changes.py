"""What changed, as Word's Compare shows it: the changes view (one document, deletions
struck through, insertions underlined, comments on top, a round picker), the same marks in
the side-by-side panes and the detail table, panes that scroll together, find and zoom."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.changes_view import merged_page, merged_spans, version_pairs
from app.inline_changes import change_cells
from app.window import MainWindow
from engine.diff.marks import change_view

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "remote-work-policy-scripted"


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1366, 768)
    w.show()
    with qtbot.waitSignal(w.verdicts.rendered, timeout=30000):
        assert w.open_bundle(DEMO)
    qtbot.waitUntil(lambda: w.verdicts.change_cv is not None, timeout=15000)
    return w


def _js(qtbot, view, source):
    box = {}
    view.run_js(source, lambda v: box.setdefault("v", v))
    qtbot.waitUntil(lambda: "v" in box, timeout=10000)
    return box["v"]


def test_round_picker_lists_all_changes_then_each_round(window):
    data = window.data
    labels = [p.label for p in version_pairs(data.v1, data.v2, data.rounds)]
    assert labels[0].startswith("All changes: v1 to")
    assert labels[1:] == ["Round 1: v1 to round 1", "Round 2: round 1 to round 2"]
    picker = window.verdicts.changes.picker
    assert [picker.itemText(i) for i in range(picker.count())] == labels


def test_changes_view_shows_one_document_with_del_and_ins(qtbot, window):
    v = window.verdicts
    with qtbot.waitSignal(v.changes.view.highlighted, timeout=20000) as sig:
        v.tools.show_mode(1)
    cv = v.changes.cv
    # The page's text is the merged text exactly, so the comment marks land where meant.
    text = _js(qtbot, v.changes.view, "__arl.bodyText()")
    assert text == cv.merged
    dels = _js(
        qtbot, v.changes.view, "[].map.call(document.querySelectorAll('del'), e => e.textContent)"
    )
    ins = _js(
        qtbot, v.changes.view, "[].map.call(document.querySelectorAll('ins'), e => e.textContent)"
    )
    assert dels == [m.text for m in cv.marks if m.kind == "deleted"]
    assert ins == [m.text for m in cv.marks if m.kind == "inserted"]
    # Never colour alone: each mark is struck through or underlined, and says what it is.
    deco = _js(
        qtbot,
        v.changes.view,
        "[getComputedStyle(document.querySelector('del')).textDecorationLine,"
        " getComputedStyle(document.querySelector('ins')).textDecorationLine,"
        " document.querySelector('del').title]",
    )
    assert deco[0] == "line-through" and deco[1] == "underline" and deco[2] == "deleted"
    # Every comment with a place in v1 or v2 is painted, with its badge.
    assert sig.args[0]["failed"] == []
    assert sig.args[0]["made"] == 4  # the demo's four comments with a place (one is stale)
    assert "3 deletions, 2 insertions" in v.changes.summary.text()
    assert "struck through" in v.changes.legend.text()


def test_a_round_pair_is_diffed_on_its_own(qtbot, window):
    v = window.verdicts
    v.tools.show_mode(1)
    qtbot.waitUntil(lambda: v.changes.cv is not None, timeout=15000)
    with qtbot.waitSignal(v.changes.view.highlighted, timeout=20000):
        v.changes.picker.setCurrentIndex(2)
    pair = v.changes.pairs[2]
    assert (pair.left, pair.right) == ("round 1", "round 2")
    assert "round 1 to round 2" in v.changes.summary.text()
    # No comment marks between two rounds: the verdicts are for v1 and the last version.
    assert merged_spans(v.changes.cv, pair, [{"id": "c1", "start": 0, "end": 3}], []) == []


def test_side_by_side_panes_strike_and_underline_the_changes(qtbot, window):
    v = window.verdicts
    cv = v.change_cv
    removed, added = v._change_spans()
    assert [s["kind"] for s in removed] == ["removed"] * sum(m.kind == "deleted" for m in cv.marks)
    assert [s["kind"] for s in added] == ["added"] * sum(m.kind == "inserted" for m in cv.marks)
    qtbot.waitUntil(lambda: v.last_highlight.get("v1", {}).get("made", 0) > 4, timeout=15000)
    css = _js(qtbot, v.v1, "document.getElementById(__arl.ns + '-style').textContent")
    assert "line-through" in css and "-removed" in css
    css2 = _js(qtbot, v.v2, "document.getElementById(__arl.ns + '-style').textContent")
    assert "-added" in css2


def test_detail_table_marks_what_changed_inside_the_comment(window):
    c1, c2 = change_cells("up to two days per week", "up to three days per week")
    assert "line-through" in c1 and "underline" not in c1
    assert "underline" in c2 and "line-through" not in c2
    # Escaped: text is text.
    c1, c2 = change_cells("<b>x</b>", "<b>y</b>")
    assert "<b>" not in c1 and "&lt;b&gt;" in c1
    html = window.verdicts.detail.toHtml()
    assert "line-through" in html


def test_merged_page_escapes_and_keeps_the_first_newline(qtbot):
    cv = change_view("\nA <script>x</script> one", "\nA <script>x</script> two")
    page = merged_page(cv, "text")
    assert "<script>" not in page.split("<pre>")[1]
    assert "<pre>\n\n" in page  # the parser drops the first newline after <pre>, not ours


def test_panes_scroll_together_by_the_alignment_and_can_be_unlinked(qtbot, window):
    v = window.verdicts
    link = v.tools.link
    assert link.alignment is v.change_cv
    # Room to scroll: the window at its least height (the panes are 384 px at 1366x768,
    # the demo's v1 454 px, and the first comment's jump has already taken v1 to its end).
    window.resize(1366, 420)
    qtbot.waitUntil(lambda: v.v1.height() < 300, timeout=5000)
    qtbot.wait(300)
    room = _js(qtbot, v.v1, "document.documentElement.scrollHeight - innerHeight - scrollY")
    assert room > 100  # scrolling to 400 moves v1 down
    before = link.followed
    link._quiet.clear()
    link._moves.clear()
    v.v1.page().runJavaScript("window.scrollTo(0, 400)")
    qtbot.waitUntil(lambda: link.followed > before, timeout=10000)
    qtbot.wait(300)
    top1 = _js(qtbot, v.v1, "__arl.topOffset()")
    top2 = _js(qtbot, v.v2, "__arl.topOffset()")
    assert top1 is not None and top2 is not None
    # The top of v2 is the text aligned with the top of v1 (same line, give or take).
    assert abs(v.change_cv.b_for_a(top1) - top2) < 120
    v.tools.together.setChecked(False)
    assert link.enabled is False
    n = link.followed
    v.v1.page().runJavaScript("window.scrollTo(0, 0)")
    qtbot.wait(500)
    assert link.followed == n


def test_find_goes_to_the_matching_comment_and_counts_matches(qtbot, window):
    v = window.verdicts
    bar = v.tools.find_bar
    bar.open_bar()
    assert bar.isVisible()
    bar.field.setText("annual leave")
    qtbot.waitUntil(lambda: "comment" in bar.result.text(), timeout=10000)
    row = v.table.selectionModel().selectedRows()[0].row()
    assert "annual leave" in v.table.item(row, 2).text().casefold()
    bar.field.setText("no such words anywhere")
    qtbot.waitUntil(lambda: bar.result.text() == "Not found", timeout=10000)
    bar.close_bar()
    assert not bar.isVisible()


def test_zoom_steps_and_is_remembered(qtbot, window):
    tools = window.verdicts.tools
    tools.zoom_reset()
    tools.zoom_in()
    assert tools.zoom.percent == 110
    assert abs(window.verdicts.v1.zoomFactor() - 1.1) < 1e-6
    assert tools.zoom_label.text() == "110%"
    # A new window (another session) starts at the user's zoom.
    w2 = MainWindow()
    qtbot.addWidget(w2)
    assert w2.verdicts.tools.zoom.percent == 110
    tools.zoom_out()
    tools.zoom_out()
    assert tools.zoom.percent == 90
    tools.zoom_reset()
    assert tools.zoom.percent == 100


def test_the_middle_zoom_button_shows_the_zoom_in_force_and_resets_it(qtbot, window):
    """At 150% the middle button reads 150% (not a fixed "100%"); clicking it resets."""
    tools = window.verdicts.tools
    tools.zoom_reset()
    while tools.zoom.percent < 150:
        tools.zoom_in()
    assert tools.zoom.percent == 150
    row = tools.layout().itemAt(0).layout()
    texts = [row.itemAt(i).widget().text() for i in range(row.count()) if row.itemAt(i).widget()]
    assert "150%" in texts and "100%" not in texts
    tools.zoom_label.click()
    assert tools.zoom.percent == 100 and tools.zoom_label.text() == "100%"


def test_keys_open_find_and_zoom_from_anywhere_in_the_view(qtbot, window):
    from PySide6.QtCore import Qt

    v = window.verdicts
    v.tools.zoom_reset()
    v.table.setFocus()
    qtbot.keyClick(v.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert v.tools.find_bar.isVisible() and v.tools.find_bar.field.hasFocus()
    qtbot.keyClick(v.tools.find_bar.field, Qt.Key.Key_Escape)
    assert not v.tools.find_bar.isVisible()
    qtbot.keyClick(v.table, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert v.tools.zoom.percent == 110
    qtbot.keyClick(v.table, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert v.tools.zoom.percent == 100
    qtbot.keyClick(
        v.table,
        Qt.Key.Key_D,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert v.doc_stack.currentIndex() == 1


def test_find_says_which_match_is_current_and_underlines_it(qtbot, window):
    """Next moves to "2 of N" in each document on screen (the hidden changes view is not
    counted), and the current match is told apart by more than its colour."""
    v = window.verdicts
    bar = v.tools.find_bar
    bar.open_bar()
    n1 = _js(qtbot, v.v1, "__arl.find('work', false).count")
    _js(qtbot, v.v1, "__arl.find('', false).count")
    assert n1 >= 3  # the title, "work remotely", "working days"
    bar.field.setText("work")
    qtbot.waitUntil(lambda: "v2:" in bar.result.text() and "\u2026" not in bar.result.text())
    first = bar.result.text()
    assert first.startswith(f"v1: 1 of {n1}, v2: 1 of "), first
    assert "changes" not in first
    bar.find()
    qtbot.waitUntil(lambda: bar.result.text().startswith(f"v1: 2 of {n1}, v2: 2 of "))
    css = _js(
        qtbot,
        v.v1,
        "Array.from(document.querySelectorAll('style')).map(s => s.textContent).join('')",
    )
    now = css.split("-findnow)")[1].split("}")[0]
    assert "text-decoration:underline" in now.replace(" ", "")
    bar.field.setText("no such words anywhere")
    qtbot.waitUntil(lambda: bar.result.text() == "Not found", timeout=10000)


def test_panes_start_aligned_and_a_pane_at_its_top_keeps_the_other_at_its_top(qtbot, window):
    """Opening a bundle leaves both panes at their tops (v2's title sat 40 px below v1's:
    the link had put v1's first character at the very top, scrolling past the heading's
    margin), and the link places the character at the height it has in the other pane."""
    v = window.verdicts
    link = v.tools.link
    qtbot.wait(1500)
    assert _js(qtbot, v.v1, "window.scrollY") == 0
    assert _js(qtbot, v.v2, "window.scrollY") == 0
    link._quiet.clear()
    link._moves.clear()
    before = link.followed
    link._moved(v.v2)
    qtbot.waitUntil(lambda: link.followed > before, timeout=10000)
    qtbot.wait(300)
    assert _js(qtbot, v.v1, "window.scrollY") == 0
    # Scrolled part way, the aligned character stands at the same height in both panes.
    v.resize(1366, 420)
    qtbot.wait(300)
    link._quiet.clear()
    link._moves.clear()
    before = link.followed
    v.v1.page().runJavaScript("window.scrollTo(0, 137)")
    qtbot.waitUntil(lambda: link.followed > before, timeout=10000)
    qtbot.wait(400)
    top1 = _js(qtbot, v.v1, "__arl.topPlace()")
    y2 = _js(
        qtbot,
        v.v2,
        f"__arl.placeOf({v.change_cv.b_for_a(top1['off'])})",
    )
    assert abs(top1["y"] - y2) <= 2, (top1, y2)


def test_a_scroll_that_leaves_the_text_in_view_where_it_was_moves_no_other_pane(qtbot, window):
    """A scroll event whose page's text did not move in the view (scroll anchoring, as blocks
    above are laid out; the page counts the moves, ``__arl.topPlace().moves``) is not
    followed: it re-aligned the panes on their top lines half a second after a comment was
    picked, moving its text under the reader's eyes. A scroll that moves the text is, and
    one while the link holds the page is not counted."""
    v = window.verdicts
    link = v.tools.link
    window.resize(1366, 420)
    qtbot.waitUntil(lambda: v.v1.height() < 300, timeout=5000)
    qtbot.wait(500)
    link._quiet.clear()
    link._moves.clear()
    before = link.followed
    v.v1.page().runJavaScript("window.scrollTo(0, 300)")
    qtbot.waitUntil(lambda: link.followed > before, timeout=10000)
    qtbot.wait(500)  # v2's quiet ends
    link._quiet.clear()
    n = link.followed
    y2 = _js(qtbot, v.v2, "window.scrollY")
    link._moved(v.v1)  # a scroll event, the text where it was
    qtbot.wait(600)
    assert link.followed == n
    assert _js(qtbot, v.v2, "window.scrollY") == y2
    link._quiet_for(v.v1, 0.4)  # held: a move is not counted, the count starts again
    assert _js(qtbot, v.v1, "(window.scrollBy(0, -30), 0)") == 0
    qtbot.wait(100)
    assert _js(qtbot, v.v1, "[__arl.topPlace().moves, __arl.topPlace().hold]") == [
        0,
        link._holds,
    ]
    qtbot.wait(500)
    assert _js(qtbot, v.v1, "window.scrollY") > 60
    v.v1.page().runJavaScript("window.scrollBy(0, -30)")  # the reader scrolls: followed
    qtbot.waitUntil(lambda: link.followed > n, timeout=10000)
    assert _js(qtbot, v.v1, "__arl.topPlace().moves") == 1


EXAMPLE = DEMO.parents[1] / "example" / "f1000rd-8-103-smollm2-135m"


def test_a_bundle_opened_in_the_changes_view_shows_its_own_text_never_the_last_one(qtbot, window):
    """Bundle A shown as changes, bundle B opened: the pane goes from A's page to B's
    (a 'Comparing' line between), never back to A's, and B's is drawn without a switch to
    side by side and back."""
    v = window.verdicts
    with qtbot.waitSignal(v.changes.view.highlighted, timeout=20000):
        v.tools.show_mode(1)
    a_text = _js(qtbot, v.changes.view, "__arl.bodyText()")
    assert a_text == v.changes.cv.merged
    seen: list[str] = []
    with qtbot.waitSignal(v.rendered, timeout=30000):
        assert window.open_bundle(EXAMPLE)
    assert v.tools.stack.currentIndex() == 1  # still the changes view
    qtbot.waitUntil(lambda: v.changes.cv is not None, timeout=20000)

    def b_shown() -> bool:
        seen.append(_js(qtbot, v.changes.view, "__arl.bodyText()"))
        return seen[-1] == v.changes.cv.merged

    qtbot.waitUntil(b_shown, timeout=20000)
    assert v.changes.cv.merged != a_text
    assert a_text not in seen and "Comparing" not in v.changes.summary.text()
