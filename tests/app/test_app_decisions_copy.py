"""Deciding on the shipped example from the window: the program's own folder is never
written; the first decision makes the user's copy, says so in plain words, and the window
shows the copy; opening the example again shows the copy with the decisions."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import Qt

from app.about import example_bundle_path
from app.decisions_panel import SETTING
from app.window import MainWindow
from engine.bundle.own_copy import copies_folder

WORDS = "Your decisions are kept in a copy of this bundle in"


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _open_example(qtbot, window):
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        assert window.open_example()
    view = window.verdicts
    qtbot.waitUntil(
        lambda: view.data is not None and view.data.decisions is not None, timeout=60000
    )
    return view


def test_a_decision_on_the_shipped_example_goes_to_the_users_copy(qtbot):
    shipped = example_bundle_path()
    assert shipped is not None
    before = _snapshot(shipped.parent)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    window.settings.set(SETTING, "Tess Reviewer")
    view = _open_example(qtbot, window)
    assert Path(view.data.path) == shipped and not view.data.kept_copy
    row = next(i for i, r in enumerate(view.rows) if r.get("decision") is None)
    cid = view.rows[row]["id"]
    view.table.setFocus()
    view.table.selectRow(row)
    qtbot.waitUntil(lambda: view.decision.buttons["accept"].isEnabled(), timeout=10000)
    qtbot.keyClick(view.table, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: not view._writing and view.data.kept_copy != "", timeout=60000)

    copy = Path(view.data.path)
    assert copy.parent == copies_folder() and copy.name == shipped.name
    assert _snapshot(shipped.parent) == before  # nothing written into the program's folder
    assert WORDS in view.decision.state.text()
    assert WORDS in window.statusBar().currentMessage()
    assert str(copies_folder()) in window.statusBar().currentMessage()
    assert str(copy.resolve()) in window.settings.recent_bundles
    # One row for the run: opening the shipped original opens the copy.
    assert str(shipped.resolve()) not in window.settings.recent_bundles
    assert view.data.decisions.latest()[cid].decision == "accept"

    view = _open_example(qtbot, window)  # the shipped example again: the copy is shown
    assert Path(view.data.path) == copy
    assert WORDS in window.statusBar().currentMessage()
    assert "Showing the copy" in window.statusBar().currentMessage()
    assert view.data.decisions.latest()[cid].decision == "accept"
    assert next(r for r in view.rows if r["id"] == cid)["decision"] is not None
    assert _snapshot(shipped.parent) == before
    recent = window.settings.recent_bundles
    assert str(copy.resolve()) in recent and str(shipped.resolve()) not in recent
