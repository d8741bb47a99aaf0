"""Page 2 of the setup wizard: the document (a file, or written by the model from a brief)."""

from __future__ import annotations

import asyncio
import html
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QButtonGroup,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWizardPage,
)

from app.jobs import run_in_thread
from app.wizard.common import last_folder, remember_folder, start_task


class DocumentPage(QWizardPage):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setTitle("2. The document")
        self.setSubTitle(
            "The document the agent will revise: let the model write one from a "
            "brief, or open your own file."
        )
        self.use_brief = QRadioButton("&Write one from a brief (one click; the model authors it)")
        self.use_file = QRadioButton("&Open a file: Word, HTML, Markdown or plain text")
        group = QButtonGroup(self)
        group.addButton(self.use_brief)
        group.addButton(self.use_file)
        self.use_file.setChecked(True)
        self.briefs = QListWidget()
        self.briefs.setAccessibleName("Briefs")
        self.briefs.setMaximumHeight(120)
        self.write_btn = QPushButton("Write the &document")
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setEnabled(False)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setVisible(False)
        self.brief_preview = QLabel()
        self.brief_preview.setWordWrap(True)
        self.brief_preview.setStyleSheet("color: palette(placeholder-text);")
        self.browse_btn = QPushButton("&Choose a file\u2026")
        self.status = QLabel("No document yet.")
        self.status.setTextFormat(Qt.TextFormat.RichText)  # titles and errors are escaped
        self.status.setWordWrap(True)

        brief_row = QHBoxLayout()
        brief_row.addWidget(self.write_btn)
        brief_row.addWidget(self.cancel_btn)
        brief_row.addWidget(self.busy, 1)
        lay = QVBoxLayout(self)
        lay.addWidget(self.use_file)
        lay.addWidget(self.browse_btn, 0, Qt.AlignmentFlag.AlignLeft)
        lay.addSpacing(8)
        lay.addWidget(self.use_brief)
        lay.addWidget(self.briefs)
        lay.addWidget(self.brief_preview)
        lay.addLayout(brief_row)
        lay.addSpacing(8)
        lay.addWidget(self.status)
        lay.addStretch(1)

        self.title = ""
        self.raw: str | None = None
        self.kind = "html"
        #: The Word document read (engine.text.docx.WordDocument) when the file is a .docx:
        #: its comments come with it (the next page lists them), else None.
        self.word: Any = None
        self._job: asyncio.Task | None = None
        self.author: Callable[[Any, Any], Awaitable[Any]] = _author
        self._writing = ""
        self._started = 0.0
        self._clock = QTimer(self)
        self._clock.setInterval(500)
        self._clock.timeout.connect(self._show_elapsed)
        self.browse_btn.clicked.connect(self.ask_file)
        self.write_btn.clicked.connect(self.write_from_brief)
        self.cancel_btn.clicked.connect(self.cancel_author)
        self.use_brief.toggled.connect(self._mode)
        self.briefs.currentItemChanged.connect(self._preview)
        self._load_briefs()
        self._mode()

    def _load_briefs(self) -> None:
        try:
            from engine.author import list_briefs

            briefs = list_briefs()
        except Exception:
            briefs = []
        for b in briefs:
            item = QListWidgetItem(b.title)
            item.setData(Qt.ItemDataRole.UserRole, b)
            item.setToolTip(b.text[:1500])
            self.briefs.addItem(item)
        if briefs:
            self.briefs.setCurrentRow(0)

    def _preview(self, item, _previous=None) -> None:
        if item is None:
            self.brief_preview.setText("")
            return
        text = item.data(Qt.ItemDataRole.UserRole).text.strip()
        lines = [ln for ln in text.splitlines()[1:] if ln.strip()]
        body = " ".join(" ".join(lines).split())
        self.brief_preview.setText(body[:420] + ("\u2026" if len(body) > 420 else ""))

    def _mode(self) -> None:
        brief = self.use_brief.isChecked()
        self.briefs.setEnabled(brief)
        self.write_btn.setEnabled(brief and self._job is None)
        self.browse_btn.setEnabled(not brief)

    def set_document(self, title: str, raw: str, kind: str, word: Any = None) -> None:
        """The document to revise: ``raw`` its source of ``kind``; ``word`` the Word
        document it was read from (its comments come with it), else None."""
        from engine.vocabulary import DOCUMENT_KIND_WORDS

        self.title, self.raw, self.kind, self.word = title, raw, kind, word
        #: The Word file read (its path), so a run from it gets the agent's revision back
        #: as a copy of it with tracked changes; None for any other document.
        self.word_path: str | None = None
        what = DOCUMENT_KIND_WORDS.get(kind, "HTML")
        next_step = "Next, select the words you want to comment on."
        if word is not None:
            n = sum(1 for c in word.comments if c.problem is None)
            more = len(word.comments) - n
            what = "a Word document"
            next_step = (
                f"Its {n} comment{'s' if n != 1 else ''} come with it: the next page shows "
                "them on the words they were made on."
                if n
                else "It has no comments on words: select the words you want to comment on."
            )
            if more:
                next_step += f" {more} more cannot be used (the next page says why)."
        self.status.setText(
            f"Ready: <b>{html.escape(title)}</b> ({what}, {len(raw):,} characters). {next_step}"
        )
        self.completeChanged.emit()

    def ask_file(self) -> None:
        from engine.text.documents import file_dialog_filter

        dlg = QFileDialog(
            self, "Choose the document", last_folder(self.wizard()), file_dialog_filter()
        )
        dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
        dlg.fileSelected.connect(lambda p: remember_folder(self.wizard(), p))
        dlg.fileSelected.connect(self.load_file)
        self._dialog = dlg
        dlg.open()

    def load_file(self, path: str) -> None:
        from engine.text.documents import open_document

        self.status.setText(f"Reading {html.escape(path)}\u2026")
        run_in_thread(
            lambda: open_document(path),
            lambda doc: self._loaded(path, doc),
            lambda exc: self.status.setText(f"Could not read the file: {html.escape(str(exc))}"),
        )

    def _loaded(self, path: str, doc) -> None:
        """A document read by ``engine.text.documents.open_document``: ready, and its decoding
        notice (bytes that were not valid in their encoding), if any, under it."""
        from engine.text.titles import document_title

        self.set_document(
            document_title(path, doc.kind, doc.content), doc.content, doc.kind, doc.word
        )
        self.word_path = path if doc.word is not None else None
        if doc.notice:
            self.status.setText(
                f"{self.status.text()}<br>Note: {html.escape(os.path.basename(path))}: "
                f"{html.escape(doc.notice)}"
            )

    def write_from_brief(self) -> None:
        item = self.briefs.currentItem()
        if item is None:
            return
        brief = item.data(Qt.ItemDataRole.UserRole)
        config = self.author_config()
        self.busy.setVisible(True)
        self.cancel_btn.setEnabled(True)
        self.write_btn.setEnabled(False)
        self._writing = brief.title
        self._started = time.monotonic()
        self._show_elapsed()
        self._clock.start()
        self._job = start_task(self._write(config, brief))

    def author_config(self):
        """The model page's server, model and key with the authoring rule of ``arl author``
        (``engine.author.author_config``: its request timeout and temperature)."""
        from engine.author import author_config

        wizard = self.wizard()
        if wizard is None:
            return None
        page = wizard.model_page
        return author_config(
            page.url.text().strip(), page.model.currentText().strip(), page.current_key()
        )

    def _show_elapsed(self) -> None:
        s = int(time.monotonic() - self._started)
        self.status.setText(
            f"The model is writing \u201c{html.escape(self._writing)}\u201d\u2026 "
            f"{s // 60}:{s % 60:02d} so far (a slow local model can take several minutes; "
            "Cancel stops it)"
        )

    async def _write(self, config, brief) -> None:
        try:
            result = await self.author(config, brief)
        except asyncio.CancelledError:
            self.status.setText("Writing was cancelled.")
            raise
        except Exception as exc:
            self.status.setText(
                f"<b>The model could not write the document:</b> {html.escape(str(exc))}"
            )
        else:
            self.set_document(brief.title, result.html, "html")
        finally:
            self._clock.stop()
            self._job = None
            self.busy.setVisible(False)
            self.cancel_btn.setEnabled(False)
            self._mode()

    def cancel_author(self) -> None:
        if self._job is not None:
            self._job.cancel()

    def isComplete(self) -> bool:
        return self.raw is not None and bool(self.raw.strip())


async def _author(config, brief):
    from engine.author import author_document

    return await author_document(config, brief)
