"""A bar on the Run tab that asks the user something while the run goes on: the model
seems to be going round in circles (``engine.agent.repeats``: the same call with the same
arguments, again and again, nothing changed), stop the run or let it go on?

The words are the engine's (the ``AgentNotice`` text); the bar adds the two choices.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


class RunAlert(QFrame):
    """``ask(text)`` shows the bar; Stop calls ``stop()``, Let it go on hides it."""

    def __init__(self, stop: Callable[[], None], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("runAlert")
        self.setStyleSheet(
            "#runAlert{background:#fff4e0;border:2px solid #E69F00;border-radius:4px}"
            "#runAlert QLabel{color:#3d2600}"
        )
        self.setAccessibleName("The run may be stuck")
        self.text = QLabel()
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setWordWrap(True)
        self.stop_btn = QPushButton("&Stop the run")
        self.stop_btn.setToolTip("Cancel now: the evidence bundle keeps what was done")
        self.go_on_btn = QPushButton("&Let it go on")
        lay = QHBoxLayout(self)
        lay.addWidget(QLabel("\u26a0"))
        lay.addWidget(self.text, 1)
        lay.addWidget(self.stop_btn)
        lay.addWidget(self.go_on_btn)
        self.stop_btn.clicked.connect(lambda: (self.setVisible(False), stop()))
        self.go_on_btn.clicked.connect(lambda: self.setVisible(False))
        self.setVisible(False)

    def ask(self, text: str) -> None:
        self.text.setText(text)
        self.setVisible(True)
        self.stop_btn.setFocus()
