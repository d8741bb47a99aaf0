"""The Run view: a live review run (round n of N, each tool call as it happens, tokens so
far, elapsed time, Cancel). The engine (``engine.run.start_review``, the same start as
``arl run``) does the work on the qasync loop; this view consumes its typed events. When
the run ends (completed, cancelled or failed) ``runFinished`` carries the bundle path and
the main window opens it.

Network waits are async; the engine runs the workspace set-up in an executor. Cancelling is
cooperative (``RunHandle.cancel``): the engine stops between steps and still writes a bundle
marked ``cancelled``.
"""

from __future__ import annotations

import asyncio
import html
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.icons import EVENT_ICONS, icon
from app.run_of_bundle import FAILED_STYLE, RunRecord
from app.trace_dialog import show_trace
from app.word_copy import word_revision_hint
from engine import events as ev, vocabulary as vocab
from engine.vocabulary import comment_names

if TYPE_CHECKING:  # the run machinery (engine.run, about 1 s) is imported when a run starts
    from app.runrequest import RunRequest

log = logging.getLogger(__name__)
# After this long with no step while the agent works, the log says it waits on the model.
WAIT_SAY_S = 3.0
NOT_SIGNED = "The bundle will not be signed: no key of yours could be read or made here."


def _bars() -> tuple[QProgressBar, QProgressBar]:
    """The rounds bar (its text says the round, then how the run ended) and the thin
    busy bar under it; both hidden until a run starts."""
    rounds = QProgressBar()
    rounds.setTextVisible(True)
    rounds.setFormat("")
    rounds.setVisible(False)
    busy = QProgressBar()
    busy.setRange(0, 0)
    busy.setMaximumHeight(6)
    busy.setTextVisible(False)
    busy.setVisible(False)
    return rounds, busy


class RunView(RunRecord, QWidget):
    runFinished = Signal(str)  # bundle path ("" when no bundle could be written)
    runStarted = Signal()
    eventShown = Signal(object)  # every engine event, after the view showed it

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.settings = settings
        self._job: asyncio.Task | None = None
        self.handle = None
        self.events: list[Any] = []
        self._names: dict[str, str] = {}  # comment id -> "comment 3" (app.verdicts)
        self.round_metrics: list[tuple[int, dict[str, Any]]] = []
        self.outcome = None
        self.bundle_path = ""
        self._t0 = 0.0
        self._last_step = 0.0  # when the last event came (time.monotonic)
        self._waiting: QListWidgetItem | None = None  # the log's "Waiting for the model" line
        self._wizard = None

        self.title = QLabel("<h2>No run yet</h2>")
        self.hint = QLabel(
            "Set up a run with <b>File \u25b8 New run</b> (Ctrl+N), or open the "
            "example run from the Start tab to see what a finished run looks like."
        )
        self.hint.setWordWrap(True)
        self.round_label = QLabel("")
        self.round_label.setTextFormat(Qt.TextFormat.PlainText)  # a server's failure reason
        self.round_label.setWordWrap(True)
        self.round_bar, self.busy = _bars()
        self.tokens_label = QLabel("")
        self.elapsed_label = QLabel("")
        self.counts_label = QLabel("")
        self.counts_label.setTextFormat(Qt.TextFormat.RichText)
        self.cancel_btn = QPushButton("&Cancel run")
        self.cancel_btn.setEnabled(False)
        self.cancel_btn.setToolTip(
            "Stop after the current step; an evidence bundle marked "
            "cancelled is still written (Esc)"
        )
        self.new_btn = QPushButton("&New run\u2026")
        self.trace_btn = QPushButton("Show the model-call &trace\u2026")
        self.trace_btn.setToolTip(
            "Every request to the model, its answer and each tool call, as the bundle's "
            "trace.json records them"
        )
        self.trace_btn.setVisible(False)
        from app.run_alert import RunAlert

        self.alert = RunAlert(lambda: self.cancel())
        self.log = QListWidget()
        self.log.setAccessibleName("What the agent did, step by step")
        self.log.setWordWrap(True)
        self.log.setAlternatingRowColors(True)

        stats = QHBoxLayout()
        for w in (self.tokens_label, self.elapsed_label, self.counts_label):
            stats.addWidget(w)
        stats.addStretch(1)
        stats.addWidget(self.trace_btn)
        stats.addWidget(self.new_btn)
        stats.addWidget(self.cancel_btn)
        lay = QVBoxLayout(self)
        lay.addWidget(self.title)
        lay.addWidget(self.hint)
        lay.addWidget(self.round_label)
        lay.addWidget(self.round_bar)
        lay.addWidget(self.busy)
        lay.addLayout(stats)
        lay.addWidget(self.alert)
        lay.addWidget(self.log, 1)

        self.timer = QTimer(self)
        self.timer.setInterval(500)
        self.timer.timeout.connect(self._tick)
        self.cancel_btn.clicked.connect(self.cancel)
        self.new_btn.clicked.connect(lambda: self.start_setup(self.window()))
        # The bundle's trace.json in a window of its own (read off the UI thread).
        self.trace_btn.clicked.connect(
            lambda: self.bundle_path and show_trace(self.window(), Path(self.bundle_path))
        )
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self.ask_cancel)

    # -- setup --------------------------------------------------------------------------------

    def start_setup(self, parent=None) -> None:
        """Open the setup wizard (non-modal ``open()``); Finish starts the run."""
        from app.wizard import SetupWizard

        if self.running:
            self._add("warning", "A run is in progress: cancel it before starting another.")
            return
        wiz = SetupWizard(self.settings, parent or self.window())
        wiz.runRequested.connect(self.request_run)
        self._wizard = wiz
        wiz.open()

    # -- running ------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._job is not None and not self._job.done()

    def request_run(self, request: RunRequest) -> None:
        """Start the run once the user knows where the document goes (asked the first
        time for each server that is not on this computer: ``app.send_notice``)."""
        from app.send_notice import ask_before_sending

        ask_before_sending(
            self.window(), self.settings, request.config.base_url, lambda: self.start_run(request)
        )

    def start_run(self, request: RunRequest) -> asyncio.Task:
        """Start the run as a task on the running loop. Cancels a previous one first."""
        if self._job is not None and not self._job.done():
            self._job.cancel()
        self._job = asyncio.ensure_future(self._run(request))
        return self._job

    async def _sign_with_users_key(self, req: RunRequest) -> None:
        """Sign the bundle with the user's key (keyring, or a session key), said in the log."""
        from app.jobs import executor
        from arl_keys.signing import signing_key

        try:
            key = await asyncio.get_running_loop().run_in_executor(executor(), signing_key)
        except Exception:  # never stop a run for want of a signature; the why to the log
            log.warning("no signing key for the run", exc_info=True)
            self._add("warning", NOT_SIGNED)
            return
        req.signing_key = key.material
        where = "kept in the keyring" if key.where == "keyring" else key.note.rstrip(".")
        from engine.bundle.signing import FINGERPRINT_MEANS

        item = self._add(
            "signed", f"The evidence bundle will be signed by you on this computer ({where})."
        )
        item.setToolTip(f"Your key's fingerprint: {key.fingerprint}\n{FINGERPRINT_MEANS}")

    async def _run(self, req: RunRequest) -> None:
        from engine.run.records import RunHandle
        from engine.run.start import start_review

        self.handle = RunHandle()
        self.events = []
        self._names = comment_names([str(c.id) for c in req.comments])
        self.round_metrics = []
        self.outcome = None
        self.bundle_path = ""
        self.log.clear()
        self._waiting = None
        self._doc_title = req.title
        self.title.setText(f"<h2>Running: {html.escape(req.title)}</h2>")
        self.hint.setText(
            f"Model <b>{html.escape(req.config.model)}</b> at {html.escape(req.config.base_url)}"
            f" \u2014 {vocab.plural(len(req.comments), 'comment')}, at most "
            f"{vocab.plural(req.rounds, 'round')}. The window stays "
            "usable; Cancel stops after the current step."
        )
        self.round_bar.setRange(0, req.rounds)
        self.round_bar.setValue(0)
        self.round_bar.setVisible(True)
        self.busy.setVisible(True)
        self.round_label.setText("Preparing the workspace\u2026")
        from app.send_notice import where_words

        self._add("info", where_words(req.config.base_url))
        self.tokens_label.setText("Tokens so far: none reported yet")
        self.counts_label.setText("")
        self.cancel_btn.setEnabled(True)
        self.new_btn.setEnabled(False)
        self._t0 = self._last_step = time.monotonic()
        self._tick()
        self.timer.start()
        self.runStarted.emit()
        if req.signing_key is None:
            await self._sign_with_users_key(req)
        try:
            self.outcome = await start_review(req, handle=self.handle, on_event=self._on_event)
            self.bundle_path = str(self.outcome.bundle or "")
        except asyncio.CancelledError:
            self._add("stopped", "The run was stopped.")
            self._finish_ui("cancelled", "the run was stopped")
            raise
        except Exception as exc:
            from engine.redact import redact

            why = redact(str(exc))
            self._add("error", f"The run could not be started or finished: {why}")
            self._finish_ui("failed", why)
            self.runFinished.emit("")
            return
        self._finish_ui(self.outcome.status, self.outcome.reason)
        self.runFinished.emit(self.bundle_path)

    def _finish_ui(self, status: str, reason: str) -> None:
        self.alert.setVisible(False)
        self.timer.stop()
        self._tick()  # (the timer stopped: no "Waiting for the model" line is left)
        self.busy.setVisible(False)
        self.cancel_btn.setEnabled(False)
        self.new_btn.setEnabled(True)
        words = {
            "completed": "Run completed",
            "cancelled": "Run cancelled",
            "failed": "Run failed",
        }.get(status, f"Run {status}")
        # The document stays named once the run has ended.
        doc = getattr(self, "_doc_title", "")
        self.title.setText(f"<h2>{words}: {html.escape(doc)}</h2>" if doc else f"<h2>{words}</h2>")
        reason = (reason or "").rstrip(". ")
        text = f"{words}: {reason}." if reason else words + "."
        if status == "failed":
            text += (
                " What to do: check the server and the model with Test connection "
                "(File \u25b8 New run), then start again; the log file has the details."
            )
        self.round_label.setText(text)
        # What was said while running ("Cancel stops...", "so far") is no longer true.
        bundle = "The evidence bundle of this run opens in the Verdicts tab."
        self.hint.setText((bundle if self.bundle_path else "") + word_revision_hint(self.outcome))
        self.trace_btn.setVisible(bool(self.bundle_path))
        self.tokens_label.setText(self.tokens_label.text().replace("Tokens so far", "Tokens used"))
        if never := vocab.never_reached_of(getattr(self.outcome, "metrics", None)):
            self.tokens_label.setText(f"Tokens used: N/A — {never}")
        self.round_label.setStyleSheet(FAILED_STYLE if status == "failed" else "")

    def ask_cancel(self) -> None:
        """Esc: a run may be paid for, so ask before cancelling it (Cancel cancels at once)."""
        if self.handle is None or not self.running:
            return
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Cancel the run?")
        box.setText("Cancel the run after its current step?")
        box.setInformativeText("An evidence bundle marked cancelled is still written.")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.button(QMessageBox.StandardButton.Yes).setText("&Cancel the run")
        box.button(QMessageBox.StandardButton.No).setText("&Keep running")
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.buttonClicked.connect(
            lambda b: b is box.button(QMessageBox.StandardButton.Yes) and self.cancel()
        )
        self._cancel_box = box
        box.open()

    def cancel(self) -> None:
        if self.handle is not None and self.running:
            self.handle.cancel()
            self.cancel_btn.setEnabled(False)
            self.round_label.setText("Cancelling after the current step\u2026")
            self._add(
                "stopped",
                "Cancel requested: the run stops after the current step and "
                "writes an evidence bundle marked cancelled.",
            )

    async def shutdown(self) -> None:
        """Cancel a running job and wait for it (window closing)."""
        job = self._job
        if job is not None and not job.done():
            if self.handle is not None:
                self.handle.cancel()
            job.cancel()
            try:
                await job
            except (asyncio.CancelledError, Exception):
                pass

    # -- an opened bundle ----------------------------------------------------------------------

    def show_bundle(self, data: Any) -> None:
        """Say what an opened bundle's run was (``app.run_of_bundle.RunRecord``). A live
        run is never replaced: the view keeps it."""
        if self.running or (self.events and self._same_path(self.bundle_path, data.path)):
            return  # a live run, or the bundle the run shown here just wrote: keep its log
        self._show_record(data)

    @staticmethod
    def _same_path(a: Any, b: Any) -> bool:
        try:
            return bool(a) and Path(a).resolve() == Path(b).resolve()
        except (OSError, ValueError):
            return False

    # -- events -------------------------------------------------------------------------------

    def _tick(self) -> None:
        if self._t0:
            s = int(time.monotonic() - self._t0)
            self.elapsed_label.setText(f"Elapsed: {s // 60}:{s % 60:02d}")
        self._say_waiting()

    def _say_waiting(self) -> None:
        """While the agent works and no step has come for ``WAIT_SAY_S``, the last line of
        the log says the run waits on the model, and for how long (ticking); the next step
        takes the line away (its own line says how long the call took)."""
        phase = getattr(self.handle, "phase", "")
        quiet = time.monotonic() - self._last_step
        if not self.timer.isActive() or phase not in ("working", "reporting") or quiet < WAIT_SAY_S:
            self._drop_waiting()
            return
        s = int(quiet)
        what = "its report" if phase == "reporting" else "its answer"
        text = (
            f"Waiting for the model to send {what}: {s // 60}:{s % 60:02d} so far "
            "(a slow model or a busy server can take minutes)."
        )
        if self._waiting is None:
            self._waiting = self._add("model", text)
        elif self._waiting.text() != text:
            self._waiting.setText(text)

    def _drop_waiting(self) -> None:
        if self._waiting is not None:
            self.log.takeItem(self.log.row(self._waiting))
            self._waiting = None

    def _add(self, icon_name: str, text: str) -> QListWidgetItem:
        """One line of the log: an icon (``app.icons``, drawn, never a character) and the
        text; the icon's name is the item's ``UserRole`` data."""
        item = QListWidgetItem(icon(icon_name), text)
        item.setData(Qt.ItemDataRole.UserRole, icon_name)
        self.log.addItem(item)
        self.log.scrollToBottom()
        return item

    def _on_event(self, event: Any) -> None:
        """Called by the engine on the loop's thread: copy what is needed and return."""
        self.events.append(event)
        self._last_step = time.monotonic()
        self._drop_waiting()
        name = type(event).__name__
        # Sentence case where the engine has it (the CLI keeps the exact VERIFICATION line).
        words = event.plain(self._names)
        item = self._add(EVENT_ICONS.get(name, "step"), words)
        if isinstance(event, ev.RoundStarted):
            self.round_bar.setMaximum(event.max_rounds)
            self.round_bar.setValue(event.round - 1)  # the bar fills as rounds finish
            self.round_bar.setFormat(f"Round {event.round} of {event.max_rounds}")
            self.round_label.setText(
                f"Round {event.round} of {event.max_rounds}: "
                f"{vocab.plural(event.unresolved, 'comment')} to address"
            )
        elif isinstance(event, ev.ModelCalled):
            if event.run_tokens is None:
                self.tokens_label.setText(
                    "Tokens so far: unknown (the server reports no usable token counts)"
                )
            else:
                self.tokens_label.setText(f"Tokens so far: {event.run_tokens:,}")
        elif isinstance(event, ev.ToolCalled):
            if not event.ok:
                item.setForeground(Qt.GlobalColor.darkRed)
        elif isinstance(event, ev.VerdictsComputed):
            self.round_metrics.append((event.round, dict(event.metrics)))
            from app.present import verdict_label

            parts = [f"{verdict_label(k)}: {n}" for k, n in event.counts.items() if n]
            self.counts_label.setText(" \u00b7 ".join(html.escape(p) for p in parts))
        elif isinstance(event, ev.RoundFinished):
            self.round_bar.setValue(event.round)
        elif isinstance(event, (ev.CommentReopened, ev.ClaimUnchanged)):
            f = item.font()
            f.setBold(True)
            item.setFont(f)
        elif isinstance(event, ev.AgentNotice) and event.topic.startswith("repeating:"):
            item.setForeground(Qt.GlobalColor.darkRed)
            if self.running:
                self.alert.ask(event.text)  # stop, or let it go on
        elif isinstance(event, ev.RunFailed):
            item.setForeground(Qt.GlobalColor.darkRed)
            self._bar_ended("failed")
        elif isinstance(event, ev.RunFinished):
            self._bar_ended(event.status)
        self.eventShown.emit(event)

    def _bar_ended(self, status: str) -> None:
        """A run that ended no longer shows a round in progress: the bar says how it ended
        after how many rounds (a run may end before its round limit: converged, cancelled)."""
        done = self.round_bar.value()
        limit = self.round_bar.maximum()
        rounds = f"{done} round{'s' if done != 1 else ''}"
        if status == "completed":
            # The run is over: a full bar (it may have ended before its limit, converged).
            self.round_bar.setRange(0, max(done, 1))
            self.round_bar.setValue(max(done, 1))
            self.round_bar.setFormat(f"Run completed after {rounds} (limit {limit})")
        else:
            self.round_bar.setFormat(f"Run {status} after {rounds} of {limit}")
