"""What an agent that ran elsewhere said, read as its claims (docs/agent.md, "A revision
made elsewhere").

A revision made outside this program (by Copilot, ChatGPT, Claude or an in-house agent)
comes with what the agent said, stored word for word in the bundle (``agent/message.txt``)
and read by one rule, here, when the bundle is written and again when it is verified:

1. **Nothing** (empty, or only spaces): no claim; claim accuracy is N/A with its reason.
2. **The claims JSON** (the message, trimmed, starts with ``{``): the agent's report
   (docs/agent.md, "The report") or a bundle's ``claims.json``, read by
   :func:`engine.comments_io.claims_from_json`; JSON that is not one of them is an unusable
   report, with its problem.
3. **One line per comment**, the push-summary format this program's own agent is asked
   for: ``<comment id or number>: <what changed>`` (a list bullet, quotes around the id,
   and ``-``, ``|``, an en or em dash instead of the colon are read too). The number is
   the comment's position, from 1, in the comments as given. A line claims ``addressed``
   with its text as the change summary, or ``not_addressed`` when the text begins with
   "not addressed", "not changed", "unchanged", "skipped" or "left" (the words the
   program's own format uses for a comment left as it is). An id or number named twice
   keeps its first line; lines that name no comment are kept as the report's notes.
4. **The blanket claim**, a sentence that says every comment was dealt with: an
   "addressed" word (addressed, fixed, resolved, handled, applied, done, made,
   implemented, incorporated, actioned, covered) with an "every" word (all, every, each)
   and a "comment" word (comment, feedback, suggestion, review, note, point, request,
   remark), as in "Addressed all review comments" or "All comments have been fixed": a
   claim of ``addressed`` for every comment, unless that sentence says it in the negative
   (a word of negation: not, no, none, never, cannot, unable, or a contraction in n't),
   which is no claim the program can read: an unusable report, "it names no comment and
   is negative".
5. **Anything else** (an ordinary document, notes, prose that makes none of these
   claims): no usable report, "it makes no claim the program can read"; claim accuracy
   is N/A with that reason, never a claim of addressed.

Never raises; the message is capped at :data:`MAX_MESSAGE_CHARS` where it comes in.
"""

from __future__ import annotations

import json
import re

from engine.comments_io import claims_from_json
from engine.models import ClaimItem, ClaimReport, InputError
from engine.vocabulary import Claim

__all__ = ["MAX_MESSAGE_CHARS", "NO_CLAIM", "claims_from_message", "resolved_after"]

#: The longest message read (characters): as long as a report the program's own agent may
#: send (``engine.agent.intake.MAX_REPORT_CHARS``).
MAX_MESSAGE_CHARS = 400_000

_LINE = re.compile(
    r"""^\s*(?:[-*+\u2022]\s+)?(?:comment\s+)?["'\u201c\u2018`]?(?P<ref>[^\s"'\u201d\u2019`:|\u2013\u2014]+)["'\u201d\u2019`]?"""
    r"""\s*(?::|\||\s-\s|\s\u2013\s|\s\u2014\s)\s*(?P<what>.+?)\s*$""",
    re.IGNORECASE,
)
_LEFT_AS_IT_IS = re.compile(r"^(?:not\s+addressed|not\s+changed|unchanged|skipped|left)\b", re.I)
_NEGATION = re.compile(r"\b(?:not|no|none|never|cannot|unable)\b|n[’']t\b", re.I)
_DEALT_WITH = re.compile(
    r"\b(?:addressed|fixed|resolved|handled|applied|done|made|implemented|incorporated"
    r"|actioned|covered)\b",
    re.I,
)
_EVERY = re.compile(r"\b(?:all|every|each)\b", re.I)
_COMMENT_WORD = re.compile(
    r"\b(?:comments?|feedback|suggestions?|reviews?|notes?|points?|requests?|remarks?)\b", re.I
)
#: Where one sentence ends: . ! ? (and their CJK, Arabic and Devanagari forms) or a line end.
_SENTENCE_END = re.compile(r"(?<=[.!?\u3002\uff01\uff1f\u061f\u0964])\s+|\n+")
#: The reason a message that makes no claim is no usable report.
NO_CLAIM = (
    "the agent's message makes no claim the program can read: it names no comment and does "
    "not say every comment was addressed; give one line per comment ('<id>: <what "
    "changed>'), the claims JSON, or the plain claim ('Addressed all review comments')"
)


def claims_from_message(message: str, comment_ids: list[str]) -> ClaimReport | None:
    """The claims in an agent's ``message`` about the comments ``comment_ids`` (in the
    order given, for numbers), by the rules of the module docstring: None when it says
    nothing, else a :class:`ClaimReport` (usable or not, with its problem)."""
    text = message[:MAX_MESSAGE_CHARS]
    if not text.strip():
        return None
    if text.lstrip().startswith("{"):
        return _from_json(text)
    claims, notes = _from_lines(text, comment_ids)
    if claims:
        return ClaimReport(comments=claims, notes="\n".join(notes))
    blanket = [s for s in _SENTENCE_END.split(text) if _is_blanket(s)]
    if not blanket:
        return ClaimReport.unusable(NO_CLAIM)
    if any(_NEGATION.search(s) for s in blanket):
        return ClaimReport.unusable(
            "the agent's message names no comment and says something in the negative, so "
            "it is not read as a claim about every comment; give one line per comment "
            "('<id>: <what changed>'), or the plain claim ('Addressed all review comments')"
        )
    summary = " ".join(blanket[0].split())[:500]
    return ClaimReport(
        comments=[ClaimItem(cid, "addressed", summary, "") for cid in comment_ids],
        notes="a sentence that names no comment: a claim of addressed for every comment",
    )


def _is_blanket(sentence: str) -> bool:
    """Whether one sentence is the blanket claim (rule 4 of the module docstring)."""
    return bool(
        _DEALT_WITH.search(sentence) and _EVERY.search(sentence) and _COMMENT_WORD.search(sentence)
    )


def _from_json(text: str) -> ClaimReport:
    try:
        obj = json.loads(text)
    except ValueError as exc:
        return ClaimReport.unusable(f"the agent's message is not valid JSON ({exc})")
    try:
        return claims_from_json(obj, "the agent's message")
    except InputError as exc:
        return ClaimReport.unusable(exc.problem)


def _from_lines(text: str, comment_ids: list[str]) -> tuple[list[ClaimItem], list[str]]:
    known = set(comment_ids)
    claims: list[ClaimItem] = []
    seen: set[str] = set()
    notes: list[str] = []
    for line in text.splitlines():
        m = _LINE.match(line)
        cid = _comment_of(m.group("ref"), known, comment_ids) if m else None
        if m is None or cid is None:
            if line.strip():
                notes.append(line.strip())
            continue
        if cid in seen:
            continue
        seen.add(cid)
        what = m.group("what")
        claim: Claim = "not_addressed" if _LEFT_AS_IT_IS.match(what) else "addressed"
        claims.append(ClaimItem(cid, claim, what, ""))
    return claims, notes


def _comment_of(ref: str, known: set[str], ordered: list[str]) -> str | None:
    """The comment ``ref`` names: its id, else its number (1-based; ``#3`` too)."""
    if ref in known:
        return ref
    number = ref.lstrip("#")
    if number.isdigit() and 1 <= int(number) <= len(ordered):
        return ordered[int(number) - 1]
    return None


def resolved_after(claims: ClaimReport | None, verdicts: dict[str, str]) -> set[str]:
    """The comments a revision made elsewhere leaves resolved: claimed ``addressed`` (in a
    usable report) and with a verdict that agrees, ``edited`` or ``deleted``
    (``verdicts``: comment id -> verdict). The integrity control over one revision: a
    comment claimed but untouched stays open."""
    if claims is None or not claims.usable:
        return set()
    return {
        c.comment_id
        for c in claims.comments
        if c.claim == "addressed" and verdicts.get(c.comment_id) in ("edited", "deleted")
    }
