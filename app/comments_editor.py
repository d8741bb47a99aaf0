"""The setup wizard's comment editor (``app.wizard.comments_page.CommentsPage``) on its own,
for "Check a revision made elsewhere": select words in the reviewed version, write what
should change, Add comment; "Use these comments" hands them back. The page is the wizard's
own, hosted in a one-page wizard that gives it what it reads from the setup wizard (the
document, the settings): there is one comment editor in the program."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from PySide6.QtWidgets import QWizard

from app.wizard.comments_page import CommentsPage


class CommentsEditor(QWizard):
    """The comment editor on ``raw`` (a document's source of ``kind``; ``word`` the Word
    file's reading, whose own comments start the list). ``comments`` (from an earlier
    opening) start the list otherwise. ``accepted`` when the user presses Use these
    comments; ``picked()`` then gives the comments (``engine.models.Comment``, anchored in
    UTF-16 units of the document's text, as the wizard's)."""

    def __init__(
        self,
        raw: str,
        kind: str,
        word: Any = None,
        comments: list[Any] | None = None,
        settings: Any = None,
        parent: Any = None,
    ):
        super().__init__(parent)
        self.settings = settings
        # What CommentsPage reads from its wizard (app.wizard.setup.SetupWizard).
        self.document_page = SimpleNamespace(raw=raw, kind=kind, word=None if comments else word)
        self.setWindowTitle("Comments on the version you reviewed")
        self.setOption(QWizard.WizardOption.HaveHelpButton, False)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.page = CommentsPage()
        self.page.setTitle("Your review comments")
        if comments:
            self.page.carry(comments)
        self.addPage(self.page)
        self.setButtonText(QWizard.WizardButton.FinishButton, "&Use these comments")

    def picked(self) -> list[Any]:
        """The comments made (and those carried in), in their order."""
        return list(self.page.comments)
