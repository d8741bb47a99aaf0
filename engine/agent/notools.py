"""The no-tools mode: for models that cannot call tools, the program does the tool work.

Each round is one plain chat request (no ``tools``): the open comments and the complete
latest document go in; the model answers in a fixed format (``ANSWER_FORMAT``): a
disposition line per comment, then the complete revised document between markers. The
program then does what the tools would have done, through the same ``WorkspaceTools``
(so the same checks, events and trace entries, marked ``"by": "program"``):

- ``push_version`` with the revised document (base: the version it was given), unless the
  answer has no document, was cut off at the token limit (``finish_reason: "length"`` or
  no end marker: a truncated document is never pushed) or is identical to the given one;
- ``resolve_comment`` for each comment dispositioned ``addressed`` (the integrity control
  then checks it against the text, as for a tool-calling agent);
- ``reply_comment`` with the one-line reason for ``not addressed`` / ``stale anchor``.

The claims report is the dispositions themselves (no second call): ``addressed`` ->
``addressed``, ``not addressed`` -> ``not_addressed``, ``stale anchor`` -> ``stale_anchor``.
No disposition line at all: the report is unusable with that reason.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.agent.client import CallResult, ModelClient
from engine.agent.rounds import OpenRound, RoundAgent, RoundWork
from engine.agent.tools import ToolOutcome, WorkspaceTools
from engine.models import ClaimItem, ClaimReport, Comment
from engine.vocabulary import Claim, plural

DISPOSITIONS_START = "<<<DISPOSITIONS>>>"
DISPOSITIONS_END = "<<<END DISPOSITIONS>>>"
DOCUMENT_START = "<<<DOCUMENT>>>"
DOCUMENT_END = "<<<END DOCUMENT>>>"

ANSWER_FORMAT = f"""\
{DISPOSITIONS_START}
<comment id>: addressed | <one line: what you changed>
<comment id>: not addressed | <one line: why you left it>
{DISPOSITIONS_END}
{DOCUMENT_START}
<the complete revised document>
{DOCUMENT_END}"""

NO_TOOLS_SYSTEM_PROMPT = f"""\
You are a revision agent. Human reviewers selected exact passages of a document and left \
review comments anchored to them. Revise the document so that each comment is addressed.

Rules:
1. Change only text that a comment points at: its quoted passage, and at most the rest of \
the same sentence when the fix needs it. Do not touch, reformat, reflow or "improve" any \
other text: every character you change outside a commented passage is measured.
2. Keep the document's format: HTML stays HTML with the same markup, Markdown stays \
Markdown, plain text stays plain text. Do not add scripts, remote resources, or markup the document did not have.
3. Give every comment a disposition: "addressed" when your revised text addresses it, \
"not addressed" (with the reason) when you leave its text unchanged. Never say \
"addressed" for a passage you did not change: the text is checked.

Answer in exactly this format and nothing else:
{ANSWER_FORMAT}"""


@dataclass
class Disposition:
    """One comment's disposition from the answer: ``claim`` is ``addressed`` |
    ``not_addressed`` | ``stale_anchor``; ``reason`` the one-line reason."""

    comment_id: str
    claim: Claim
    reason: str


@dataclass
class ParsedAnswer:
    """What the answer held: ``document`` (None: no complete document), ``dispositions``
    in answer order, ``problems`` (in words, for the trace and the report)."""

    document: str | None
    dispositions: list[Disposition] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    disposition_text: str = ""


_DISP = re.compile(
    r"^\s*(?:[-*•]\s*)?[`'\"]?(?P<id>[^\s:|`'\"]+)[`'\"]?\s*[:|\-–—]\s*"
    r"(?P<disp>not[ _-]?addressed|addressed|stale[ _-]?anchor)\b\s*[|:\-–—,.]?\s*(?P<reason>.*)$",
    re.I,
)
_FENCE = re.compile(r"^```[\w-]*[ \t]*\n(.*?)\n?```\s*$", re.S)


def _claim_word(word: str) -> Claim:
    w = re.sub(r"[ _-]", "", word.lower())
    if w == "addressed":
        return "addressed"
    return "not_addressed" if w == "notaddressed" else "stale_anchor"


def parse_answer(text: str, known_ids: list[str], kind: str) -> ParsedAnswer:
    """Read the fixed answer format tolerantly. ``kind``: ``html`` | ``text``.

    Dispositions: lines ``<id>: addressed | <reason>`` (also ``-``/``|`` separators, a list
    bullet, quotes around the id), read between the markers, or anywhere in the answer
    before the document when the markers are missing; ids not in ``known_ids`` and
    repeats are ignored (a problem is noted). Document: between ``DOCUMENT_START`` and
    ``DOCUMENT_END`` (one code fence around it removed); without an end marker it is
    treated as cut off (None). For ``html`` documents with no markers at all, a complete
    ``<html>...</html>`` in the answer is taken."""
    out = ParsedAnswer(None)
    known = set(known_ids)
    doc_at = text.find(DOCUMENT_START)
    if doc_at >= 0:
        body = text[doc_at + len(DOCUMENT_START) :]
        end = body.rfind(DOCUMENT_END)
        if end < 0:
            out.problems.append(
                "the revised document in the answer has no end line (it may have been cut off), "
                "so it was not saved"
            )
        else:
            doc = body[:end].strip("\n")
            m = _FENCE.match(doc.strip())
            out.document = m.group(1) if m else doc
    elif kind == "html":
        lower = text.lower()
        start = min(
            (i for i in (lower.find("<!doctype"), lower.find("<html")) if i >= 0), default=-1
        )
        end = lower.rfind("</html>")
        if start >= 0 and end > start:
            out.document = text[start : end + len("</html>")]
            out.problems.append(
                "the answer did not mark where the document starts and ends; the HTML "
                "document in it was used"
            )
        else:
            out.problems.append("the answer has no complete document")
    else:
        out.problems.append(
            "the model's answer does not hold the revised document where it was asked to put "
            f"it (between the lines {DOCUMENT_START} and {DOCUMENT_END})"
        )
    d0 = text.find(DISPOSITIONS_START)
    if d0 >= 0:
        d1 = text.find(DISPOSITIONS_END, d0)
        region = text[d0 + len(DISPOSITIONS_START) : d1 if d1 >= 0 else len(text)]
        if d1 < 0 and doc_at > d0:
            region = text[d0 + len(DISPOSITIONS_START) : doc_at]
    else:
        region = text[:doc_at] if doc_at >= 0 else text
        if out.document is not None and doc_at < 0:
            region = text.replace(out.document, "")
    out.disposition_text = region.strip()
    seen: set[str] = set()
    for line in region.splitlines():
        m = _DISP.match(line)
        if not m:
            continue
        cid = m.group("id").strip()
        if cid not in known:
            out.problems.append(f"a disposition names an unknown comment id {cid!r}")
            continue
        if cid in seen:
            out.problems.append(f"comment {cid} has two dispositions; the first was used")
            continue
        seen.add(cid)
        reason = " ".join(m.group("reason").split())[:500]
        out.dispositions.append(Disposition(cid, _claim_word(m.group("disp")), reason))
    if not out.dispositions:
        out.problems.append("the answer has no disposition line for any comment")
    return out


@dataclass
class PlainRound(OpenRound):
    """A no-tools round in progress: the latest version it was given (``head``), the
    document's kind, the open comments sent, and the answer read (``parsed``)."""

    head: Any = None
    kind: str = "text"
    comments: list[Comment] = field(default_factory=list)
    parsed: ParsedAnswer | None = None
    text: str = ""


class NoToolsAgent(RoundAgent[PlainRound]):
    """The no-tools mode with the ``RevisionAgent`` interface (``work_round``,
    ``report``, ``push_summaries``, ``tools``): the round loop of ``rounds.RoundAgent``
    with one turn a round. See the module docstring."""

    mode = "no-tools"

    def __init__(
        self,
        client: ModelClient,
        tools: WorkspaceTools,
        *,
        emit_tool: Callable[[int, ToolOutcome], None] | None = None,
        emit_notice: Callable[[int, str, str], None] | None = None,
        check_cancel: Callable[[], None] | None = None,
        system_prompt: str = NO_TOOLS_SYSTEM_PROMPT,
    ):
        super().__init__(
            client,
            tools,
            emit_tool=emit_tool,
            emit_notice=emit_notice,
            check_cancel=check_cancel,
            system_prompt=system_prompt,
        )
        self._last: dict[int, ParsedAnswer] = {}
        self._unusable: list[str] = []
        """Why the previous round's answer could not be used (said in the next request)."""
        self._claims: dict[str, Disposition] = {}
        """The latest disposition of each comment over the run's rounds."""

    def _request(self, comments: list[Comment], head_raw: str, kind: str, title: str) -> str:
        lines = []
        if self._unusable:
            lines += [
                "Your previous answer could not be used: " + "; ".join(self._unusable) + ". "
                "This time answer in exactly the format shown at the end.",
                "",
            ]
        lines += [
            f'The document "{title}" ({kind}) has {plural(len(comments), "open review comment")}. '
            "Each names the exact passage (quote) it is anchored to, with the text just "
            "before and after it.",
            "",
            "Comments:",
        ]
        for c in comments:
            item: dict[str, Any] = {
                "id": c.id,
                "comment": c.body,
                "quote": c.anchor.quote,
                "before": c.anchor.prefix,
                "after": c.anchor.suffix,
            }
            reopened = [r.body for r in c.thread if r.kind == "reopen"]
            if reopened:
                item["reopened_because"] = reopened[-1]
            lines.append(json.dumps(item, ensure_ascii=False))
        lines += [
            "",
            f"The document ({kind}), complete:",
            DOCUMENT_START,
            head_raw,
            DOCUMENT_END,
            "",
            "Answer in exactly this format, with the complete revised document:",
            ANSWER_FORMAT,
        ]
        return "\n".join(lines)

    def _do(self, round_no: int, name: str, args: dict[str, Any]) -> ToolOutcome:
        """Run one tool on the model's behalf: same dispatcher, trace and event."""
        t0 = time.monotonic()
        raw = json.dumps(args, ensure_ascii=False)
        outcome = self.tools.dispatch(name, raw)
        call_id = f"program-{round_no}-{name}-{args.get('comment_id', '')}"
        self.record_tool(round_no, call_id, raw, outcome, t0, by="program")
        return outcome

    # -- the round's strategy (rounds.RoundAgent) -------------------------------------------

    def open_round(self, round_no: int, brief: str) -> PlainRound:
        """The one request: the open comments and the complete latest document. ``brief``
        is not used (the request carries the comments itself)."""
        ws, doc_id = self.tools.ws, self.tools.document_id
        head = ws.head(doc_id)
        document = ws.document(doc_id)
        visible = set(self.tools.visible)
        comments = [c for c in ws.comments(doc_id) if c.id in visible and c.status == "open"]
        self.client.document_chars = len(head.raw)
        request = self._request(comments, head.raw, document.kind, document.title)
        messages = [
            {"role": "system", "content": self.system_prompt},
            {"role": "user", "content": request},
        ]
        return PlainRound(round_no, f"no-tools-{round_no}", messages, head, document.kind, comments)

    def turn_limit(self) -> int:
        return 1

    async def take_turn(self, state: PlainRound) -> CallResult:
        return await self.client.chat(
            state.messages,
            purpose="work",
            round_no=state.round_no,
            conversation=state.conversation,
            max_tokens=self.config.max_output_tokens,
        )

    def after_turn(self, state: PlainRound, res: CallResult, work: RoundWork) -> bool:
        """Read the answer, then do its pushes, resolutions and replies. The round ends."""
        text = res.message.get("content") or ""
        parsed = parse_answer(text, [c.id for c in state.comments], state.kind)
        if parsed.document is not None and res.finish_reason == "length":
            parsed.problems.append("the answer was cut off at its token limit; nothing pushed")
            parsed.document = None
        self.check_cancel()
        self._push_answer(state, parsed)
        self._dispose(state.round_no, parsed)
        self._last[state.round_no] = parsed
        self._unusable = (
            parsed.problems if parsed.document is None or not parsed.dispositions else []
        )
        for d in parsed.dispositions:
            self._claims[d.comment_id] = d
        state.parsed, state.text = parsed, text
        return True

    def close_round(self, state: PlainRound, work: RoundWork) -> None:
        """Say what was read and done: ``work.stopped`` and a trace note."""
        parsed = state.parsed
        if parsed is None:  # the call failed after an earlier push (work.interrupted)
            return
        work.final_text = state.text[:2000]
        work.stopped = "no-tools answer read: " + (
            f"{plural(len(work.pushed), 'push', 'pushes')}, "
            f"{plural(len(parsed.dispositions), 'disposition')}"
            + (f"; {'; '.join(parsed.problems)}" if parsed.problems else "")
        )
        self.client.trace.add(
            "note",
            round=state.round_no,
            text="no-tools answer read",
            pushed=len(work.pushed),
            dispositions=[d.__dict__ for d in parsed.dispositions],
            problems=parsed.problems,
        )

    # -- the program's tool work --------------------------------------------------------------

    def _push_answer(self, state: PlainRound, parsed: ParsedAnswer) -> None:
        """Push the revised document (base: the version given), unless there is none or
        it is identical to the given one (a problem is noted)."""
        if parsed.document is None or not parsed.document.strip():
            return
        if parsed.document == state.head.raw:
            parsed.problems.append("the revised document is identical to the given one")
            return
        summary = "\n".join(
            f"{d.comment_id}: {d.reason or 'changed'}"
            for d in parsed.dispositions
            if d.claim == "addressed"
        )
        self._do(
            state.round_no,
            "push_version",
            {
                "base_version_id": state.head.version_id,
                "content": parsed.document,
                "summary": summary,
            },
        )

    def _dispose(self, round_no: int, parsed: ParsedAnswer) -> None:
        """Resolve each comment dispositioned ``addressed``; reply with the reason on the
        others."""
        for d in parsed.dispositions:
            self.check_cancel()
            if d.claim == "addressed":
                self._do(
                    round_no, "resolve_comment", {"comment_id": d.comment_id, "note": d.reason}
                )
            else:
                why = d.reason or (
                    "left unchanged" if d.claim == "not_addressed" else "the quoted text is gone"
                )
                self._do(round_no, "reply_comment", {"comment_id": d.comment_id, "body": why})

    async def report(self, round_no: int, comments: list[Comment]) -> tuple[ClaimReport, str]:
        """The dispositions as the claims report (no model call): for each of
        ``comments``, its latest disposition in this run (a comment reopened and
        dispositioned again in a later round carries the later one)."""
        parsed = self._last.get(round_no)
        if parsed is None:
            return ClaimReport.unusable("no no-tools answer was read in this round"), ""
        items = [
            ClaimItem(d.comment_id, d.claim, d.reason if d.claim == "addressed" else "", d.reason)
            for c in comments
            if (d := self._claims.get(c.id)) is not None
        ]
        if not items:
            reason = "; ".join(parsed.problems) or "no disposition for these comments"
            return ClaimReport.unusable(f"the answer gave no usable disposition: {reason}"), (
                parsed.disposition_text
            )
        return ClaimReport(comments=items, notes="; ".join(parsed.problems)), (
            parsed.disposition_text
        )
