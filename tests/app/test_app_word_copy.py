"""File > Save the verdicts into a Word copy (app.word_copy): the copy is written off the
UI thread and the dialog says what it holds; a file that cannot be used is one line and
nothing is written."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.word_copy import WordCopyDialog
from engine.text.docx import read_docx

WORD = Path(__file__).resolve().parents[2] / "resources" / "word"


def test_the_dialog_writes_the_copy_and_says_what_it_holds(qtbot, tmp_path):
    dlg = WordCopyDialog(None, str(tmp_path))
    qtbot.addWidget(dlg)
    dlg.reviewed.path.setText(str(WORD / "review.docx"))
    dlg.revised.path.setText(str(WORD / "revised.docx"))
    out = tmp_path / "verdicts.docx"
    dlg.out.path.setText(str(out))
    dlg.save_copy()
    qtbot.waitUntil(lambda: bool(dlg.last_report or dlg.last_error), timeout=30000)
    assert dlg.last_error is None
    assert (
        "Saved <b>verdicts.docx</b>: 4 verdict replies written; 1 comment reopened"
        in dlg.status.text()
    )
    back = read_docx(out.read_bytes())
    assert all(c.replies[-1].author == "Agent Review Loop" for c in back.comments)


def test_a_file_that_is_not_word_is_one_line_and_nothing_is_written(qtbot, tmp_path):
    dlg = WordCopyDialog(None, str(tmp_path))
    qtbot.addWidget(dlg)
    html = tmp_path / "memo.html"
    html.write_text("<p>x</p>", encoding="utf-8")
    dlg.reviewed.path.setText(str(html))
    dlg.revised.path.setText(str(WORD / "revised.docx"))
    out = tmp_path / "verdicts.docx"
    dlg.out.path.setText(str(out))
    dlg.save_copy()
    qtbot.waitUntil(lambda: bool(dlg.last_report or dlg.last_error), timeout=30000)
    assert dlg.last_error and "memo.html: is not a Word document" in dlg.last_error
    assert "Nothing was saved" in dlg.status.text() and not out.exists()
    assert list(tmp_path.glob("*.tmp")) == []


def test_the_file_menu_has_it(qtbot):
    from app.window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    assert "Word copy" in w.act_word_copy.text()
    file_menu = w.menuBar().actions()[0].menu()
    assert w.act_word_copy in file_menu.actions()


def test_the_dialog_starts_from_the_open_word_bundle_and_puts_back_a_deleted_comment(
    qtbot, tmp_path
):
    """Check a revision made elsewhere with a Word pair whose revision deleted a commented
    paragraph: the bundle it opens remembers the two files, the Word copy dialog starts
    from them and saves, the lost comment put back (not "no place to reply at")."""
    from types import SimpleNamespace

    from PySide6.QtWidgets import QWidget

    from app.check_revision import CheckRevisionDialog
    from app.settings import Settings
    from app.word_copy import open_word_files, show_word_copy_dialog
    from tests.engine.test_docx_write import _python_docx_pair

    v1, v2 = _python_docx_pair(drop_comment=False)
    reviewed, revised = tmp_path / "travel.docx", tmp_path / "travel-revised.docx"
    reviewed.write_bytes(v1)
    revised.write_bytes(v2)
    settings = Settings(tmp_path / "settings.ini")
    check = CheckRevisionDialog(settings, None, out_dir=tmp_path / "bundles")
    qtbot.addWidget(check)
    check.reviewed.path.setText(str(reviewed))
    check.revised.path.setText(str(revised))
    with qtbot.waitSignal(check.checked, timeout=60000) as got:
        check.start_check()
    bundle = got.args[0]

    class Window(QWidget):
        pass

    window = Window()
    qtbot.addWidget(window)
    window.settings = settings
    window.data = SimpleNamespace(path=Path(bundle))
    assert open_word_files(window) == (str(reviewed), str(revised))
    dlg = show_word_copy_dialog(window)
    assert dlg.reviewed.text() == str(reviewed) and dlg.revised.text() == str(revised)
    assert dlg.out.text() == str(tmp_path / "travel-revised-verdicts.docx")
    dlg.save_copy()
    qtbot.waitUntil(lambda: bool(dlg.last_report or dlg.last_error), timeout=60000)
    assert dlg.last_error is None, dlg.last_error
    assert (
        "1 of them on a comment the revised file had lost, put back in place" in dlg.status.text()
    )
    window.data = SimpleNamespace(path=tmp_path / "elsewhere")
    assert open_word_files(window) == ("", "")
