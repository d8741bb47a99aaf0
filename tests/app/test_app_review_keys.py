"""Keys that move never decide; the reviewer's name is asked once, in a dialog of its own,
before the first decision or reply, and Edit > Your name... changes it; a run from elsewhere says in
place how to answer its threads."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QInputDialog

from app.decisions_panel import SETTING
from app.window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
EXAMPLE = ROOT / "resources" / "example" / "f1000rd-8-103-smollm2-135m"


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


def _open(qtbot, window, path):
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        assert window.open_bundle(path, remember=False)
    view = window.verdicts
    qtbot.waitUntil(lambda: view.data.rederivation is not None, timeout=30000)
    qtbot.waitUntil(lambda: view.decision.buttons["addressed"].isEnabled(), timeout=10000)
    return view


def _row(view) -> int:
    return view.table.selectionModel().selectedRows()[0].row()


def _dialogs():
    return [
        w for w in QApplication.topLevelWidgets() if isinstance(w, QInputDialog) and w.isVisible()
    ]


def test_n_and_p_move_and_never_decide(qtbot, window, tmp_path):
    bundle = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", bundle)
    view = _open(qtbot, window, bundle)  # no name set: a decision would ask for one
    view.table.setFocus()
    view.table.selectRow(0)
    for key, want in ((Qt.Key.Key_N, 1), (Qt.Key.Key_J, 2), (Qt.Key.Key_P, 1), (Qt.Key.Key_K, 0)):
        qtbot.keyClick(view.table, key)
        assert _row(view) == want
        assert view.decision.pending is None and not view._writing
        assert not view.decision.reason.hasFocus() and not _dialogs()
    qtbot.keyClick(view.table, Qt.Key.Key_P)  # at the top it stays
    assert _row(view) == 0
    assert not (bundle / "decisions.json").exists()


def _name_dialog(qtbot):
    qtbot.waitUntil(lambda: bool(_dialogs()), timeout=5000)
    (dlg,) = _dialogs()
    assert dlg.windowTitle() == "Your name as reviewer"
    return dlg


def test_the_name_is_asked_in_its_own_dialog_never_where_the_reason_goes(qtbot, window, tmp_path):
    """The first decision asks the name in a small dialog of its own (a field in the panel,
    where the reason goes, took a tester's reason as their name); then the reason field has
    the focus, and what is typed there is the reason."""
    bundle = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", bundle)
    view = _open(qtbot, window, bundle)
    assert not window.settings.get(SETTING)
    panel = view.decision
    assert not hasattr(panel, "name")  # no name field in the panel
    view.table.setFocus()
    view.table.selectRow(1)
    qtbot.keyClick(view.table, Qt.Key.Key_D)  # an override: the name first, in a dialog
    dlg = _name_dialog(qtbot)
    assert "Before your first decision" in dlg.labelText() and "Edit" in dlg.labelText()
    assert not panel.reason.hasFocus()
    dlg.setTextValue("Ann Reviewer")
    dlg.accept()
    assert window.settings.get(SETTING) == "Ann Reviewer"
    # then the override goes on as asked: its reason field has the focus
    qtbot.waitUntil(lambda: panel.pending == "addressed" and panel.reason.hasFocus(), timeout=5000)
    qtbot.keyClicks(panel.reason, "it was fixed")
    qtbot.keyClick(panel.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: view.data.decisions is not None and bool(view.data.decisions.decisions),
        timeout=30000,
    )
    last = view.data.decisions.decisions[-1]
    assert (last.reviewer, last.reason) == ("Ann Reviewer", "it was fixed")
    # asked once: the next decision opens no dialog
    qtbot.waitUntil(lambda: not view._writing, timeout=30000)
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_W)
    assert not _dialogs() and panel.pending == "declined" and panel.reason.hasFocus()
    qtbot.keyClicks(panel.reason, "not in scope")
    qtbot.keyClick(panel.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(view.data.decisions.decisions) == 2, timeout=30000)
    assert view.data.decisions.decisions[-1].reviewer == "Ann Reviewer"


def test_the_first_accept_asks_the_name_then_records(qtbot, window, tmp_path):
    bundle = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", bundle)
    view = _open(qtbot, window, bundle)
    view.table.setFocus()
    view.table.selectRow(0)
    qtbot.keyClick(view.table, Qt.Key.Key_A)
    _name_dialog(qtbot).reject()  # Cancel: nothing recorded
    qtbot.waitUntil(lambda: not _dialogs(), timeout=5000)
    assert not view._writing and not (bundle / "decisions.json").exists()
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_A)
    dlg = _name_dialog(qtbot)
    dlg.setTextValue("Bea")
    dlg.accept()
    qtbot.waitUntil(
        lambda: view.data.decisions is not None and bool(view.data.decisions.decisions),
        timeout=30000,
    )
    assert view.data.decisions.decisions[-1].reviewer == "Bea"


def test_edit_your_name_changes_it_later(qtbot, window):
    window.settings.set(SETTING, "Ann")
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles[:3] == ["&File", "&Edit", "&View"]
    window.act_your_name.trigger()
    dlg = _name_dialog(qtbot)
    assert dlg.textValue() == "Ann"  # the name kept, to change
    dlg.setTextValue("Ann  Smith ")
    dlg.accept()
    assert window.settings.get(SETTING) == "Ann Smith"
    qtbot.waitUntil(lambda: "Ann Smith" in window.statusBar().currentMessage(), timeout=5000)


def test_the_reply_field_asks_the_name_once_before_typing(qtbot, window, tmp_path):
    bundle = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", bundle)
    view = _open(qtbot, window, bundle)
    box = view.thread
    qtbot.waitUntil(lambda: box.continue_btn.isVisible(), timeout=10000)
    box.document_id = "d"  # as if the run were in the workspace
    box.show_comment("c1")
    box.reply.setEnabled(True)
    box.reply.setFocus()
    qtbot.waitUntil(lambda: bool(_dialogs()), timeout=5000)
    _dialogs()[0].reject()
    qtbot.waitUntil(lambda: not _dialogs(), timeout=5000)
    box.reply.clearFocus()
    box.reply.setFocus()  # asked once on focus; Reply asks again
    assert not _dialogs()


def test_a_run_from_elsewhere_says_how_to_answer_it(qtbot, window):
    with qtbot.waitSignal(window.verdicts.rendered, timeout=60000):
        assert window.open_bundle(EXAMPLE, remember=False)
    box = window.verdicts.thread
    qtbot.waitUntil(lambda: box.continue_btn.isVisible(), timeout=10000)
    text = box.state.text()
    assert "not in your workspace" in text and "continue this review" in text
    assert not box.reply.isEnabled()
    called = []
    window.continue_review = lambda *a: called.append(a)  # the wizard is not opened here
    window.verdicts.continueReview.disconnect()
    window.verdicts.continueReview.connect(lambda: called.append(1))
    box.continue_btn.click()
    assert called
