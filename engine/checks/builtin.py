"""The built-in checks that read the versions' text and markup: placeholders, links,
sections, length (docs/checks.md, "The checks"). Numbers and dates are in
``engine.checks.numbers``, commands in ``engine.checks.command``.

Each check is a function of the reviewed and revised versions and the commented spans,
returning a ``Finding`` (status, summary, output, findings). Offsets are code points into
``Version.text``. The rule shared by every comparison: an item of the reviewed version
that lies in a commented passage (a comment's v1 span) is exempt, since the comment asked
for that passage to change.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field

import regex
from rapidfuzz.distance import Indel

from engine.score.scoring import Version
from engine.text.sentence_stops import SENTENCE_TERMINATORS
from engine.vocabulary import CheckStatus, percent, plural

PATTERN_TIMEOUT_S = 2.0
"""A placeholder pattern's search of one version stops after this long (UNVERIFIED)."""
MAX_MATCHES = 10_000
"""At most this many matches of one pattern are counted."""
SHOWN_ITEMS = 50
"""A FAIL's output lists at most this many items, then says how many more."""
_SENTENCE_END = regex.compile(f"[{regex.escape(SENTENCE_TERMINATORS)}\n]")
"""A full stop of any script (``SENTENCE_TERMINATORS``) or a line break."""
_CONTEXT = 160


@dataclass
class Finding:
    """What one check found on one version: ``findings`` are the items compared with the
    reviewed version's (to tell a failure already there)."""

    status: CheckStatus
    summary: str
    output: str = ""
    findings: list[str] = field(default_factory=list)
    exit_code: int | None = None
    """A command's exit status (None: not a command, or it did not finish)."""


NOT_ON_REVIEWED = Finding(
    "na", "compares the revised version with this one: nothing to check on it alone"
)


class SpanSet:
    """Commented spans (code points), merged, for "does this range touch a comment"."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for s, e in sorted(spans):
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        self.starts = [m[0] for m in merged]
        self.ends = [m[1] for m in merged]

    def touches(self, s: int, e: int) -> bool:
        """``[s, e)`` overlaps a span (an empty range: lies inside one). The spans are
        disjoint and sorted, so only the last one starting at or before the range's last
        character can overlap it."""
        i = bisect_right(self.starts, e - 1 if e > s else s) - 1
        return i >= 0 and self.ends[i] > s


def sentence_at(text: str, s: int, e: int) -> str:
    """The sentence around ``text[s:e]`` (ends at ``.!?``, their CJK/Arabic/Indic
    forms, or a line break), at most ``_CONTEXT`` characters a side, spaces collapsed."""
    lo = max(0, s - _CONTEXT)
    starts = [m.end() for m in _SENTENCE_END.finditer(text, lo, s)]
    a = starts[-1] if starts else lo
    m = _SENTENCE_END.search(text, e, min(len(text), e + _CONTEXT))
    b = m.end() if m else min(len(text), e + _CONTEXT)
    piece = " ".join(text[a:b].split())
    prefix = "…" if not starts and lo > 0 else ""
    suffix = "…" if m is None and b < len(text) else ""
    return f"{prefix}{piece}{suffix}"


def _listing(lines: list[str]) -> str:
    shown = lines[:SHOWN_ITEMS]
    if len(lines) > SHOWN_ITEMS:
        shown.append(f"... and {len(lines) - SHOWN_ITEMS} more")
    return "\n".join(shown)


def _quoted(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return f'"{text if len(text) <= limit else text[: limit - 1] + "…"}"'


# -- placeholders ---------------------------------------------------------------------------


def find_placeholders(
    text: str, patterns: tuple[tuple[str, str], ...]
) -> list[tuple[int, int, str]]:
    """Every match of the patterns in ``text``: ``(start, end, matched text)`` in text
    order, a region matched by two patterns counted once. Raises TimeoutError when a
    pattern runs over ``PATTERN_TIMEOUT_S``."""
    seen: dict[tuple[int, int], str] = {}
    for _name, pattern in patterns:
        for n, m in enumerate(regex.finditer(pattern, text, timeout=PATTERN_TIMEOUT_S)):
            if n >= MAX_MATCHES:
                break
            if m.end() > m.start():
                seen.setdefault((m.start(), m.end()), m.group())
    return sorted((s, e, t) for (s, e), t in seen.items())


def placeholders(
    v1: Version, v2: Version, patterns: tuple[tuple[str, str], ...], strict: bool, spans1: SpanSet
) -> tuple[Finding, Finding]:
    """Placeholders kept (the reviewed version's result, the revised one's): FAIL lists
    each placeholder of the reviewed version that the revised one lost (outside commented
    passages); in strict mode, each placeholder left in a version."""
    try:
        found1 = find_placeholders(v1.text, patterns)
        found2 = find_placeholders(v2.text, patterns)
    except TimeoutError:
        why = f"a placeholder pattern ran longer than {PATTERN_TIMEOUT_S:g} s and was stopped"
        return Finding("unverified", why), Finding("unverified", why)
    if strict:
        return _left(v1, found1), _left(v2, found2)
    kept = [(s, e, t) for s, e, t in found1 if not spans1.touches(s, e)]
    lost = Counter(t for _, _, t in kept) - Counter(t for _, _, t in found2)
    if not lost:
        n = len(found1)
        said = f"every placeholder kept ({n})" if n else "no placeholder in the reviewed version"
        return NOT_ON_REVIEWED, Finding("pass", said)
    lines = []
    for s, e, t in kept:
        if lost[t] > 0:
            lost[t] -= 1
            lines.append(f"lost {_quoted(t)} from: {sentence_at(v1.text, s, e)}")
    summary = f"{plural(len(lines), 'placeholder')} of the reviewed version lost"
    return NOT_ON_REVIEWED, Finding(
        "fail", summary, _listing(lines), [t for _, _, t in kept if t in lost]
    )


def _left(v: Version, found: list[tuple[int, int, str]]) -> Finding:
    if not found:
        return Finding("pass", "no placeholder left")
    lines = [f"{_quoted(t)} in: {sentence_at(v.text, s, e)}" for s, e, t in found]
    return Finding(
        "fail", f"{plural(len(found), 'placeholder')} left", _listing(lines), [t for *_, t in found]
    )


# -- links ----------------------------------------------------------------------------------


def links_of(v: Version) -> list[tuple[str, int, int]] | None:
    """The links of a version with markup (HTML, or Markdown as it renders): ``(href,
    start, end)`` of every ``<a>``/``<area>`` with an ``href`` (its value with ASCII
    whitespace trimmed, as URL parsing does), in tree order; None for plain text."""
    if v._extraction is None:
        return None
    out = []
    for _tag, attrs, s, e in v._extraction.elements(frozenset({"a", "area"})):
        href = attrs.get("href")
        if href is not None:
            out.append((href.strip(" \t\n\r\f"), s, e))
    return out


def links(v1: Version, v2: Version, spans1: SpanSet) -> tuple[Finding, Finding]:
    """Links kept: every link of the reviewed version (by its address) still in the
    revised one, unless it lies in a commented passage. N/A for plain text."""
    l1, l2 = links_of(v1), links_of(v2)
    if l1 is None or l2 is None:
        na = Finding("na", "plain text has no links")
        return na, na
    kept = [(h, s, e) for h, s, e in l1 if not spans1.touches(s, e)]
    lost = Counter(h for h, _, _ in kept) - Counter(h for h, _, _ in l2)
    if not lost:
        said = f"every link kept ({len(l1)})" if l1 else "no link in the reviewed version"
        return NOT_ON_REVIEWED, Finding("pass", said)
    lines, items = [], []
    for h, s, e in kept:
        if lost[h] > 0:
            lost[h] -= 1
            text = v1.text[s:e]
            lines.append(f"lost link {_quoted(text) if text.strip() else '(no text)'} -> {h[:300]}")
            items.append(h)
    summary = f"{plural(len(lines), 'link')} of the reviewed version lost"
    return NOT_ON_REVIEWED, Finding("fail", summary, _listing(lines), items)


# -- sections -------------------------------------------------------------------------------

_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_NUMBERING = regex.compile(r"^(?:(?:\d+|[IVXLCDM]+|[ivxlcdm]+|[A-Za-z])[.)]\s*)+|^§\s*")


def heading_key(text: str) -> str:
    """A heading's comparison form: NFKC, case folded, spaces collapsed, leading section
    numbering ("2.", "IV.", "a)", "§") and punctuation at either end removed (a heading
    that is nothing but a number keeps it)."""
    t = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    bare = _NUMBERING.sub("", t).strip(" .,:;!?-–—'\"()[]«»“”‘’")
    return bare or t  # a heading that is only a number ("IV.") keeps it


def headings_of(v: Version) -> list[tuple[str, int, int]] | None:
    """``(text, start, end)`` of every ``<h1>``-``<h6>`` with text of a version with
    markup (HTML, or Markdown as it renders: ``# Title``); None for plain text."""
    if v._extraction is None:
        return None
    return [
        (v.text[s:e], s, e)
        for _tag, _a, s, e in v._extraction.elements(_HEADINGS)
        if v.text[s:e].strip()
    ]


def sections(
    v1: Version, v2: Version, spans1: SpanSet, similarity: float
) -> tuple[Finding, Finding]:
    """Sections kept: every heading of the reviewed version still a heading of the revised
    one. The near-match rule: equal comparison forms (``heading_key``) match first; then a
    heading left over matches the unused revised heading most like it when their Indel
    similarity (rapidfuzz, of the comparison forms) is at least ``similarity``. Each
    revised heading matches one reviewed heading at most; the level may change."""
    h1, h2 = headings_of(v1), headings_of(v2)
    if h1 is None or h2 is None:
        na = Finding("na", "no headings (plain text)")
        return na, na
    if not h1:
        na = Finding("na", "no headings in the reviewed version")
        return na, na
    wanted = [(t, s, e) for t, s, e in h1 if not spans1.touches(s, e)]
    unused = Counter(heading_key(t) for t, _, _ in h2)
    missing, renamed = [], []
    for t, _s, _e in wanted:
        k = heading_key(t)
        if unused[k] > 0:
            unused[k] -= 1
        else:
            missing.append(t)
    still = []
    for t in missing:
        k = heading_key(t)
        best = max(
            (c for c in unused if unused[c] > 0),
            key=lambda c: Indel.normalized_similarity(k, c),
            default=None,
        )
        if best is not None and Indel.normalized_similarity(k, best) >= similarity:
            unused[best] -= 1
            renamed.append(f"{_quoted(t)} kept as {_quoted(best)}")
        else:
            still.append(t)
    if not still:
        said = f"every section kept ({len(h1)})"
        if renamed:
            said += f", {plural(len(renamed), 'near-match')}"
        return NOT_ON_REVIEWED, Finding("pass", said, _listing(renamed))
    lines = [f"missing section {_quoted(t)}" for t in still]
    summary = f"{plural(len(still), 'section')} of the reviewed version missing"
    return NOT_ON_REVIEWED, Finding("fail", summary, _listing(lines + renamed), still)


# -- length ---------------------------------------------------------------------------------


def text_length(text: str) -> int:
    """Characters (code points) of a text, whitespace not counted."""
    return sum(1 for c in text if not c.isspace())


def length(v1: Version, v2: Version, max_drop: float) -> tuple[Finding, Finding]:
    """The revised text at least ``1 - max_drop`` of the reviewed one (characters, spaces
    not counted)."""
    n1, n2 = text_length(v1.text), text_length(v2.text)
    if n1 == 0:
        return NOT_ON_REVIEWED, Finding("na", "the reviewed version has no text to compare with")
    drop = 1 - n2 / n1
    figures = f"{n1:,} -> {n2:,} characters, spaces not counted; the limit is {percent(max_drop)}"
    if drop > max_drop:
        said = f"the revised version is {percent(drop)} shorter"
        return NOT_ON_REVIEWED, Finding("fail", said, f"{said} ({figures})", [said])
    how = f"{percent(drop)} shorter" if drop > 0 else ("longer" if drop < 0 else "the same length")
    return NOT_ON_REVIEWED, Finding("pass", f"the revised version is {how} ({figures})")
