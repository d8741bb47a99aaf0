"""The small grammar by which what an agent wrote is read as claims (docs/agent.md, "A
revision made elsewhere", "How a claim is read"): negation, exception and hedge words,
in English and the scripts the program reads, so that "c1: Not fixed", "c1: won't fix",
"2: N/A" or "Addressed all review comments except c1" are never a claim of addressed.

- :func:`line_claim` reads the text after ``<id>:`` on one claim line: ``"addressed"``,
  ``"not_addressed"`` (it says so: a negation or a left-as-it-is word leads it), or None
  (unclear: not applicable, pending, qualified by an exception or hedge, or negative
  somewhere other than its lead; no claim, never a guess).
- :func:`blanket_reading` reads one sentence that speaks of every comment: every comment
  addressed (with the comments it excepts, by id or number), none addressed ("Nothing was
  addressed"), or unclear ("Not every comment was fixed", "I fixed every comment but one").

Quoted passages ("…", “…”, ‘…’, «…», 「…」, `…`) are the document's words, not the
agent's statement, and are left out before reading. Never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["BlanketReading", "blanket_reading", "line_claim", "unquoted"]

_QUOTED = re.compile(
    r"\"[^\"\n]*\"|\u201c[^\u201d\n]*\u201d|\u2018[^\u2019\n]*\u2019|\u00ab[^\u00bb\n]*\u00bb"
    r"|\u300c[^\u300d\n]*\u300d|\u300e[^\u300f\n]*\u300f|`[^`\n]*`|(?<!\w)'[^'\n]*'(?!\w)"
)
#: Negation, in words (matched as whole words): English, German, French, Spanish,
#: Russian, Arabic, Persian, Hindi, Korean.
_NEGATION_WORDS = (
    r"not|no|none|nothing|never|neither|nor|nope|cannot|unable|without|wontfix|\w+n[’']t"
    r"|nicht|kein\w*|nie|ohne|pas|non|aucun\w*|jamais|sans|rien|sin|nunca|ning[uú]n\w*|nada"
    r"|не|нет|ни|без|لم|لا|لن|ليس|ليست|غير|بدون|نه|هیچ|نشد|نکرد\w*|नहीं|नही|बिना|안|못"
)
#: Negation inside words, in scripts written without spaces: Chinese, Japanese, Thai, Korean.
_NEGATION_MARKS = r"未|没|沒|不|無|无|ない|ません|ไม่|않|없"
_NEGATION = re.compile(rf"(?<!\w)(?:{_NEGATION_WORDS})(?!\w)|{_NEGATION_MARKS}", re.I)
#: A negation leading the text, after at most a pronoun and an auxiliary ("I did not").
_LEAD_NEGATION = re.compile(
    r"^\W*(?:(?:i|we|it|this|that|they|he|she)\s+"
    r"(?:(?:did|do|does|have|has|had|was|is|were|are|am|will|would|could|can)\s+)?)?"
    rf"(?:(?:{_NEGATION_WORDS})(?!\w)|{_NEGATION_MARKS})",
    re.I,
)
#: Words that say a comment was left as it is, leading the text.
_LEFT_AS_IT_IS = re.compile(
    r"^\W*(?:unchanged|skipped|left|kept\s+as|declined|rejected|deferred|ignored)(?!\w)", re.I
)
#: Exceptions and hedges: the statement holds only in part.
_EXCEPTION = re.compile(
    r"(?<!\w)(?:except\w*|excluding|but|apart\s+from|aside\s+from|other\s+than|save\s+for"
    r"|besides|with\s+the\s+exception\s+of|partly|partially|partial|mostly|some\s+of"
    r"|außer|ausser|aber|teilweise|sauf|mais|except[ée]|partiellement|excepto|salvo|pero"
    r"|menos|parcialmente|кроме|но|частично|باستثناء|إلا|الا|لكن|جزئيا|جز|اما|ولی"
    r"|सिवाय|लेकिन|परंतु|आंशिक|제외|하지만|일부)(?!\w)|除了|但|部分|以外|ただし|一部|ยกเว้น|แต่|บางส่วน",
    re.I,
)
#: The text says the comment does not apply, or is not settled yet: no claim.
_UNSETTLED = re.compile(
    r"^\W*(?:n/?a|n\.a\.?|not\s+applicable|tbd|to\s?do|pending|unknown|unsure|maybe"
    r"|in\s+progress|see\s+(?:notes?|below|above))(?!\w)",
    re.I,
)
_UNIVERSAL = re.compile(r"(?<!\w)(?:all|every|each|everything)(?!\w)", re.I)
_NEGATIVE_PRONOUN = re.compile(r"(?<!\w)(?:nothing|none|neither)(?!\w)", re.I)
#: Where one clause of a sentence ends.
_CLAUSE_END = re.compile(r"[;,:\u2013\u2014]|\s-\s|(?<!\w)(?:and|so|while|whereas)(?!\w)", re.I)
#: What may stand between an exception word and the comments it names, and between them.
_REF_FILLER = re.compile(
    r"\s+|(?:for|of|the|not|comments?|numbers?|and|or)(?!\w)|no\.|[&/,#]", re.I
)
_REF = re.compile(r"[\w.-]*\w")

Claim = Literal["addressed", "not_addressed"]


def unquoted(text: str) -> str:
    """``text`` without its quoted passages (each replaced by a space)."""
    return _QUOTED.sub(" ", text)


def line_claim(what: str) -> Claim | None:
    """The claim of one claim line's text ``what`` (after ``<id>:``), by the rules of the
    module docstring: "addressed", "not_addressed", or None when it is unclear."""
    text = unquoted(what).strip()
    if not any(ch.isalnum() for ch in text) or _UNSETTLED.match(text):
        return None
    if _EXCEPTION.search(text):
        return None
    if _LEAD_NEGATION.match(text) or _LEFT_AS_IT_IS.match(text):
        return "not_addressed"
    if _NEGATION.search(text):
        return None
    return "addressed"


@dataclass
class BlanketReading:
    """One sentence about every comment, read: ``kind`` "all" (every comment addressed but
    ``excepted``, the references as written: ids or numbers), "none" (no comment
    addressed), or "unclear" with ``why`` (a phrase)."""

    kind: Literal["all", "none", "unclear"]
    excepted: list[str] = field(default_factory=list)
    why: str = ""


def blanket_reading(
    sentence: str, dealt_with: re.Pattern[str], comment_word: re.Pattern[str]
) -> BlanketReading:
    """How one blanket sentence reads (rule 4 of ``engine.agent_message``): ``dealt_with``
    and ``comment_word`` are the patterns of its "addressed" and "comment" words."""
    text = unquoted(sentence)
    found = _EXCEPTION.search(text)
    refs, end = _refs_after(text, found.end()) if found else ([], 0)
    rest = text[: found.start()] + " " + text[end:] if found and refs else text
    if _NEGATION.search(rest):  # "but not c2" is the exception's own negation
        return _negative_reading(text, dealt_with, comment_word)
    if found is None:
        return BlanketReading("all")
    if not refs:
        return BlanketReading("unclear", why="it excepts comments it does not name")
    return BlanketReading("all", refs)


def _negative_reading(
    text: str, dealt_with: re.Pattern[str], comment_word: re.Pattern[str]
) -> BlanketReading:
    """A blanket sentence with a negation: "none" when a clause says no comment was dealt
    with, "all" when the negation is about something else, else unclear."""
    none = positive = False
    for clause in _CLAUSE_END.split(text):
        neg = _NEGATION.search(clause)
        if neg is None:
            positive = positive or bool(dealt_with.search(clause) and _UNIVERSAL.search(clause))
            continue
        if _UNIVERSAL.search(clause, neg.end()):  # "not all", "didn't get to every"
            return BlanketReading(
                "unclear", why="it says in the negative that not every comment was addressed"
            )
        if dealt_with.search(clause) and (
            comment_word.search(clause) or _NEGATIVE_PRONOUN.search(clause)
        ):
            none = True
    if none and not positive and not _EXCEPTION.search(text):
        return BlanketReading("none")
    if positive and not none and not _EXCEPTION.search(text):
        return BlanketReading("all")
    return BlanketReading("unclear", why="it says something in the negative")


def _refs_after(text: str, at: int) -> tuple[list[str], int]:
    """The comment references (ids or numbers, as written) listed right after ``at``, and
    where the list ends."""
    refs: list[str] = []
    end = at
    while True:
        filler = _REF_FILLER.match(text, at)
        while filler is not None and filler.end() > at:
            at = filler.end()
            filler = _REF_FILLER.match(text, at)
        m = _REF.match(text, at)
        if m is None or not any(ch.isdigit() for ch in m.group()):
            return refs, end
        refs.append(m.group().rstrip("."))
        at = end = m.end()
