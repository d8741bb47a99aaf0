"""Words, numbers and similarities: where a word or a number starts and ends (``joined``;
combining marks, ZWNJ/ZWJ, ``3.1``; ICU dictionary words for scripts written without
spaces), snapping spans to whole words, and the word-set and character similarities the
stages rank candidates by. Code points throughout.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any

from engine.score.anchoring.thresholds import DICTIONARY_REACH, SURVIVING_WORD
from engine.text.utf16 import OffsetMap

_WORD = re.compile(r"\w")


# Scripts written without spaces: every character is a unit of its own (UAX #29 treats
# ideographs so; Thai, Lao, Khmer and Myanmar need a dictionary, and without one the
# character is the safe unit), so a span may start or end between any two of them.
_NO_SPACE = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]"
)


_JOINERS = "\u200c\u200d"
"""Zero-width non-joiner and joiner: inside a word (Persian "می‌خواهم" is one word; UAX #29
gives them Extend, which never breaks a word)."""


def _word_character(ch: str) -> bool:
    """``ch`` is part of a word of a script written with spaces: a letter or digit, a
    combining mark (Devanagari vowel signs, Arabic harakat, a decomposed accent) or a
    zero-width (non-)joiner. Letters of scripts written without spaces are units of their
    own and never form a word here."""
    if not ch or _NO_SPACE.match(ch):
        return False
    return bool(_WORD.match(ch)) or ch in _JOINERS or unicodedata.category(ch)[0] == "M"


_WORD_CHARACTERS: dict[str, bool] = {}
"""``_word_character`` of each character asked about so far: a text has a few hundred
distinct characters, and word edges ask about each thousands of times per score."""


def _is_word(ch: str) -> bool:
    """``_word_character(ch)``, remembered per character (``_WORD_CHARACTERS``)."""
    known = _WORD_CHARACTERS.get(ch)
    if known is None:
        known = _WORD_CHARACTERS[ch] = _word_character(ch)
    return known


_indel = None


def similarity(a: str, b: str) -> float:
    """Normalised Indel similarity in [0, 1] (rapidfuzz ``Indel.normalized_similarity``)."""
    global _indel
    if a == b:
        return 1.0
    if _indel is None:
        from rapidfuzz.distance import Indel  # lazy: 30 ms of start-up most scores never need

        _indel = Indel.normalized_similarity
    return _indel(a, b)


def joined(text: str, i: int) -> bool:
    """A word or a number runs across boundary ``i`` of ``text`` (between ``text[i - 1]``
    and ``text[i]``): word characters on both sides (``_is_word``), or a ``.`` or ``,``
    between two digits ("3.1", "1,500": Unicode UAX #29 keeps a number whole across
    MidNum/MidNumLet, rules WB11 and WB12)."""
    a, b = text[i - 1 : i] if i > 0 else "", text[i : i + 1]
    if not a or not b:
        return False
    if _is_word(a) and _is_word(b):
        return True
    if a in ".," and b.isdigit() and text[i - 2 : i - 1].isdigit():
        return True
    return b in ".," and a.isdigit() and text[i + 1 : i + 2].isdigit()


def breaks_word(
    text: str, s: int, e: int, like_text: str | None = None, like_s: int = 0, like_e: int = 0
) -> bool:
    """True if ``[s, e)`` cuts a word or a number of ``text`` where the reference span does
    not (``joined``).

    The reference is ``like_text[like_s:like_e]`` (the v1 span); when it is None, any cut
    word counts. Characters of scripts written without spaces never form a cut word.
    """
    if s >= e:
        return False
    cut_left, cut_right = joined(text, s), joined(text, e)
    if like_text is not None:
        cut_left = cut_left and not joined(like_text, like_s)
        cut_right = cut_right and not joined(like_text, like_e)
    return cut_left or cut_right


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def _snap_words(text: str, s: int, e: int) -> tuple[int, int]:
    """Widen ``[s, e)`` so it neither starts nor ends inside a word or a number
    (``joined``)."""
    while s > 0 and joined(text, s):
        s -= 1
    while e < len(text) and joined(text, e):
        e += 1
    return s, e


_word_breaker = None


def _dictionary_word(text: str, i: int) -> tuple[int, int]:
    """The word holding character ``i`` by ICU's dictionary word breaks (``icu4py``; Thai,
    Lao, Khmer, Myanmar, Chinese and Japanese have no spaces to find words by), found in
    ``text`` within ``DICTIONARY_REACH`` characters of ``i``."""
    global _word_breaker
    if _word_breaker is None:
        from icu4py.breakers import WordBreaker  # lazy: 50 ms most scores never need

        _word_breaker = WordBreaker
    a, b = max(0, i - DICTIONARY_REACH), min(len(text), i + DICTIONARY_REACH + 1)
    window = text[a:b]
    # ICU's segment offsets count UTF-16 units: converted to code points, or an astral
    # character (an emoji) before the word would shift every boundary after it.
    units = OffsetMap(window)
    for ws16, we16 in _word_breaker(window, "root").segments():
        ws, we = units.to_codepoint(ws16), units.to_codepoint(we16)
        if a + ws <= i < a + we:
            return a + ws, a + we
    return i, i + 1


def _snap_dictionary_words(text: str, s: int, e: int) -> tuple[int, int]:
    """Widen ``[s, e)`` so it neither starts nor ends inside a word of a script written
    without spaces (dictionary word breaks, ``_dictionary_word``)."""
    if s < e and s > 0 and _NO_SPACE.match(text[s]) and _NO_SPACE.match(text[s - 1]):
        s = min(s, _dictionary_word(text, s)[0])
    if s < e < len(text) and _NO_SPACE.match(text[e - 1]) and _NO_SPACE.match(text[e]):
        e = max(e, _dictionary_word(text, e - 1)[1])
    return s, e


def _snippet(text: str, limit: int = 80) -> str:
    t = " ".join(text.split())
    return t if len(t) <= limit else t[: limit - 1] + "…"


def _shares_a_word(a: str, b: str, least: int = 3) -> bool:
    """``a`` and ``b`` have a word (``_words``) of ``least`` or more code points in common
    (casefolded), or, in scripts written without spaces, two characters in a row."""
    wa = {w.casefold() for w in _words(a) if len(w) >= least and not _NO_SPACE.search(w)}
    if wa & {w.casefold() for w in _words(b) if len(w) >= least}:
        return True
    pairs = {a[i : i + 2] for i in range(len(a) - 1) if _NO_SPACE.match(a[i])}
    return any(p in b for p in pairs)


def _word_dice(a: str, b: str) -> float:
    """Dice coefficient of the casefolded word sets of ``a`` and ``b``, each word weighted
    by its length (a long word is rarer: sharing "histopathological" says more than
    sharing "of"); words are ``\\w+`` runs, and a script written without spaces counts
    its pairs of adjacent characters."""
    return _set_dice(_word_set(a), _word_set(b))


def _set_dice(wa: set[str], wb: set[str]) -> float:
    """``_word_dice`` of two word sets."""
    total = sum(map(len, wa)) + sum(map(len, wb))
    return 2 * sum(map(len, wa & wb)) / total if total else 0.0


def _word_set(text: str) -> set[str]:
    """The casefolded words of ``text`` (``_words``), a word of a script written without
    spaces cut into its pairs of adjacent characters."""
    folded = text.casefold()
    if not _NO_SPACE.search(folded):  # (no word then needs cutting into pairs)
        return set(_words(folded))
    out: set[str] = set()
    for w in _words(folded):
        if _NO_SPACE.search(w):
            # no spaces to find words by: pairs of characters keep some of their order
            out.update(w[i : i + 2] for i in range(max(1, len(w) - 1)))
        else:
            out.add(w)
    return out


_WORDISH = re.compile(r"\w+")
_WORDS_ANY: Callable[[str], list[str]] | None = None  # the regex's findall, once imported


def _words(text: str) -> list[str]:
    """The words of ``text`` in order: maximal runs of word characters as
    ``_word_character`` has them, a letter, a digit or ``_`` (Python's ``\\w``), a
    combining mark or a zero-width (non-)joiner, so a vowel sign or a virama never cuts a
    word (Python's ``\\w`` alone cuts Hindi "बिल्लियाँ" into "ब", "ल", "ल", "य": the marks
    are category M, which ``str.isalnum`` is not). Runs of characters of scripts written
    without spaces are returned whole, for the caller to cut. ASCII text has no mark and
    is read without the ``regex`` module."""
    global _WORDS_ANY
    if text.isascii():
        return _WORDISH.findall(text)
    if _WORDS_ANY is None:
        import regex  # lazy: 20 ms of start-up an ASCII score never needs

        _WORDS_ANY = regex.compile(r"[\p{L}\p{N}\p{M}_\u200c\u200d]+").findall
    return _WORDS_ANY(text)


_CONTENT_NO_SPACE_CLASS = (
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]"
)
"""The characters of scripts written without spaces (``_NO_SPACE``) that carry content: all
but Japanese hiragana, in which Japanese writes its grammar (particles, inflections and the
auxiliaries that end nearly every sentence, "ます", "です", "のです"); its content words are
written in kanji and katakana. Compiled on first use (``_content_char``): 2 ms of start-up
an ASCII score never needs."""
_CONTENT_NO_SPACE: re.Pattern[str] | None = None


def _content_char(text: str) -> re.Match[str] | None:
    """The first character of ``text`` in ``_CONTENT_NO_SPACE_CLASS`` (searched), or None;
    ASCII text has none."""
    global _CONTENT_NO_SPACE
    if text.isascii():
        return None
    if _CONTENT_NO_SPACE is None:
        _CONTENT_NO_SPACE = re.compile(_CONTENT_NO_SPACE_CLASS)
    return _CONTENT_NO_SPACE.search(text)


def _content_words(words: set[str]) -> set[str]:
    """The content words of a word set (``_word_set``): those of ``SURVIVING_WORD`` code
    points or more, and the character pairs of scripts written without spaces that hold a
    character of ``_CONTENT_NO_SPACE_CLASS``. Short words ("in", "the", Hindi "में", "हैं",
    Japanese "ます") are a sentence's shape, shared by chance."""
    return {
        x
        for x in words
        if (len(x) >= SURVIVING_WORD and not _NO_SPACE.search(x)) or _content_char(x)
    }


def content_word_edges(text: str) -> tuple[int, int] | None:
    """Where the first content word of ``text`` starts and where its last one ends (code
    points; a word of ``SURVIVING_WORD`` code points or more, or a character of
    ``_CONTENT_NO_SPACE_CLASS``, as ``_content_words`` has them), or None when it has none: what
    lies before the first and after the last is short words and marks alone."""
    global _WORD_SPANS
    spans: Callable[[str], Iterator[Any]]
    if text.isascii():
        # no character of a script written without spaces: the first and the last word of
        # ``SURVIVING_WORD`` or more, each by one C-level search (the last, in the reversal)
        first_word = _LONG_WORD.search(text)
        if first_word is None:
            return None
        last_word = _LONG_WORD.search(text[::-1])
        assert last_word is not None
        return first_word.start(), len(text) - last_word.start()
    if _WORD_SPANS is None:
        import regex  # lazy, as in ``_words``

        _WORD_SPANS = regex.compile(r"[\p{L}\p{N}\p{M}_\u200c\u200d]+").finditer
    spans = _WORD_SPANS
    first = last = None
    for w in spans(text):
        word = w.group()
        if _NO_SPACE.search(word):
            # written without spaces: its content characters, one by one
            at = [i for i, ch in enumerate(word) if _content_char(ch)]
            if not at:
                continue
            a, b = w.start() + at[0], w.start() + at[-1] + 1
        elif len(word) >= SURVIVING_WORD:
            a, b = w.start(), w.end()
        else:
            continue
        if first is None:
            first = a
        last = b
    return None if first is None or last is None else (first, last)


_WORD_SPANS: Callable[[str], Iterator[Any]] | None = None
_LONG_WORD = re.compile(rf"(?<!\w)\w{{{SURVIVING_WORD},}}")
"""A whole ``_WORDISH`` word of ``SURVIVING_WORD`` code points or more."""


def _passage(quote: str) -> bool:
    """Long enough to be a passage rather than a word: 16 characters and two words, or four
    characters of a script written without spaces."""
    q = quote.strip()
    if sum(1 for ch in q if _NO_SPACE.match(ch)) >= 4:
        return True
    return len(q) >= 16 and len(q.split()) >= 2


def _has_alnum(text: str) -> bool:
    """``text`` holds a word: a letter or a number a reader sees (``substance`` 2)."""
    return substance(text) == WORD


NOTHING, MARKS, WORD = 0, 1, 2
"""What a reader sees of a text (``substance``): nothing; only punctuation or symbols; a word."""

_substance_res: tuple[re.Pattern[str], re.Pattern[str]] | None = None
_ASCII_WORD = re.compile(r"[A-Za-z0-9]")
_ASCII_MARK = re.compile(r"[!-/:-@\[-`{-~]")  # the ASCII of P and S: printable, not alnum


def substance(text: str) -> int:
    """What a reader sees of ``text`` (code points, any script): ``WORD`` when it holds a
    letter or a number (Unicode general category L or N) that is not a
    Default_Ignorable_Code_Point (U+3164 HANGUL FILLER and U+FFA0 are letters by category
    and show nothing); else ``MARKS`` when it holds punctuation or a symbol (P or S: ".",
    "—", an emoji; not U+2800 BRAILLE PATTERN BLANK, which shows blank), or a private-use or
    unassigned character; else ``NOTHING``: whitespace, invisible and format characters (the
    zero-width space, joiners, bidi controls), control characters and combining marks with
    no letter to sit on. The engine's invisible folding (engine.text.normalize, IGNORABLE)
    drops only characters counted as nothing here. ASCII text is read without the
    ``regex`` module: its letters and digits are words, its other printable characters
    marks (tests/engine/test_anchoring_normalize.py checks the two agree)."""
    global _substance_res
    if text.isascii():
        if _ASCII_WORD.search(text):
            return WORD
        return MARKS if _ASCII_MARK.search(text) else NOTHING
    if _substance_res is None:
        import regex  # lazy: 20 ms of start-up a score without a replaced span never needs

        _substance_res = (
            regex.compile(r"[[\p{L}\p{N}]--\p{Default_Ignorable_Code_Point}]", regex.V1),
            regex.compile(
                r"[[\p{P}\p{S}\p{Co}\p{Cn}]--[\u2800\p{Default_Ignorable_Code_Point}]]",
                regex.V1,
            ),
        )
    words, marks = _substance_res
    if words.search(text):
        return WORD
    return MARKS if marks.search(text) else NOTHING


def holds_nothing_of(quote: str, text: str) -> bool:
    """``text`` shows a reader less than ``quote`` did (``substance``), so it is nothing the
    quote was rewritten into: put in the quote's place, the quote was deleted
    (docs/verdicts.md, "Not nothing"). That is nothing visible at all (whitespace,
    invisible or format characters, a lone combining mark) where the quote showed
    something, or no word (only punctuation or symbols: ".", "👍") where the quote had two
    words or more (ICU word breaks, so Chinese and Thai count their dictionary words). A
    symbol may be one word's rewrite ("(c)" -> "©"), and a quote of punctuation or an
    emoji replaced by another is an edit."""
    shown, had = substance(text), substance(quote)
    if shown >= had:
        return False
    return shown == NOTHING or _two_words(quote)


def _two_words(text: str) -> bool:
    """``text`` holds two words or more: ICU word segments (dictionary words in scripts
    written without spaces) holding a letter or a number (``substance``)."""
    global _word_breaker
    if _word_breaker is None:
        from icu4py.breakers import WordBreaker  # lazy: 50 ms most scores never need

        _word_breaker = WordBreaker
    units = OffsetMap(text)
    found = 0
    for ws16, we16 in _word_breaker(text, "root").segments():
        if substance(text[units.to_codepoint(ws16) : units.to_codepoint(we16)]) == WORD:
            found += 1
            if found >= 2:
                return True
    return False


def longest_common_substring(a: str, b: str) -> tuple[int, int, int]:
    """``(i, j, size)``: the longest text that ``a`` and ``b`` both hold, ``a[i : i + size] ==
    b[j : j + size]``; of several that long, the one that starts earliest in ``a``, and then
    earliest in ``b``. ``(0, 0, 0)`` when they share no character. Code points.

    The answer of ``difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match()``
    (the property test holds the two equal), found by two pointers over ``a``: the longest
    run of ``a`` from ``i`` that ``b`` holds never ends sooner than the one from ``i - 1``, so
    each step either grows the run or moves its start, at most ``2 * len(a)`` substring
    searches, each in C (``str.__contains__``), against difflib's table of every position
    of ``b`` for each character of ``a``: about 10 times faster on a sentence against a
    window of a few thousand characters."""
    best_i, best = 0, 0
    j = 0
    for i in range(len(a)):
        j = max(j, i)
        while j < len(a) and a[i : j + 1] in b:
            j += 1
        if j - i > best:
            best_i, best = i, j - i
        if j == len(a):
            break  # every later start holds a shorter run
    if best == 0:
        return 0, 0, 0
    return best_i, b.find(a[best_i : best_i + best]), best
