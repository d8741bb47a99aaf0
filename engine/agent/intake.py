"""Caps on what the model under test can put into a run: every tool argument and the report.

The model decides how much it writes; the run decides how much it keeps. Whatever passes
these caps fits the evidence bundle (``engine.caps``' limits), so an agent that
rambles in one field cannot stop the run's bundle from being written. A value over a cap is
refused at intake, to the model, with the limit named (the sentence is the tool's result or
the report's ``problem``); nothing over a cap is stored in the workspace or the bundle.

- ``MAX_ARG_CHARS``: characters of any one string in a tool call's arguments (a reply's
  body, a resolve note, a push summary, a comment id, a key the model invented), except
  ``push_version``'s ``content``, which has its own limits (``tools.MAX_PUSH_CHARS`` and the
  bundle's per-version limits, ``engine.caps.push_refusal``).
- ``MAX_ARGS_CHARS``: characters of all of a call's strings together, ``content`` aside.
- ``MAX_TOOL_NAME_CHARS``: characters of a tool name as repeated in an error.
- ``MAX_REPORT_CHARS``: characters of the report's raw text (the tools mode's report
  answer; the no-tools mode's disposition lines) and of its fields together.
"""

from __future__ import annotations

from typing import Any

from engine.models import ClaimReport

MAX_ARG_CHARS = 100_000
MAX_ARGS_CHARS = 400_000
MAX_TOOL_NAME_CHARS = 100
MAX_REPORT_CHARS = 400_000
#: Characters of an over-limit report's raw text kept for the bundle (the start, said so).
KEPT_REPORT_CHARS = 2_000


def _strings(value: Any, path: str) -> list[tuple[str, str]]:
    """(path, string) for every string inside a JSON value, keys included (a key is
    listed under its own path, as ``<path> (a key)``)."""
    if isinstance(value, str):
        return [(path, value)]
    out: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            key = str(k)
            where = f"{path}.{key[:40]}" if path else key[:40]
            out.append((f"{where} (a key)", key))
            out.extend(_strings(v, where))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_strings(v, f"{path}[{i}]"))
    return out


def argument_refusal(name: str, args: dict[str, Any]) -> str | None:
    """Why the arguments of tool ``name`` are refused at intake, or None when they fit.

    Every string but ``push_version``'s ``content`` is at most ``MAX_ARG_CHARS``
    characters (code points), all of them together at most ``MAX_ARGS_CHARS``. The
    sentence starts "error:" and names the parameter, its size and the limit."""
    total = 0
    for path, s in _strings(args, ""):
        if name == "push_version" and path == "content":
            continue
        if len(s) > MAX_ARG_CHARS:
            return (
                f"error: {path} is {len(s):,} characters, over the limit of {MAX_ARG_CHARS:,} "
                f"characters for one argument of {name}; send a shorter {path}"
            )
        total += len(s)
    if total > MAX_ARGS_CHARS:
        return (
            f"error: the arguments of {name} hold {total:,} characters of text, over the "
            f"limit of {MAX_ARGS_CHARS:,}; send shorter arguments"
        )
    return None


#: Characters of a refused call's arguments kept in the conversation and the trace.
KEPT_ARGUMENT_CHARS = 2_000


def kept_arguments(raw: str) -> str:
    """What stays of the arguments of a call refused for its size: the first
    ``KEPT_ARGUMENT_CHARS`` characters, then their length and SHA-256 (of the UTF-8
    bytes), so the conversation sent back and the trace do not carry the whole text."""
    import hashlib

    if len(raw) <= KEPT_ARGUMENT_CHARS:
        return raw
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()
    return (
        raw[:KEPT_ARGUMENT_CHARS]
        + f"... [refused at intake: {len(raw):,} characters in all, SHA-256 {digest}]"
    )


def shown_name(name: str) -> str:
    """A tool name as an error repeats it: at most ``MAX_TOOL_NAME_CHARS`` characters."""
    if len(name) <= MAX_TOOL_NAME_CHARS:
        return name
    return name[:MAX_TOOL_NAME_CHARS] + f"... ({len(name):,} characters)"


def report_refusal(raw: str) -> str | None:
    """Why a report's raw text is refused at intake (over ``MAX_REPORT_CHARS``), or None."""
    if len(raw) > MAX_REPORT_CHARS:
        return (
            f"the report is {len(raw):,} characters, over the limit of "
            f"{MAX_REPORT_CHARS:,} characters for a report"
        )
    return None


def admit_report(report: ClaimReport, raw: str) -> tuple[ClaimReport, str]:
    """The report and raw text the run keeps: as given when both fit ``MAX_REPORT_CHARS``;
    else ``ClaimReport.unusable`` naming the size and the limit, and the raw text cut to
    its first ``KEPT_REPORT_CHARS`` characters (said so). Claim accuracy is then N/A with
    that reason; the verdicts come from the text, as always."""
    fields = len(report.notes) + sum(
        len(c.comment_id) + len(c.change_summary) + len(c.rationale) for c in report.comments
    )
    why = report_refusal(raw)
    if why is None and fields > MAX_REPORT_CHARS:
        why = (
            f"the report's fields hold {fields:,} characters, over the limit of "
            f"{MAX_REPORT_CHARS:,} characters for a report"
        )
    if why is None:
        return report, raw
    kept = raw
    if len(raw) > KEPT_REPORT_CHARS:
        kept = raw[:KEPT_REPORT_CHARS] + (
            f"... [{len(raw) - KEPT_REPORT_CHARS:,} more characters not kept: {why}]"
        )
    return ClaimReport.unusable(why), kept
