"""The Scorecard view: the bundle's own scorecard page; Publish, Export HTML, Export PDF.

The scorecard comes from the bundle and is rendered like any untrusted document (no page
scripts, no network). Publishing stores it in the workspace as a document of its own
(``engine.bundle.publish_scorecard``), after a confirmation that names it.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.bundledata import BundleData
from app.docview import DocumentView


def scorecard_title(data: BundleData) -> str:
    """The title the published document will carry (the engine's naming)."""
    title = f"Scorecard: {data.title or 'document'} ({data.model or 'unknown model'})"
    if data.tampered:
        title += " [TAMPERED BUNDLE]"
    return title


class ScorecardView(QWidget):
    published = Signal(str)  # document id
    exported = Signal(str)  # path
    message = Signal(str)  # plain sentence for the status bar

    def __init__(self, parent=None):
        super().__init__(parent)
        self.data: BundleData | None = None
        self.view = DocumentView()
        self.view.setAccessibleName("Scorecard")
        self.info = QLabel("Open an evidence bundle to see its scorecard.")
        self.info.setWordWrap(True)
        self.publish_btn = QPushButton("&Publish to workspace\u2026")
        self.publish_btn.setToolTip(
            "Store this scorecard in the workspace as a document of its own"
        )
        self.html_btn = QPushButton("Export &HTML\u2026")
        self.pdf_btn = QPushButton("Export P&DF\u2026")
        for b in (self.publish_btn, self.html_btn, self.pdf_btn):
            b.setEnabled(False)
        row = QHBoxLayout()
        row.addWidget(self.info, 1)
        row.addWidget(self.publish_btn)
        row.addWidget(self.html_btn)
        row.addWidget(self.pdf_btn)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addLayout(row)
        lay.addWidget(self.view, 1)
        self.publish_btn.clicked.connect(self.ask_publish)
        self.html_btn.clicked.connect(self.ask_export_html)
        self.pdf_btn.clicked.connect(self.ask_export_pdf)
        self.view.page().pdfPrintingFinished.connect(self._pdf_done)
        self._confirm: QMessageBox | None = None
        self._loaded_for: BundleData | None = None
        self.workspace_factory = None  # set by the main window; returns a Workspace

    def show_bundle(self, data: BundleData) -> None:
        """Show ``data``'s scorecard; the page loads when this view is first shown (so it
        does not compete with the Verdicts view for the renderer)."""
        self.data = data
        self._loaded_for = None
        if data.scorecard:
            self.info.setText(f"Scorecard of this run, as stored in the bundle ({data.path.name}).")
        else:
            self.info.setText("This bundle has no scorecard.")
        for b in (self.publish_btn, self.html_btn, self.pdf_btn):
            b.setEnabled(bool(data.scorecard))
        if self.isVisible():
            self.ensure_loaded()

    def ensure_loaded(self) -> bool:
        """Load the page if it is not loaded yet; True when it already was."""
        if self.data is None or self._loaded_for is self.data:
            return True
        self._loaded_for = self.data
        if self.data.scorecard:
            self.view.show_document(self.data.scorecard, labels=False)
        else:
            self.view.show_message("This bundle has no scorecard.")
        return False

    def showEvent(self, event):
        super().showEvent(event)
        self.ensure_loaded()

    # -- publish ---------------------------------------------------------------------------

    def ask_publish(self) -> None:
        if self.data is None:
            return
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setTextFormat(Qt.TextFormat.PlainText)  # the title comes from the bundle
        box.setWindowTitle("Publish the scorecard")
        box.setText(
            f"Publish this scorecard to the workspace as the document "
            f"\u201c{scorecard_title(self.data)}\u201d?"
        )
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Yes)
        box.finished.connect(lambda r: r == QMessageBox.StandardButton.Yes and self.publish())
        self._confirm = box
        box.open()

    def publish(self) -> str | None:
        """Publish now (no question). Returns the new document id."""
        from engine.bundle import publish_scorecard
        from engine.workspace import Workspace

        if self.data is None:
            return None
        factory = self.workspace_factory or Workspace
        try:
            ws = factory()
            try:
                doc_id = publish_scorecard(ws, self.data.source)
            finally:
                if factory is Workspace:
                    ws.close()
        except Exception as exc:
            self.message.emit(f"The scorecard could not be published: {exc}")
            return None
        self.message.emit(
            f"Published \u201c{scorecard_title(self.data)}\u201d to the "
            f"workspace (document {doc_id})."
        )
        self.published.emit(doc_id)
        return doc_id

    # -- export ----------------------------------------------------------------------------

    def _ask_path(self, caption: str, suffix: str, filt: str, then) -> None:
        base = (self.data.path.stem if self.data else "scorecard") + f"-scorecard.{suffix}"
        dlg = QFileDialog(self, caption, str(Path.home() / base), filt)
        dlg.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dlg.setDefaultSuffix(suffix)
        dlg.fileSelected.connect(then)
        self._dialog = dlg
        dlg.open()

    def ask_export_html(self) -> None:
        self._ask_path(
            "Export the scorecard as HTML", "html", "HTML files (*.html)", self.export_html
        )

    def ask_export_pdf(self) -> None:
        self._ask_path("Export the scorecard as PDF", "pdf", "PDF files (*.pdf)", self.export_pdf)

    def export_html(self, path: str) -> None:
        if self.data is None or not path:
            return
        try:
            Path(path).write_text(self.data.scorecard, encoding="utf-8")
        except OSError as exc:
            self.message.emit(f"Could not write {path}: {exc.strerror or exc}")
            return
        self.message.emit(f"Scorecard exported to {path}")
        self.exported.emit(path)

    def export_pdf(self, path: str) -> None:
        if self.data is None or not path:
            return
        self._pdf_path = path
        if self.ensure_loaded() and self.view.is_ready:
            self.view.page().printToPdf(path)
            return

        def ready(ok: bool) -> None:
            self.view.rendered.disconnect(ready)
            self.view.page().printToPdf(path)

        self.view.rendered.connect(ready)

    def _pdf_done(self, path: str, ok: bool) -> None:
        if ok:
            # Chromium writes the PDF owner-only (0600); give it the mode any file the user
            # saves gets (0666 less the umask), as the HTML export has.
            try:
                mask = os.umask(0)
                os.umask(mask)
                os.chmod(path, 0o666 & ~mask)
            except OSError:
                pass
            self.message.emit(f"Scorecard exported to {path}")
            self.exported.emit(path)
        else:
            self.message.emit(f"Could not write the PDF {path}")
