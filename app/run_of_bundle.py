"""The Run view's record of an opened bundle's run: what it was (status, model, rounds,
tokens, when, why it ended) and its round records as the bundle stores them, in the log
where a live run shows its events. A mixin of ``app.runview.RunView`` (it reads and sets
the view's labels, log and run state); kept apart from the live run it never replaces
(``RunView.show_bundle`` keeps a live run's log). Nothing is scored here.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from app.run_record import round_lines
from engine import vocabulary as vocab
from engine.vocabulary import EXTERNAL_FACT_WORDS, comment_names

FAILED_STYLE = "color:#B24000;font-weight:600"  # the ending line of a failed run


def _agent_mode_bit(manifest: dict[str, Any]) -> list[str]:
    """The run's agent mode in plain words (``engine.vocabulary.agent_mode_words``), as a
    one-item list, or [] when the manifest does not record it."""
    from engine.bundle.scorecard import agent_mode_of
    from engine.vocabulary import agent_mode_words

    mode = agent_mode_of(manifest)
    return [html.escape(agent_mode_words(mode))] if mode.get("ran") or mode.get("requested") else []


class RunRecord:
    """Shows an opened bundle's run in the Run view (see the module docstring)."""

    events: list[Any]
    round_metrics: list[Any]
    bundle_path: str
    _names: dict[str, str]
    _doc_title: str
    _t0: float
    log: Any
    title: Any
    hint: Any
    trace_btn: Any
    round_label: Any
    tokens_label: Any
    round_bar: Any
    busy: Any
    cancel_btn: Any
    new_btn: Any
    elapsed_label: Any
    counts_label: Any
    _add: Callable[[str, str], Any]  # one line of the log (RunView._add)

    def _show_record(self, data: Any) -> None:
        """Say what an opened bundle's run was (status, model, rounds, tokens, when, why it
        ended) and list its round records as the bundle stores them (``verdicts.json``
        rounds: version, tokens, verdicts, reopened comments). Nothing is scored here."""
        m = data.manifest if isinstance(data.manifest, dict) else {}
        self.events = []
        self._names = comment_names([str(c.get("id")) for c in data.comments_before])
        self.round_metrics = list(data.round_metrics)
        self.bundle_path = str(data.path)
        self._doc_title = data.title
        self.log.clear()
        status = str(m.get("status") or "unknown")
        scripted = " (scripted)" if m.get("scripted") else ""
        external = vocab.is_external(m)
        # a revision made elsewhere: checked here, never "Run of the open bundle: completed"
        head = (
            f"{vocab.EXTERNAL_STATUS_WORDS}: no run took place in this program"
            if external and status == "completed"
            else f"Run of the open bundle: {status}"
        )
        self.title.setText(f"<h2>{html.escape(head)}{scripted}</h2>")
        bits = []
        if m.get("model"):
            bits.append(f"Model <b>{html.escape(str(m['model']))}</b>")
        if external:  # no round of this program's ran: said with its cause, not "1 round"
            bits.append(html.escape("Rounds run: " + vocab.EXTERNAL_FACT_WORDS["rounds"]))
        elif m.get("rounds") is not None:
            bits.append(
                html.escape(vocab.plural(m["rounds"], "round") + " run")
                if isinstance(m["rounds"], int)
                else f"{html.escape(str(m['rounds']))} rounds run"
            )
        when = str(m.get("finished_at") or m.get("created_at") or "")
        if when:
            ended = "checked" if external else "ended"
            bits.append(f"{ended} {html.escape(vocab.when_words(when))}")
        trace = (
            "<br>This is the bundle's record; its <b>trace.json</b> holds no model call "
            f"({html.escape(vocab.EXTERNAL_AGENT)})."
            if external
            else "<br>This is the bundle's record; the full trace of every model call "
            "(requests, answers, tool calls) is in the bundle's <b>trace.json</b> "
            "(<b>Show the model-call trace</b>)."
        )
        self.hint.setText(
            f"<b>{html.escape(data.title)}</b><br>"
            + " \u00b7 ".join(bits + _agent_mode_bit(m))
            + trace
        )
        self.trace_btn.setVisible(True)
        reason = vocab.plain_reason(str(m.get("reason") or "")).rstrip(". ")
        self.round_label.setText(f"How it ended: {reason}." if reason else "")
        self.round_label.setStyleSheet(FAILED_STYLE if status == "failed" else "")
        self._show_idle(m.get("tokens"), external)
        if never := vocab.never_reached_of(getattr(data, "metrics", None)):  # not "0 tokens"
            self.tokens_label.setText(f"Tokens used: N/A \u2014 {never}")
        from engine.bundle.typed_tokens import typed_tokens_words

        typed = typed_tokens_words(m, getattr(data, "metrics", None))
        if typed:  # said as typed, never as measured
            self.tokens_label.setText(self.tokens_label.text() + f"; you typed: {typed}")
        for kind, line in round_lines(data.verdict_rounds, external, self._names):
            self._add(kind, line)
        ended = "checked here, no run" if external and status == "completed" else status
        self._add("step", f"Final: {ended}{scripted}" + (f" \u2014 {reason}." if reason else "."))
        self.log.scrollToTop()

    def _show_idle(self, tokens: Any, external: bool = False) -> None:
        """No run live: no bar, no Cancel, the bundle's tokens (N/A: a revision made elsewhere)."""
        self.round_bar.setVisible(False)
        self.busy.setVisible(False)
        self.cancel_btn.setEnabled(False)
        self.new_btn.setEnabled(True)
        self.tokens_label.setText(
            f"Tokens used: {tokens:,}"
            if isinstance(tokens, int)
            else f"Tokens used: {EXTERNAL_FACT_WORDS['tokens']}"
            if external
            else "Tokens used: not reported"
        )
        self.elapsed_label.setText("")
        self.counts_label.setText("")
        self._t0 = 0.0
