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
    assert "Saved <b>verdicts.docx</b>: 4 verdict replies, 1 comment reopened" in dlg.status.text()
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
