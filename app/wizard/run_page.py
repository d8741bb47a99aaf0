"""Page 4 of the setup wizard: run settings."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QDoubleValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from app.settings import defaults
from app.wizard.checks_box import ChecksBox
from engine.vocabulary import plural

MODE_CHOICES = (
    ("tools", "Tools: the model calls its tools (default)"),
    ("no-tools", "No tools: the program does the tool work (models without tool calling)"),
    ("auto", "Auto: tools, or no tools if the model cannot call them"),
)


def scrolled_form(page: QWizardPage) -> QFormLayout:
    """A form in a scroll area that fills ``page``: at 1366 x 768, 1.5x, the wizard is
    shorter than the run settings, and a form pressed below its height laid the estimate
    and the checks' box over each other; the page scrolls instead."""
    inner = QWidget()
    form = QFormLayout(inner)
    scroll = QScrollArea()
    scroll.setWidget(inner)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    outer = QVBoxLayout(page)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(scroll)
    return form


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
        self.rounds.setValue(settings.rounds if settings else defaults()["run/rounds"])
        self.rounds.setToolTip(
            "After each round every comment gets a verdict; the run stops "
            "early once no actionable comment is left open."
        )
        self.budget = QSpinBox()
        self.budget.setRange(0, 50_000_000)
        self.budget.setSingleStep(10_000)
        self.budget.setSpecialValueText("no limit")
        self.budget.setSuffix(" tokens")
        self.budget.setValue(settings.max_tokens if settings else defaults()["run/max_tokens"])
        self.turns = QSpinBox()
        self.turns.setRange(2, 100)
        self.turns.setValue(
            settings.turns_per_round if settings else defaults()["run/turns_per_round"]
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
        prices = self._build_prices()
        self.checks = ChecksBox(settings)
        self.checks.changed.connect(self.completeChanged)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        form = scrolled_form(self)
        form.addRow("&Rounds at most:", self.rounds)
        form.addRow("Token &budget for the run:", self.budget)
        form.addRow("Model &turns per round:", self.turns)
        form.addRow("How the model &works:", self.mode)
        form.addRow("", self.echo)
        price_label = QLabel("&Prices per million tokens:")
        price_label.setBuddy(self.price_input)  # the label of a row of two fields
        form.addRow(price_label, prices)
        form.addRow(self.estimate)
        form.addRow(self.checks)
        form.addRow(self.summary)

    def _build_prices(self) -> QHBoxLayout:
        """The optional prices and the estimate label; the estimate follows every setting."""
        self.price_input = QLineEdit()
        self.price_output = QLineEdit()
        for box, what in ((self.price_input, "input"), (self.price_output, "output")):
            box.setPlaceholderText("no price")
            box.setValidator(QDoubleValidator(0.0, 1e9, 6, box))
            box.setAccessibleName(f"Price per million {what} tokens")
            box.setToolTip(
                f"What your provider charges per million {what} tokens, for the estimate's "
                "cost (give both; leave empty for none). (CLI: --price-input, --price-output)"
            )
            box.textChanged.connect(lambda _t: self.show_estimate())
        prices = QHBoxLayout()
        prices.addWidget(QLabel("input"))
        prices.addWidget(self.price_input)
        prices.addWidget(QLabel("output"))
        prices.addWidget(self.price_output)
        self.estimate = QLabel()
        self.estimate.setTextFormat(Qt.TextFormat.PlainText)
        self.estimate.setWordWrap(True)
        self.estimate.setAccessibleName("The run's estimate")
        for spin in (self.rounds, self.turns):
            spin.valueChanged.connect(lambda _v: self.show_estimate())
        self.mode.currentIndexChanged.connect(lambda _i: self.show_estimate())
        return prices

    def initializePage(self) -> None:
        w = self.wizard()
        n = len(w.comments_page.comments)
        self.summary.setText(
            f"The agent <b>{html.escape(w.model_page.model.currentText())}</b> will revise "
            f"\u201c{html.escape(w.document_page.title)}\u201d for {plural(n, 'comment')}. You can "
            "cancel at any time; an evidence bundle is written in every case."
        )
        self.show_estimate()

    def _price(self, box: QLineEdit) -> float | None:
        text = box.text().strip().replace(",", ".")
        try:
            return float(text) if text else None
        except ValueError:
            return None

    def show_estimate(self) -> None:
        """The run's estimate (``engine.suite.estimate.estimate_run``, the estimate a suite
        run gets), for the settings on this page; "Start the run" is its confirmation."""
        from engine.suite.estimate import estimate_run, render_run_estimate

        w = self.wizard()
        if w is None:
            return
        pi, po = self._price(self.price_input), self._price(self.price_output)
        est = estimate_run(
            w.document_page.raw or "",
            list(w.comments_page.comments),
            mode=self.mode.currentData() or "tools",
            rounds=self.rounds.value(),
            turns=self.turns.value(),
            price_input=pi,
            price_output=po,
        )
        text = render_run_estimate(est, price_hint="give both prices above")
        if (pi is None) != (po is None):
            text += "\nGive both prices for a cost, or neither."
        if w.model_page.scripted:
            # A script on this computer answers: no model is called, nothing is paid.
            free = (
                "Cost: none. The scripted agent is free: a script on this computer plays the "
                "model, so nothing is spent (its tokens are counted as a model's would be)."
            )
            text = "\n".join(
                free if line.startswith("Cost:") else line
                for line in text.splitlines()
                if not line.startswith("Give both prices")
            )
            self.estimate_text = text
            self.estimate.setText(text + "\n\u201cStart the run\u201d starts it; Back changes it.")
            return
        self.estimate_text = text
        self.estimate.setText(text + "\n\u201cStart the run” spends it; Back changes it.")

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
