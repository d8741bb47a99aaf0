"""The diff's units: sentence chunks and word tokens, and their codes (engine.diff.diffing).

``split_sentences`` cuts a text into sentence chunks (the diff's coarse unit) and
``word_tokens`` into words at Unicode default word boundaries (its fine unit);
``_TokenCodec`` and ``_encode_chunks`` turn each distinct token into one code character,
so token sequences compare as strings. The algorithm that uses them is described in
:mod:`engine.diff.diffing`.
"""

from __future__ import annotations

import functools
import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate, chain, filterfalse, pairwise
from typing import Any

from engine.text.bmp_twin import BmpTwin
from engine.text.sentence_stops import SENTENCE_TERMINATORS
from engine.text.utf16 import ASTRAL, has_astral

OFFSETS = "i"
"""Typecode of the diff's arrays of offsets and lengths (code points, op and chunk
indices): 32 bits, half of ``"q"``'s memory. A version is at most 100 MB
(``engine.safe_zip.MAX_FILE_BYTES``), far below 2**31; a value past it raises
OverflowError, it never wraps."""

_CLOSERS = "\"'”’»)]}」』）］｝〉》】〕"
_C = re.escape(_CLOSERS)


def _chunk_source(keep: Callable[[str], str]) -> str:
    """The source of ``_CHUNK_RE``, the terminators passed through ``keep``
    (engine.text.bmp_twin)."""
    t = re.escape(keep(SENTENCE_TERMINATORS))
    return rf"[^\n{t}]*(?:[{t}]+[{_C}]*[ \t\u3000]*\n?|\n)|[^\n{t}]+"


_CHUNK_RE = BmpTwin(_chunk_source)
"""One sentence chunk: up to a run of terminators, the closing marks and spaces after it
and one line break, or up to a line break. A ``BmpTwin``: the terminators above U+FFFF
cost every other character of the text a walk of 85 items in ``re`` (12 MB/s against
220 MB/s without them). Every line break ends a chunk, so a text's chunks are its lines'
chunks, one after another (``_chunks``)."""


def _chunks(text: str, s: int = 0, e: int | None = None) -> list[str]:
    """``_CHUNK_RE.findall(text, s, e)``, cut at the line breaks around the characters above
    U+FFFF: the lines that hold one (and the lines between two such lines fewer than
    ``_NEAR`` characters apart) are read by the pattern as written, the text between them
    by its BMP twin, so an emoji or a CJK extension B ideograph slows its own lines alone,
    not the whole text; a text dense with them costs a few steps per ``_NEAR`` characters,
    not one per line (tests/engine/test_bmp_twin.py)."""
    end = len(text) if e is None else min(e, len(text))
    if not has_astral(text, s, end):
        return _CHUNK_RE.bmp.findall(text, s, end)
    out: list[str] = []
    pos = max(0, s)  # as ``re`` reads a negative start; ``rfind`` would count from the end
    while pos < end:
        m = ASTRAL.search(text, pos, end)
        if m is None:
            break
        i = text.rfind("\n", pos, m.start())
        a = pos if i < 0 else i + 1
        b = _line_end(text, m.start(), end)
        while b < end and has_astral(text, b, min(b + _NEAR, end)):
            b = _line_end(text, min(b + _NEAR, end) - 1, end)
        out += _CHUNK_RE.bmp.findall(text, pos, a)
        out += _CHUNK_RE.full.findall(text, a, b)
        pos = b
    out += _CHUNK_RE.bmp.findall(text, pos, end)
    return out


_NEAR = 2048
"""Characters: lines with a character above U+FFFF closer than this are read as one run by
``_chunks``."""


def _line_end(text: str, i: int, end: int) -> int:
    """Just past the first line break at or after ``i`` and before ``end``, else ``end``."""
    j = text.find("\n", i, end)
    return end if j < 0 else j + 1


# -- tokens ------------------------------------------------------------------------------

# UAX #29 word boundaries restricted to ASCII: letters, digits and "_" join (WB5, WB8-10,
# WB13a-b), "." ":" and "'" join letters (WB6-7), "." "," ";" and "'" join digits
# (WB11-12), spaces join (WB3d), CR LF is one unit (WB3), everything else stands alone.
# Equal to the regex module's WORD-flag boundaries on ASCII text (tests/engine/
# test_diffing.py checks it), and five times faster; used when a text is all ASCII.
# Written for speed, the same tokens as the plain form ``[A-Za-z0-9_]+(?:(?:(?<=[A-Za-z])
# [:.'](?=[A-Za-z])|(?<=[0-9])[.,;'](?=[0-9]))[A-Za-z0-9_]+)*| +|\r\n|[\s\S]``: the runs are
# possessive (what follows a run always matches, so no path gives characters back), and
# the look-ahead before the joins, a joining character then a letter or digit, is one
# that every join needs, so most runs (followed by a space) fail it at once, not at the
# two look-behinds (tests/engine/test_diff_fast_paths.py checks the two forms agree).
_ASCII_WORD_RE = re.compile(
    r"[A-Za-z0-9_]++(?:(?=[:.',;][A-Za-z0-9])"
    r"(?:(?<=[A-Za-z])[:.'](?=[A-Za-z])|(?<=[0-9])[.,;'](?=[0-9]))[A-Za-z0-9_]++)*+"
    r"| ++|\r\n|[\s\S]"
)
# The same rules over ASCII and the common non-ASCII characters of European text, whose
# word-break classes (Unicode's WordBreakProperty.txt) are simple: letters of Latin-1,
# Latin Extended-A/B, Greek and Cyrillic are ALetter; U+2018, U+2019 (curly apostrophe)
# and U+2024 are MidNumLet, like "." and "'"; U+00B7 and U+2027 are MidLetter, like ":";
# the rest listed (Latin-1 symbols, dashes, curly double quotes, ellipsis, primes,
# currency signs, arrows) are Other and stand alone. A text with any other non-ASCII
# character takes the regex module (tests/engine/test_diffing.py checks the two agree),
# so most texts never load it.
_EU_LETTERS = (
    "\u00aa\u00b5\u00ba\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
    "\u0386\u0388-\u038a\u038c\u038e-\u03a1\u03a3-\u03f5\u03f7-\u03ff"
    "\u0400-\u0481\u048a-\u052f"
)
_EU_OTHER = (
    "\u00a0-\u00a9\u00ab\u00ac\u00ae-\u00b4\u00b6\u00b9\u00bb-\u00bf\u00d7\u00f7"
    "\u2010-\u2017\u201a-\u2023\u2025\u2026\u2030-\u203e\u20a0-\u20c0\u2122\u2190-\u21ff"
)
_L = f"A-Za-z{_EU_LETTERS}"


@functools.cache
def _eu_res() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(a character outside the European fast path, the path's word pattern), compiled on
    first use: ASCII text, most of what is scored, needs neither (about 1 ms of start-up)."""
    eu_word = re.compile(  # possessive, a join's look-ahead first, as _ASCII_WORD_RE
        rf"[{_L}0-9_]++(?:(?=[:.',;\u00b7\u2018\u2019\u2024\u2027][{_L}0-9])"
        rf"(?:(?<=[{_L}])[:.'\u00b7\u2018\u2019\u2024\u2027](?=[{_L}])"
        rf"|(?<=[0-9])[.,;'\u2018\u2019\u2024](?=[0-9]))[{_L}0-9_]++)*+"
        r"| ++|\r\n|[\s\S]"
    )
    not_eu = re.compile(rf"[^\x00-\x7f{_EU_LETTERS}{_EU_OTHER}\u00b7\u2018\u2019\u2024\u2027]")
    return not_eu, eu_word


_uax29 = None


def _uax29_re() -> Any:
    global _uax29
    if _uax29 is None:
        import regex  # lazy: only texts with non-ASCII characters need it

        _uax29 = regex.compile(r"\b", flags=regex.WORD | regex.V1)
    return _uax29


def word_tokens(text: str) -> list[str]:
    """``text`` cut at Unicode default word boundaries (UAX #29); the pieces join to it.

    Each CJK ideograph, kana of hiragana, and letter of Thai, Lao, Khmer and Myanmar is a
    unit of its own (UAX #29 leaves dictionary word breaks to tailorings); a letter keeps its
    combining marks, an emoji its modifiers and ZWJ sequence, a flag its two regional
    indicators; ``can't``, ``3.14`` and ``1,000`` are one unit each. Source: the ``regex``
    module's WORD flag (Unicode default word boundaries), with equal fast paths (stdlib
    ``re``) for ASCII text and for text whose non-ASCII characters are common European
    letters and punctuation (``_eu_res``).
    """
    if text.isascii():
        return _ASCII_WORD_RE.findall(text)
    not_eu, eu_word = _eu_res()
    if not not_eu.search(text):
        return eu_word.findall(text)
    return [t for t in _uax29_re().split(text) if t]


def glued_breaks(text: str, breaks: Sequence[int] | None) -> array:
    """The block breaks of ``text`` that no character separates, sorted (code points): a
    non-space character on each side, as ``textContent`` joins "staff" ending one
    paragraph and "From:" beginning the next into "staffFrom:". The diff's sentence
    chunks and word tokens end at each of them, so no unit runs from one block into the
    next (docs/verdicts.md, "Blocks and words"). ``breaks``: sorted block edges
    (``Version.block_breaks``), None for plain text, whose blocks are lines."""
    if not breaks:
        return array(OFFSETS)
    n = len(text)
    return array(
        "q",
        [i for i in breaks if 0 < i < n and not text[i - 1].isspace() and not text[i].isspace()],
    )


def cuts_inside(cuts: Sequence[int], x0: int, x1: int) -> Sequence[int]:
    """The cuts strictly inside ``(x0, x1)`` (``cuts`` sorted)."""
    return cuts[bisect_right(cuts, x0) : bisect_left(cuts, x1)] if cuts else ()


def word_tokens_cut(text: str, cuts: Sequence[int] = ()) -> list[str]:
    """``word_tokens`` of ``text`` with a token boundary at every position of ``cuts``
    (sorted, strictly inside the text); the pieces join to it."""
    if not cuts:
        return word_tokens(text)
    out: list[str] = []
    for s, e in pairwise([0, *cuts, len(text)]):
        out += word_tokens(text[s:e])
    return out


def split_sentences(text: str) -> list[str]:
    """``text`` cut into sentence chunks (the diff's coarse unit); the chunks join to it.

    A chunk ends after a run of ``SENTENCE_TERMINATORS`` (with closing quotes or brackets
    and the spaces after it, and one newline), or at a newline.
    """
    return _chunks(text)


def _code_points(n0: int, k: int) -> Iterator[int]:
    """The code points of the ``k`` codes after the first ``n0``: code ``n`` is the
    character ``n`` below U+D800 and ``n + 0x800`` from there on (the surrogate block
    skipped)."""
    return chain(range(n0, min(n0 + k, 0xD800)), range(max(n0, 0xD800) + 0x800, n0 + k + 0x800))


class _TokenCodec(dict):
    """Tokens as single characters, so token sequences compare as strings (the idea of
    diff-match-patch's ``diff_linesToChars``, for any tokeniser). Codes skip the surrogate
    block, whose code points are not valid characters.

    The codec is its own table (token -> code): a token looked up for the first time gets
    the next code in ``__missing__``, so ``encode`` is one C-level pass over the tokens and
    new tokens are coded in order of appearance. ``tokens``: the tokens by code number;
    ``blank``: the codes of whitespace-only tokens."""

    __slots__ = ("blank", "tokens")

    def __init__(self) -> None:
        super().__init__()
        self.tokens: list[str] = []
        self.blank: set[str] = set()

    def __missing__(self, token: str) -> str:
        n = len(self.tokens)
        code = self[token] = chr(n if n < 0xD800 else n + 0x800)
        self.tokens.append(token)
        if token.isspace():
            self.blank.add(code)
        return code

    def encode(self, tokens: list[str]) -> str:
        """The codes of ``tokens``, one character each, joined."""
        return "".join(map(self.__getitem__, tokens))


def _encode_chunks(
    text: str, x0: int, x1: int, table: dict[str, str], cuts: Sequence[int] = ()
) -> tuple[str, array]:
    """Sentence chunks of ``text[x0:x1]`` as one code character each (equal chunks, equal
    codes; ``table`` shared by both texts) and their start offsets, one extra at the end.
    A chunk also ends at every position of ``cuts`` (``glued_breaks``) inside the range."""
    inner = cuts_inside(cuts, x0, x1)
    if not inner:
        chunks = _chunks(text, x0, x1)  # contiguous: they join to text[x0:x1]
    else:
        chunks = []
        for s, e in pairwise([x0, *inner, x1]):
            chunks += _chunks(text, s, e)
    # new chunks get codes in order of appearance
    new = list(filterfalse(table.__contains__, dict.fromkeys(chunks)))
    table.update(zip(new, map(chr, _code_points(len(table), len(new)))))
    del new
    starts = array(OFFSETS, accumulate(map(len, chunks), initial=x0))
    return "".join(map(table.__getitem__, chunks)), starts


class _Chunks:
    """The sentence chunks of a text by index, cut out on demand; ``words`` caches the
    word tokens and codes of chunks already tokenised (cleared after each hunk)."""

    __slots__ = ("starts", "text", "words")

    def __init__(self, text: str, starts: array) -> None:
        self.text, self.starts = text, starts
        self.words: dict[int, tuple[list[str], str]] = {}

    def __getitem__(self, i: int) -> str:
        return self.text[self.starts[i] : self.starts[i + 1]]

    def __len__(self) -> int:
        return len(self.starts) - 1


def _starts(tokens: list[str], base: int) -> list[int]:
    out = [base]
    pos = base
    for t in tokens:
        pos += len(t)
        out.append(pos)
    return out


def _without(
    tokens: _Chunks, i0: int, i1: int, cuts: list[int], glued: Sequence[int] = ()
) -> tuple[str, list[tuple[int, int]], list[int]]:
    """Tokens ``[i0, i1)`` joined without the ``cuts``; each cut as (position in the
    joined text, length); and the positions in the joined text where a word token must
    end: a kept chunk that starts at a ``glued`` break or right after a cut chunk, with a
    non-space character on each side (no word runs over a block break or a removed
    sentence)."""
    parts: list[str] = []
    where: list[tuple[int, int]] = []
    stops: list[int] = []
    pos = 0
    cut = set(cuts)
    after_cut = False
    for i in range(i0, i1):
        t = tokens[i]
        if i in cut:
            where.append((pos, len(t)))
            after_cut = True
            continue
        if (
            pos
            and t
            and (after_cut or cuts_inside(glued, tokens.starts[i] - 1, tokens.starts[i] + 1))
        ):
            if not parts[-1][-1:].isspace() and not t[0].isspace():
                stops.append(pos)
        after_cut = False
        parts.append(t)
        pos += len(t)
    return "".join(parts), where, stops


def shared_keys(
    hunks: list[tuple[int, int, int, int]], ta: _Chunks, tb: _Chunks, minc: int
) -> tuple[list[int], list[int]]:
    """The chunks of the hunks, deleted (``ta``) and inserted (``tb``), whose key (the
    chunk stripped, ``minc`` characters or more) may stand on both sides, ascending: those
    whose key's hash the other side has too. Only such a sentence can be found in one hunk
    on both sides or be paired as a move; the others change nothing in the search for
    moves (``engine.diff.hunks``). By hashes alone, each key hashed once: a rewrite shares
    no sentence, and a dict of every sentence of both sides held the text over again (50 MB
    at 20 MB rewritten)."""
    hashes_b = array("q", (_key_hash(tb[j], minc) for j in _inserted(hunks)))
    seen_b = set(hashes_b)
    seen_b.discard(_SHORT)
    cand_a: list[int] = []
    seen_a: set[int] = set()
    for i0, i1, _j0, _j1 in hunks:
        for i in range(i0, i1):
            h = _key_hash(ta[i], minc)
            if h in seen_b:
                cand_a.append(i)
                seen_a.add(h)
    del seen_b
    return cand_a, [j for j, h in zip(_inserted(hunks), hashes_b) if h in seen_a]


def _inserted(hunks: list[tuple[int, int, int, int]]) -> Iterator[int]:
    """The indexes of the inserted chunks of ``hunks``, in order."""
    for _i0, _i1, j0, j1 in hunks:
        yield from range(j0, j1)


_SHORT = -1
"""``_key_hash`` of a key shorter than the search's minimum: CPython's ``hash`` never
returns -1 (the C API's error value), so no key's hash is taken for it."""


def _key_hash(chunk: str, minc: int) -> int:
    """The hash of ``chunk`` stripped, or ``_SHORT`` where that is under ``minc``
    characters."""
    key = chunk.strip()
    return hash(key) if len(key) >= minc else _SHORT
