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
   and ``-``, ``|``, an en or em dash instead of the colon are read too; a colon between
   digits, as in a time, is not one). The number is the comment's position, from 1, in
   the comments as given. The text is read by the grammar of :mod:`engine.claim_grammar`:
   ``not_addressed`` when a negation or a left-as-it-is word leads it ("Not fixed",
   "won't fix", "no changes", "unchanged"), no claim (kept as a note) when it is unclear
   ("N/A", "pending", "Done, but see notes", a negation elsewhere in it), else
   ``addressed`` with its text as the change summary. An id or number named twice keeps
   its first line. A line naming a comment that does not exist (an id of the same form
   as the comments' ids, "c9", or a number past the last) is kept as a claim about that
   id, as the claims JSON would be, so claim accuracy is N/A naming it; lines that name
   no comment are kept as the report's notes.
4. **The blanket claim**, a sentence that speaks of every comment: an "addressed" word
   (addressed, fixed, resolved, handled, applied, done, made, implemented, incorporated,
   actioned, covered), a quantifier (all, every, each, any, none, nothing, no) and a
   "comment" word (comment, feedback, suggestion, review, note, point, request, remark).
   Read by :func:`engine.claim_grammar.blanket_reading`: "Addressed all review comments"
   claims ``addressed`` for every comment; "... except c1 and c3" claims those
   ``not_addressed`` (an excepted id that does not exist makes claim accuracy N/A);
   "Nothing was addressed" or "No comments were fixed" claims ``not_addressed`` for every
   comment; a sentence that is unclear ("Not every comment was fixed", "I fixed every
   comment but one") is no claim the program can read: an unusable report with the reason.
   Sentences that read differently make the report unusable too.
5. **Anything else** (an ordinary document, notes, prose that makes none of these
   claims): no usable report, "it makes no claim the program can read"; claim accuracy
   is N/A with that reason, never a claim of addressed.

Never raises; the message is capped at :data:`MAX_MESSAGE_CHARS` where it comes in.
"""

from __future__ import annotations

import json
import re

from engine.claim_grammar import blanket_reading, line_claim
from engine.comments_io import claims_from_json
from engine.models import ClaimItem, ClaimReport, InputError
from engine.text.bmp_twin import BmpTwin
from engine.text.sentence_stops import SENTENCE_TERMINATORS

__all__ = ["MAX_MESSAGE_CHARS", "NO_CLAIM", "claims_from_message", "resolved_after"]

#: The longest message read (characters): as long as a report the program's own agent may
#: send (``engine.agent.intake.MAX_REPORT_CHARS``).
MAX_MESSAGE_CHARS = 400_000

_LINE = re.compile(
    r"""^\s*(?:[-*+\u2022]\s+)?(?:comment\s+)?["'\u201c\u2018`]?(?P<ref>[^\s"'\u201d\u2019`:|\u2013\u2014]+)["'\u201d\u2019`]?"""
    r"""\s*(?::(?!\d)|\||\s-\s|\s\u2013\s|\s\u2014\s)\s*(?P<what>.+?)\s*$""",
    re.IGNORECASE,
)
_DEALT_WITH = re.compile(
    r"\b(?:addressed|fixed|resolved|handled|applied|done|made|implemented|incorporated"
    r"|actioned|covered)\b",
    re.I,
)
_EVERY = re.compile(r"\b(?:all|every|each|any|none|nothing|no)\b", re.I)
_COMMENT_WORD = re.compile(
    r"\b(?:comments?|feedback|suggestions?|reviews?|notes?|points?|requests?|remarks?)\b", re.I
)
#: Where one sentence ends: a full stop of any script (``SENTENCE_TERMINATORS``) and space,
#: or a line end (a ``BmpTwin``: engine.text.bmp_twin).
_SENTENCE_END = BmpTwin(
    lambda keep: f"(?<=[{re.escape(keep(SENTENCE_TERMINATORS))}])\\s+|\n+", behind=1
)
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
    claims, notes, named = _from_lines(text, comment_ids)
    if named:
        return ClaimReport(comments=claims, notes="\n".join(notes))
    blanket = [s for s in _SENTENCE_END.split(text) if _is_blanket(s)]
    if not blanket:
        return ClaimReport.unusable(NO_CLAIM)
    return _from_blanket(blanket, comment_ids)


def _from_blanket(sentences: list[str], comment_ids: list[str]) -> ClaimReport:
    """The claims of the blanket sentences (rule 4), or an unusable report."""
    readings = [blanket_reading(s, _DEALT_WITH, _COMMENT_WORD) for s in sentences]
    unclear = next((r for r in readings if r.kind == "unclear"), None)
    if unclear is None and any(r != readings[0] for r in readings):
        unclear = readings[0]
        unclear.why = "its sentences about every comment say different things"
    if unclear is not None:
        return ClaimReport.unusable(
            f"the agent's message names no comment and is not read as a claim about every "
            f"comment: {unclear.why}; give one line per comment ('<id>: <what changed>'), "
            "or the plain claim ('Addressed all review comments')"
        )
    first = readings[0]
    summary = " ".join(sentences[0].split())[:500]
    if first.kind == "none":
        items = [ClaimItem(cid, "not_addressed", summary, "") for cid in comment_ids]
        return ClaimReport(
            comments=items, notes="a sentence that names no comment: no comment addressed"
        )
    excepted = [_comment_of(r, set(comment_ids), comment_ids) or r for r in first.excepted]
    items = [
        ClaimItem(cid, "not_addressed" if cid in excepted else "addressed", summary, "")
        for cid in comment_ids
    ]
    items += [ClaimItem(r, "not_addressed", summary, "") for r in excepted if r not in comment_ids]
    return ClaimReport(
        comments=items,
        notes="a sentence that names no comment: a claim of addressed for every comment"
        + (f" but {', '.join(excepted)}" if excepted else ""),
    )


def _is_blanket(sentence: str) -> bool:
    """Whether one sentence speaks of every comment (rule 4 of the module docstring)."""
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


def _from_lines(text: str, comment_ids: list[str]) -> tuple[list[ClaimItem], list[str], bool]:
    """(claims, notes, whether any line names a comment) of the claim lines (rule 3)."""
    known = set(comment_ids)
    shapes = {_shape(i) for i in comment_ids}
    claims: list[ClaimItem] = []
    seen: set[str] = set()
    notes: list[str] = []
    for line in text.splitlines():
        m = _LINE.match(line)
        ref = m.group("ref") if m else ""
        cid = _comment_of(ref, known, comment_ids) if m else None
        if cid is None and m and _looks_like_a_comment(ref, shapes):
            cid = ref  # a comment that does not exist: claim accuracy N/A names it
        if m is None or cid is None:
            if line.strip():
                notes.append(line.strip())
            continue
        if cid in seen:
            continue
        seen.add(cid)
        what = m.group("what")
        claim = line_claim(what)
        if claim is None:
            notes.append(f"{line.strip()} (unclear: no claim read for it)")
            continue
        claims.append(ClaimItem(cid, claim, what, ""))
    return claims, notes, bool(seen)


def _shape(comment_id: str) -> str:
    """An id's form: its digits as one 0 ("c12" -> "c0")."""
    return re.sub(r"\d+", "0", comment_id.lower())


def _looks_like_a_comment(ref: str, shapes: set[str]) -> bool:
    """Whether ``ref`` names a comment that is not there: a number, or an id with digits
    of the same form as the comments' ids."""
    bare = ref.lstrip("#")
    return bare.isdigit() or (any(ch.isdigit() for ch in bare) and _shape(bare) in shapes)


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
