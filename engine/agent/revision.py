"""The revision agent: conversation, nudge and report over the model client and the tools.

- ``RevisionAgent.work_round``: one round of tool use (the loop of ``rounds.RoundAgent``,
  with this mode's strategy), with the narration-stall nudge (``tool_choice="required"``,
  at most ``max_nudges`` times a round), bounded by ``max_turns_per_round`` model turns.
- ``RevisionAgent.report``: the structured report, a separate call (``json_object``, else
  ``json_schema``, else plain text); ``report.parse_report`` validates it. Never trusted,
  never a crash.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.agent import capabilities
from engine.agent.client import CallResult, ModelClient
from engine.agent.config import AgentError, TokenBudgetExceeded
from engine.agent.intake import kept_arguments
from engine.agent.report import (
    REPORT_SYSTEM_PROMPT,
    parse_report,
    report_token_cap,
    response_format,
)
from engine.agent.rounds import OpenRound, RoundAgent, RoundWork
from engine.agent.tools import TOOLS, ToolOutcome, WorkspaceTools
from engine.models import ClaimReport, Comment
from engine.vocabulary import plural

SYSTEM_PROMPT = """\
You are a revision agent. Human reviewers selected exact passages of a document and left \
review comments anchored to them. Revise the document so that each open comment is \
addressed, using only your tools.

Rules:
1. Change only text that a comment points at: its quoted passage, and at most the rest of \
the same sentence when the fix needs it. Do not touch, reformat, reflow, re-indent or \
"improve" any text that no comment points at. Every character you change outside a \
commented passage is measured and reported as collateral change.
2. Call list_comments to read the open comments and pull_document to get the latest version \
and its version_id. Call push_version with the complete revised document in the same format \
you pulled (HTML stays HTML with the same markup, Markdown stays Markdown, plain text stays \
plain text) and \
base_version_id set to the version_id you pulled.
3. The push_version summary has exactly one line per comment you addressed, in the form \
"<comment id>: <what changed>".
4. Every comment needs a visible disposition. Call resolve_comment for a comment once your \
pushed text addresses it. If you do not change its text (you disagree, you lack the \
information, or its quoted text no longer exists), call reply_comment on it with the reason \
and leave it open.
5. Never resolve a comment whose passage you did not change: every resolution is checked \
against the text and reopened if the anchored text is unchanged.
6. Do not add scripts, remote resources, or markup the document did not have.
When every comment has its disposition, answer with one short sentence and no tool call."""

NUDGE_PROMPT = """\
You answered without calling a tool, and no revision has been pushed yet. Do not describe \
the work: do it now with your tools. Call pull_document if you have not, then push_version \
with the complete revised document and a summary line per comment, then resolve_comment or \
reply_comment for each comment."""

REPEAT_HINT = (
    "ok: nothing changed since your last {name} call; its answer is above. Next step: call "
    "push_version with the complete revised document, then resolve_comment or reply_comment "
    "for each comment."
)


@dataclass
class ToolRound(OpenRound):
    """A tools-mode round in progress: the next turn forces a tool call (``force``, after
    a nudge); the reads already answered (``seen_reads``: (tool, arguments) -> result)."""

    force: bool = False
    pushed_before: int = 0
    seen_reads: dict[tuple[str, str], str] = field(default_factory=dict)


class RevisionAgent(RoundAgent[ToolRound]):
    """The tools mode: drives the model through one round of tool use, then asks for its
    report. The round loop is ``rounds.RoundAgent``'s; this class is its strategy.

    ``emit_tool(ToolOutcome)`` and ``emit_nudge(nudge, narration)`` let the run turn steps
    into events; ``check_cancel()`` raises RunCancelled between steps.
    """

    def __init__(
        self,
        client: ModelClient,
        tools: WorkspaceTools,
        *,
        emit_tool: Callable[[int, ToolOutcome], None] | None = None,
        emit_nudge: Callable[[int, int, str], None] | None = None,
        emit_notice: Callable[[int, str, str], None] | None = None,
        check_cancel: Callable[[], None] | None = None,
        system_prompt: str = SYSTEM_PROMPT,
        switch_when_no_tools: bool = False,
    ):
        super().__init__(
            client,
            tools,
            emit_tool=emit_tool,
            emit_notice=emit_notice,
            check_cancel=check_cancel,
            system_prompt=system_prompt,
        )
        self.emit_nudge = emit_nudge or (lambda r, n, t: None)
        self.switch_when_no_tools = switch_when_no_tools
        self.required_refused = ""
        """Why ``tool_choice="required"`` is no longer sent ("" while it is)."""
        self.required_ok = False
        self.report_format_used: str | None = None
        self.format_results: dict[str, tuple[str, str]] = {}
        """``json_object``/``json_schema`` -> (PASS | FAIL, detail) as seen in this run."""
        self.turns_with_calls = 0

    async def _work_call(
        self, messages: list[dict[str, Any]], round_no: int, conv: str, force: bool
    ) -> CallResult:
        """One work turn. With ``force``, asks for a tool call (``tool_choice="required"``)
        unless the endpoint refused that before; a refusal (HTTP 400, 422 or 5xx) turns it
        off for the rest of the run and the turn is sent again with ``auto``."""
        cfg = self.config
        required = force and not self.required_refused
        first_in_auto = self.switch_when_no_tools and self.turns == 0
        try:
            res = await self.client.chat(
                messages,
                purpose="nudge" if force else "work",
                round_no=round_no,
                conversation=conv,
                tools=TOOLS,
                tool_choice="required" if required else "auto",
                max_tokens=cfg.max_output_tokens,
                retry_server_errors=not (required or first_in_auto),
            )
            self.required_ok = self.required_ok or required
            return res
        except AgentError as exc:
            status = exc.status or 0
            refused = exc.kind == "protocol" and (status in (400, 422) or status >= 500)
            if first_in_auto and refused:
                raise ToolsUnusable(
                    f"the endpoint refused a request offering tools ({exc})", exc.status
                ) from None
            if not (required and refused):
                raise
            why = str(exc)
        self.required_refused = why
        self.notice(
            round_no,
            "tool_choice",
            f"The endpoint refused tool_choice=required ({why}); nudges use tool_choice=auto "
            "for the rest of the run.",
        )
        return await self.client.chat(
            messages,
            purpose="nudge",
            round_no=round_no,
            conversation=conv,
            tools=TOOLS,
            tool_choice="auto",
            max_tokens=cfg.max_output_tokens,
        )

    # -- the round's strategy (rounds.RoundAgent) -------------------------------------------

    def open_round(self, round_no: int, brief: str) -> ToolRound:
        """The round's conversation: the system prompt and the brief."""
        self.client.document_chars = self.tools.document_chars()
        return ToolRound(
            round_no,
            f"work-{round_no}",
            [
                {"role": "system", "content": self.system_prompt},
                {"role": "user", "content": brief},
            ],
            pushed_before=len(self.tools.pushed),
        )

    def turn_limit(self) -> int:
        return self.config.max_turns_per_round

    async def take_turn(self, state: ToolRound) -> CallResult:
        """One work turn (a nudge's turn forces a tool call); the answer joins the
        conversation."""
        force, state.force = state.force, False
        res = await self._work_call(state.messages, state.round_no, state.conversation, force)
        state.messages.append(res.message)
        return res

    def after_turn(self, state: ToolRound, res: CallResult, work: RoundWork) -> bool:
        """Tool calls: run them, the round goes on. Text: a nudge, or the round ends.

        With ``switch_when_no_tools`` (auto mode), raises ``ToolsUnusable`` when the model
        called no tool in its first two turns of the run."""
        if res.message.get("tool_calls"):
            self.turns_with_calls += 1
            self._run_calls(state, res)
            return False
        return self._after_text(state, res, work)

    def close_round(self, state: ToolRound, work: RoundWork) -> None:
        """Messages appended after the round's last call go into the trace."""
        unsent = self.client.unsent(state.conversation, state.messages)
        if unsent:
            self.client.trace.add(
                "unsent_messages",
                round=state.round_no,
                conversation=state.conversation,
                messages=unsent,
            )

    # -- one answer ---------------------------------------------------------------------------

    def _run_calls(self, state: ToolRound, res: CallResult) -> None:
        """Run the answer's tool calls in order; each result answers its call id (and,
        with ``echo_tool_results``, all of them again as one user message)."""
        echoed: list[str] = []
        for call in res.message["tool_calls"]:
            self.check_cancel()
            fn = call["function"]
            t0 = time.monotonic()
            outcome = self.tools.dispatch(fn["name"], fn["arguments"])
            if (
                not outcome.ok
                and res.finish_reason == "length"
                and "not valid JSON" in outcome.result
            ):
                outcome.result += (
                    " (your answer was cut off at its token limit: send a shorter call)"
                )
            if outcome.oversized and isinstance(fn.get("arguments"), str):
                # the trace's response holds this same message: both keep only the start
                fn["arguments"] = kept_arguments(fn["arguments"])
            self._hint_repeated_read(state, outcome)
            self.record_tool(state.round_no, call["id"], fn["arguments"], outcome, t0)
            state.messages.append(
                {"role": "tool", "tool_call_id": call["id"], "content": outcome.result}
            )
            echoed.append(f"Result of {fn['name']}:\n{outcome.result}")
        if self.config.echo_tool_results:
            state.messages.append({"role": "user", "content": "\n\n".join(echoed)})

    @staticmethod
    def _hint_repeated_read(state: ToolRound, outcome: ToolOutcome) -> None:
        """A read repeated with nothing changed in between (small models loop on these):
        its result becomes ``REPEAT_HINT``, which names the next step."""
        if not (outcome.ok and outcome.name in ("list_comments", "pull_document")):
            return
        key = (outcome.name, json.dumps(outcome.arguments, sort_keys=True))
        if state.seen_reads.get(key) == outcome.result:
            outcome.result = REPEAT_HINT.format(name=outcome.name)
        else:
            state.seen_reads[key] = outcome.result

    def _after_text(self, state: ToolRound, res: CallResult, work: RoundWork) -> bool:
        """An answer with no tool call: nudge (at most ``max_nudges`` a round, while
        nothing was pushed this round) or end the round."""
        text = res.message.get("content") or ""
        work.final_text = text
        if self.switch_when_no_tools and self.turns_with_calls == 0 and self.turns >= 2:
            raise ToolsUnusable(f"the model called no tool in its first {self.turns} turns", None)
        pushed = len(self.tools.pushed) > state.pushed_before
        if not pushed and work.nudges < self.config.max_nudges:
            work.nudges += 1
            self.emit_nudge(state.round_no, work.nudges, text)
            state.messages.append({"role": "user", "content": NUDGE_PROMPT})
            state.force = True
            return False
        work.stopped = (
            "the model ended its turn"
            if pushed
            else f"the model ended its turn without pushing after {plural(work.nudges, 'nudge')}"
        )
        return True

    # -- the report ---------------------------------------------------------------------------

    def _report_request(self, comments: list[Comment]) -> list[dict[str, Any]]:
        ids = [c.id for c in comments]
        lines = ["Comments (id, reviewer's comment, quoted passage):"]
        for c in comments:
            lines.append(
                json.dumps(
                    {"comment_id": c.id, "comment": c.body, "quote": c.anchor.quote},
                    ensure_ascii=False,
                )
            )
        lines.append("")
        if self.push_summaries:
            lines.append("Your push summaries:")
            for r, vid, summary in self.push_summaries:
                lines.append(f"- round {r}, version {vid}:\n{summary}")
        else:
            lines.append("You pushed no revision.")
        resolved = [cid for cid in ids if cid in self.tools.resolved]
        replied = [cid for cid in ids if cid in self.tools.replied]
        lines.append(f"You resolved: {', '.join(resolved) or 'none'}.")
        lines.append(f"You replied to: {', '.join(replied) or 'none'}.")
        lines.append("")
        lines.append("Report on every comment id above, as the JSON object described.")
        return [
            {"role": "system", "content": REPORT_SYSTEM_PROMPT},
            {"role": "user", "content": "\n".join(lines)},
        ]

    async def report(self, round_no: int, comments: list[Comment]) -> tuple[ClaimReport, str]:
        """Ask for the structured report on ``comments``. Returns (report, raw text).

        The ``response_format`` ladder: ``json_object``, then (refused with HTTP 400, 415,
        422 or 5xx) ``json_schema`` with the report's schema, then plain text with the
        JSON asked for in the prompt; the one that got through is remembered for the
        endpoint and model (``engine.agent.capabilities``) and tried first next time.

        Never raises for a bad report or a failed report call: both become
        ``ClaimReport.unusable(reason)`` (the verdicts come from the text; claim accuracy
        is then N/A with the reason). Raises only TokenBudgetExceeded and RunCancelled.
        """
        self.check_cancel()
        ids = [c.id for c in comments]
        messages = self._report_request(comments)
        base, model = self.config.base_url, self.config.model
        first = self.report_format_used or capabilities.report_format(base, model)
        ladder = list(capabilities.REPORT_FORMATS)
        if first in ladder:
            ladder = ladder[ladder.index(first) :]
        res = None
        for i, fmt in enumerate(ladder):
            last = i == len(ladder) - 1
            try:
                res = await self.client.chat(
                    messages,
                    purpose="report",
                    round_no=round_no,
                    conversation=f"report-{round_no}-{fmt}",
                    response_format=response_format(fmt, ids),
                    max_tokens=report_token_cap(len(ids)),
                    retry_server_errors=last,
                )
            except TokenBudgetExceeded:
                raise
            except AgentError as exc:
                status = exc.status or 0
                refused = exc.kind == "protocol" and (status in (400, 415, 422) or status >= 500)
                if refused and fmt != "text":
                    self.format_results[fmt] = (
                        "FAIL",
                        f"refused ({exc}); the report used a fallback",
                    )
                if refused and not last:
                    self.notice(
                        round_no,
                        f"report_format:{fmt}",
                        f"The endpoint refused response_format {fmt} for the report ({exc}); "
                        f"trying {ladder[i + 1]}.",
                    )
                    continue
                self.client.trace.add(
                    "note", round=round_no, text="the report call failed", error=str(exc)
                )
                return ClaimReport.unusable(f"the report call failed: {exc}"), ""
            if fmt != "text":
                self.format_results[fmt] = ("PASS", "the report call was answered with it")
            if fmt != self.report_format_used:
                self.report_format_used = fmt
                capabilities.remember_report_format(base, model, fmt)
            break
        assert res is not None
        raw = res.message.get("content") or ""
        report = parse_report(raw, ids)
        if not report.usable and res.finish_reason == "length":
            report = ClaimReport.unusable(
                f"the report was cut off at its limit of {report_token_cap(len(ids))} tokens "
                f"({report.problem})"
            )
        return report, raw


class ToolsUnusable(AgentError):
    """Auto mode: tools cannot be used with this endpoint and model (the server refused
    them, or the model called none in its first two turns). The caller switches to the
    no-tools mode; ``str()`` says why."""

    def __init__(self, message: str, status: int | None):
        super().__init__("tools", message, status)
