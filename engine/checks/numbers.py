"""Numbers and dates changed outside every comment (docs/checks.md).

The engine's diff (``TextDiff.changes()``) says which regions changed. A *number token*
is a run of decimal digits of any script (Unicode ``Nd``: Arabic-Indic, Devanagari, Thai,
fullwidth...; superscript and subscript digits too, so "CO2" -> "CO₂" compares equal) with its grouping and decimal marks (``1,234.5``, ``1 234``), a currency
sign before it, a sign where it does not follow a letter or digit ("10-20" is two numbers),
and a per cent sign after it; a *date token* is an ISO or numeric date
(``2024-05-01``, ``01/05/2024``) or an English month name with a day or a year
(``5 May 2024``, ``May 5, 2024``, ``March 2023``). Numbers written in words ("twelve",
``十二``) are not tokens.

For each group of changes (changes sharing a token are one group), the tokens the changes
touch on each side are compared as multisets of their comparison form (NFKC, spaces
removed): what the reviewed side had and the revised side lacks was *removed* or
*became* something else, and what the revised side adds was *added*. A token inside a
commented passage (a comment's v1 span on the reviewed side, its v2 span on the revised
side) is exempt, and so is a whole group whose reviewed side lies within commented
passages; a token of a passage the diff found moved is not a change.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_left, bisect_right
from collections import Counter

import regex

from engine.checks.builtin import NOT_ON_REVIEWED, SHOWN_ITEMS, Finding, SpanSet, sentence_at
from engine.diff.diffing import TextDiff
from engine.score.scoring import Version
from engine.vocabulary import plural

_MONTH = (
    r"(?i:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)(?![\p{L}])\.?"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?(?![\p{L}\p{Nd}])"
_DIGIT = r"[\p{Nd}⁰¹²³⁴-⁹₀-₉]"
TOKEN = regex.compile(
    rf"(?<![\p{{L}}\p{{Nd}}])(?:"
    rf"\d{{4}}-\d{{1,2}}-\d{{1,2}}"  # ISO date
    rf"|\d{{1,2}}[/.]\d{{1,2}}[/.]\d{{2,4}}(?!\d)"  # numeric date
    rf"|{_DAY}\s+{_MONTH}(?:,?\s+\d{{4}})?(?![\p{{L}}])"  # 5 May 2024
    rf"|{_MONTH}\s+{_DAY}(?:,?\s+\d{{4}})?(?![\p{{L}}])"  # May 5, 2024
    rf"|{_MONTH},?\s+\d{{4}}"  # March 2023
    rf")|(?:(?<![\p{{L}}\p{{N}}])[-+−])?[$€£¥₹]?{_DIGIT}+"
    rf"(?:[.,'\u00a0\u202f\u066b\u066c]{_DIGIT}+)*(?:\s?[%‰])?"
)
"""A number or date token (see the module docstring); ``\\d`` is every ``Nd`` digit."""
_UNIT_END = regex.compile(r"\s")


_ANY_DIGIT = regex.compile(_DIGIT)
_BACK = 40
"""Characters before a digit where a token holding it may start ("September 12th")."""


def tokens(text: str) -> list[tuple[int, int, str]]:
    """Every number and date token of ``text``: ``(start, end, comparison form)``.

    Every token holds a digit, so ``TOKEN`` is tried only from ``_BACK`` characters before
    each digit the scan finds (the same tokens as ``TOKEN.finditer``, unless a date's month
    name stands more than 40 characters before its first digit; 3 MB of text with few
    numbers: 0.2 s instead of 1.5 s)."""
    out = []
    pos, n = 0, len(text)
    while pos < n:
        d = _ANY_DIGIT.search(text, pos)
        if d is None:
            break
        m = TOKEN.search(text, max(pos, d.start() - _BACK))
        if m is None:
            break
        form = _UNIT_END.sub("", unicodedata.normalize("NFKC", m.group())).casefold()
        out.append((m.start(), m.end(), form))
        pos = max(m.end(), m.start() + 1)
    return out


def _touched(toks: list[tuple[int, int, str]], starts: list[int], lo: int, hi: int) -> list[int]:
    """Indices of the tokens a change ``[lo, hi)`` touches: overlapping it or meeting its
    edge (``start <= hi`` and ``end >= lo``). The same closed rule on both sides, so a
    change that only adds spaces before "4th" touches "4" on both sides and cancels out,
    while "100" -> "1000" (a "0" inserted at its end) reads as a change."""
    i = max(0, bisect_left(starts, lo) - 1)
    while i > 0 and toks[i - 1][1] >= lo:
        i -= 1
    out = []
    while i < len(toks) and toks[i][0] <= hi:
        if toks[i][1] >= lo:
            out.append(i)
        i += 1
    return out


def numbers(
    v1: Version, v2: Version, diff: TextDiff, spans1: SpanSet, spans2: SpanSet
) -> tuple[Finding, Finding]:
    """Numbers and dates changed outside every comment: FAIL lists each, with its
    sentence (see the module docstring)."""
    t1, t2 = tokens(v1.text), tokens(v2.text)
    s1, s2 = [t[0] for t in t1], [t[0] for t in t2]
    groups: list[tuple[set[int], set[int], int, int, int, int]] = []
    for c in diff.changes():
        i1 = set(_touched(t1, s1, c.a0, c.a1))
        i2 = set(_touched(t2, s2, c.b0, c.b1))
        if not i1 and not i2:
            continue
        if groups and (groups[-1][0] & i1 or groups[-1][1] & i2):
            g1, g2, a0, _a1, b0, _b1 = groups.pop()
            groups.append((g1 | i1, g2 | i2, a0, c.a1, b0, c.b1))
        else:
            groups.append((i1, i2, c.a0, c.a1, c.b0, c.b1))
    lines: list[str] = []
    items: list[str] = []
    for g1, g2, a0, a1, b0, b1 in groups:
        if a1 > a0 and _within(spans1, a0, a1):
            continue
        one = [t1[i] for i in sorted(g1) if not diff.moved_to(t1[i][0], t1[i][1])]
        two = [t2[i] for i in sorted(g2) if not diff.moved_from(t2[i][0], t2[i][1])]
        free1 = Counter(f for s, e, f in one if not spans1.touches(s, e))
        free2 = Counter(f for s, e, f in two if not spans2.touches(s, e))
        lost = free1 - Counter(f for *_, f in two)
        added = free2 - Counter(f for *_, f in one)
        if not lost and not added:
            continue
        lost_t, added_t = _pick(one, v1.text, lost), _pick(two, v2.text, added)
        lines.append(_line(v1, v2, lost_t, added_t, a0, a1, b0, b1))
        items.append(f"{' '.join(lost_t) or '(none)'} -> {' '.join(added_t) or '(none)'}")
    if not lines:
        said = "no number or date changed outside the comments"
        return NOT_ON_REVIEWED, Finding("pass", said)
    shown = lines[:SHOWN_ITEMS] + (
        [f"... and {len(lines) - SHOWN_ITEMS} more"] if len(lines) > SHOWN_ITEMS else []
    )
    summary = f"{plural(len(lines), 'number or date change', 'number or date changes')} outside every comment"
    return NOT_ON_REVIEWED, Finding("fail", summary, "\n".join(shown), items)


def _pick(toks: list[tuple[int, int, str]], text: str, want: Counter[str]) -> list[str]:
    """The texts of the first tokens of each comparison form, as many as ``want`` says."""
    left, out = Counter(want), []
    for s, e, f in toks:
        if left[f] > 0:
            left[f] -= 1
            out.append(text[s:e])
    return out


def _within(spans: SpanSet, a0: int, a1: int) -> bool:
    """Every character of ``[a0, a1)`` lies in a commented span."""
    i = bisect_right(spans.starts, a0) - 1
    return i >= 0 and spans.ends[i] >= a1


def _line(
    v1: Version, v2: Version, lost: list[str], added: list[str], a0: int, a1: int, b0: int, b1: int
) -> str:
    def q(xs: list[str]) -> str:
        return ", ".join(f'"{x}"' for x in xs)

    if lost and added:
        return f"{q(lost)} became {q(added)} in: {sentence_at(v2.text, b0, b1)}"
    if lost:
        return f"{q(lost)} removed from: {sentence_at(v1.text, a0, a1)}"
    return f"{q(added)} added in: {sentence_at(v2.text, b0, b1)}"
