"""The Published view: every scorecard published to the publishing folder, newest first.

Reads ``engine.published`` (the folder's ``index.json``); computes nothing. Each row links
back to its bundle (Open bundle) and to its page (Open in browser, a local file: the pages
have no script and need no network). "Choose folder" sets the folder once; the Scorecard
view's Publish button publishes there with one click.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine import vocabulary
from engine.models import METRIC_NAMES

COLUMNS = [
    "Run finished",
    "Model",
    "Document",
    "Status",
    "Signature",
    "Checked",
    "Attribution",
    "Collateral\nchurn",
    "Claim\naccuracy",
    "Tokens\nper fix",
    "Rounds to\nconverge",
]
DOCUMENT = COLUMNS.index("Document")
# Fixed widths (pixels at the default font) for the columns that are elided with a tooltip,
# so the document column keeps the rest of the width and its title reads at 1366 x 768.
WIDTHS = {"Run finished": 130, "Model": 130, "Status": 90, "Signature": 150, "Checked": 150}
MIN_DOCUMENT_WIDTH = 260


def when_text(stamp: str) -> str:
    """``2026-11-30T22:07:49Z`` -> ``2026-11-30 22:07`` (the full stamp is the tooltip);
    anything else unchanged."""
    if len(stamp) >= 16 and stamp[10] == "T":
        return stamp[:10] + " " + stamp[11:16]
    return stamp


def choose_folder(parent: QWidget, then) -> None:
    """Ask for the publishing folder (once), remember it, call ``then(path)``."""
    from engine import published

    start = str(published.published_folder() or Path.home())
    dlg = QFileDialog(parent, "Choose the folder to publish scorecards to", start)
    dlg.setFileMode(QFileDialog.FileMode.Directory)
    dlg.setOption(QFileDialog.Option.ShowDirsOnly, True)

    def chosen(p: str) -> None:
        try:
            folder = published.set_published_folder(p)
        except published.PublishError as exc:
            parent.window().statusBar().showMessage(str(exc), 10000)
            return
        then(folder)

    dlg.fileSelected.connect(chosen)
    parent._folder_dialog = dlg  # keep it alive
    dlg.open()


class PublishedView(QWidget):
    openBundle = Signal(str)  # bundle path
    message = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.where = QLabel()
        self.where.setTextFormat(Qt.TextFormat.PlainText)
        self.where.setWordWrap(True)
        self.folder_btn = QPushButton("Choose &folder\u2026")
        self.index_btn = QPushButton("Open the &index in a browser")
        top = QHBoxLayout()
        top.addWidget(self.where, 1)
        top.addWidget(self.folder_btn)
        top.addWidget(self.index_btn)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)  # the tooltip has it all
        header = self.table.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
        header.setMinimumSectionSize(60)
        for c, name in enumerate(COLUMNS):
            if name in WIDTHS:
                header.setSectionResizeMode(c, QHeaderView.ResizeMode.Interactive)
                self.table.setColumnWidth(c, WIDTHS[name])
            elif c != DOCUMENT:
                header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(DOCUMENT, QHeaderView.ResizeMode.Stretch)
        self.open_btn = QPushButton("Open &bundle")
        self.page_btn = QPushButton("Open scorecard in &browser")
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.page_btn)
        bottom.addWidget(self.open_btn)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addLayout(top)
        lay.addWidget(self.table, 1)
        lay.addLayout(bottom)
        self.entries: list = []
        self.folder_btn.clicked.connect(lambda: choose_folder(self, lambda _f: self.refresh()))
        self.index_btn.clicked.connect(self.open_index)
        self.open_btn.clicked.connect(self.open_selected_bundle)
        self.page_btn.clicked.connect(self.open_selected_page)
        self.table.itemDoubleClicked.connect(lambda _i: self.open_selected_bundle())
        self.table.itemSelectionChanged.connect(self._enable)
        self.refresh()

    def refresh(self) -> None:
        """Read the folder's index again."""
        from engine import published

        folder = published.published_folder()
        self.entries = published.entries(folder) if folder else []
        if folder is None:
            self.where.setText(
                "Nothing published yet. Choose a folder others can open (a shared drive, "
                "a synced folder, a repository checkout); Publish on the Scorecard tab "
                "then writes there with one click."
            )
        else:
            self.where.setText(
                f"Published to {folder}: {len(self.entries)} run(s), newest first. "
                "Each page is this program's own scorecard, checked when published. "
                "Double-click a run to open its bundle here."
            )
        self.index_btn.setEnabled(folder is not None and (folder / published.INDEX_HTML).is_file())
        self.table.setRowCount(len(self.entries))
        for r, e in enumerate(self.entries):
            sig = e.signature or {}
            if sig.get("state") == "signed":
                who = sig.get("trusted_as") or "unknown key"
                sig_text = f"\u2714 {sig.get('fingerprint')} ({who})"
            elif sig.get("state") == "bad" and sig.get("uncovered"):
                sig_text = "\u26a0 NOT COVERED: files changed after signing"
            elif sig.get("state") == "bad":
                sig_text = "\u26a0 BAD SIGNATURE"
            else:
                sig_text = "unsigned"
            cells = [
                when_text(e.finished_at or e.created_at),
                e.model,
                e.document_title + (" (scripted)" if e.scripted else ""),
                e.status,
                sig_text,
                e.verification,
            ]
            tips = list(cells)
            tips[0] = e.finished_at or e.created_at
            for name in METRIC_NAMES:
                m = e.metrics.get(name)
                cells.append(vocabulary.metric_value(name, m) if isinstance(m, dict) else "")
                tip = vocabulary.metric_text(name, m) if isinstance(m, dict) else ""
                if e.figures == "recomputed":
                    tip += " (recomputed from the bundle's documents: it failed verification)"
                tips.append(tip)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(str(text))
                item.setToolTip(str(tips[c]))
                if e.tampered:
                    item.setForeground(Qt.GlobalColor.darkRed)
                self.table.setItem(r, c, item)
        self._fit_document()
        self._enable()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        QTimer.singleShot(0, self._fit_document)  # once the table has its new size

    def _fit_document(self) -> None:
        """The document column takes the width the others leave, but never less than a
        readable width (the table then scrolls sideways instead)."""
        header = self.table.horizontalHeader()
        others = sum(header.sectionSize(c) for c in range(len(COLUMNS)) if c != DOCUMENT)
        free = self.table.viewport().width() - others
        if free >= MIN_DOCUMENT_WIDTH:
            header.setSectionResizeMode(DOCUMENT, QHeaderView.ResizeMode.Stretch)
        else:
            header.setSectionResizeMode(DOCUMENT, QHeaderView.ResizeMode.Interactive)
            self.table.setColumnWidth(DOCUMENT, MIN_DOCUMENT_WIDTH)
        self.table.resizeRowsToContents()

    def _enable(self) -> None:
        ok = self._selected() is not None
        self.open_btn.setEnabled(ok)
        self.page_btn.setEnabled(ok)

    def _selected(self):
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows or rows[0].row() >= len(self.entries):
            return None
        return self.entries[rows[0].row()]

    def open_selected_bundle(self) -> None:
        e = self._selected()
        if e is None:
            return
        target = e.bundle
        if not Path(target).exists():
            # The copy in the published folder (published.BUNDLE_COPY) is the evidence too.
            from engine import published

            folder = published.published_folder()
            copy = folder / e.bundle_copy if folder is not None and e.bundle_copy else None
            if copy is None or not copy.is_file():
                self.message.emit(f"The bundle {e.bundle} is no longer there.")
                return
            target = str(copy)
        self.openBundle.emit(target)

    def open_selected_page(self) -> None:
        from engine import published

        e = self._selected()
        folder = published.published_folder()
        if e is not None and folder is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder / e.scorecard)))

    def open_index(self) -> None:
        from engine import published

        folder = published.published_folder()
        if folder is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder / published.INDEX_HTML)))
