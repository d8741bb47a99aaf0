"""Reply in the selected comment's thread, resolve or reopen it, under the Verdicts view's
decision panel. The workspace keeps the thread (``engine.threads``), so the agent sees the
replies in the next round; the bundle, a record of the finished run, never changes.

A bundle whose run is not in this workspace (made elsewhere, like the shipped example) can
be read but not answered: the box says so in place, and how to answer it: **Continue this
review in your workspace…** (``continueReview``) starts the next review from its last
version with these comments and their threads, in the workspace, where replies go.
The reviewer's name is asked before the first reply (when the reply field first takes the
focus, or on Reply), never in the middle of typing. Workspace calls run on a worker thread.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from app.jobs import run_in_thread
from engine.vocabulary import AGENT_WORDS, author_words, error_words, reply_words


def _default_workspace() -> Any:
    from engine.workspace import Workspace

    return Workspace()


class ThreadBox(QWidget):
    """``answered(comment_id)`` fires when the workspace took a reply or a status."""

    answered = Signal(str)
    continueReview = Signal()  # "Continue this review in your workspace..."

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.workspace_factory: Callable[[], Any] = _default_workspace
        self.author: Callable[[], str] = lambda: ""
        #: What the agent's replies are signed: the bundle's model, else "the agent"
        #: (``engine.vocabulary.agent_words``; set by the view that shows the bundle).
        self.agent = AGENT_WORDS
        # (then) -> None: call ``then`` once the reviewer has a name (set by the view).
        self.with_name: Callable[[Callable[[], None]], None] = lambda then: then()
        self._asked_on_focus = False
        self.document_id: str | None = None
        self.comment_id = ""
        self._recorded: dict[str, Any] = {}
        self.busy = False
        self.state = QLabel()
        self.state.setWordWrap(True)
        self.state.setTextFormat(Qt.TextFormat.RichText)
        self.state.setAccessibleName("The thread in your workspace")
        self.reply = QLineEdit()
        self.reply.setPlaceholderText("Reply in this thread (the agent reads it next round)")
        self.reply.setMaxLength(20_000)
        self.reply.setAccessibleName("Reply in this thread")
        self.reply.returnPressed.connect(lambda: self.act("reply"))
        self.reply.installEventFilter(self)
        self.continue_btn = QPushButton("Continue this review in your workspace\u2026")
        self.continue_btn.setToolTip(
            "The next review starts in your workspace from this bundle's last version, with "
            "its comments and their threads: there you can reply, resolve and reopen"
        )
        self.continue_btn.clicked.connect(self.continueReview.emit)
        self.continue_btn.setVisible(False)
        self.buttons = {
            "reply": QPushButton("Re&ply"),
            "resolve": QPushButton("Resol&ve"),
            "reopen": QPushButton("Reop&en"),
        }
        row = QHBoxLayout()
        row.setSpacing(4)
        row.addWidget(self.reply, 1)
        for action, b in self.buttons.items():
            b.clicked.connect(lambda _=False, a=action: self.act(a))
            row.addWidget(b)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 2, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.state)
        lay.addWidget(self.continue_btn, 0, Qt.AlignmentFlag.AlignLeft)
        lay.addLayout(row)
        self._enable(False)

    def eventFilter(self, obj: Any, event: Any) -> bool:
        """The reply field's first focus asks the reviewer's name (once), before typing."""
        from PySide6.QtCore import QEvent

        if (
            obj is self.reply
            and event.type() == QEvent.Type.FocusIn
            and not self._asked_on_focus
            and self.reply.isEnabled()
            and not self.author()
        ):
            self._asked_on_focus = True
            self.with_name(self.reply.setFocus)
        return super().eventFilter(obj, event)

    def _enable(self, on: bool) -> None:
        self.reply.setEnabled(on)
        for b in self.buttons.values():
            b.setEnabled(on)

    def set_run(self, run_id: str, done: Callable[[], None] | None = None) -> None:
        """Find the run's document in the workspace (off the UI thread)."""
        self.document_id = None
        self._enable(False)
        self.state.setText("")

        def work() -> str | None:
            from engine.threads import run_document

            with self.workspace_factory() as ws:
                return run_document(ws, run_id)

        def found(doc: str | None) -> None:
            self.document_id = doc
            if self.comment_id:
                self.show_comment(self.comment_id, self._recorded)
            if done is not None:
                done()

        run_in_thread(work, found, lambda exc: found(None))

    def show_comment(self, comment_id: str, recorded: dict[str, Any] | None = None) -> None:
        """Show the comment's one thread: the workspace's when the run is in it (the one
        that takes replies), else ``recorded``, the bundle's ``comments.after.json`` entry
        (its ``status`` and ``thread``), read-only. The detail pane shows no thread of its
        own, so two copies never disagree."""
        self.comment_id = comment_id
        self._recorded = recorded or {}
        if self.document_id is None:
            self._enable(False)
            self.continue_btn.setVisible(True)
            self.state.setText(
                recorded_thread_html(self._recorded, self.agent) + "<br>" + NOT_IN_WORKSPACE
            )
            return
        self.continue_btn.setVisible(False)
        self._enable(not self.busy)
        self.state.setText("<small>Thread in your workspace:</small>")
        self._load(lambda ws: ws.comment(self.document_id, comment_id))

    def act(self, action: str) -> None:
        """Reply, resolve or reopen through ``engine.threads.answer``."""
        if self.document_id is None or self.busy or not self.comment_id:
            return
        body = self.reply.text()
        if action == "reply" and not body.strip():
            return
        if not self.author():  # asked first; the reply waits in its field meanwhile
            self.with_name(lambda: self.author() and self.act(action))
            return
        from engine.threads import answer

        doc, cid, who = self.document_id, self.comment_id, self.author()
        self.busy = True
        self._enable(False)
        self._load(lambda ws: answer(ws, doc, cid, action, body, who), answered=True)

    def _load(self, fn: Callable[[Any], Any], answered: bool = False) -> None:
        cid = self.comment_id

        def work() -> Any:
            with self.workspace_factory() as ws:
                return fn(ws)

        def done(comment: Any) -> None:
            self.busy = False
            if answered:
                self.reply.clear()
                self.answered.emit(cid)
            if cid == self.comment_id:
                self._enable(True)
                self.state.setText(thread_html(comment, self.agent))

        def failed(exc: BaseException) -> None:
            self.busy = False
            self._enable(self.document_id is not None)
            self.state.setText(f"<b>Not recorded:</b> {html.escape(error_words(exc))}")

        run_in_thread(work, done, failed)


NOT_IN_WORKSPACE = (
    "<small>This run is not in your workspace (it was made elsewhere, as the shipped "
    "example was), so its thread can be read here but not answered. To answer it, "
    "<b>continue this review in your workspace</b>: the next review starts there from this "
    "run's last version, with these comments and their threads, and your replies go to "
    "the agent in its next round.</small>"
)

_MARKS = {"reopen": "\u21ba reopened", "resolve": "\u2713 resolved", "reply": "reply"}


def _thread_lines(
    head: str, status: str, entries: list[tuple[str, str, str]], agent: str = AGENT_WORDS
) -> str:
    """``head``, the status and the last five (author, kind, body) entries, as rich text;
    the same entry said again right after itself (an agent giving one reply each round)
    is one line that says how many times. ``agent``: what the agent's replies are signed
    (``engine.vocabulary.agent_words``: the model's name, else "the agent")."""
    runs: list[list[Any]] = []
    for entry in entries:
        if runs and runs[-1][0] == entry:
            runs[-1][1] += 1
        else:
            runs.append([entry, 1])
    lines = []
    for (author, kind, body), n in runs[-5:]:
        mark = _MARKS.get(kind, kind) + (", twice" if n == 2 else f", {n} times" if n > 2 else "")
        who = author_words(author, agent) or "someone"
        if who.startswith(("the ", "a ")):  # it opens the line: "The agent", "A reviewer"
            who = who[:1].upper() + who[1:]
        lines.append(
            f"<b title='{html.escape(author)}'>{html.escape(who)}</b> "
            f"<small>({html.escape(mark)})</small>: "
            f"{html.escape(reply_words(author, body))}"
        )
    more = len(runs) - 5
    top = f"<small>{head}, status now <b>{html.escape(status)}</b>"
    top += f"; {more} earlier entr{'y' if more == 1 else 'ies'}" if more > 0 else ""
    return top + ":</small><br>" + ("<br>".join(lines) or "<i>No replies yet.</i>")


def thread_html(comment: Any, agent: str = AGENT_WORDS) -> str:
    """The workspace's thread of ``comment`` (an ``engine.models.Comment``): its status and
    its last five entries; ``agent`` as in ``_thread_lines``."""
    entries = [(r.author, r.kind, r.body) for r in comment.thread]
    return _thread_lines("In your workspace", comment.status, entries, agent)


def recorded_thread_html(after: dict[str, Any], agent: str = AGENT_WORDS) -> str:
    """The thread a bundle recorded for one comment (a ``comments.after.json`` entry: its
    ``status`` and ``thread`` of reply dicts), in the same form as ``thread_html``."""
    thread = after.get("thread")
    entries = [
        (str(r.get("author") or ""), str(r.get("kind") or "reply"), str(r.get("body") or ""))
        for r in (thread if isinstance(thread, list) else [])
        if isinstance(r, dict)
    ]
    return _thread_lines("As this run left it", str(after.get("status") or "open"), entries, agent)
