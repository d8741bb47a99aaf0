"""Page 3 of the setup wizard: review comments made by selecting words in the rendered v1."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QGridLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from app.wizard.common import last_folder, remember_folder
from engine.vocabulary import comment_numbers


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
        self.name = self._name_field()
        self.selection_label = QLabel("<i>Select words in the document to comment on them.</i>")
        self.selection_label.setWordWrap(True)
        self.selection_label.setTextFormat(Qt.TextFormat.RichText)
        self.body = QPlainTextEdit()
        self.body.setPlaceholderText("What should change here? (Ctrl+Enter adds the comment)")
        # Three lines to start with; the line between it and the list moves (a splitter),
        # so a short screen (1366 x 768 at 1.5x) keeps room for the comments list.
        self.body.setMinimumHeight(self.fontMetrics().lineSpacing() * 2 + 12)
        self.add_btn = QPushButton("&Add comment")
        self.add_btn.setEnabled(False)
        self.list = QListWidget()
        self.list.setAccessibleName("Comments")
        self.list.setWordWrap(True)
        self.edit_btn = QPushButton("&Save edit")
        self.delete_btn = QPushButton("&Delete")
        self.actionable = QCheckBox("Ac&tionable (the agent must address it)")
        self.import_btn = QPushButton("&Import comments from a file (W3C, Hypothesis)\u2026")
        self.count = QLabel()
        self.count.setTextFormat(Qt.TextFormat.RichText)  # file text in it is escaped
        self.count.setWordWrap(True)

        side = QWidget()
        s = QVBoxLayout(side)
        who = QGridLayout()
        who.addWidget(QLabel("Your &name:"), 0, 0)
        who.addWidget(self.name, 0, 1)
        who.itemAtPosition(0, 0).widget().setBuddy(self.name)
        s.addLayout(who)
        s.addWidget(self.selection_label)
        s.addWidget(self._compose_split(), 1)
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
        # QWizard gives a page only its preferred height unless it asks to grow: the
        # document should use the whole window.
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

        self.comments: list[Any] = []
        self._loaded_body = ""  # the comment text last loaded into the box for editing
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

    def _name_field(self) -> QLineEdit:
        """Asked once: the name is kept in the settings and credits every comment (and
        the decisions of the Verdicts view)."""
        name = QLineEdit()
        name.setPlaceholderText("Your name, shown on your comments")
        name.setAccessibleName("Your name")
        name.setMaxLength(80)
        name.editingFinished.connect(self._name_given)
        return name

    def _settings(self) -> Any:
        wizard = self.wizard()
        settings = getattr(wizard, "settings", None) if wizard is not None else None
        if settings is None:
            from app.settings import Settings

            settings = Settings()
        return settings

    def _name_given(self) -> None:
        name = " ".join(self.name.text().split())
        if name:
            settings = self._settings()
            settings.user_name = name
            settings.sync()

    def author_name(self) -> str:
        """The name comments are credited to: the one typed here, else the one kept."""
        typed = " ".join(self.name.text().split()) or self._settings().user_name
        if typed:
            return typed
        import getpass

        try:
            return getpass.getuser()  # the login name, as `arl bundle adjudicate` uses
        except (OSError, KeyError, ImportError):
            return "reviewer"

    def initializePage(self) -> None:
        if not self.name.text():
            self.name.setText(self._settings().user_name)
        page = self.wizard().document_page
        shown = (page.raw or "", page.kind)
        if shown != self._shown:
            self._shown = shown
            # Comments carried from a reviewed bundle ("Send back to the agent": ``carry``)
            self.comments = list(getattr(self, "_carried", []))
            unusable: list[tuple[str, str]] = []
            if getattr(page, "word", None) is not None:
                from engine.word_review import word_comments

                self.comments, unusable = word_comments(page.word)
            self._refresh()
            if unusable:
                self._note_unusable(("comment", "comments"), unusable, " of the Word file")
            self.view.show_document(page.raw or "", page.kind, snap=True)

    def _compose_split(self) -> QSplitter:
        """The comment box over the comments list, the line between them movable."""
        compose = QSplitter(Qt.Orientation.Vertical)
        compose.setChildrenCollapsible(False)
        write = QWidget()
        wl = QVBoxLayout(write)
        wl.setContentsMargins(0, 0, 0, 0)
        wl.addWidget(self.body, 1)
        wl.addWidget(self.add_btn, 0, Qt.AlignmentFlag.AlignLeft)
        listed = QWidget()
        ll = QVBoxLayout(listed)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.count)
        ll.addWidget(self.list, 1)
        compose.addWidget(write)
        compose.addWidget(listed)
        compose.setStretchFactor(0, 1)
        compose.setStretchFactor(1, 3)
        line = self.fontMetrics().lineSpacing()
        compose.setSizes([line * 4 + 40, line * 16])
        self.compose_split = compose
        return compose

    def carry(self, comments: list[Any]) -> None:
        """Start with ``comments`` (the next round of a reviewed bundle: anchored on the
        document the wizard was given, threads and reviewer's reasons included)."""
        self._carried = list(comments)

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
            author=self.author_name(),
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
            # Load the comment's text for editing, unless the box holds words the user is
            # still writing (a new comment): those are never overwritten.
            typed = self.body.toPlainText().strip()
            if not typed or typed == self._loaded_body:
                self.body.setPlainText(c.body)
                self._loaded_body = c.body
                self.selection_label.setText(
                    f"<i>Editing {html.escape(c.id)}: change its text and press Save edit, "
                    "or select words in the document to add another comment.</i>"
                )
        self._update_buttons()

    def save_edit(self) -> None:
        row = self.list.currentRow()
        text = self.body.toPlainText().strip()
        if 0 <= row < len(self.comments) and text:
            self.comments[row].body = text
            self._loaded_body = text
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
            "Import annotations: W3C Web Annotation JSON or a Hypothesis export",
            last_folder(self.wizard()),
            "Annotations (*.json *.jsonld);;All files (*)",
        )
        dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
        dlg.fileSelected.connect(lambda p: remember_folder(self.wizard(), p))
        dlg.fileSelected.connect(self.import_file)
        self._dialog = dlg
        dlg.open()

    def import_file(self, path: str) -> list[Any]:
        """Import comments (W3C or native JSON). Returns the unusable (id, reason) pairs."""
        from engine.comments_io import load_comments
        from engine.score.scoring import Version

        page = self.wizard().document_page
        text = Version.from_source(page.raw or "", page.kind).text
        try:
            comments, unusable = load_comments(path, text)
        except Exception as exc:
            self.count.setText(html.escape(f"Could not import {Path(path).name}: {exc}"))
            return [("file", str(exc))]
        used = {c.id for c in self.comments}
        for c in comments:
            if c.id in used:
                c.id = self._next_id()
            self.comments.append(c)
            used.add(c.id)
        self._refresh()
        if unusable:
            self._note_unusable(("annotation", "annotations"), unusable)
        return unusable

    def _note_unusable(
        self, noun: tuple[str, str], unusable: list[tuple[str, str]], where: str = ""
    ) -> None:
        """Say how many of the file's ``noun`` (one, many) could not be used, and why."""
        from engine.vocabulary import plural

        self.count.setText(
            self.count.text()
            + f" \u2014 {html.escape(plural(len(unusable), *noun))}{where} could not be used: "
            + html.escape("; ".join(f"{i}: {r}" for i, r in unusable[:3]))
        )

    def _refresh(self, keep_row: int | None = None) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        numbers = comment_numbers([c.id for c in self.comments])
        for c in self.comments:
            q = c.anchor.quote or ""
            q = q if len(q) <= 70 else q[:67] + "\u2026"
            flag = "" if c.actionable else "  (not actionable)"
            if c.status == "resolved":
                flag += "  (resolved already: not counted)"
            n = numbers[c.id]
            self.list.addItem(f"Comment {n}: \u201c{q}\u201d \u2014 {c.body}{flag}")
            item = self.list.item(self.list.count() - 1)
            item.setToolTip(f"Comment {n} (id {c.id})")
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
                        # the number the list and the Verdicts view call it by
                        "label": f"\u270d {numbers[c.id]}",
                    }
                )
        self.view.set_highlights(spans)
        self._update_buttons()
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return any(c.actionable and c.status == "open" for c in self.comments)

    def keep_unsaved_words(self) -> str:
        """Words typed in the box and not yet added or saved are never dropped: a comment
        for a pending selection is added, an edit of the selected comment is saved.
        Returns what was kept, in words ("" when nothing was pending)."""
        text = self.body.toPlainText().strip()
        if not text:
            return ""
        if self.anchor is not None:
            self.add_from_selection()
            return "the comment you were writing was added"
        row = self.list.currentRow()
        if 0 <= row < len(self.comments) and text != (self._loaded_body or "").strip():
            self.save_edit()
            return f"your edit of {self.comments[row].id} was saved"
        return ""

    def validatePage(self) -> bool:
        kept = self.keep_unsaved_words()
        if kept:
            self.selection_label.setText(f"<i>Before going on, {kept}.</i>")
        return self.isComplete()
