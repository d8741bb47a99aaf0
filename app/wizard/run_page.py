"""Page 4 of the setup wizard: run settings."""

from __future__ import annotations

import html

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QWizardPage,
)

from app.settings import DEFAULTS
from app.wizard.checks_box import ChecksBox
from engine.vocabulary import plural

MODE_CHOICES = (
    ("tools", "Tools: the model calls its tools (default)"),
    ("no-tools", "No tools: the program does the tool work (models without tool calling)"),
    ("auto", "Auto: tools, or no tools if the model cannot call them"),
)


class RunSettingsPage(QWizardPage):
    def __init__(self, settings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.setTitle("4. Run settings")
        self.setSubTitle(
            "How long the agent may keep trying. \u201cStart the run\u201d starts it. The "
            "values already filled in are the usual ones (the same as the arl command's)."
        )
        self.rounds = QSpinBox()
        self.rounds.setRange(1, 20)
        self.rounds.setValue(settings.rounds if settings else DEFAULTS["run/rounds"])
        self.rounds.setToolTip(
            "After each round every comment gets a verdict; the run stops "
            "early once no actionable comment is left open."
        )
        self.budget = QSpinBox()
        self.budget.setRange(0, 50_000_000)
        self.budget.setSingleStep(10_000)
        self.budget.setSpecialValueText("no limit")
        self.budget.setSuffix(" tokens")
        self.budget.setValue(settings.max_tokens if settings else DEFAULTS["run/max_tokens"])
        self.turns = QSpinBox()
        self.turns.setRange(2, 100)
        self.turns.setValue(
            settings.turns_per_round if settings else DEFAULTS["run/turns_per_round"]
        )
        self.turns.setToolTip("Model answers allowed in one round before the round ends.")
        self.echo = QCheckBox(
            "Send the model what its tools returned a second time, as ordinary messages"
        )
        self.echo.setChecked(settings.echo_tool_results if settings else False)
        self.echo.setToolTip(
            "Leave this off unless the model acts as if it never saw what its tools "
            "returned (it reads the same passage again and again, or asks for it). "
            "Some servers' chat templates drop those tool messages, for example some "
            "llama.cpp setups (the chatml-function-calling format); with this on, the "
            "program repeats them as ordinary messages the model does see. "
            "(CLI: --echo-tool-results)"
        )
        self.mode = QComboBox()
        for key, label in MODE_CHOICES:
            self.mode.addItem(label, key)
        i = self.mode.findData(settings.agent_mode if settings else "tools")
        self.mode.setCurrentIndex(max(i, 0))
        self.mode.setToolTip(
            "Tools: the model reads and edits the document with its five tools.\n"
            "No tools: for models that cannot call tools; the program sends the document "
            "and the comments in one request per round and does the tool work itself.\n"
            "Auto: tools, switching to no tools if the server refuses them or the model "
            "calls none in its first two turns."
        )
        self.checks = ChecksBox(settings)
        self.checks.changed.connect(self.completeChanged)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        form = QFormLayout(self)
        form.addRow("&Rounds at most:", self.rounds)
        form.addRow("Token &budget for the run:", self.budget)
        form.addRow("Model &turns per round:", self.turns)
        form.addRow("How the model &works:", self.mode)
        form.addRow("", self.echo)
        form.addRow(self.checks)
        form.addRow(self.summary)

    def initializePage(self) -> None:
        w = self.wizard()
        n = len(w.comments_page.comments)
        self.summary.setText(
            f"The agent <b>{html.escape(w.model_page.model.currentText())}</b> will revise "
            f"\u201c{html.escape(w.document_page.title)}\u201d for {plural(n, 'comment')}. You can "
            "cancel at any time; an evidence bundle is written in every case."
        )

    def isComplete(self) -> bool:
        """Not while the checks file named cannot be read (its line says why)."""
        return self.checks.ok and super().isComplete()

    def validatePage(self) -> bool:
        self.checks.reload()  # the file as it is now, not as it was when first read
        if not self.checks.ok:
            return False
        self.checks.store()
        if self.settings is not None:
            self.settings.rounds = self.rounds.value()
            self.settings.max_tokens = self.budget.value()
            self.settings.turns_per_round = self.turns.value()
            self.settings.echo_tool_results = self.echo.isChecked()
            self.settings.agent_mode = self.mode.currentData()
        return True
