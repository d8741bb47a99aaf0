"""The setup wizard itself: the four pages in order; Finish emits a ``RunRequest``."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWizard

from app.runrequest import RunRequest
from app.wizard.comments_page import CommentsPage
from app.wizard.document_page import DocumentPage
from app.wizard.model_page import ModelPage
from app.wizard.run_page import RunSettingsPage


class SetupWizard(QWizard):
    """Emits ``runRequested(RunRequest)`` when the user presses Finish."""

    runRequested = Signal(object)

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle("Set up a review run")
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.HaveHelpButton, False)
        self.model_page = ModelPage(settings)
        self.document_page = DocumentPage()
        self.comments_page = CommentsPage()
        self.run_page = RunSettingsPage(settings)
        for p in (self.model_page, self.document_page, self.comments_page, self.run_page):
            self.addPage(p)
        self.setButtonText(QWizard.WizardButton.FinishButton, "Start the &run")
        self.resize(1100, 760)
        screen = self.screen()
        if screen is not None:  # never taller or wider than the screen's free area
            avail = screen.availableGeometry()
            self.resize(min(1100, avail.width() - 24), min(760, avail.height() - 48))
        self.accepted.connect(self._emit_request)

    # -- never lose work -------------------------------------------------------------------

    def has_work(self) -> bool:
        """True once a document is chosen or a comment made: closing would lose them."""
        return self.document_page.raw is not None or bool(self.comments_page.comments)

    def reject(self) -> None:
        """Esc, Cancel or the window's close button: ask before discarding a chosen
        document and its comments."""
        if not self.has_work() or getattr(self, "_discard_ok", False):
            super().reject()
            return
        n = len(self.comments_page.comments)
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setWindowTitle("Discard this run's set-up?")
        title = self.document_page.title or "the document"
        box.setText(
            f"Close the set-up and discard \u201c{title}\u201d"
            + (f" and {n} comment{'s' if n != 1 else ''}" if n else "")
            + "?"
        )
        box.setInformativeText("Nothing has been sent to the model yet.")
        discard = box.addButton("&Discard", QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton("&Keep editing", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)
        box.setEscapeButton(keep)

        def answered(_result: int) -> None:
            if box.clickedButton() is discard:
                self._discard_ok = True
                self.reject()

        box.finished.connect(answered)
        self.confirm_box = box
        box.open()

    def accept(self) -> None:
        """Start the run; after a failed Test connection, say so first and ask."""
        failed = self.model_page.test_failed
        if failed is None or getattr(self, "_start_anyway", False):
            super().accept()
            return
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setWindowTitle("Test connection failed")
        box.setText(f"The last Test connection failed: {failed}.")
        box.setInformativeText(
            "The run will most likely fail the same way. Go back to page 1 to check the "
            "server, or start anyway."
        )
        start = box.addButton("&Start anyway", QMessageBox.ButtonRole.AcceptRole)
        back = box.addButton("&Go back", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(back)
        box.setEscapeButton(back)

        def answered(_result: int) -> None:
            if box.clickedButton() is start:
                self._start_anyway = True
                self.accept()
            else:  # back to the model page, everything else kept
                while self.currentId() > self.startId():
                    self.back()

        box.finished.connect(answered)
        self.confirm_box = box
        box.open()

    def done(self, result: int) -> None:
        """Closing the wizard (Finish or Cancel) stops any network work it started."""
        self.model_page.cancel_jobs()
        self.document_page.cancel_author()
        super().done(result)

    def request(self):
        config = self.model_page.config()
        budget = self.run_page.budget.value()
        config.max_tokens_per_run = budget or None
        config.max_turns_per_round = self.run_page.turns.value()
        config.echo_tool_results = self.run_page.echo.isChecked()
        config.mode = self.run_page.mode.currentData()
        return RunRequest(
            config=config,
            title=self.document_page.title or "Document",
            raw=self.document_page.raw or "",
            kind=self.document_page.kind,
            comments=list(self.comments_page.comments),
            rounds=self.run_page.rounds.value(),
            checks=self.run_page.checks.config,
            allow_commands=self.run_page.checks.allow.isChecked(),
            scripted=self.model_page.scripted,
            word_source=self._word_source(),
        )

    def _word_source(self) -> bytes | None:
        """The reviewed Word file's bytes when the document came from a ``.docx`` (the run
        then writes the agent's revision back into a copy of it as tracked changes)."""
        path = getattr(self.document_page, "word_path", None)
        if not path:
            return None
        try:
            return Path(path).read_bytes()
        except OSError:
            return None

    def _emit_request(self) -> None:
        self.runRequested.emit(self.request())
