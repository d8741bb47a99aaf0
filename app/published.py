"""The Published view: every scorecard published to the publishing folder, newest first.

Shows ``engine.publish.published.entries`` (each entry re-checked from its bundle copy in the
folder, on a worker thread: never the figures or marks ``index.json`` states); computes
nothing. Each row links
back to its bundle (Open bundle) and to its page (Open in browser, a local file: the pages
have no script and need no network). "Choose folder" sets the folder once; the Scorecard
view's Publish button publishes there with one click.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
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
from engine.vocabulary import METRIC_NAMES

COLUMNS = [
    "Finished",  # a run's end, or the check of a revision made elsewhere ("checked ...")
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
SIGNATURE = COLUMNS.index("Signature")
# Fixed widths (pixels at the default font) for the columns that are elided with a tooltip,
# so the document column keeps the rest of the width and its title reads at 1366 x 768.
WIDTHS = {"Finished": 130, "Model": 130, "Status": 130, "Signature": 150, "Checked": 150}
MIN_DOCUMENT_WIDTH = 260


def choose_folder(parent: QWidget, then) -> None:
    """Ask for the publishing folder (once), remember it, call ``then(path)``."""
    from engine.publish import published

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


def signature_text(e) -> str:
    """The Signature cell: the check mark only for a signer the local trusted-keys store
    names (``PublishedEntry.trusted_signer``); a valid signature by an unknown key gets
    the neutral mark."""
    sig = e.signature or {}
    if e.problem:
        return "not checked"
    from engine.bundle.signing import OWN_KEY_NAME

    # In words; the key fingerprint is in the cell's tooltip (``row_cells``).
    if e.trusted_signer == OWN_KEY_NAME:
        return "\u2714 signed by you on this computer"
    if e.trusted_signer:
        return f"\u2714 signed by {e.trusted_signer}, a signer you trust"
    if sig.get("state") == "signed":
        return "\u2022 signed by a key you have not chosen to trust"
    if sig.get("state") == "bad" and sig.get("uncovered"):
        return "\u26a0 NOT COVERED: files changed after signing"
    if sig.get("state") == "bad":
        return "\u26a0 BAD SIGNATURE"
    return "unsigned"


def row_cells(e) -> tuple[list[str], list[str]]:
    """(cells, tooltips) of one published entry, in ``COLUMNS`` order."""
    if e.problem:
        cells = [
            "",  # the run's times are in its bundle copy, which could not be checked
            "",
            e.document_title,
            "",
            signature_text(e),
            f"\u26a0 NOT CHECKED: {e.problem}",
        ]
        tips = list(cells)
        tips[0] = f"published {vocabulary.when_words(e.published_at)}"
        cells += ["" for _ in METRIC_NAMES]
        tips += ["not shown: the bundle copy could not be checked" for _ in METRIC_NAMES]
        return cells, tips
    when = vocabulary.when_words(e.finished_at or e.created_at)
    cells = [
        f"checked {when}" if e.external else when,
        e.model_words,  # a revision checked here says why it names no model
        e.document_title + (" (scripted)" if e.scripted else ""),
        e.status_words,
        signature_text(e),
        e.verification,
    ]
    tips = list(cells)
    tips[0] = (
        f"Checked here on {when}: a revision made elsewhere ({vocabulary.EXTERNAL_NO_RUN})"
        if e.external
        else when
    )
    from engine.bundle.signing import FINGERPRINT_MEANS

    sig = e.signature or {}
    line = sig.get("line") or cells[4]
    tips[4] = f"{line}\n{FINGERPRINT_MEANS}" if sig.get("fingerprint") else line
    if e.outcome:
        tips[3] = f"{e.outcome}; " + (
            vocabulary.EXTERNAL_STATUS_WORDS.lower() if e.external else f"the run itself {e.status}"
        )
    for name in METRIC_NAMES:
        m = e.metrics.get(name)
        cells.append(vocabulary.metric_value(name, m) if isinstance(m, dict) else "")
        tip = vocabulary.metric_text(name, m) if isinstance(m, dict) else ""
        if e.figures == "recomputed":
            tip += " (recomputed from the bundle's documents: it failed verification)"
        tips.append(tip)
    return cells, tips


def _require_review() -> bool:
    """The engine's setting; off when its file cannot be read."""
    from engine.publish import published

    try:
        return published.require_complete_review()
    except Exception:  # an unreadable settings file: the default, off
        return False


class PublishedView(QWidget):
    openBundle = Signal(str)  # bundle path
    message = Signal(str)
    listed = Signal()  # the table shows the folder as last read

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
        self.table.setAccessibleName("Published scorecards, newest first")
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
        # The engine's setting (arl bundle publish --require-review), read and written by it.
        self.require_box = QCheckBox("Re&quire a complete review before publishing or sending back")
        self.require_box.setToolTip(
            "When on, a run is published or sent back to the agent only once every "
            "actionable comment has your decision (the same setting as arl bundle publish "
            "--require-review)"
        )
        self.require_box.setAccessibleName("Require a complete review")
        self.require_box.setChecked(_require_review())
        self.require_box.toggled.connect(self._set_require_review)
        bottom = QHBoxLayout()
        bottom.addWidget(self.require_box)
        bottom.addStretch(1)
        bottom.addWidget(self.page_btn)
        bottom.addWidget(self.open_btn)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addLayout(top)
        lay.addWidget(self.table, 1)
        lay.addLayout(bottom)
        self.entries: list = []
        self._generation = 0
        self.folder_btn.clicked.connect(lambda: choose_folder(self, lambda _f: self.refresh()))
        self.index_btn.clicked.connect(self.open_index)
        self.open_btn.clicked.connect(self.open_selected_bundle)
        self.page_btn.clicked.connect(self.open_selected_page)
        self.table.itemDoubleClicked.connect(lambda _i: self.open_selected_bundle())
        self.table.itemSelectionChanged.connect(self._enable)
        self.refresh()

    def _set_require_review(self, on: bool) -> None:
        from engine.publish import published

        try:
            published.set_require_complete_review(on)
        except published.PublishError as exc:
            self.message.emit(str(exc))
            self.require_box.blockSignals(True)
            self.require_box.setChecked(_require_review())
            self.require_box.blockSignals(False)
            return
        self.message.emit(
            "Publishing and sending back now ask for a complete review."
            if on
            else "Publishing and sending back no longer ask for a complete review."
        )

    def refresh(self) -> None:
        """Read the folder again: each entry's bundle copy is verified (the engine's
        ``published.entries``, cached by the copy's hash) on a worker thread; the table
        fills when that is done (``listed``)."""
        from app.jobs import run_in_thread
        from engine.publish import published

        folder = published.published_folder()
        self._generation += 1
        generation = self._generation
        self.index_btn.setEnabled(folder is not None and (folder / published.INDEX_HTML).is_file())
        if folder is None:
            self.where.setText(
                "Nothing published yet. Choose a folder others can open (a shared drive, "
                "a synced folder, a repository checkout); Publish on the Scorecard tab "
                "then writes there with one click."
            )
            self._show(generation, folder, [])
            return
        self.where.setText(f"Published to {folder}: checking each run's bundle copy\u2026")
        run_in_thread(
            lambda: published.entries(folder),
            lambda runs: self._show(generation, folder, runs),
            lambda exc: self._failed(generation, folder, exc),
        )

    def _failed(self, generation: int, folder: Path, exc: BaseException) -> None:
        if generation != self._generation:
            return
        self.where.setText(
            f"Published to {folder}: the folder could not be read ({vocabulary.error_words(exc)})."
        )
        self._show(generation, folder, [], say=False)

    def _show(self, generation: int, folder: Path | None, runs: list, say: bool = True) -> None:
        """Fill the table with ``runs`` (entries as their bundle copies say), unless a
        newer refresh started meanwhile."""
        if generation != self._generation:
            return
        self.entries = runs
        if folder is not None and say:
            unchecked = sum(1 for e in runs if e.problem)
            tampered = sum(1 for e in runs if e.tampered and not e.problem)
            bad = []
            if tampered:
                bad.append(f"{tampered} TAMPERED")
            if unchecked:
                bad.append(f"{unchecked} NOT CHECKED (bundle copy missing or unreadable)")
            self.where.setText(
                f"Published to {folder}: {vocabulary.plural(len(runs), 'scorecard')}, newest first"
                + (f" ({', '.join(bad)})" if bad else "")
                + ". Each row was checked again from the copy of its bundle in the folder "
                "(signature against your trusted keys, every figure re-derived); "
                "double-click a row to open its bundle here."
            )
        self.table.setRowCount(len(runs))
        for r, e in enumerate(runs):
            cells, tips = row_cells(e)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(str(text))
                item.setToolTip(str(tips[c]))
                if e.tampered or e.problem:
                    item.setForeground(Qt.GlobalColor.darkRed)
                self.table.setItem(r, c, item)
        self._fit_document()
        self._enable()
        self.listed.emit()

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
        """Open the row's bundle copy in the published folder: the figures the row shows were
        checked from it (``index.json``'s original path can be edited to point at another
        bundle). The original path only for an entry published before copies were kept."""
        from engine.publish import published

        e = self._selected()
        if e is None:
            return
        folder = published.published_folder()
        from engine.publish.check import link_in

        copy = folder / e.bundle_copy if folder is not None and e.bundle_copy else None
        linked = copy is not None and folder is not None and link_in(folder, e.bundle_copy)
        if copy is not None and copy.is_file() and not linked:
            target = str(copy)
        elif not e.bundle_copy and Path(e.bundle).exists():
            target = e.bundle
        else:
            self.message.emit(
                f"The bundle copy of {e.document_title or e.run_id} is not in the folder."
            )
            return
        self.openBundle.emit(target)

    def open_selected_page(self) -> None:
        from engine.publish import published
        from engine.publish.check import link_in

        e = self._selected()
        folder = published.published_folder()
        if e is not None and folder is not None and e.scorecard:
            if link_in(folder, e.scorecard) is not None:
                self.message.emit(
                    f"The scorecard page of {e.document_title or e.run_id} is a link to "
                    "somewhere else; links in the published folder are never opened."
                )
                return
            from app.open_file import open_local

            open_local(self, folder / e.scorecard, "the scorecard page")

    def open_index(self) -> None:
        from engine.publish import published

        folder = published.published_folder()
        if folder is not None and not (folder / published.INDEX_HTML).is_symlink():
            from app.open_file import open_local

            open_local(self, folder / published.INDEX_HTML, "the index")
