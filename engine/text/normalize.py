"""Text normalisation for comparing anchored text, with an exact map back to raw offsets.

docs/verdicts.md, "Normalisation": for comparing only (offsets always index the raw
text), fold only what renders the same to a reader:

* Unicode canonical equivalence (NFC: a precomposed letter equals its decomposed form);
* whitespace runs, NBSP and the other Unicode spaces (``str.isspace``) collapsed to one
  space, and trimmed;
* soft hyphen U+00AD, zero-width space U+200B, word joiner U+2060 and BOM U+FEFF dropped
  (they do not show, or show only at a line break the reader's window chose);
* Latin ligature presentation forms U+FB00-FB06 and Arabic presentation forms
  (U+FB50-FDFF, U+FE70-FEFE) read as their letters (their NFKC decomposition).

Everything else a reader can see is a character of its own: superscripts and subscripts
(CO2 vs CO₂), full-width and half-width forms, the zero-width joiner U+200D and non-joiner
U+200C (they change how Persian, Arabic, Indic scripts and emoji sequences render), dashes
and symbols. An earlier version folded NFKC and dropped U+200C/U+200D, which hid such edits
(docs/verdicts.md).

``FoldedText`` folds a whole text once and keeps a segment map from folded indices back to
raw code-point indices, so a match found in folded text becomes a raw span. Text outside
the few characters that fold is copied by slices, so a megabyte folds in milliseconds.

``skeleton`` is the UTS #39 confusable skeleton (Unicode confusables data, via the
``confusable-homoglyphs`` package): two strings with the same skeleton look alike.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from functools import lru_cache

IGNORABLE = "\u00ad\u200b\u2060\ufeff"
"""Dropped when comparing: soft hyphen, zero-width space, word joiner, BOM. Not U+200C/U+200D."""
_IGNORABLE_RE = re.compile(f"[{IGNORABLE}]")
_WS_RE = re.compile(r"\s+")

PRESENTATION_RANGES = ((0xFB00, 0xFB06), (0xFB50, 0xFDFF), (0xFE70, 0xFEFE))
"""Latin ligatures and Arabic presentation forms, read as the letters they stand for."""


def _is_presentation(c: str) -> bool:
    o = ord(c)
    return any(a <= o <= b for a, b in PRESENTATION_RANGES)


@lru_cache(maxsize=4096)
def _fold_char(c: str) -> str:
    """The letters a presentation form stands for (NFKC); any other character as it is."""
    if _is_presentation(c):
        return unicodedata.normalize("NFKC", c)
    return c


def _fold_presentation(text: str) -> str:
    if not _PRESENTATION_RE.search(text):
        return text
    return _PRESENTATION_RE.sub(lambda m: _fold_char(m.group()), text)


_PRESENTATION_RE = re.compile(
    "[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in PRESENTATION_RANGES) + "]"
)


def normalize(text: str) -> str:
    """The comparison form of ``text``: NFC, presentation forms read as their letters,
    ignorables dropped, whitespace runs collapsed to one space, trimmed. (Composition
    happens before ignorables go, as in ``FoldedText``, so both agree character for
    character.) ASCII text is NFC, holds no presentation form nor ignorable, and its
    ``\\s`` is ``str.isspace``: its form is its words joined by one space (equal on every
    ASCII string, tests/engine/test_normalize_ascii.py)."""
    if text.isascii():
        return " ".join(text.split())
    text = unicodedata.normalize("NFC", _fold_presentation(unicodedata.normalize("NFC", text)))
    return _WS_RE.sub(" ", _IGNORABLE_RE.sub("", text)).strip()


def compact(text: str) -> str:
    """Like ``normalize`` with every whitespace character removed.

    For matching a quote captured from a rendered selection, where ``<br>`` or a block
    boundary shows as a space that ``textContent`` does not have (https://github.com/hypothesis/client/issues/3692).
    """
    return _WS_RE.sub("", normalize(text))


@lru_cache(maxsize=1)
def _composing_seconds() -> frozenset[str]:
    """Characters of combining class 0 that canonical composition joins to the character
    before them (Hangul vowels and finals, some Indic vowel signs). Scanned once from the
    Unicode database, only for text that is not already NFC. Hangul vowels and trailing
    consonants compose algorithmically (Unicode 3.12), so they are added by range."""
    out = {chr(c) for c in range(0x1161, 0x1176)} | {chr(c) for c in range(0x11A8, 0x11C3)}
    for c in range(0x80, 0x110000):
        if 0xD800 <= c <= 0xDFFF:
            continue
        d = unicodedata.decomposition(chr(c))
        if d and not d.startswith("<"):
            parts = d.split()
            if len(parts) == 2:
                second = chr(int(parts[1], 16))
                if not unicodedata.combining(second):
                    out.add(second)
    return frozenset(out)


def _special_re(raw: str, collapse_space: bool) -> re.Pattern[str]:
    """The pattern of what folds in ``raw``: whitespace/ignorable runs, and clusters (a
    character and the marks after it) whose NFC or presentation-form reading differs.

    Built from the characters ``raw`` actually holds, so text that is already NFC (nearly
    all text) only looks at presentation forms."""
    chars = {c for c in set(raw) if c > "\x7f"}
    fold = {c for c in chars if _is_presentation(c)}
    marks: set[str] = set()
    if chars and not unicodedata.is_normalized("NFC", raw):
        seconds = _composing_seconds()
        for c in chars:
            if unicodedata.combining(c) or c in seconds:
                marks.add(c)
            elif unicodedata.normalize("NFC", c) != c:
                fold.add(c)
    elif fold:  # NFC text: only a mark after a presentation form can compose anew
        marks = {c for c in chars if unicodedata.combining(c)}
    lone_space = rf"(?![ ](?![\s{IGNORABLE}]))" if collapse_space else ""
    ws = rf"(?P<ws>{lone_space}[\s{IGNORABLE}]+)"
    if not fold and not marks:
        return re.compile(ws)
    m = "[" + re.escape("".join(sorted(marks))) + "]" if marks else None
    f = "[" + re.escape("".join(sorted(fold))) + "]" if fold else None
    if m and f:
        ch = rf"(?:{f}|[^\s{IGNORABLE}](?={m})){m}*"
    elif m:
        ch = rf"[^\s{IGNORABLE}](?={m}){m}*"
    else:  # fold only: both empty returned above
        ch = f or ""
    return re.compile(rf"{ws}|(?P<ch>{ch})")


def find_starts(haystack: str, needle: str, limit: int) -> list[int]:
    """Start index of every occurrence of ``needle`` in ``haystack``, overlapping ones
    included, at most ``limit``; none for an empty needle."""
    out: list[int] = []
    if not needle:
        return out
    i = haystack.find(needle)
    while i >= 0 and len(out) < limit:
        out.append(i)
        i = haystack.find(needle, i + 1)
    return out


class FoldedText:
    """``text`` folded for matching, with a map back to raw code-point offsets.

    ``collapse_space=True``: whitespace runs (and ignorables) become one space, as in
    ``normalize`` (without trimming, so offsets stay aligned); ``False``: all whitespace
    is removed, as in ``compact``. ``folded`` is the folded string.
    """

    __slots__ = ("_exact", "_fstarts", "_rends", "_rstarts", "folded", "raw")

    def __init__(self, raw: str, *, collapse_space: bool = True):
        self.raw = raw
        parts: list[str] = []
        # Segments: folded start, raw start, raw end, and whether folded maps 1:1 to raw.
        fstarts: list[int] = []
        rstarts: list[int] = []
        rends: list[int] = []
        exact: list[bool] = []
        flen = 0
        pos = 0
        last_space = True  # collapse leading space too (trimmed form never starts with one)

        def emit(s: str, r0: int, r1: int, one_to_one: bool) -> None:
            nonlocal flen
            if not s:
                return
            parts.append(s)
            fstarts.append(flen)
            rstarts.append(r0)
            rends.append(r1)
            exact.append(one_to_one)
            flen += len(s)

        for m in _special_re(raw, collapse_space).finditer(raw):
            if m.start() > pos:
                emit(raw[pos : m.start()], pos, m.start(), True)
                last_space = raw[m.start() - 1] == " "
            if m.lastgroup == "ws":
                has_space = any(c not in IGNORABLE for c in m.group())
                if has_space and collapse_space and not last_space:
                    emit(" ", m.start(), m.end(), False)
                    last_space = True
            else:
                folded = unicodedata.normalize(
                    "NFC", _fold_presentation(unicodedata.normalize("NFC", m.group()))
                )
                if folded.isspace():  # a presentation form of a space-like mark
                    if collapse_space and not last_space:
                        emit(" ", m.start(), m.end(), False)
                        last_space = True
                else:
                    folded = _WS_RE.sub(" " if collapse_space else "", folded)
                    emit(folded, m.start(), m.end(), folded == m.group())
                    last_space = folded.endswith(" ")
            pos = m.end()
        if pos < len(raw):
            emit(raw[pos:], pos, len(raw), True)
        self.folded = "".join(parts)
        self._fstarts = fstarts
        self._rstarts = rstarts
        self._rends = rends
        self._exact = exact

    def raw_start(self, f: int) -> int:
        """Raw offset where folded character ``f`` begins (len(raw) past the end)."""
        if f >= len(self.folded):
            return len(self.raw)
        i = bisect.bisect_right(self._fstarts, f) - 1
        if self._exact[i]:
            return self._rstarts[i] + (f - self._fstarts[i])
        return self._rstarts[i]

    def raw_end(self, f: int) -> int:
        """Raw offset just after folded character ``f - 1`` (0 for f == 0)."""
        if f <= 0:
            return 0
        i = bisect.bisect_right(self._fstarts, f - 1) - 1
        if self._exact[i]:
            return self._rstarts[i] + (f - self._fstarts[i])
        return self._rends[i]

    def folded_pos(self, r: int) -> int:
        """Folded index of the segment holding raw offset ``r`` (the nearest one for a raw
        character that folded away); ``len(folded)`` past the end."""
        if r >= len(self.raw):
            return len(self.folded)
        i = bisect.bisect_right(self._rstarts, r) - 1
        if i < 0:
            return 0
        if self._exact[i] and r < self._rends[i]:
            return self._fstarts[i] + (r - self._rstarts[i])
        return self._fstarts[i]

    def raw_span(self, f0: int, f1: int) -> tuple[int, int]:
        """The raw code-point span covering folded ``[f0, f1)``."""
        return self.raw_start(f0), self.raw_end(f1)

    def find_all(self, needle: str, limit: int = 10_000) -> list[tuple[int, int]]:
        """Raw spans of every occurrence of the already-folded ``needle`` (at most ``limit``)."""
        n = len(needle)
        return [self.raw_span(i, i + n) for i in find_starts(self.folded, needle, limit)]


def fold_needle(s: str, *, collapse_space: bool = True) -> str:
    """Fold a quote for searching a FoldedText built with the same ``collapse_space``."""
    return FoldedText(s, collapse_space=collapse_space).folded.strip()


# -- look-alike characters (UTS #39) ------------------------------------------------------

_BIDI_MARKS = "\u200e\u200f"


def _package_json(name: str) -> dict:
    """One of the data files confusable-homoglyphs ships, read directly (its own loader
    imports urllib for a download we never do)."""
    import json
    from importlib import resources

    return json.loads(resources.files("confusable_homoglyphs").joinpath(name).read_text("utf-8"))


@lru_cache(maxsize=1)
def _confusable_classes() -> dict[str, str]:
    """Each character of Unicode's confusables data mapped to one representative of its
    class (characters sharing a UTS #39 prototype). Single characters only: a look-alike
    edit here is a substitution. Loaded once, lazily (about 1 MB of JSON)."""
    data = _package_json("confusables.json")
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for key, homoglyphs in data.items():
        k = key.strip(_BIDI_MARKS)
        if len(k) != 1:
            continue
        for h in homoglyphs:
            c = h["c"].strip(_BIDI_MARKS)
            if len(c) == 1:
                ra, rb = find(k), find(c)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    return {c: find(c) for c in parent}


@lru_cache(maxsize=1)
def _script_ranges() -> tuple[list[int], list[tuple[int, str]]]:
    data = _package_json("categories.json")
    aliases = data["iso_15924_aliases"]
    ranges = data["code_points_ranges"]
    return [r[0] for r in ranges], [(r[1], aliases[r[2]]) for r in ranges]


def _script(c: str) -> str:
    """The character's script (the package's table of Unicode Scripts.txt aliases:
    LATIN, CYRILLIC, COMMON...), UNKNOWN when unlisted."""
    starts, rest = _script_ranges()
    o = ord(c)
    i = bisect.bisect_right(starts, o) - 1
    if i < 0 or o > rest[i][0]:
        return "UNKNOWN"
    return rest[i][1]


def _name_script(c: str) -> str:
    """First word of the character's Unicode name (LATIN, CYRILLIC, CJK...): a cheap guess
    of its script, to refuse same-script pairs before any data is loaded."""
    return unicodedata.name(c, "?").split(" ", 1)[0]


def lookalike_only(a: str, b: str) -> bool:
    """``b`` differs from ``a`` (after ``normalize``) only by letters swapped for look-alike
    letters of another script: Cyrillic "а" for Latin "a", Greek "ο" for Latin "o"
    (Unicode UTS #39 confusables). A reader cannot see such an edit.

    Substitutions within one script or with script-neutral characters (digit 0 for letter
    O, full-width for half-width forms, bold mathematical letters) are visible and do not
    count. False when the texts are equal or differ in length.
    """
    na, nb = normalize(a), normalize(b)
    if na == nb or len(na) != len(nb):
        return False
    pairs = [(x, y) for x, y in zip(na, nb) if x != y]
    # Cheap refusal before loading the data: only letters swapped across scripts can count.
    if not all(
        x.isalpha()
        and y.isalpha()
        and not (x.isascii() and y.isascii())
        and _name_script(x) != _name_script(y)
        for x, y in pairs
    ):
        return False
    classes = _confusable_classes()
    for x, y in pairs:
        cx, cy = classes.get(x), classes.get(y)
        if cx is None or cx != cy:
            return False
        sx, sy = _script(x), _script(y)
        if sx == sy or "COMMON" in (sx, sy) or "UNKNOWN" in (sx, sy):
            return False
    return True
