"""The Scorecard view: this program's scorecard of the bundle; Publish, Export HTML/PDF.

The page is the program's own rendering (``engine.bundle.own_scorecard``), never the
bundle's ``scorecard.html``: it carries a TAMPERED banner naming every failed check (files,
figures that do not re-derive, a bad signature) once the re-derivation (off the UI thread,
``app.bundledata.start_checks``) is in, and so do its HTML and PDF exports. It is rendered
like any untrusted document (no page scripts, no network). Publishing stores it in the
workspace (``engine.bundle.publish_scorecard``), after a confirmation that names it.
"Trust this signer" names the bundle's signing key as trusted (``engine.bundle.signing``).
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

from app.bundledata import BundleData, rederive_now, start_checks
from app.docview import DocumentView
from engine.vocabulary import error_words, run_words

#: Which page is which, said beside the one shown: the view renders the bundle in this
#: program's current words; the bundle's ``scorecard.html`` (written when it ran, in the
#: words of its day) is evidence, hashed and signed, never rewritten (docs/gui.md).
STORED_NOTE = (
    "Shown in this program's current words; the scorecard.html inside the bundle is the "
    "page written when it ran, kept unchanged as evidence."
)


def scorecard_title(data: BundleData) -> str:
    """The title the published document will carry (the engine's naming)."""
    title = f"Scorecard: {data.title or 'document'} ({data.model or 'unknown model'})"
    if data.untrustworthy:
        title += " [TAMPERED BUNDLE]"
    return title


def page_of(data: BundleData, *, final: bool = False) -> str:
    """This program's scorecard page of ``data`` (``final``: re-derive now if the
    background check has not finished, for exports)."""
    from engine.bundle.bundle import own_scorecard

    if final:
        rederive_now(data)
    return own_scorecard(data.source, data.rederivation, data.signature, rederive_missing=False)


class ScorecardView(QWidget):
    published = Signal(str)  # document id
    publishedToFolder = Signal(str)  # the run's page
    exported = Signal(str)  # path
    message = Signal(str)  # plain sentence for the status bar

    def __init__(self, parent=None):
        super().__init__(parent)
        self.data: BundleData | None = None
        self.view = DocumentView()
        self.view.setAccessibleName("Scorecard")
        self.info = QLabel("Open an evidence bundle to see its scorecard.")
        self.info.setWordWrap(True)
        # It names the bundle's own words (the document's title): never read as markup.
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        self.publish_btn = QPushButton("&Publish")
        self.publish_btn.setToolTip(
            "Publish this scorecard to your publishing folder (asked once): a page per run "
            "and an index others can open in any browser"
        )
        self.html_btn = QPushButton("Export &HTML\u2026")
        self.pdf_btn = QPushButton("Export P&DF\u2026")
        self.csv_btn = QPushButton("Export &CSV\u2026")
        self.csv_btn.setToolTip(
            "Each comment's verdict and reviewer decision as a spreadsheet (CSV): id, quote, "
            "verdict, decision, reason, reviewer"
        )
        self.trust_btn = QPushButton("&Trust this signer\u2026")
        self.trust_btn.setToolTip("Name the key that signed this bundle as one you trust")
        self.trust_btn.setVisible(False)
        for b in (self.publish_btn, self.html_btn, self.pdf_btn, self.csv_btn):
            b.setEnabled(False)
        row = QHBoxLayout()
        row.addWidget(self.info, 1)
        row.addWidget(self.trust_btn)
        row.addWidget(self.publish_btn)
        row.addWidget(self.html_btn)
        row.addWidget(self.pdf_btn)
        row.addWidget(self.csv_btn)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addLayout(row)
        lay.addWidget(self.view, 1)
        self.publish_btn.clicked.connect(self.publish_to_folder)
        self.html_btn.clicked.connect(self.ask_export_html)
        self.pdf_btn.clicked.connect(self.ask_export_pdf)
        self.csv_btn.clicked.connect(self.ask_export_csv)
        self.trust_btn.clicked.connect(self.ask_trust)
        self.view.page().pdfPrintingFinished.connect(self._pdf_done)
        self._confirm: QMessageBox | None = None
        self._loaded_for: BundleData | None = None
        self.workspace_factory = None  # set by the main window; returns a Workspace

    def show_bundle(self, data: BundleData) -> None:
        """Show this program's scorecard of ``data``; the page loads when this view is
        first shown (so it does not compete with the Verdicts view for the renderer) and
        again when the re-derivation is in."""
        self.data = data
        self._loaded_for = None
        self._describe()
        for b in (self.publish_btn, self.html_btn, self.pdf_btn, self.csv_btn):
            b.setEnabled(True)
        start_checks(data, lambda _r: self._checked(data))
        if self.isVisible():
            self.ensure_loaded()

    def _describe(self) -> None:
        data = self.data
        if data is None:
            return
        sig = data.signature
        self.trust_btn.setVisible(
            bool(sig is not None and sig.state == "signed" and not sig.trusted)
        )
        # In words; the fingerprint and the folder in the tooltip.
        sig_text = f" \u2014 {sig.words()}" if sig is not None else ""
        tip = str(data.path) + (f"\nSignature: {sig.line()}" if sig is not None else "")
        self.info.setToolTip(tip)
        title = str(data.manifest.get("document_title") or "") or "this run"
        named = f"\u201c{title}\u201d" if title != "this run" else title
        if data.untrustworthy:
            said = data.figures_headline or "Do not trust these figures."
            self.info.setText(f"TAMPERED: {named}, {run_words(data.manifest)}{sig_text}. {said}")
            self.info.setWordWrap(True)
            self.info.setStyleSheet(
                "color:#4a1400;background:#fde8e0;border:2px solid #D55E00;padding:4px;"
                "font-weight:600;"
            )
        else:
            checked = (
                "; every figure re-derives from its own files"
                if data.rederivation is not None and data.rederivation.ok
                else ""
            )
            self.info.setText(
                f"This program's scorecard of {named}{sig_text}{checked}. {STORED_NOTE}"
            )
            self.info.setWordWrap(True)
            self.info.setStyleSheet("")
        self._mark_tab(data.untrustworthy)

    def _mark_tab(self, tampered: bool) -> None:
        from PySide6.QtWidgets import QTabWidget

        w = self.parentWidget()
        while w is not None and not isinstance(w, QTabWidget):
            w = w.parentWidget()
        if w is not None:
            i = w.indexOf(self)
            if i >= 0:
                w.setTabText(i, "S&corecard \u26a0 TAMPERED" if tampered else "S&corecard")

    def _checked(self, data: BundleData) -> None:
        if data is not self.data:
            return
        self._describe()
        self._loaded_for = None
        if self.isVisible():
            self.ensure_loaded()

    def ensure_loaded(self) -> bool:
        """Load the page if it is not loaded yet; True when it already was."""
        if self.data is None or self._loaded_for is self.data:
            return True
        from app import theme

        self._loaded_for = self.data
        self._loaded_dark = theme.is_dark()
        self.view.show_document(page_of(self.data), labels=False, dark=self._loaded_dark)
        return False

    def changeEvent(self, event) -> None:
        """When the scheme changes (light or dark), the page is shown again in it."""
        super().changeEvent(event)
        from PySide6.QtCore import QEvent

        from app import theme

        if event.type() == QEvent.Type.PaletteChange and self._loaded_for is not None:
            if getattr(self, "_loaded_dark", False) != theme.is_dark():
                self._loaded_for = None
                if self.isVisible():
                    self.ensure_loaded()

    def ask_trust(self) -> None:
        from PySide6.QtWidgets import QInputDialog

        if self.data is None or self.data.signature is None:
            return
        fp = self.data.signature.fingerprint
        dlg = QInputDialog(self)
        dlg.setWindowTitle("Trust this signer")
        dlg.setLabelText(
            f"This bundle was signed with the key {fp}. It is not this computer's own key "
            "(bundles you make here read \u201csigned by you on this computer\u201d) and "
            "not one you trust yet.\n\nTrust it only if you know whose it is, for example "
            "when its owner told you this fingerprint. Who holds it? The name is shown "
            "beside every bundle it signs (for example: Ana's laptop, the review team)."
        )
        dlg.textValueSelected.connect(lambda name: self.trust(name))
        self._dialog = dlg
        dlg.open()

    def trust(self, name: str) -> None:
        """Name the signer of the shown bundle as trusted (an empty name: nothing)."""
        from engine.bundle import signing
        from engine.bundle.bundle import trust_signer

        if self.data is None or self.data.signature is None or not name.strip():
            return
        try:
            trust_signer(self.data.source, name)  # by its full key
        except (OSError, ValueError) as exc:
            self.message.emit(f"Could not save the trusted key: {error_words(exc)}")
            return
        self.data.signature = signing.check_bundle(self.data.source)
        self._describe()
        self._loaded_for = None
        if self.isVisible():
            self.ensure_loaded()
        self.message.emit(
            f"Trusted {self.data.signature.fingerprint} as \u201c{name.strip()}\u201d."
        )

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
        from engine.bundle.bundle import publish_scorecard
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
            self.message.emit(f"The scorecard could not be published: {error_words(exc)}")
            return None
        self.message.emit(
            f"Published \u201c{scorecard_title(self.data)}\u201d to the "
            f"workspace (document {doc_id})."
        )
        self.published.emit(doc_id)
        return doc_id

    def publish_to_folder(self) -> None:
        """One click: publish to the folder chosen once (asked the first time), off the UI
        thread (the bundle is checked again as it is published)."""
        from engine.publish import published

        if self.data is None:
            return
        folder = published.published_folder()
        if folder is None:
            from app.published import choose_folder

            choose_folder(self, lambda _f: self.publish_to_folder())
            return
        from app.jobs import run_in_thread

        data = self.data
        self.publish_btn.setEnabled(False)
        self.message.emit(f"Publishing to {folder}\u2026")

        def done(entry) -> None:
            self.publish_btn.setEnabled(True)
            page = str(folder / entry.scorecard)
            mark = " (marked TAMPERED)" if entry.tampered else ""
            title = str(data.manifest.get("document_title") or "").strip()
            named = f"\u201c{title}\u201d, " if title else "a document with no title, "
            self.message.emit(f"Published {named}{run_words(data.manifest)}, to {page}{mark}.")
            self.publishedToFolder.emit(page)

        def failed(exc: BaseException) -> None:
            self.publish_btn.setEnabled(True)
            self.message.emit(f"The scorecard could not be published: {error_words(exc)}")

        run_in_thread(lambda: published.publish(data.path, folder), done, failed)

    # -- export ----------------------------------------------------------------------------

    def _ask_path(self, caption: str, suffix: str, filt: str, then) -> None:
        base = (self.data.path.stem if self.data else "scorecard") + f"-scorecard.{suffix}"
        from app.settings import Settings

        settings = Settings()  # the dialog opens in the last folder used
        dlg = QFileDialog(self, caption, str(settings.start_folder() / base), filt)
        dlg.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dlg.setDefaultSuffix(suffix)
        dlg.fileSelected.connect(settings.remember_folder_of)
        dlg.fileSelected.connect(then)
        self._dialog = dlg
        dlg.open()

    def ask_export_html(self) -> None:
        self._ask_path(
            "Export the scorecard as HTML", "html", "HTML files (*.html)", self.export_html
        )

    def ask_export_pdf(self) -> None:
        self._ask_path("Export the scorecard as PDF", "pdf", "PDF files (*.pdf)", self.export_pdf)

    def ask_export_csv(self) -> None:
        self._ask_path(
            "Export verdicts and decisions as CSV", "csv", "CSV files (*.csv)", self.export_csv
        )

    def export_csv(self, path: str) -> None:
        """One row per comment (``engine.bundle.csv_export``): the verdicts shown and the
        decisions that count (none from decisions that fail their checks)."""
        if self.data is None or not path:
            return
        from engine.bundle.csv_export import write_csv
        from engine.bundle.decisions import check_decisions

        red = rederive_now(self.data)
        decisions = check_decisions(self.data.source, red) if red is not None else None
        try:
            write_csv(path, self.data.source, self.data.verdicts, decisions)
        except OSError as exc:
            self.message.emit(f"Could not write {path}: {exc.strerror or exc}")
            return
        self.message.emit(f"Verdicts and decisions exported to {path}{self._stamp()}")
        self.exported.emit(path)

    def refresh(self) -> None:
        """Render the page again (a decision was recorded in the Verdicts view)."""
        if self.data is not None:
            self._checked(self.data)

    def export_html(self, path: str) -> None:
        if self.data is None or not path:
            return
        try:
            Path(path).write_text(page_of(self.data, final=True), encoding="utf-8")
        except OSError as exc:
            self.message.emit(f"Could not write {path}: {exc.strerror or exc}")
            return
        self.message.emit(f"Scorecard exported to {path}{self._stamp()}")
        self.exported.emit(path)

    def _stamp(self) -> str:
        """What an exported page of an untrustworthy bundle is stamped with, in words."""
        if self.data is None or not self.data.untrustworthy:
            return ""
        return " (stamped TAMPERED; its figures are recomputed from the bundle's documents)"

    def export_pdf(self, path: str) -> None:
        if self.data is None or not path:
            return
        self._pdf_path = path
        if self.data.rederivation is None:  # the PDF carries the checks' result
            rederive_now(self.data)
            self._describe()
            self._loaded_for = None
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
            self.message.emit(f"Scorecard exported to {path}{self._stamp()}")
            self.exported.emit(path)
        else:
            self.message.emit(f"Could not write the PDF {path}")
