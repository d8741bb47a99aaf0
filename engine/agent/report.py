"""The structured report: its prompt, its JSON Schema, the response formats asked for,
and ``parse_report``, which validates an answer and returns ``ClaimReport.unusable(reason)``
for anything invalid (never trusted, never a crash). Used by ``RevisionAgent.report``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.agent.intake import report_refusal
from engine.agent.jsonsafe import DECODER as REPORT_DECODER, JSONProblem, find_huge, load_json
from engine.comments_io import parse_claim_report
from engine.models import ClaimReport

REPORT_SYSTEM_PROMPT = """\
You report on a revision you made to a document under review. Answer with one JSON object \
and nothing else, in exactly this shape:
{"comments": [{"comment_id": "<id>", "claim": "addressed" | "not_addressed" | "stale_anchor", \
"change_summary": "<what you changed, or empty>", "rationale": "<why>"}], "notes": "<anything else>"}
Use "addressed" for a comment whose passage you changed to address it, "not_addressed" for one \
you left unchanged, and "stale_anchor" for one whose quoted text was not in the document you \
were given. Give exactly one entry for each comment id listed, and no other ids."""


def parse_report(text: str | None, known_ids: list[str]) -> ClaimReport:
    """Validate the report JSON. Any problem -> ``ClaimReport.unusable(reason)``.

    Accepted: an object with a ``comments`` list of ``{comment_id, claim, change_summary?,
    rationale?}`` with ``claim`` in ``addressed | not_addressed | stale_anchor``, each id
    among ``known_ids`` and listed once, and an optional string ``notes``. The object may
    be the whole answer, inside a code fence, or (servers without a JSON mode) the first
    JSON object in a short prose answer. An integer longer than ``wire.MAX_INT_DIGITS``
    digits anywhere makes the report unusable, and so does a text over
    ``intake.MAX_REPORT_CHARS`` characters (400,000), with the limit named.
    """
    if text is None or not text.strip():
        return ClaimReport.unusable("the report was empty")
    too_long = report_refusal(text)
    if too_long is not None:  # never parsed: the run keeps only its start
        return ClaimReport.unusable(too_long)
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`")
        body = body[4:] if body.lower().startswith("json") else body
    try:
        obj = load_json(body)
    except JSONProblem as exc:
        obj = _embedded_object(body)
        if obj is None:
            return ClaimReport.unusable(f"the report is {exc} of {len(body)}")
    huge = find_huge(obj)
    if huge is not None:
        return ClaimReport.unusable(
            f"the report contains an integer of {huge.digits} digits, which no report field holds"
        )
    report = parse_claim_report(obj)
    if not report.usable:
        return report
    known = set(known_ids)
    unknown = [c.comment_id for c in report.comments if c.comment_id not in known]
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:10]) + (" ..." if len(unknown) > 10 else "")
        return ClaimReport.unusable(f"the report names comment ids that do not exist: {shown}")
    return report


_FENCED = re.compile(r"```(?:json)?[ \t]*\n(.*?)\n?```", re.S | re.I)


def _embedded_object(text: str) -> Any:
    """The report object inside prose: a fenced block, else the first ``{...}`` that
    parses and has a ``comments`` key. None when there is none."""
    for m in _FENCED.finditer(text):
        try:
            return load_json(m.group(1))
        except JSONProblem:
            continue
    start = text.find("{")
    tries = 0
    while 0 <= start < len(text) and tries < 20:  # bounded: a report is a few objects
        tries += 1
        try:
            obj, _ = REPORT_DECODER.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            obj = None
        if isinstance(obj, dict) and "comments" in obj:
            return obj
        start = text.find("{", start + 1)
    return None


def report_token_cap(n_comments: int) -> int:
    """Completion-token cap of the report call: 400 + 250 per comment, at most 32,000. A
    report cut off by the cap is invalid JSON and so unusable, never trusted."""
    return min(400 + 250 * n_comments, 32_000)


def report_schema(ids: list[str]) -> dict[str, Any]:
    """The JSON Schema of the report (``json_schema`` response format): one entry per id
    in ``ids``, claims from the closed list, every field required, nothing else."""
    return {
        "type": "object",
        "properties": {
            "comments": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "comment_id": {"type": "string", "enum": list(ids)},
                        "claim": {
                            "type": "string",
                            "enum": ["addressed", "not_addressed", "stale_anchor"],
                        },
                        "change_summary": {"type": "string"},
                        "rationale": {"type": "string"},
                    },
                    "required": ["comment_id", "claim", "change_summary", "rationale"],
                    "additionalProperties": False,
                },
            },
            "notes": {"type": "string"},
        },
        "required": ["comments", "notes"],
        "additionalProperties": False,
    }


def response_format(fmt: str, ids: list[str]) -> dict[str, Any] | None:
    if fmt == "json_object":
        return {"type": "json_object"}
    if fmt == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {
                "name": "revision_report",
                "strict": True,
                "schema": report_schema(ids),
            },
        }
    return None
