"""The small things a new user tripped on: comment numbers match the comments
file, a finished run's bar is full, Run tab rows do not look expandable, the trace opens,
Recent bundles and the File menu, a file no program opens says where it is."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox

from app.icons import _SOURCES, EVENT_ICONS
from app.open_file import open_local
from app.window import MainWindow

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "remote-work-policy-scripted"


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


def test_comment_numbers_follow_the_comments_file(qtbot, window):
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        window.open_demo()
    rows = window.verdicts.rows
    # The demo's comments file lists c5 before c4; Comment 5 is still c5.
    assert sorted((r["n"], r["id"]) for r in rows) == [(i, f"c{i}") for i in range(1, 6)]
    # Rows needing review come first, each group in the comments' numbers.
    keys = [(not r["needs"], r["n"]) for r in rows]
    assert keys == sorted(keys)
    r = next(i for i, row in enumerate(rows) if row["id"] == "c4")
    assert window.verdicts.table.item(r, 0).text().endswith("4")


def test_comment_numbers_rule():
    from engine.vocabulary import comment_numbers

    assert comment_numbers(["c1", "c2", "c5", "c4"]) == {"c1": 1, "c2": 2, "c5": 5, "c4": 4}
    assert comment_numbers(["7", "3"]) == {"7": 7, "3": 3}
    # Not all numbered, or numbers that repeat: the place in the file.
    ids = ["report51975_3@0#1", "report51975_3@0#2"]
    assert comment_numbers(ids) == {ids[0]: 1, ids[1]: 2}
    assert comment_numbers(["a1", "b1"]) == {"a1": 1, "b1": 2}
    assert comment_numbers(["c1", "intro"]) == {"c1": 1, "intro": 2}


def test_a_completed_run_fills_its_bar(window):
    rv = window.run_view
    rv.round_bar.setRange(0, 2)
    rv.round_bar.setValue(1)  # converged after one of two rounds
    rv._bar_ended("completed")
    assert rv.round_bar.value() == rv.round_bar.maximum()
    assert rv.round_bar.format() == "Run completed after 1 round (limit 2)"
    rv.round_bar.setRange(0, 3)
    rv.round_bar.setValue(1)
    rv._bar_ended("cancelled")
    assert rv.round_bar.value() == 1 and "cancelled after 1 round of 3" in rv.round_bar.format()


def test_run_tab_rows_carry_no_disclosure_triangle():
    from PySide6.QtWidgets import QStyle

    triangles = {QStyle.StandardPixmap.SP_MediaPlay, QStyle.StandardPixmap.SP_ArrowRight}
    for event, name in EVENT_ICONS.items():
        assert _SOURCES[name] not in triangles, event
    assert _SOURCES["step"] not in triangles


def test_the_trace_opens_from_the_run_tab(qtbot, window):
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        window.open_demo()
    rv = window.run_view
    assert not rv.trace_btn.isHidden()
    rv.trace_btn.click()
    dlg = next(w for w in QApplication.topLevelWidgets() if type(w).__name__ == "TraceDialog")
    qtbot.waitUntil(lambda: '"entries"' in dlg.text.toPlainText(), timeout=10000)
    dlg.close()


def test_recent_bundles_lists_the_demo_and_says_when_empty(qtbot, window):
    acts = window.recent_menu.actions()
    assert window.recent_menu.menuAction().isEnabled()
    assert len(acts) == 1 and not acts[0].isEnabled() and "No bundles opened yet" in acts[0].text()
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        window.open_demo()
    assert str(DEMO.resolve()) in window.settings.recent_bundles
    assert any(a.isEnabled() for a in window.recent_menu.actions())


def test_file_menu_publish_does_what_the_button_does(window):
    assert (
        window.act_publish.text().replace("&", "") == "Publish scorecard to your publishing folder"
    )
    called = []
    window.scorecard.publish_to_folder = lambda: called.append("folder")  # the button's
    window.scorecard.ask_publish = lambda: called.append("workspace")
    window.act_publish.setEnabled(True)
    window.act_publish.trigger()
    assert called == ["folder"]


def test_a_file_no_program_opens_is_named_with_a_copy_button(qtbot, window, tmp_path):
    page = tmp_path / "index.html"
    page.write_text("<p>x</p>")
    assert open_local(window, page, "the index", opener=lambda _url: False) is False
    box = window._no_opener_box
    assert isinstance(box, QMessageBox)
    assert "No program on this computer opened the index" in box.text()
    assert box.informativeText() == str(page)
    copy = next(b for b in box.buttons() if b.text() == "Copy the path")
    copy.click()
    assert QGuiApplication.clipboard().text() == str(page)
    assert open_local(window, page, "the index", opener=lambda _url: True) is True


def test_the_published_tab_says_not_recorded_for_no_model():
    from app.published import row_cells
    from engine.publish.entry import PublishedEntry

    names = ("run_id", "model", "document_title", "status", "created_at", "finished_at")
    entry = PublishedEntry(
        **dict.fromkeys(names, ""), published_at="2026-12-01T10:00:00Z", bundle="b", scorecard="s"
    )
    assert row_cells(entry)[0][1] == "not recorded"
