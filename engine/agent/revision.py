"""The revision agent: conversation, nudge and report over the model client and the tools.

- ``RevisionAgent.work_round``: one round of tool use, with the narration-stall nudge
  (``tool_choice="required"``, at most ``max_nudges`` times a round), bounded by
  ``max_turns_per_round`` model turns.
- ``RevisionAgent.report``: the structured report, a separate call with
  ``response_format={"type": "json_object"}``; ``parse_report`` validates it and returns
  ``ClaimReport.unusable(reason)`` for anything invalid. Never trusted, never a crash.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from engine.agent.client import AgentError, ModelClient
from engine.agent.tools import TOOLS, ToolOutcome, WorkspaceTools
from engine.comments_io import parse_claim_report
from engine.models import ClaimReport, Comment

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
you pulled (HTML stays HTML with the same markup, plain text stays plain text) and \
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

REPORT_SYSTEM_PROMPT = """\
You report on a revision you made to a document under review. Answer with one JSON object \
and nothing else, in exactly this shape:
{"comments": [{"comment_id": "<id>", "claim": "addressed" | "not_addressed" | "stale_anchor", \
"change_summary": "<what you changed, or empty>", "rationale": "<why>"}], "notes": "<anything else>"}
Use "addressed" for a comment whose passage you changed to address it, "not_addressed" for one \
you left unchanged, and "stale_anchor" for one whose quoted text was not in the document you \
were given. Give exactly one entry for each comment id listed, and no other ids."""

TRACE_TOOL_CHARS = 1000


def _short_keep(text: str) -> str:
    """Tool arguments/results in ``tool_call`` trace entries: the first TRACE_TOOL_CHARS
    characters (the full text is in the next ``model_call``'s ``new_messages``, or in an
    ``unsent_messages`` entry when the round ended first)."""
    if len(text) <= TRACE_TOOL_CHARS:
        return text
    return text[:TRACE_TOOL_CHARS] + f"… [{len(text)} characters in all]"


# -- report ----------------------------------------------------------------------------------


def parse_report(text: str | None, known_ids: list[str]) -> ClaimReport:
    """Validate the report JSON. Any problem -> ``ClaimReport.unusable(reason)``.

    Accepted: an object with a ``comments`` list of ``{comment_id, claim, change_summary?,
    rationale?}`` with ``claim`` in ``addressed | not_addressed | stale_anchor``, each id
    among ``known_ids`` and listed once, and an optional string ``notes``.
    """
    if text is None or not text.strip():
        return ClaimReport.unusable("the report was empty")
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`")
        body = body[4:] if body.lower().startswith("json") else body
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as exc:
        what = exc.msg[0].lower() + exc.msg[1:]
        what = what[:-3] if what.endswith(" at") else what
        return ClaimReport.unusable(
            f"the report is not valid JSON: {what} at character {exc.pos} of {len(body)}"
        )
    except RecursionError:
        return ClaimReport.unusable("the report is JSON nested too deeply to be a report")
    report = parse_claim_report(obj)
    if not report.usable:
        return report
    known = set(known_ids)
    unknown = [c.comment_id for c in report.comments if c.comment_id not in known]
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:10]) + (" ..." if len(unknown) > 10 else "")
        return ClaimReport.unusable(f"the report names comment ids that do not exist: {shown}")
    return report


def report_token_cap(n_comments: int) -> int:
    """Completion-token cap of the report call: 400 + 250 per comment, at most 32,000. A
    report cut off by the cap is invalid JSON and so unusable, never trusted."""
    return min(400 + 250 * n_comments, 32_000)


# -- the agent -------------------------------------------------------------------------------


@dataclass
class RoundWork:
    """What one round of tool use did."""

    turns: int = 0
    nudges: int = 0
    pushed: list[Any] = field(default_factory=list)
    resolved: list[str] = field(default_factory=list)
    replied: list[str] = field(default_factory=list)
    final_text: str = ""
    stopped: str = ""  # why the round's loop ended, in words


class RevisionAgent:
    """Drives the model through one round of tool use, then asks for its report.

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
        check_cancel: Callable[[], None] | None = None,
        system_prompt: str = SYSTEM_PROMPT,
    ):
        self.client = client
        self.tools = tools
        self.config = client.config
        self.emit_tool = emit_tool or (lambda r, o: None)
        self.emit_nudge = emit_nudge or (lambda r, n, t: None)
        self.check_cancel = check_cancel or (lambda: None)
        self.system_prompt = system_prompt
        self.push_summaries: list[tuple[int, str, str]] = []  # (round, version id, summary)

    async def work_round(self, round_no: int, brief: str) -> RoundWork:
        """One round: the model calls tools until it ends its turn (after pushing, or after
        ``max_nudges`` nudges) or ``max_turns_per_round`` turns are spent."""
        cfg = self.config
        work = RoundWork()
        conv = f"work-{round_no}"
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.system_prompt},
            {"role": "user", "content": brief},
        ]
        force = False
        pushed_before = len(self.tools.pushed)
        seen_reads: dict[tuple[str, str], str] = {}
        while work.turns < cfg.max_turns_per_round:
            self.check_cancel()
            try:
                res = await self.client.chat(
                    messages,
                    purpose="nudge" if force else "work",
                    round_no=round_no,
                    conversation=conv,
                    tools=TOOLS,
                    tool_choice="required" if force else "auto",
                    max_tokens=cfg.max_output_tokens,
                )
            except AgentError as exc:
                # Some servers refuse tool_choice="required" (400): nudge with "auto".
                if not (force and exc.kind == "protocol" and exc.status in (400, 422)):
                    raise
                self.client.trace.add(
                    "note",
                    round=round_no,
                    text="the endpoint refused tool_choice=required; the nudge is sent with auto",
                    error=str(exc),
                )
                res = await self.client.chat(
                    messages,
                    purpose="nudge",
                    round_no=round_no,
                    conversation=conv,
                    tools=TOOLS,
                    tool_choice="auto",
                    max_tokens=cfg.max_output_tokens,
                )
            work.turns += 1
            force = False
            msg = res.message
            messages.append(msg)
            calls = msg.get("tool_calls") or []
            if calls:
                echoed: list[str] = []
                for call in calls:
                    self.check_cancel()
                    fn = call["function"]
                    t0 = time.monotonic()
                    outcome = self.tools.dispatch(fn["name"], fn["arguments"])
                    if outcome.ok and outcome.name in ("list_comments", "pull_document"):
                        # A read repeated with nothing changed in between: small models
                        # loop on these. Say so and name the next step instead.
                        key = (outcome.name, json.dumps(outcome.arguments, sort_keys=True))
                        if seen_reads.get(key) == outcome.result:
                            outcome.result = REPEAT_HINT.format(name=outcome.name)
                        else:
                            seen_reads[key] = outcome.result
                    self.client.trace.add(
                        "tool_call",
                        round=round_no,
                        call_id=call["id"],
                        name=fn["name"],
                        arguments=_short_keep(fn["arguments"]),
                        ok=outcome.ok,
                        result=_short_keep(outcome.result),
                        duration_s=round(time.monotonic() - t0, 4),
                    )
                    if outcome.name == "push_version" and outcome.ok:
                        row = self.tools.pushed[-1]
                        outcome.pushed = row
                        self.push_summaries.append((round_no, row.version_id, row.summary))
                    messages.append(
                        {"role": "tool", "tool_call_id": call["id"], "content": outcome.result}
                    )
                    echoed.append(f"Result of {fn['name']}:\n{outcome.result}")
                    self.emit_tool(round_no, outcome)
                if cfg.echo_tool_results:
                    messages.append({"role": "user", "content": "\n\n".join(echoed)})
                continue
            text = msg.get("content") or ""
            work.final_text = text
            if len(self.tools.pushed) == pushed_before and work.nudges < cfg.max_nudges:
                work.nudges += 1
                self.emit_nudge(round_no, work.nudges, text)
                messages.append({"role": "user", "content": NUDGE_PROMPT})
                force = True
                continue
            work.stopped = (
                "the model ended its turn"
                if len(self.tools.pushed) > pushed_before
                else f"the model ended its turn without pushing after {work.nudges} nudge(s)"
            )
            break
        else:
            work.stopped = f"the turn limit of {cfg.max_turns_per_round} was reached"
        work.pushed = self.tools.pushed[pushed_before:]
        unsent = self.client.unsent(conv, messages)
        if unsent:
            self.client.trace.add(
                "unsent_messages", round=round_no, conversation=conv, messages=unsent
            )
        return work

    async def report(self, round_no: int, comments: list[Comment]) -> tuple[ClaimReport, str]:
        """Ask for the structured report on ``comments``. Returns (report, raw text).

        Never raises for a bad report (it becomes ``ClaimReport.unusable``); raises
        AgentError/RunCancelled for a failed call like any other call.
        """
        self.check_cancel()
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
        messages = [
            {"role": "system", "content": REPORT_SYSTEM_PROMPT},
            {"role": "user", "content": "\n".join(lines)},
        ]
        res = await self.client.chat(
            messages,
            purpose="report",
            round_no=round_no,
            conversation=f"report-{round_no}",
            response_format={"type": "json_object"},
            max_tokens=report_token_cap(len(ids)),
        )
        raw = res.message.get("content") or ""
        report = parse_report(raw, ids)
        if not report.usable and res.finish_reason == "length":
            report = ClaimReport.unusable(
                f"the report was cut off at its limit of {report_token_cap(len(ids))} tokens "
                f"({report.problem})"
            )
        return report, raw


AsyncFn = Callable[..., Awaitable[Any]]
