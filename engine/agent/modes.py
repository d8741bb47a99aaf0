"""The run's agent in its mode: ``tools``, ``no-tools`` or ``auto``.

``make_agent(client, tools, ...)`` returns a ``ModeAgent`` with the interface the run uses
(``work_round``, ``report``, ``push_summaries``) plus:

- ``mode_info()``: ``{"requested": "tools|no-tools|auto", "ran": "tools|no-tools",
  "reason": str}`` for the manifest and every view;
- ``findings()``: capability -> (PASS | FAIL | UNVERIFIED, detail) as observed in this run
  (the same names as ``arl doctor``'s probes, ``capabilities.CAPABILITIES``);
- ``finish()``: writes the findings and the mode into the trace and remembers them for
  the endpoint and model. The findings known before the run (from ``arl doctor`` or an
  earlier run) are written into the trace when the agent is made.

``auto`` starts with tools and switches to no-tools for the rest of the run when the first
request offering tools is refused (e.g. Ollama's 400 "does not support tools") or the
model called no tool in its first two turns (``revision.ToolsUnusable``).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.agent import capabilities
from engine.agent.client import ModelClient
from engine.agent.notools import NoToolsAgent
from engine.agent.revision import SYSTEM_PROMPT, RevisionAgent, ToolsUnusable
from engine.agent.rounds import RoundWork
from engine.agent.tools import ToolOutcome, WorkspaceTools
from engine.models import ClaimReport, Comment
from engine.vocabulary import plural

MODES = ("tools", "no-tools", "auto")

PASS, FAIL, UNVERIFIED = "PASS", "FAIL", "UNVERIFIED"


class ModeAgent:
    """One run's agent; see the module docstring."""

    def __init__(
        self,
        client: ModelClient,
        tools: WorkspaceTools,
        *,
        mode: str | None = None,
        emit_tool: Callable[[int, ToolOutcome], None] | None = None,
        emit_nudge: Callable[[int, int, str], None] | None = None,
        emit_notice: Callable[[int, str, str], None] | None = None,
        check_cancel: Callable[[], None] | None = None,
        system_prompt: str | None = None,
    ):
        mode = mode or client.config.mode
        if mode not in MODES:
            raise ValueError(f"unknown agent mode {mode!r}; use one of {', '.join(MODES)}")
        self.client = client
        self.tools = tools
        self.requested = mode
        self.emit_notice = emit_notice or (lambda r, topic, t: None)
        self.tools_agent: RevisionAgent | None = None
        self.no_tools_agent: NoToolsAgent | None = None
        if mode != "no-tools":
            self.tools_agent = RevisionAgent(
                client,
                tools,
                emit_tool=emit_tool,
                emit_nudge=emit_nudge,
                emit_notice=emit_notice,
                check_cancel=check_cancel,
                system_prompt=system_prompt or client.config.system_prompt or SYSTEM_PROMPT,
                switch_when_no_tools=mode == "auto",
            )
        if mode != "tools":
            self.no_tools_agent = NoToolsAgent(
                client,
                tools,
                emit_tool=emit_tool,
                emit_notice=emit_notice,
                check_cancel=check_cancel,
            )
        self.ran = "no-tools" if mode == "no-tools" else "tools"
        self.reason = {
            "tools": "tools mode was asked for",
            "no-tools": "no-tools mode was asked for: the program did the tool work",
            "auto": "auto mode: the model called tools",
        }[mode]
        self.switch_reason = ""
        self._mode_said = False
        cfg = client.config
        known = capabilities.recall(cfg.base_url, cfg.model)
        client.trace.add(
            "note",
            text="agent mode and known capabilities",
            mode_requested=mode,
            capabilities_known=known.get("findings", {}),
            report_format_known=known.get("report_format"),
        )

    @property
    def push_summaries(self) -> list[tuple[int, str, str]]:
        out: list[tuple[int, str, str]] = []
        for a in (self.tools_agent, self.no_tools_agent):
            if a is not None:
                out += a.push_summaries
        return sorted(out, key=lambda t: (t[0], t[1]))

    def _say_mode(self, round_no: int) -> None:
        """The mode, once, at the start of the first round (the run log says which ran)."""
        if self._mode_said:
            return
        self._mode_said = True
        text = {
            "tools": "Agent mode: tools (the model calls the five tools).",
            "no-tools": "Agent mode: no-tools (one plain request per round; the program "
            "pushes, resolves and replies on the model's behalf).",
            "auto": "Agent mode: auto (tools; switches to no-tools if the server refuses "
            "tools or the model calls none in its first two turns).",
        }[self.requested]
        self.client.trace.add("note", round=round_no, topic="mode", text=text)
        self.emit_notice(round_no, "mode", text)

    async def work_round(self, round_no: int, brief: str) -> RoundWork:
        self._say_mode(round_no)
        if self.ran == "tools":
            assert self.tools_agent is not None
            try:
                return await self.tools_agent.work_round(round_no, brief)
            except ToolsUnusable as exc:
                self.ran = "no-tools"
                self.switch_reason = str(exc)
                self.reason = f"auto mode switched to no-tools: {exc}"
                self.tools_agent.notice(
                    round_no,
                    "mode-switch",
                    f"Switching to the no-tools mode for the rest of the run: {exc}. The "
                    "program sends the document and comments in one request per round and "
                    "does the tool work itself.",
                )
        assert self.no_tools_agent is not None
        return await self.no_tools_agent.work_round(round_no, brief)

    async def report(self, round_no: int, comments: list[Comment]) -> tuple[ClaimReport, str]:
        if self.ran == "tools":
            assert self.tools_agent is not None
            return await self.tools_agent.report(round_no, comments)
        assert self.no_tools_agent is not None
        return await self.no_tools_agent.report(round_no, comments)

    def mode_info(self) -> dict[str, str]:
        return {"requested": self.requested, "ran": self.ran, "reason": self.reason}

    def findings(self) -> dict[str, tuple[str, str]]:
        """What this run showed about each capability (see ``capabilities.CAPABILITIES``)."""
        c = self.client
        out: dict[str, tuple[str, str]] = {}
        t = self.tools_agent
        text_calls = sum(n for q, n in c.quirks_seen.items() if q.startswith("tool calls read"))
        if t is None or (t.turns == 0 and not self.switch_reason):
            out["tool calls"] = (UNVERIFIED, "no request offered tools in this run")
        elif t.turns_with_calls:
            detail = f"the model called tools in {t.turns_with_calls} of {plural(t.turns, 'turn')}"
            if text_calls:
                detail += (
                    f" ({plural(text_calls, 'answer')} wrote them as text; the program read them)"
                )
            out["tool calls"] = (PASS, detail)
        else:
            out["tool calls"] = (
                FAIL,
                self.switch_reason
                or f"the model called no tool in {plural(t.turns, 'turn')}; use --mode no-tools or auto",
            )
        if t is not None and t.required_refused:
            out["tool_choice required"] = (
                FAIL,
                f"refused ({t.required_refused}); nudges used tool_choice=auto",
            )
        elif t is not None and t.required_ok:
            out["tool_choice required"] = (PASS, "a nudge with tool_choice=required was answered")
        else:
            out["tool_choice required"] = (UNVERIFIED, "no nudge needed it in this run")
        for fmt in ("json_object", "json_schema"):
            if t is not None and fmt in t.format_results:
                out[fmt] = t.format_results[fmt]
            else:
                out[fmt] = (UNVERIFIED, "not asked for in this run")
        if c.reasoning_seen:
            out["reasoning output"] = (
                PASS,
                f"reasoning came with {plural(c.reasoning_seen, 'answer')}; stripped before reading, "
                "kept in the trace",
            )
        else:
            out["reasoning output"] = (PASS, "no reasoning mixed into the answers")
        u = c.usage
        if u.calls == 0:
            out["usage reported"] = (UNVERIFIED, "no model call")
        elif u.unreported:
            out["usage reported"] = (
                FAIL,
                f"{u.reason()}"
                + (f" ({c.usage_problems[0]})" if c.usage_problems else "")
                + "; cost per attributed fix is N/A",
            )
        else:
            out["usage reported"] = (PASS, f"usage came with all {plural(u.calls, 'call')}")
        if c.context_limit:
            out["context length"] = (PASS, f"{c.context_limit:,} tokens, as the server said")
        else:
            out["context length"] = (UNVERIFIED, "the server did not say it in this run")
        return out

    def finish(self) -> None:
        """Write the mode and the observed findings into the trace; remember them."""
        found = self.findings()
        cfg = self.client.config
        self.client.trace.add(
            "note",
            text="agent mode and capabilities observed",
            mode=self.mode_info(),
            capabilities={k: {"status": s, "detail": d} for k, (s, d) in found.items()},
            quirks_repaired=dict(self.client.quirks_seen),
        )
        capabilities.remember_findings(cfg.base_url, cfg.model, found, source="run")


def make_agent(
    client: ModelClient,
    tools: WorkspaceTools,
    *,
    mode: str | None = None,
    emit_tool: Callable[[int, ToolOutcome], None] | None = None,
    emit_nudge: Callable[[int, int, str], None] | None = None,
    emit_notice: Callable[[int, str, str], None] | None = None,
    check_cancel: Callable[[], None] | None = None,
    system_prompt: str | None = None,
) -> ModeAgent:
    """The run's agent for ``mode`` (default ``client.config.mode``). Raises ValueError
    for an unknown mode."""
    return ModeAgent(
        client,
        tools,
        mode=mode,
        emit_tool=emit_tool,
        emit_nudge=emit_nudge,
        emit_notice=emit_notice,
        check_cancel=check_cancel,
        system_prompt=system_prompt,
    )


__all__ = ["MODES", "ModeAgent", "make_agent"]
