"""The Suites tab's one-document drill-down: pick a document, see every comment on it with
the final verdict of each model / variant and repeat side by side (the Compare view for N
runs). The table is the engine's (``engine.suite.drilldown.document_verdicts``, read off
the UI thread, each bundle verified first); this widget lays it out and colours nothing
it did not say."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.jobs import run_in_thread
from engine.vocabulary import error_words


class DocumentVerdicts(QWidget):
    """``show_items(items)`` fills the document picker; choosing one fills the table."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.items: list[Any] = []
        self.table_data: dict[str, Any] | None = None
        self._generation = 0
        self.picker = QComboBox()
        self.picker.setAccessibleName("Document to compare across combinations")
        self.picker.setToolTip("Every combination's verdicts on one document, side by side")
        self.picker.currentIndexChanged.connect(lambda _i: self._load())
        self.state = QLabel("")
        self.state.setTextFormat(Qt.TextFormat.PlainText)
        self.state.setWordWrap(True)
        self.table = QTableWidget(0, 0)
        self.table.setAccessibleName("One document's verdicts, every combination and repeat")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)
        row = QHBoxLayout()
        label = QLabel("One document:")
        label.setBuddy(self.picker)
        row.addWidget(label)
        row.addWidget(self.picker, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(row)
        lay.addWidget(self.state)
        lay.addWidget(self.table, 1)

    def show_items(self, items: list[Any]) -> None:
        from engine.suite.drilldown import document_names

        self.items = list(items)
        current = self.picker.currentText()
        self.picker.blockSignals(True)
        self.picker.clear()
        names = document_names(self.items)
        self.picker.addItems(names)
        if current in names:
            self.picker.setCurrentText(current)
        self.picker.blockSignals(False)
        self._load()

    def _load(self) -> None:
        from engine.suite.drilldown import document_verdicts
        from engine.suite.tamper import tampered_runs

        self._generation += 1
        generation = self._generation
        doc = self.picker.currentText()
        if not doc:
            self.table.clear()
            self.table.setRowCount(0)
            self.table.setColumnCount(0)
            self.state.setText("")
            return
        items = self.items
        self.state.setText(f"Reading the verdicts on {doc}…")

        def work() -> dict[str, Any]:
            return document_verdicts(items, doc, tampered_runs(items))

        def done(data: dict[str, Any]) -> None:
            if generation == self._generation:
                self._fill(data)

        def failed(exc: BaseException) -> None:
            if generation == self._generation:
                self.state.setText(f"The verdicts on {doc} cannot be shown: {error_words(exc)}")

        run_in_thread(work, done, failed)

    def _fill(self, data: dict[str, Any]) -> None:
        from engine.vocabulary import plural

        self.table_data = data
        cols, rows = data["columns"], data["rows"]
        t = self.table
        t.clear()
        t.setColumnCount(1 + len(cols))
        t.setRowCount(len(rows))
        t.setHorizontalHeaderLabels(["comment"] + [c["title"] for c in cols])
        for r, row in enumerate(rows):
            quote = " ".join(row["quote"].split())
            head = QTableWidgetItem(f"Comment {row['number']}: {quote}")
            head.setToolTip(f"Comment {row['number']} on \u201c{quote}\u201d")
            t.setItem(r, 0, head)
            for c, text in enumerate(row["cells"], 1):
                cell = QTableWidgetItem(text)
                cell.setToolTip(f"{cols[c - 1]['title']}: {text}")
                t.setItem(r, c, cell)
        header = t.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        t.resizeColumnsToContents()
        t.resizeRowsToContents()
        self.state.setText(
            f"{data['document']}: {plural(len(rows), 'comment')}, "
            f"{plural(len(cols), 'run')} side by side."
            if rows
            else f"{data['document']}: no run of it has a readable bundle, so no verdicts."
        )
