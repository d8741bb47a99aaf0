"""The model-call trace of a bundle (``trace.json``), shown in a window of its own.

The trace is read with the engine's bundle reader (``engine.bundle.open_bundle``, a folder
or a zip) on a worker thread and shown as indented JSON in a read-only plain-text view
(a server's words are text, never markup), with a Copy button and the path of the file.
A trace longer than ``MAX_CHARS`` is shown up to there, and the window says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.jobs import run_in_thread

MAX_CHARS = 5_000_000


def trace_text(path: Path) -> str:
    """The trace of the bundle at ``path`` as indented JSON (CPU and disk: a worker)."""
    from engine.bundle.read import open_bundle

    trace = open_bundle(path).trace
    text = json.dumps(trace, indent=1, ensure_ascii=False)
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + "\n\n[... the rest of trace.json is not shown here]"
    return text


class TraceDialog(QDialog):
    """A read-only view of one bundle's trace."""

    def __init__(self, parent: QWidget | None, path: Path):
        super().__init__(parent)
        self.setWindowTitle("Model-call trace")
        self.resize(900, 600)
        where = QLabel()
        where.setTextFormat(Qt.TextFormat.PlainText)
        where.setWordWrap(True)
        where.setText(
            f"Every request to the model, its answer and each tool call, as {path.name}'s "
            f"trace.json records them ({path})."
        )
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setAccessibleName("The trace, as JSON")
        self.text.setFont(QFont("monospace"))
        self.text.setPlainText("Reading trace.json\u2026")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = QPushButton("Copy")
        copy.setToolTip("Copy the whole trace as text")
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.text.toPlainText()))
        buttons.rejected.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(where)
        lay.addWidget(self.text, 1)
        lay.addWidget(buttons)
        run_in_thread(lambda: trace_text(path), self._shown, self._failed)

    def _shown(self, text: Any) -> None:
        self.text.setPlainText(str(text))

    def _failed(self, exc: BaseException) -> None:
        self.text.setPlainText(f"trace.json could not be read: {exc}")


def show_trace(parent: QWidget | None, path: Path) -> TraceDialog:
    dlg = TraceDialog(parent, path)
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dlg.open()
    return dlg
