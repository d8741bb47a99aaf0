"""The round skeleton both agent modes share.

A round of agent work is the same loop in every mode: check for cancellation, send one
model call, count the turn, let the mode act on the answer, until the mode says the
round is over or ``turn_limit()`` turns are spent; then the round's pushes are collected
and the mode closes the round. The token budget is the model client's
(``ModelClient.chat`` raises ``TokenBudgetExceeded``). ``RoundAgent`` is that loop; a
mode is a subclass that fills in the strategy hooks:

- ``open_round(round_no, brief) -> state``: the round's conversation (``OpenRound``);
- ``turn_limit()``: how many model turns a round may take;
- ``take_turn(state) -> CallResult``: one model call (the tools mode adds its
  ``tool_choice`` fallback here);
- ``after_turn(state, result, work) -> bool``: act on the answer; True ends the round;
- ``close_round(state, work)``: the round's last trace entries.

A model call that fails once the agent has pushed in the run ends the round instead of
the run (``RoundWork.interrupted``): a server's failure after the work never throws the
work away; the run scores it and stops.

The modes: ``revision.RevisionAgent`` (tools: many turns, the model calls the tools) and
``notools.NoToolsAgent`` (one plain request, the program does the tool work). Both record
every tool run the same way (``record_tool``): a ``tool_call`` trace entry, the push
summary, the run's event.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from engine.agent.client import CallResult, ModelClient
from engine.agent.config import AgentError, TokenBudgetExceeded
from engine.agent.repeats import RepeatWatch, repeat_words
from engine.agent.tools import ToolOutcome, WorkspaceTools

TRACE_TOOL_CHARS = 1000


def short_keep(text: str) -> str:
    """Tool arguments/results in ``tool_call`` trace entries: the first TRACE_TOOL_CHARS
    characters (the full text is in the next ``model_call``'s ``new_messages``, or in an
    ``unsent_messages`` entry when the round ended first)."""
    if len(text) <= TRACE_TOOL_CHARS:
        return text
    return text[:TRACE_TOOL_CHARS] + f"… [{len(text)} characters in all]"


@dataclass
class RoundWork:
    """What one round of agent work did."""

    turns: int = 0
    nudges: int = 0
    pushed: list[Any] = field(default_factory=list)
    resolved: list[str] = field(default_factory=list)
    replied: list[str] = field(default_factory=list)
    final_text: str = ""
    stopped: str = ""  # why the round's loop ended, in words
    interrupted: str = ""
    """Why the round ended early with the run's work kept: a model call failed after the
    agent had pushed ("" when it did not). The run then stops after scoring this round."""


@dataclass
class OpenRound:
    """A round in progress: its number, the trace's conversation name and the messages
    sent so far. A mode's own state subclasses it."""

    round_no: int
    conversation: str
    messages: list[dict[str, Any]]


S = TypeVar("S", bound=OpenRound)


class RoundAgent(Generic[S]):
    """The round loop (``work_round``) over the strategy hooks of a mode; see the module
    docstring. ``emit_tool(round, ToolOutcome)`` and ``emit_notice(round, topic, text)``
    let the run turn steps into events; ``check_cancel()`` raises RunCancelled between
    steps."""

    def __init__(
        self,
        client: ModelClient,
        tools: WorkspaceTools,
        *,
        emit_tool: Callable[[int, ToolOutcome], None] | None = None,
        emit_notice: Callable[[int, str, str], None] | None = None,
        check_cancel: Callable[[], None] | None = None,
        system_prompt: str,
    ):
        self.client = client
        self.tools = tools
        self.config = client.config
        self.emit_tool = emit_tool or (lambda r, o: None)
        self.emit_notice = emit_notice or (lambda r, topic, t: None)
        self.check_cancel = check_cancel or (lambda: None)
        self.system_prompt = system_prompt
        self.push_summaries: list[tuple[int, str, str]] = []  # (round, version id, summary)
        self.turns = 0
        """Model turns over the whole run."""
        self._noticed: set[str] = set()
        self._repeats = RepeatWatch()

    # -- the skeleton -------------------------------------------------------------------------

    async def work_round(self, round_no: int, brief: str) -> RoundWork:
        """One round: model turns until the mode ends the round or ``turn_limit()`` turns
        are spent. Raises what the model client raises (AgentError, TokenBudgetExceeded,
        RunCancelled) and what the mode's hooks raise."""
        self.check_cancel()
        work = RoundWork()
        pushed_before = len(self.tools.pushed)
        state = self.open_round(round_no, brief)
        limit = self.turn_limit()
        while work.turns < limit:
            self.check_cancel()
            try:
                res = await self.take_turn(state)
            except AgentError as exc:
                if not self._keeps_work(exc):
                    raise
                self._interrupt(state, work, exc)
                break
            work.turns += 1
            self.turns += 1
            if self.after_turn(state, res, work):
                break
        else:
            work.stopped = f"the turn limit of {limit} was reached"
        work.pushed = self.tools.pushed[pushed_before:]
        self.close_round(state, work)
        return work

    def _keeps_work(self, exc: AgentError) -> bool:
        """A failed model call ends the round, not the run, once the agent has pushed in
        this run: the work is done and is scored (the token limit and auto mode's switch
        keep their own paths)."""
        return (
            bool(self.tools.pushed)
            and not isinstance(exc, TokenBudgetExceeded)
            and (exc.kind != "tools")
        )

    def _interrupt(self, state: OpenRound, work: RoundWork, exc: AgentError) -> None:
        """End the round after a failed call, keeping the work: said in the trace and the
        run log (``emit_notice``, topic ``interrupted``)."""
        work.interrupted = f"a model call failed after the agent's push ({exc})"
        work.stopped = work.interrupted
        self.client.trace.add(
            "note",
            round=state.round_no,
            topic="interrupted",
            text=work.interrupted,
            error_kind=exc.kind,
        )
        self.emit_notice(
            state.round_no,
            "interrupted",
            f"The model call failed after the agent's push ({exc}); the run keeps the work "
            "and stops after scoring this round.",
        )

    # -- the strategy hooks -------------------------------------------------------------------

    def open_round(self, round_no: int, brief: str) -> S:
        raise NotImplementedError

    def turn_limit(self) -> int:
        raise NotImplementedError

    async def take_turn(self, state: S) -> CallResult:
        raise NotImplementedError

    def after_turn(self, state: S, res: CallResult, work: RoundWork) -> bool:
        raise NotImplementedError

    def close_round(self, state: S, work: RoundWork) -> None:
        raise NotImplementedError

    # -- shared by the modes ------------------------------------------------------------------

    def notice(self, round_no: int, topic: str, text: str, **data: Any) -> None:
        """Say ``text`` once per ``topic`` per run: a trace note and an ``emit_notice``."""
        if topic in self._noticed:
            return
        self._noticed.add(topic)
        self.client.trace.add("note", round=round_no, topic=topic, text=text, **data)
        self.emit_notice(round_no, topic, text)

    def record_tool(
        self,
        round_no: int,
        call_id: str,
        arguments: str,
        outcome: ToolOutcome,
        started: float,
        **extra: Any,
    ) -> None:
        """A tool run, recorded: the ``tool_call`` trace entry (``extra`` added to it, e.g.
        ``by="program"``), the push summary of a successful ``push_version`` (and the
        pushed row on ``outcome.pushed``), then the run's event. ``started``: the
        ``time.monotonic()`` before the tool ran."""
        self.client.trace.add(
            "tool_call",
            round=round_no,
            call_id=call_id,
            name=outcome.name,
            **extra,
            arguments=short_keep(arguments),
            ok=outcome.ok,
            result=short_keep(outcome.result),
            duration_s=round(time.monotonic() - started, 4),
        )
        if outcome.name == "push_version" and outcome.ok:
            row = self.tools.pushed[-1]
            outcome.pushed = row
            self.push_summaries.append((round_no, row.version_id, row.summary))
        self.emit_tool(round_no, outcome)
        times = self._repeats.see(outcome.name, arguments, outcome.ok)
        if times is not None:  # said once per repeated call: topic names the call
            self.notice(
                round_no,
                f"repeating:{outcome.name}:{short_keep(arguments)[:200]}",
                repeat_words(outcome.name, times),
                tool=outcome.name,
                times=times,
            )
