"""Sentences, for keeping a span inside one (``_SENTENCE_END``), and cutting a replaced region
down to the sentence or the words that are the quote's place.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.score.anchoring.thresholds import FUZZY_WINDOW
from engine.score.anchoring.words import _has_alnum, _trim, similarity
from engine.text.bmp_twin import BmpTwin
from engine.text.sentence_stops import SENTENCE_TERMINATORS

_CLOSE = "\"'\u201d\u2019\u00bb)\\]}*\u00b9\u00b2\u00b3\u2070\u2074-\u2079"
"""What may follow a Latin full stop before the space that ends its sentence: closing
quotes and brackets, the ``**`` of Markdown bold, superscript note numbers."""
_CITE = r"\[\d[\d,;\u2013\- ]{0,14}\]"
"""A bracketed note number after a full stop, "[3]" or "[12, 14]" (Wikipedia, papers)."""
_CJK_CLOSE = "\u300d\u300f\uff09\uff3d\uff5d\u3009\u300b\u3011\u3015\u201d\u2019\"')"
"""What may follow a CJK, Devanagari or Arabic-script full stop: closing brackets and
quotes ("。」", "।\"")."""

_LATIN = ".!?;:"
"""The ASCII stops, and ``;`` ``:`` (a clause is a sentence here): a sentence end only with
space after them ("3.5", "e.g.", "http://x.org" end none)."""
_DOTS = "\u2024\ufe52\uff0e"
"""The one-dot leader, the small and the full-width full stop: a sentence end with no space
after (Japanese "…示す．次に…"), except before a digit ("３．５")."""
_WIDE = "".join(c for c in SENTENCE_TERMINATORS if c not in ".!?" + _DOTS) + "\uff1b"
"""Every other full stop (``SENTENCE_TERMINATORS``: Unicode's Sentence_Terminal and the
Tibetan shad) and the full-width ``；``: a sentence end with or without space after
(CJK, Devanagari, Arabic, Armenian, Myanmar, Khmer, Ethiopic, Tibetan, ``‽``)."""
_THAI_LAO = "\u0e01-\u0e5b\u0e81-\u0edf"
"""Thai and Lao letters: both write no full stop, and a space between two of their letters
ends a sentence or clause."""


def _class(chars: str) -> str:
    return "".join(re.escape(c) for c in chars)


def _sentence_end_source(keep: Callable[[str], str]) -> str:
    """The source of ``_SENTENCE_END``, its classes' characters passed through ``keep``
    (engine.text.bmp_twin)."""
    wide = _class(keep(_WIDE))
    return (
        f"[{_class(keep(_LATIN + _WIDE + _DOTS))}\n ]"
        f"(?:(?<=[{_class(_LATIN)}])[{_class(_LATIN)}]*(?:[{_CLOSE}]|{_CITE})*[\\s\u00a0]+"
        f"|(?<=[{wide}])[{wide}]*[{_CJK_CLOSE}]*\\s*"
        f"|(?<=[{_class(_DOTS)}])(?![0-9\uff10-\uff19])[{_class(keep(_WIDE + _DOTS))}]*"
        f"[{_CJK_CLOSE}]*\\s*"
        f"|(?<=\n)\n*"
        f'|(?<=[{_THAI_LAO})\\]"\u201d] ) *(?=[{_THAI_LAO}]))'
    )


_SENTENCE_END = BmpTwin(_sentence_end_source, behind=2)
"""Where a sentence ends, for keeping a span inside one: a full stop (or ``!?;:``), the
closing quotes, brackets and note numbers after it (``_CLOSE``,
``_CITE``: "… last year.” Staff …", "… a third.[3] Staff …"), and space; any other
script's full stop (``_WIDE``, ``_DOTS``) and its closing marks (``_CJK_CLOSE``); a line
break; or a space between two Thai or Lao letters (``_THAI_LAO``). Before, a stop followed
by a closing mark ended no sentence, so the
sentence before a deleted one ran on into it, and the join of the two around it read as
its rewrite (the attacker's brief: ".”", ".)", ".[1]", in English, Russian and
Arabic); and a full stop of a script not listed (Armenian "։", Burmese "။", Khmer "។",
Tibetan "།", the half-width "｡", Lao's space) ended none at all (stop 38).

Written as one class of first characters followed by the cases (told apart by a
look back at that character: the classes do not overlap), so the regular expression
engine skips every other character in C: the same matches as the cases written as
plain alternatives (``PLAIN`` in tests/engine/test_sentence_end_scan.py), four times
faster on a window of 400 characters."""


_STOPS = frozenset(_LATIN + _WIDE + _DOTS)
"""The full stops of ``_SENTENCE_END``."""


def sentence_ends_before(
    text: str, lo: int, s: int, end: BmpTwin | re.Pattern[str] = _SENTENCE_END
) -> list[int]:
    """Where the sentences that end in ``text[lo:s]`` end (code points, in order): the
    matches of ``_SENTENCE_END`` from ``lo`` that end at ``s`` or before, the character at
    ``s`` seen. A search cut at ``s`` cannot look at it, and Thai's end (a space between two
    Thai letters) looks ahead: "… ปีที่แล้ว จำนวนพนักงาน…" with the quote starting at
    "จำนวน" lost the end just before the quote, and the quote's sentence took in the one
    before it. ``end``: ``_SENTENCE_END``, or the pattern of it already chosen for
    ``text`` (``TextIndex.sentence_end``); a twin is chosen once for both scans."""
    pattern = end.for_text(text, lo, s + 1) if isinstance(end, BmpTwin) else end
    ends = {m.end() for m in pattern.finditer(text, lo, s)}
    if s < len(text):
        ends.update(m.end() for m in pattern.finditer(text, lo, s + 1) if m.end() <= s)
    return sorted(ends)


def _clip_sentences(
    text: str, cs: int, ce: int, quote: str, near: tuple[int, int] | None = None
) -> tuple[int, int]:
    """``[cs, ce)`` cut down to one sentence when the quote itself crosses no sentence end:
    a replaced region the diff stretched over a neighbouring sentence is not the quote's
    place. The sentence overlapping ``near`` (the span's estimated place) most wins, then
    the one most like the quote."""
    if _SENTENCE_END.search(quote.strip()):
        return cs, ce
    cuts = [
        m.end() for m in _SENTENCE_END.finditer(text, cs, ce) if cs < m.start() and m.end() < ce
    ]
    if not cuts:
        return cs, ce
    bounds = [cs, *cuts, ce]
    pieces = [_trim(text, a, b) for a, b in zip(bounds, bounds[1:])]
    pieces = [p for p in pieces if p[0] < p[1] and _has_alnum(text[p[0] : p[1]])]
    if not pieces:
        return cs, ce

    def overlap(p: tuple[int, int]) -> int:
        return 0 if near is None else max(0, min(p[1], near[1]) - max(p[0], near[0]))

    return max(
        pieces, key=lambda p: (overlap(p), similarity(quote, text[p[0] : p[1]]), p[1] - p[0])
    )


def _without_context(
    text: str, rs: int, re_: int, quote: str, prefix: str, suffix: str
) -> tuple[int, int]:
    """The region ``[rs, re_)`` the diff put in a span's place, less any of the span's own
    surroundings the diff re-inserted there (it may delete "quote.This" and insert "This"):
    cut where the head of ``suffix`` (12 characters) last starts inside it, and after the
    first end of the tail of ``prefix`` inside it. A head or tail the quote itself contains
    says nothing about where the quote ends, and cuts nothing."""
    k = 12
    head = suffix[:k]
    if len(head.strip()) >= 4 and head not in quote:
        j = text.rfind(head, rs, re_ + len(head))
        if rs <= j < re_:
            re_ = j
    tail = prefix[-k:]
    if len(tail.strip()) >= 4 and tail not in quote and rs < re_:
        j = text.find(tail, max(0, rs - len(tail) + 1), re_)
        if j >= 0 and rs < j + len(tail) <= re_:
            rs = j + len(tail)
    return rs, max(rs, re_)


def _sentence_bounds(
    text: str,
    s: int,
    e: int,
    reach: int = FUZZY_WINDOW,
    end: BmpTwin | re.Pattern[str] = _SENTENCE_END,
) -> tuple[int, int]:
    """``[s, e)`` widened to the sentences it touches (at most ``reach`` characters each
    way). A span that ends with its sentence's full stop (and the spaces after it) ends
    that sentence: "会费必须在五月底之前支付。" or "Members must renew before May." is one
    sentence, never also the one after it (the end is looked for from where the stops and
    spaces the span ends with begin; a span of stops only is a mark inside its sentence).
    ``end`` as for :func:`sentence_ends_before`."""
    a = max(0, s - reach)
    ends = sentence_ends_before(text, a, s, end)
    a = ends[-1] if ends else a
    e = min(e, len(text))
    j = e
    while j > s and (text[j - 1] in _STOPS or text[j - 1].isspace()):
        j -= 1
    if j <= s:
        j = e  # a span of stops only ("..." -> "…") is a mark inside its sentence
    limit = min(len(text), e + reach)
    for m in end.finditer(text, j, max(j, limit)):
        if m.end() >= e and m.end() > s:
            return a, m.end()
    return a, limit
