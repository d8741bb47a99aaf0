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
    QAbstractScrollArea,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.headers import ElidingHeader
from app.jobs import run_in_thread
from engine.vocabulary import error_words

QUOTE_SHARE = 0.45  # of the table's width, the most the comment column takes
HEADER_LINES = 3  # a run's label is broken onto at most this many lines


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
        # A run's label ("smollm2-135m no-tools / default, repeat 1") goes onto up to
        # HEADER_LINES lines, then ends in "…", when its column is narrower (it ran past
        # the table's edge, cut mid-word: "smollm2-135m no-to"), whole in the tooltip.
        self.table.setHorizontalHeader(ElidingHeader(self.table, lines=HEADER_LINES))
        # No taller than its rows (its size hint follows them, and this widget is never
        # given more than its hint): the height it does not need goes to the runs table.
        self.table.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
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

    def fit_columns(self) -> None:
        """Each column as wide as its cells and its label on up to ``HEADER_LINES`` lines
        (the comment's cells at most ``QUOTE_SHARE`` of the table); the room left widens
        the columns until their labels take fewer lines. A label is never cut mid-word at
        the table's edge: more runs than the width holds scroll sideways, and a column the
        reader narrows ends its label in "…" (``ElidingHeader``, whole in its tooltip)."""
        t = self.table
        n = t.columnCount()
        header = t.horizontalHeader()
        if not n or not isinstance(header, ElidingHeader):
            return
        room = t.viewport().width()
        cells = [max(t.sizeHintForColumn(c), 24) for c in range(n)]
        cells[0] = min(cells[0], round(QUOTE_SHARE * room))
        widths = [max(w, header.least_width(c)) for c, w in enumerate(cells)]
        wants = [max(w, header.label_width(c)) for c, w in enumerate(widths)]
        left = room - sum(widths)
        while left > 0:
            short = [c for c in range(n) if widths[c] < wants[c]]
            if not short:
                break
            step = max(1, left // len(short))
            for c in short:
                give = min(step, wants[c] - widths[c], left)
                widths[c] += give
                left -= give
        for c, w in enumerate(widths):
            t.setColumnWidth(c, w)
        t.resizeRowsToContents()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_columns()

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
        self.fit_columns()
        self.state.setText(
            f"{data['document']}: {plural(len(rows), 'comment')}, "
            f"{plural(len(cols), 'run')} side by side."
            if rows
            else f"{data['document']}: no run of it has a readable bundle, so no verdicts."
        )
