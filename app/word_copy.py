"""File > Save the verdicts into a Word copy: a Word review and the agent's revised Word
file in, a copy of the revised file with the verdicts written in out
(``engine.word_verdicts.write_word_copy``; docs/anchor.md, "Word documents").

The reviewer picks the reviewed ``.docx`` (its comments), the revised ``.docx`` and where
the copy goes; the scoring and the writing run off the UI thread (``app.jobs``) and the
dialog says what the copy holds in plain words, or the one line naming the file that
could not be used. Nothing is written unless the whole copy is.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.jobs import run_in_thread

WORD_FILTER = "Word documents (*.docx);;All files (*)"


class _PathRow(QWidget):
    """A path box and its Choose button (an open or a save dialog)."""

    def __init__(self, caption: str, start: Any, save: bool = False, parent=None):
        super().__init__(parent)
        self.caption, self.start, self.save = caption, start, save
        self.path = QLineEdit()
        self.path.setAccessibleName(caption)
        self.button = QPushButton("Choose\u2026")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.path, 1)
        lay.addWidget(self.button)
        self.button.clicked.connect(self.ask)
        self._dialog: QFileDialog | None = None

    def ask(self) -> None:
        dlg = QFileDialog(self, self.caption, str(self.start()), WORD_FILTER)
        if self.save:
            dlg.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
            dlg.setDefaultSuffix("docx")
        else:
            dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
        dlg.fileSelected.connect(self.path.setText)
        self._dialog = dlg
        dlg.open()

    def text(self) -> str:
        return self.path.text().strip()


class WordCopyDialog(QDialog):
    """The three files and a Save button; ``finished_copy(report or None)`` is for tests."""

    def __init__(self, parent=None, start_folder: str | None = None):
        super().__init__(parent)
        self.setWindowTitle("Save the verdicts into a Word copy")
        folder = start_folder or str(Path.home())
        self.reviewed = _PathRow("The reviewed Word file (with the comments)", lambda: folder)
        self.revised = _PathRow("The agent's revised Word file", lambda: folder)
        self.out = _PathRow("Save the copy as", lambda: folder, save=True)
        intro = QLabel(
            "The copy is the agent's revised file with, on each comment, a reply saying "
            "whether its words were changed; comments the agent marked resolved on words it "
            "left unchanged are opened again, comments the revised file lost are put back, "
            "and changes no comment asked for are marked. Continue the review in Word."
        )
        intro.setWordWrap(True)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)  # file names are escaped
        form = QFormLayout()
        form.addRow("Reviewed:", self.reviewed)
        form.addRow("Revised:", self.revised)
        form.addRow("Save as:", self.out)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close
        )
        self.buttons.accepted.connect(self.save_copy)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addLayout(form)
        lay.addWidget(self.status)
        lay.addWidget(self.buttons)
        self.resize(720, 320)
        self.last_report: Any = None
        self.last_error: str | None = None

    def prefill(self, reviewed: str, revised: str) -> None:
        """Start from the open bundle's Word files: the two paths (either may be ""), the
        copy beside the revised file as ``<its name>-verdicts.docx``."""
        self.reviewed.path.setText(reviewed)
        self.revised.path.setText(revised)
        if revised:
            r = Path(revised)
            self.out.path.setText(str(r.with_name(f"{r.stem}-verdicts.docx")))

    def save_copy(self) -> None:
        reviewed, revised, out = self.reviewed.text(), self.revised.text(), self.out.text()
        if not (reviewed and revised and out):
            self.status.setText("Choose the reviewed file, the revised file and where to save.")
            return
        from engine.word_verdicts import write_word_copy

        self.buttons.setEnabled(False)
        self.status.setText("Checking every comment against the revised file\u2026")
        run_in_thread(
            lambda: write_word_copy(reviewed, revised, out),
            lambda report: self._done(out, report),
            self._failed,
        )

    def _done(self, out: str, report: Any) -> None:
        from engine.word_verdicts import report_words

        self.buttons.setEnabled(True)
        self.last_report, self.last_error = report, None
        self.status.setText(
            f"Saved <b>{html.escape(Path(out).name)}</b>: {html.escape(report_words(report))}."
        )

    def _failed(self, exc: BaseException) -> None:
        self.buttons.setEnabled(True)
        self.last_report, self.last_error = None, str(exc)
        self.status.setText(f"Nothing was saved: {html.escape(str(exc))}")


def word_revision_hint(outcome: Any) -> str:
    """For the Run view once a run ended: where the agent's revision was written as a Word
    file with tracked changes (``RunOutcome.word_revision``), as rich text; "" when none."""
    word = getattr(outcome, "word_revision", None)
    if not word:
        return ""
    return (
        " The agent's revision is also a Word file, its edits tracked changes to accept or "
        f"reject in Word: {html.escape(str(word))}"
    )


def show_word_copy_dialog(window: Any) -> WordCopyDialog:
    """Open the dialog over ``window`` (kept on it, so it stays alive) and return it."""
    settings = getattr(window, "settings", None)
    last = getattr(settings, "last_dir", "") if settings is not None else ""
    dlg = WordCopyDialog(window, last if last and Path(last).is_dir() else None)
    reviewed, revised = open_word_files(window)
    if reviewed or revised:
        dlg.prefill(reviewed, revised)
    window._word_copy_dialog = dlg
    dlg.open()
    return dlg


def open_word_files(window: Any) -> tuple[str, str]:
    """(reviewed, revised) ``.docx`` paths of the bundle open in ``window``, those that
    still exist ("" for one not known): the pair Check a revision made elsewhere checked
    it from (``Settings.word_sources``), else the run's own Word revision beside its
    bundle (``engine.word_revision.revision_path``) as the revised file."""
    data = getattr(window, "data", None)
    bundle = getattr(data, "path", None)
    settings = getattr(window, "settings", None)
    if bundle is None:
        return "", ""
    pair = None
    if settings is not None and hasattr(settings, "word_sources"):
        pair = settings.word_sources(str(bundle))
    if pair is not None:
        return tuple(p if Path(p).is_file() else "" for p in pair)  # type: ignore[return-value]
    from engine.word_revision import revision_path

    tracked = revision_path(bundle)
    return "", str(tracked) if tracked.is_file() else ""
