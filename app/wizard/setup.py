"""The setup wizard itself: the four pages in order; Finish emits a ``RunRequest``."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QWizard,
)

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
        self.accepted.connect(self._emit_request)

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
        return RunRequest(
            config=config,
            title=self.document_page.title or "Document",
            raw=self.document_page.raw or "",
            kind=self.document_page.kind,
            comments=list(self.comments_page.comments),
            rounds=self.run_page.rounds.value(),
        )

    def _emit_request(self) -> None:
        self.runRequested.emit(self.request())
