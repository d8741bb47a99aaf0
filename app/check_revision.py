"""Check a revision made elsewhere (Start tab, File menu): the reviewed version with its
comments, the revised version, and optionally what the agent said, checked and written as
an evidence bundle exactly as a run's (``engine.run.external``); the window then opens it
(Verdicts, Metrics, Scorecard...). docs/gui.md, "Check a revision made elsewhere"."""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.jobs import run_in_thread

COMMENTS_FILTER = "Comments (*.json *.jsonld);;All files (*)"
MESSAGE_FILTER = "What the agent said (*.txt *.md *.json);;All files (*)"
MESSAGE_HINT = (
    "Paste what the agent said, if anything: a sentence such as \u201cAddressed all review "
    "comments\u201d (a claim for every comment), one line per comment (\u201c1: now says "
    "three days\u201d, by number or id), or its claims JSON. Leave it empty when it said "
    "nothing: claim accuracy is then not measured."
)


def check_files(
    reviewed: str,
    comments: str,
    revised: str,
    message: str,
    out_dir: Path | None = None,
    typed_tokens: int | None = None,
    made: list[Any] | None = None,
) -> Path:
    """Read the files, check the revision and write its bundle (worker thread: touches no
    widget). Returns the bundle folder. Raises DocumentError or InputError (one line naming
    the file) for a file that cannot be used, BundleError when the bundle cannot be
    written. ``typed_tokens``: a figure the user typed (kept as typed, not measured).
    ``made``: comments made by selecting words in the reviewed version
    (``app.comments_editor``; ``engine.models.Comment``), used instead of ``comments``."""
    from engine.models import InputError
    from engine.run.external import ExternalRevision, check_revision, word_versions_of
    from engine.text.documents import open_document
    from engine.text.titles import document_title

    d1, d2 = open_document(reviewed), open_document(revised)
    if d1.kind != d2.kind:
        raise InputError(revised, f"is {d2.kind}, but the reviewed version is {d1.kind}")
    found = _comments_of(reviewed, comments, d1, made)
    if not message.strip() and not comments and d1.word is not None and d2.word is not None:
        # Nothing said: the comments the agent resolved in the revised Word file are its
        # claims, its replies join the threads (engine.word_review). Comments made by
        # selecting words keep the Word file's ids, so its marks still match them.
        from engine.word_review import claims_message, word_claims

        marks = word_claims(d1.word, d2.word)
        for c in found:
            c.thread.extend(marks.replies.get(c.id, []))
        message = claims_message(marks)
    title = document_title(reviewed, d1.kind, d1.content)
    from engine.word_review import tracked_changes_json

    rev = ExternalRevision(
        title,
        d1.kind,
        d1.content,
        d2.content,
        found,
        message,
        typed_tokens=typed_tokens,
        tracked_changes=tracked_changes_json(d2.word) if d2.word is not None else None,
        word_versions=word_versions_of(d1, d2),
    )
    key = _signing_key()
    from engine.workspace import Workspace, WorkspaceError

    try:  # recorded in the workspace, so the bundle opens as the user's own run
        ws: Workspace | None = Workspace()
    except WorkspaceError:
        ws = None  # the bundle is the record either way
    try:
        path, _ = check_revision(rev, out_dir=out_dir, signing_key=key, workspace=ws)
    finally:
        if ws is not None:
            ws.close()
    return path


def _comments_of(reviewed: str, comments: str, d1: Any, made: list[Any] | None) -> list[Any]:
    """The comments to check: those ``made`` by selecting words, else the ``comments``
    file's, else the reviewed Word file's own. Raises InputError (one line)."""
    from engine.comments_io import load_comments
    from engine.models import InputError
    from engine.score.scoring import Version

    text = Version.from_source(d1.content, d1.kind, "v1").text
    if made:
        import copy

        found = copy.deepcopy(list(made))  # the dialog keeps its own for another check
    elif comments:
        found, unusable = load_comments(comments, text)
        if not found:
            raise InputError(comments, _none_words(unusable, "file"))
    elif d1.word is not None:
        from engine.word_review import word_comments

        found, unusable = word_comments(d1.word, "v1")
        if not found:
            raise InputError(reviewed, _none_words(unusable, "Word file"))
    else:
        raise InputError(
            reviewed,
            "choose the file of its comments, or add them by selecting words "
            "(only a Word file has its own)",
        )
    return list(found)


def _none_words(unusable: list[tuple[str, str]], what: str) -> str:
    """Why a comments file or a Word file gave no comment to check: it has none (said
    so, with what to do), or none of its comments can be used (``unusable``: (id,
    reason) each; the first reason said)."""
    if unusable:
        n = len(unusable)
        many = "its one comment cannot" if n == 1 else f"none of its {n} comments can"
        more = "" if n == 1 else f"; {n - 1} more"
        return f"{many} be used (comment {unusable[0][0]}: {unusable[0][1]}{more})"
    if what == "Word file":
        return "this Word file has no comments (add them in Word, or by selecting words)"
    return "this file has no comments in it"


def _signing_key() -> bytes | None:
    """The user's signing key (as runs sign), or None when none can be had."""
    try:
        from arl_keys.signing import signing_key

        return signing_key().material
    except Exception:  # never refuse the check for want of a signature
        return None


class _FileRow(QWidget):
    """A path box and its Choose button."""

    def __init__(self, caption: str, name_filter: str, start: Any, parent=None):
        super().__init__(parent)
        self.caption, self.name_filter, self.start = caption, name_filter, start
        self.path = QLineEdit()
        self.path.setAccessibleName(caption)
        self.button = QPushButton("Choose\u2026")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.path, 1)
        lay.addWidget(self.button)
        self.button.clicked.connect(self.ask)
        self._dialog: QFileDialog | None = None

    def ask(self) -> None:
        dlg = QFileDialog(self, self.caption, str(self.start()), self.name_filter)
        dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
        dlg.fileSelected.connect(self.path.setText)
        self._dialog = dlg
        dlg.open()

    def text(self) -> str:
        return self.path.text().strip()


class CheckRevisionDialog(QDialog):
    """The three inputs and the message; ``checked(path)`` once the bundle is written."""

    checked = Signal(str)

    def __init__(self, settings: Any = None, parent=None, out_dir: Path | None = None):
        super().__init__(parent)
        from engine.text.documents import file_dialog_filter

        self.setWindowTitle("Check a revision made elsewhere")
        self.settings, self.out_dir = settings, out_dir
        start = (lambda: settings.start_folder()) if settings is not None else Path.home
        intro = QLabel(
            "An agent revised a document you reviewed somewhere else (Copilot, ChatGPT, "
            "Claude...). Give the version you reviewed with its comments, the version it "
            "gave back, and what it said: the program checks every comment against the "
            "words, as for a run of its own."
        )
        intro.setWordWrap(True)
        docs = file_dialog_filter()
        self.reviewed = _FileRow("The version you reviewed", docs, start)
        self.comments = _FileRow("Its comments", COMMENTS_FILTER, start)
        self.revised = _FileRow("The revised version", docs, start)
        made_row = self._made_row()  # under the comments file: or select words
        self.message = QPlainTextEdit()
        self.message.setPlaceholderText(MESSAGE_HINT)
        self.message.setAccessibleName("What the agent said")
        self.load_message = QPushButton("Load it from a file\u2026")
        self.load_message.clicked.connect(self._ask_message)
        self.tokens = QLineEdit()
        self.tokens.setPlaceholderText("not known")
        self.tokens.setAccessibleName("Tokens the agent used, typed by you (not measured)")
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)  # every path and error escaped
        grid = self._files_grid(made_row)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.check_btn = self.buttons.addButton(
            "Check the revision", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.buttons.accepted.connect(self.start_check)
        self.buttons.rejected.connect(self.reject)
        body = QWidget()
        lay = QVBoxLayout(body)
        lay.addWidget(intro)
        lay.addLayout(grid)
        said = QLabel("What the agent &said (optional):")
        said.setBuddy(self.message)
        lay.addWidget(said)
        self.message.setMinimumHeight(self.message.fontMetrics().lineSpacing() * 4)
        lay.addWidget(self.message, 1)
        lay.addWidget(self.load_message, 0, Qt.AlignmentFlag.AlignLeft)
        tok = QLabel(
            "&Tokens the agent used, if you know them (optional; shown as typed, not measured):"
        )
        tok.setBuddy(self.tokens)
        lay.addWidget(tok)
        lay.addWidget(self.tokens, 0, Qt.AlignmentFlag.AlignLeft)
        lay.addWidget(self.status)
        # The body scrolls when the screen is short (1366 x 768 at 1.5x); the buttons stay
        # under it, always on screen.
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(body)
        outer = QVBoxLayout(self)
        outer.addWidget(self.scroll, 1)
        outer.addWidget(self.buttons)
        fit_to_screen(self, 820, 560)
        self._msg_dialog: QFileDialog | None = None

    def _files_grid(self, made_row: QHBoxLayout) -> QGridLayout:
        """The three files, each with its label (its '&' key), and ``made_row`` under the
        comments file."""
        grid = QGridLayout()
        grid.setColumnStretch(1, 1)
        rows = (
            ("The version you &reviewed:", self.reviewed),
            (
                "Its &comments (JSON: W3C, Hypothesis or this program's; a Word file has its own):",
                self.comments,
            ),
            ("The re&vised version:", self.revised),
        )
        for i, (words, row) in enumerate(rows):
            label = QLabel(words)
            label.setWordWrap(True)
            label.setBuddy(row.path)  # the '&' is the key to the box, not drawn
            grid.addWidget(label, 2 * i, 0)
            grid.addWidget(row, 2 * i, 1)
        grid.addLayout(made_row, 3, 1)
        return grid

    def _made_row(self) -> QHBoxLayout:
        """The button to comments made by selecting words in the reviewed version (the
        wizard's editor) and what was made."""
        self.made: list[Any] = []
        self._made_on = ""  # the reviewed file they were made on
        self.select_btn = QPushButton("Add comments by se&lecting words\u2026")
        self.select_btn.setToolTip(
            "Opens the version you reviewed: select the words, write what should change"
        )
        self.select_btn.clicked.connect(self.edit_comments)
        self.made_label = QLabel()
        self.made_label.setWordWrap(True)
        self._editor: Any = None
        row = QHBoxLayout()
        row.addWidget(QLabel("or"))
        row.addWidget(self.select_btn)
        row.addWidget(self.made_label, 1)
        return row

    def edit_comments(self) -> None:
        """Open the version reviewed in the wizard's comment editor (``app.comments_editor``),
        with the comments made so far; the ones it gives back are used for the check."""
        from engine.text.documents import open_document

        reviewed = self.reviewed.text()
        if not reviewed:
            self.status.setText("Choose the version you reviewed first: the comments go on it.")
            return
        self.select_btn.setEnabled(False)
        self.status.setText(f"Reading {html.escape(os.path.basename(reviewed))}\u2026")

        def failed(exc: BaseException) -> None:
            self.select_btn.setEnabled(True)
            self.status.setText(f"<b>Could not read it:</b> {html.escape(str(exc))}")

        run_in_thread(lambda: open_document(reviewed), lambda d: self._edit(reviewed, d), failed)

    def _edit(self, reviewed: str, doc: Any) -> None:
        from app.comments_editor import CommentsEditor

        self.select_btn.setEnabled(True)
        self.status.setText("")
        kept = self.made if self._made_on == reviewed else []
        editor = CommentsEditor(doc.content, doc.kind, doc.word, kept, self.settings, self)
        editor.setWindowModality(Qt.WindowModality.WindowModal)
        fit_to_screen(editor, 1100, 720)
        editor.accepted.connect(lambda: self.use_comments(reviewed, editor.picked()))
        self._editor = editor
        editor.open()

    def use_comments(self, reviewed: str, comments: list[Any]) -> None:
        """Check with ``comments`` (made by selecting words in ``reviewed``)."""
        from engine.vocabulary import plural

        self.made, self._made_on = list(comments), reviewed
        if self.made:
            self.made_label.setText(
                f"{plural(len(self.made), 'comment')} made by selecting words: the check uses "
                "them" + (" (not the comments file)" if self.comments.text() else "")
            )
            self.select_btn.setText("Edit the comments by se&lecting words\u2026")
        else:
            self.made_label.setText("")

    def _ask_message(self) -> None:
        start = self.settings.start_folder() if self.settings is not None else Path.home()
        dlg = QFileDialog(self, "What the agent said", str(start), MESSAGE_FILTER)
        dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
        dlg.fileSelected.connect(self.load_message_file)
        self._msg_dialog = dlg
        dlg.open()

    def load_message_file(self, path: str) -> None:
        """Put a file's text in the message box, as it is (UTF-8; at most the message
        cap)."""
        from engine.agent_message import MAX_MESSAGE_CHARS

        try:
            with open(path, encoding="utf-8") as f:
                self.message.setPlainText(f.read(MAX_MESSAGE_CHARS))
        except (OSError, UnicodeDecodeError) as exc:
            self.status.setText(
                f"Could not read {html.escape(os.path.basename(path))}: {html.escape(str(exc))}"
            )

    def start_check(self) -> None:
        reviewed, revised = self.reviewed.text(), self.revised.text()
        if not reviewed or not revised:
            self.status.setText("Choose the version you reviewed and the revised version.")
            return
        comments, message = self.comments.text(), self.message.toPlainText()
        typed = self.typed_tokens()
        if isinstance(typed, str):
            self.status.setText(html.escape(typed))
            return
        made = self.made if self.made and self._made_on == reviewed else None
        if self.made and made is None:
            self.status.setText(
                "The comments you made by selecting words are on another file than the "
                "version you reviewed: open them again (Edit the comments by selecting words)."
            )
            return
        if self.settings is not None:
            self.settings.remember_folder_of(reviewed)
        self._pair = (reviewed, revised)
        self.check_btn.setEnabled(False)
        self.status.setText("Checking every comment against the words\u2026")
        run_in_thread(
            lambda: check_files(reviewed, comments, revised, message, self.out_dir, typed, made),
            self._done,
            self._failed,
        )

    def typed_tokens(self) -> int | str | None:
        """The typed token figure (None when left empty), or the problem in words."""
        from engine.bundle.typed_tokens import typed_tokens_problem

        raw = self.tokens.text().strip().replace(",", "").replace("_", "").replace(" ", "")
        if not raw:
            return None
        problem = typed_tokens_problem(int(raw)) if raw.isascii() and raw.isdigit() else "x"
        if problem:
            return "Tokens: type a whole number (for example 12,000), or leave it empty."
        return int(raw)

    def _done(self, path: Path) -> None:
        self.check_btn.setEnabled(True)
        self.status.setText(f"Written: {html.escape(str(path))}")
        reviewed, revised = getattr(self, "_pair", ("", ""))
        if self.settings is not None and all(
            p.lower().endswith(".docx") for p in (reviewed, revised)
        ):  # File > Save the verdicts into a Word copy starts from these two
            self.settings.remember_word_sources(str(path), reviewed, revised)
        self.checked.emit(str(path))
        self.accept()

    def _failed(self, exc: BaseException) -> None:
        self.check_btn.setEnabled(True)
        self.status.setText(f"<b>Could not check the revision:</b> {html.escape(str(exc))}")


def fit_to_screen(dialog: QWidget, width: int, height: int) -> None:
    """Size ``dialog`` to ``width`` x ``height`` (device-independent pixels) or to 90 % of
    the available geometry of its screen when that is smaller, so its buttons are never
    below the screen's edge."""
    screen = dialog.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        dialog.resize(width, height)
        return
    room = screen.availableGeometry()
    dialog.resize(min(width, int(room.width() * 0.9)), min(height, int(room.height() * 0.9)))
