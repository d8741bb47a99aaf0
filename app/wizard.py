"""The setup wizard: model and key, document, comments, run settings. Finish starts the run.

Pages are tested through ``isComplete()``, ``validatePage()`` and ``next()``; network work
(model list, connection test, authoring from a brief) runs as asyncio tasks on the qasync
loop and can be replaced by fakes (``ModelPage.lister``/``checker``,
``DocumentPage.author``). Keyring calls run in a worker thread.

Comments are made by selecting words in the rendered v1: the anchor's quote, prefix, suffix
and UTF-16 offsets come from the page itself (``DocumentView.anchorSelected``).
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from app import secrets as app_secrets
from app.jobs import run_in_thread

PRESETS: dict[str, tuple[str, str, bool]] = {
    # key: (label, base URL, needs a key)
    "openai": ("OpenAI", "https://api.openai.com/v1", True),
    "ollama": ("Ollama (this computer)", "http://localhost:11434/v1", False),
    "lmstudio": ("LM Studio (this computer)", "http://localhost:1234/v1", False),
    "openrouter": ("OpenRouter", "https://openrouter.ai/api/v1", True),
    "custom": ("Custom OpenAI-compatible server (vLLM, llama.cpp\u2026)", "", False),
}


def _task(coro: Awaitable[Any]) -> asyncio.Task | None:
    """Start ``coro`` on the running loop; None (and the coroutine closed) without one."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            loop = None
    if loop is None or loop.is_closed():
        coro.close()  # type: ignore[attr-defined]
        return None
    return asyncio.ensure_future(coro, loop=loop)


# ------------------------------------------------------------------------------------------
# 1. Model and key
# ------------------------------------------------------------------------------------------


class ModelPage(QWizardPage):
    def __init__(self, settings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.setTitle("1. The model")
        self.setSubTitle(
            "Which AI model revises the document. Any OpenAI-compatible server "
            "works; local servers need no key."
        )
        self.preset = QComboBox()
        for key, (label, _, _) in PRESETS.items():
            self.preset.addItem(label, key)
        self.url = QLineEdit()
        self.url.setPlaceholderText("http://127.0.0.1:8080/v1")
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.lineEdit().setPlaceholderText("model name, e.g. gpt-4o-mini")
        self.fetch_btn = QPushButton("&Fetch model list")
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText("API key (leave empty for local servers)")
        self.key_status = QLabel()
        self.key_status.setWordWrap(True)
        self.session_only = QCheckBox("Keep the key for this session only (not saved)")
        self.session_only.setVisible(False)
        self.test_btn = QPushButton("&Test connection")
        self.test_result = QLabel()
        self.test_result.setWordWrap(True)
        self.test_result.setTextFormat(Qt.TextFormat.RichText)

        form = QFormLayout()
        form.addRow("&Provider:", self.preset)
        form.addRow("&Base URL:", self.url)
        row = QHBoxLayout()
        row.addWidget(self.model, 1)
        row.addWidget(self.fetch_btn)
        model_label = QLabel("&Model:")
        model_label.setBuddy(self.model)
        form.addRow(model_label, row)
        form.addRow("API &key:", self.key)
        form.addRow("", self.key_status)
        form.addRow("", self.session_only)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.test_btn, 0, Qt.AlignmentFlag.AlignLeft)
        lay.addWidget(self.test_result)
        lay.addStretch(1)

        self.preset.currentIndexChanged.connect(self._preset_changed)
        self.url.textChanged.connect(self.completeChanged)
        self.model.currentTextChanged.connect(self.completeChanged)
        self.fetch_btn.clicked.connect(self.fetch_models)
        self.test_btn.clicked.connect(self.test_connection)
        self.key.editingFinished.connect(self.save_key)
        self.api_key: str | None = None
        self.key_source = "none"
        self._job: asyncio.Task | None = None
        self.lister: Callable[[str, str | None], Awaitable[list[str]]] = _list_models
        self.checker: Callable[[str, str, str | None], Awaitable[list[Any]]] = _check_endpoint
        self.keyring_missing = False

        i = self.preset.findData(settings.preset if settings else "openai")
        self.preset.setCurrentIndex(max(i, 0))
        if settings is not None:
            self.url.setText(settings.base_url)
            self.model.setEditText(settings.model)

    def initializePage(self) -> None:
        self._key_touched = False
        run_in_thread(
            lambda: (*app_secrets.get_key(), app_secrets.keyring_works()), self._key_found
        )

    def _key_found(self, result: tuple[str | None, str, bool]) -> None:
        key, source, works = result
        if getattr(self, "_key_touched", False):
            return  # the user already saved a key; its status wins
        self.api_key, self.key_source = key, source
        if not works and source in ("none", "session"):
            self.keyring_missing = True
            self.session_only.setVisible(True)
            self.session_only.setChecked(True)
            self.key_status.setText(
                app_secrets.NO_KEYRING_MESSAGE
                + (" A key is kept for this session." if source == "session" else "")
            )
            return
        self.key_status.setText(
            {
                "env": "The OPENAI_API_KEY environment variable is set and will be used.",
                "keyring": f"A key is saved in the system keyring ({app_secrets.backend_name()}). "
                "Type a new one to replace it.",
                "session": "A key is kept for this session only.",
                "none": "No key saved. Local servers (Ollama, LM Studio, llama.cpp) need none.",
            }[source]
        )

    def _preset_changed(self) -> None:
        key = self.preset.currentData()
        _, url, _ = PRESETS[key]
        if url:
            self.url.setText(url)
        self.url.setReadOnly(False)
        if key == "custom":
            self.url.setFocus()
        self.completeChanged.emit()

    def current_key(self) -> str | None:
        typed = self.key.text().strip()
        return typed or self.api_key

    # -- keyring ----------------------------------------------------------------------------

    def save_key(self) -> None:
        typed = self.key.text().strip()
        if not typed or typed == self.api_key:
            return
        self.api_key = typed
        self._key_touched = True
        self.key_status.setText("Saving the key in the system keyring\u2026")
        run_in_thread(
            lambda: app_secrets.save_key(typed), lambda _: self._key_saved(), self._key_not_saved
        )

    def _key_saved(self) -> None:
        self.key_source = "keyring"
        self.keyring_missing = False
        self.session_only.setVisible(False)
        self.key_status.setText(f"Saved in the system keyring ({app_secrets.backend_name()}).")

    def _key_not_saved(self, exc: BaseException) -> None:
        self.keyring_missing = True
        self.key_status.setText(app_secrets.NO_KEYRING_MESSAGE)
        self.session_only.setVisible(True)
        self.session_only.setChecked(True)

    # -- network ------------------------------------------------------------------------------

    def fetch_models(self) -> None:
        url = self.url.text().strip()
        if not url:
            self.test_result.setText("Enter the server's base URL first.")
            return
        self.fetch_btn.setEnabled(False)
        self.test_result.setText("Asking the server for its models\u2026")
        self.cancel_jobs()
        self._job = _task(self._fetch(url, self.current_key()))

    async def _fetch(self, url: str, key: str | None) -> None:
        try:
            models = await self.lister(url, key)
        except asyncio.CancelledError:
            self.test_result.setText("")
            raise
        except Exception as exc:
            self.test_result.setText(f"<b>Could not list the models:</b> {html.escape(str(exc))}")
            return
        finally:
            self.fetch_btn.setEnabled(True)
        current = self.model.currentText()
        self.model.clear()
        self.model.addItems(models)
        self.model.setEditText(current if current in models or not models else models[0])
        self.test_result.setText(
            f"The server offers {len(models)} model(s)."
            if models
            else "The server lists no models; type the name."
        )

    def test_connection(self) -> None:
        url, model = self.url.text().strip(), self.model.currentText().strip()
        if not url or not model:
            self.test_result.setText("Enter the base URL and the model first.")
            return
        self.test_btn.setEnabled(False)
        self.test_result.setText("Testing: listing models, then asking for one tool call\u2026")
        self.cancel_jobs()
        self._job = _task(self._test(url, model, self.current_key()))

    async def _test(self, url: str, model: str, key: str | None) -> None:
        try:
            checks = await self.checker(url, model, key)
        except asyncio.CancelledError:
            self.test_result.setText("")
            raise
        except Exception as exc:
            self.test_result.setText(f"<b>The test failed:</b> {html.escape(str(exc))}")
            return
        finally:
            self.test_btn.setEnabled(True)
        lines = []
        for c in checks:
            colour = {"PASS": "#007A5A", "FAIL": "#B24000"}.get(c.status, "#555")
            mark = {"PASS": "\u2713", "FAIL": "\u2717"}.get(c.status, "?")
            line = (
                f"<span style='color:{colour};font-weight:600'>{mark} {c.status}</span> "
                f"{html.escape(c.name)}: {html.escape(c.detail)}"
            )
            if c.fix:
                line += f"<br>&nbsp;&nbsp;&nbsp;<i>What to do: {html.escape(c.fix)}</i>"
            lines.append(line)
        self.test_result.setText("<br>".join(lines))

    def cancel_jobs(self) -> None:
        if self._job is not None and not self._job.done():
            self._job.cancel()
        self._job = None

    # -- wizard -------------------------------------------------------------------------------

    def isComplete(self) -> bool:
        url = self.url.text().strip()
        return url.startswith(("http://", "https://")) and bool(self.model.currentText().strip())

    def validatePage(self) -> bool:
        if self.settings is not None:
            self.settings.preset = self.preset.currentData()
            self.settings.base_url = self.url.text().strip()
            self.settings.model = self.model.currentText().strip()
        typed = self.key.text().strip()
        if typed:
            if self.keyring_missing and self.session_only.isChecked():
                self.api_key = typed
                app_secrets.keep_for_session(typed)
            else:
                self.save_key()  # in a worker thread; a failure offers session-only
        return True

    def config(self):
        from engine.agent import AgentConfig

        return AgentConfig(
            base_url=self.url.text().strip(),
            model=self.model.currentText().strip(),
            api_key=self.current_key(),
        )


async def _list_models(url: str, key: str | None) -> list[str]:
    from engine.agent import AgentConfig, ModelClient

    cfg = AgentConfig(base_url=url, model="", api_key=key, request_timeout=20, max_retries=1)
    async with ModelClient(cfg) as client:
        return await client.list_models()


async def _check_endpoint(url: str, model: str, key: str | None) -> list[Any]:
    from engine.doctor import check_endpoint

    return await check_endpoint(url, model, key)


# ------------------------------------------------------------------------------------------
# 2. Document
# ------------------------------------------------------------------------------------------


class DocumentPage(QWizardPage):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setTitle("2. The document")
        self.setSubTitle(
            "The document the agent will revise: let the model write one from a "
            "brief, or open your own file."
        )
        self.use_brief = QRadioButton("&Write one from a brief (one click; the model authors it)")
        self.use_file = QRadioButton("&Open a file: HTML, Markdown or plain text")
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
        self._job: asyncio.Task | None = None
        self.author: Callable[[Any, Any], Awaitable[Any]] = _author
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

    def set_document(self, title: str, raw: str, kind: str) -> None:
        self.title, self.raw, self.kind = title, raw, kind
        what = "plain text" if kind == "text" else "HTML"
        self.status.setText(
            f"Ready: <b>{html.escape(title)}</b> ({what}, {len(raw):,} "
            "characters). Next, select the words you want to comment on."
        )
        self.completeChanged.emit()

    def ask_file(self) -> None:
        dlg = QFileDialog(
            self,
            "Choose the document",
            str(Path.home()),
            "Documents (*.html *.htm *.xhtml *.xht *.md *.markdown *.txt *.text);;All files (*)",
        )
        dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
        dlg.fileSelected.connect(self.load_file)
        self._dialog = dlg
        dlg.open()

    def load_file(self, path: str) -> None:
        from engine.documents import document_title, read_document

        self.status.setText(f"Reading {path}\u2026")
        run_in_thread(
            lambda: read_document(path),
            lambda r: self.set_document(document_title(path, r[0], r[1]), r[1], r[0]),
            lambda exc: self.status.setText(f"Could not read the file: {exc}"),
        )

    def write_from_brief(self) -> None:
        item = self.briefs.currentItem()
        if item is None:
            return
        brief = item.data(Qt.ItemDataRole.UserRole)
        config = self.wizard().model_page.config() if self.wizard() else None
        self.busy.setVisible(True)
        self.cancel_btn.setEnabled(True)
        self.write_btn.setEnabled(False)
        self.status.setText(
            f"The model is writing \u201c{html.escape(brief.title)}\u201d\u2026 "
            "(this can take a minute; Cancel stops it)"
        )
        self._job = _task(self._write(config, brief))

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


# ------------------------------------------------------------------------------------------
# 3. Comments
# ------------------------------------------------------------------------------------------


class CommentsPage(QWizardPage):
    def __init__(self, parent=None):
        super().__init__(parent)
        from app.docview import DocumentView

        self.setTitle("3. Your review comments")
        self.setSubTitle(
            "Select the exact words that are wrong in the document, write what "
            "should change, and press Add comment. Add as many as you need."
        )
        self.view = DocumentView()
        self.view.setMinimumWidth(420)
        self.selection_label = QLabel("<i>Select words in the document to comment on them.</i>")
        self.selection_label.setWordWrap(True)
        self.selection_label.setTextFormat(Qt.TextFormat.RichText)
        self.body = QPlainTextEdit()
        self.body.setPlaceholderText("What should change here? (Ctrl+Enter adds the comment)")
        self.body.setMaximumHeight(90)
        self.add_btn = QPushButton("&Add comment")
        self.add_btn.setEnabled(False)
        self.list = QListWidget()
        self.list.setAccessibleName("Comments")
        self.list.setWordWrap(True)
        self.edit_btn = QPushButton("&Save edit")
        self.delete_btn = QPushButton("&Delete")
        self.actionable = QCheckBox("Ac&tionable (the agent must address it)")
        self.import_btn = QPushButton("&Import W3C annotations\u2026")
        self.count = QLabel()

        side = QWidget()
        s = QVBoxLayout(side)
        s.addWidget(self.selection_label)
        s.addWidget(self.body)
        s.addWidget(self.add_btn, 0, Qt.AlignmentFlag.AlignLeft)
        s.addWidget(self.count)
        s.addWidget(self.list, 1)
        g = QGridLayout()
        g.addWidget(self.edit_btn, 0, 0)
        g.addWidget(self.delete_btn, 0, 1)
        g.addWidget(self.actionable, 1, 0, 1, 2)
        g.addWidget(self.import_btn, 2, 0, 1, 2)
        s.addLayout(g)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([640, 420])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)

        self.comments: list[Any] = []
        self.anchor: dict[str, Any] | None = None
        self._shown: tuple[str, str] | None = None
        self.view.anchorSelected.connect(self._on_anchor)
        self.body.textChanged.connect(self._update_buttons)
        self.add_btn.clicked.connect(self.add_from_selection)
        QShortcut(QKeySequence("Ctrl+Return"), self.body, activated=self.add_from_selection)
        self.list.currentRowChanged.connect(self._on_row)
        self.edit_btn.clicked.connect(self.save_edit)
        self.delete_btn.clicked.connect(self.delete_current)
        self.actionable.toggled.connect(self._toggle_actionable)
        self.import_btn.clicked.connect(self.ask_import)
        self._update_buttons()

    def initializePage(self) -> None:
        page = self.wizard().document_page
        shown = (page.raw or "", page.kind)
        if shown != self._shown:
            self._shown = shown
            self.comments = []
            self._refresh()
            self.view.show_document(page.raw or "", "text" if page.kind == "text" else "html")

    def _on_anchor(self, anchor: dict[str, Any] | None) -> None:
        self.anchor = anchor if anchor and anchor.get("quote", "").strip() else None
        if self.anchor is None:
            self.selection_label.setText("<i>Select words in the document to comment on them.</i>")
        else:
            q = self.anchor["quote"]
            short = q if len(q) <= 160 else q[:157] + "\u2026"
            self.selection_label.setText(f"Selected: \u201c<b>{html.escape(short)}</b>\u201d")
        self._update_buttons()

    def _update_buttons(self) -> None:
        has_body = bool(self.body.toPlainText().strip())
        self.add_btn.setEnabled(self.anchor is not None and has_body)
        row = self.list.currentRow()
        self.edit_btn.setEnabled(row >= 0 and has_body)
        self.delete_btn.setEnabled(row >= 0)
        self.actionable.setEnabled(row >= 0)

    def _next_id(self) -> str:
        used = {c.id for c in self.comments}
        n = len(self.comments) + 1
        while f"c{n}" in used:
            n += 1
        return f"c{n}"

    def add_comment(self, anchor: dict[str, Any], body: str, actionable: bool = True):
        """Add a comment on ``anchor`` (the page's selection shape). Returns it."""
        from engine.models import Anchor, Comment

        c = Comment(
            id=self._next_id(),
            body=body.strip(),
            anchor=Anchor.from_json(anchor),
            author="reviewer",
            actionable=actionable,
        )
        self.comments.append(c)
        self._refresh()
        self.list.setCurrentRow(len(self.comments) - 1)
        return c

    def add_from_selection(self) -> None:
        if self.anchor is None or not self.body.toPlainText().strip():
            return
        self.add_comment(self.anchor, self.body.toPlainText())
        self.body.clear()
        self.anchor = None
        self.selection_label.setText("<i>Comment added. Select more words to add another.</i>")
        self._update_buttons()

    def _on_row(self, row: int) -> None:
        if 0 <= row < len(self.comments):
            c = self.comments[row]
            self.actionable.blockSignals(True)
            self.actionable.setChecked(c.actionable)
            self.actionable.blockSignals(False)
            self.view.focus_span(c.id)
        self._update_buttons()

    def save_edit(self) -> None:
        row = self.list.currentRow()
        text = self.body.toPlainText().strip()
        if 0 <= row < len(self.comments) and text:
            self.comments[row].body = text
            self.body.clear()
            self._refresh(keep_row=row)

    def delete_current(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self.comments):
            del self.comments[row]
            self._refresh(keep_row=min(row, len(self.comments) - 1))

    def _toggle_actionable(self, on: bool) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self.comments):
            self.comments[row].actionable = on
            self._refresh(keep_row=row)

    def ask_import(self) -> None:
        dlg = QFileDialog(
            self,
            "Import W3C Web Annotations",
            str(Path.home()),
            "Annotations (*.json *.jsonld);;All files (*)",
        )
        dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
        dlg.fileSelected.connect(self.import_file)
        self._dialog = dlg
        dlg.open()

    def import_file(self, path: str) -> list[Any]:
        """Import comments (W3C or native JSON). Returns the unusable (id, reason) pairs."""
        from engine.comments_io import load_comments
        from engine.scoring import Version

        page = self.wizard().document_page
        text = Version.from_source(page.raw or "", page.kind).text
        try:
            comments, unusable = load_comments(path, text)
        except Exception as exc:
            self.count.setText(f"Could not import {Path(path).name}: {exc}")
            return [("file", str(exc))]
        used = {c.id for c in self.comments}
        for c in comments:
            if c.id in used:
                c.id = self._next_id()
            self.comments.append(c)
            used.add(c.id)
        self._refresh()
        if unusable:
            self.count.setText(
                self.count.text() + f" \u2014 {len(unusable)} annotation(s) could "
                "not be used: " + "; ".join(f"{i}: {r}" for i, r in unusable[:3])
            )
        return unusable

    def _refresh(self, keep_row: int | None = None) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        for c in self.comments:
            q = c.anchor.quote or ""
            q = q if len(q) <= 70 else q[:67] + "\u2026"
            flag = "" if c.actionable else "  (not actionable)"
            self.list.addItem(f"{c.id}: \u201c{q}\u201d \u2014 {c.body}{flag}")
        self.list.blockSignals(False)
        if keep_row is not None and 0 <= keep_row < len(self.comments):
            self.list.setCurrentRow(keep_row)
        n = len(self.comments)
        self.count.setText(
            f"<b>{n} comment{'s' if n != 1 else ''}</b>" if n else "No comments yet."
        )
        spans = []
        for c in self.comments:
            a = c.anchor
            if a.start_offset is not None and a.end_offset is not None:
                spans.append(
                    {
                        "id": c.id,
                        "kind": "comment",
                        "start": a.start_offset,
                        "end": a.end_offset,
                        "label": f"\u270d {c.id}",
                    }
                )
        self.view.set_highlights(spans)
        self._update_buttons()
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return any(c.actionable for c in self.comments)


# ------------------------------------------------------------------------------------------
# 4. Run settings
# ------------------------------------------------------------------------------------------


class RunSettingsPage(QWizardPage):
    def __init__(self, settings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.setTitle("4. Run settings")
        self.setSubTitle("How long the agent may keep trying. Finish starts the run.")
        self.rounds = QSpinBox()
        self.rounds.setRange(1, 20)
        self.rounds.setValue(settings.rounds if settings else 3)
        self.rounds.setToolTip(
            "After each round every comment gets a verdict; the run stops "
            "early once no actionable comment is left open."
        )
        self.budget = QSpinBox()
        self.budget.setRange(0, 50_000_000)
        self.budget.setSingleStep(10_000)
        self.budget.setSpecialValueText("no limit")
        self.budget.setSuffix(" tokens")
        self.budget.setValue(settings.max_tokens if settings else 200_000)
        self.turns = QSpinBox()
        self.turns.setRange(2, 100)
        self.turns.setValue(settings.turns_per_round if settings else 12)
        self.turns.setToolTip("Model answers allowed in one round before the round ends.")
        self.echo = QCheckBox("Repeat tool results to the model as plain messages")
        self.echo.setChecked(settings.echo_tool_results if settings else False)
        self.echo.setToolTip(
            "For servers whose chat template drops tool messages (llama.cpp's "
            "chatml-function-calling format): without it the model never sees "
            "what its tools returned."
        )
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        form = QFormLayout(self)
        form.addRow("&Rounds at most:", self.rounds)
        form.addRow("Token &budget for the run:", self.budget)
        form.addRow("Model &turns per round:", self.turns)
        form.addRow("", self.echo)
        form.addRow(self.summary)

    def initializePage(self) -> None:
        w = self.wizard()
        n = len(w.comments_page.comments)
        self.summary.setText(
            f"The agent <b>{html.escape(w.model_page.model.currentText())}</b> will revise "
            f"\u201c{html.escape(w.document_page.title)}\u201d for {n} comment(s). You can "
            "cancel at any time; an evidence bundle is written in every case."
        )

    def validatePage(self) -> bool:
        if self.settings is not None:
            self.settings.rounds = self.rounds.value()
            self.settings.max_tokens = self.budget.value()
            self.settings.turns_per_round = self.turns.value()
            self.settings.echo_tool_results = self.echo.isChecked()
        return True


# ------------------------------------------------------------------------------------------


class SetupWizard(QWizard):
    """Emits ``runRequested(RunRequest)`` when the user presses Finish."""

    runRequested = Signal(object)

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle("Set up a review run")
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.HaveHelpButton, False)
        self.model_page = ModelPage(settings)
        self.document_page = DocumentPage()
        self.comments_page = CommentsPage()
        self.run_page = RunSettingsPage(settings)
        for p in (self.model_page, self.document_page, self.comments_page, self.run_page):
            self.addPage(p)
        self.setButtonText(QWizard.WizardButton.FinishButton, "Start the &run")
        self.resize(1100, 760)
        self.accepted.connect(self._emit_request)

    def done(self, result: int) -> None:
        """Closing the wizard (Finish or Cancel) stops any network work it started."""
        self.model_page.cancel_jobs()
        self.document_page.cancel_author()
        super().done(result)

    def request(self):
        from app.runview import RunRequest

        config = self.model_page.config()
        budget = self.run_page.budget.value()
        config.max_tokens_per_run = budget or None
        config.max_turns_per_round = self.run_page.turns.value()
        config.echo_tool_results = self.run_page.echo.isChecked()
        return RunRequest(
            config=config,
            title=self.document_page.title or "Document",
            raw=self.document_page.raw or "",
            kind=self.document_page.kind,
            comments=list(self.comments_page.comments),
            rounds=self.run_page.rounds.value(),
        )

    def _emit_request(self) -> None:
        self.runRequested.emit(self.request())
