"""Token edits: an edited span whose only change is letter case, punctuation, spacing or at
most ``TOKEN_CHARS`` characters, none of them in a number, and no word replaced by another
(docs/verdicts.md, "Token edits"). The verdict stays ``edited`` (a typo fix is a real fix);
the flag says how small the change is, so a person looks at it.

``mark_token_edits(verdicts)`` flags the edited verdicts of one scoring;
``token_edit_kind(t1, t2) -> str``: the kind in plain words ("only the letter case changed",
"only one character changed", ...), or ``""`` when the change is no token edit. ``t1`` and
``t2`` are a span's v1 and v2 texts (code points, as the versions hold them). Characters are
counted as grapheme clusters (Unicode UAX #29 extended graphemes, the ``regex`` module's
``\\X``): an emoji with its skin tone, a Devanagari conjunct or a Thai consonant with its
vowel sign is one character. Words are ICU's word breaks (``icu4py``: dictionary words in
Thai, Lao, Khmer, Myanmar, Chinese and Japanese; UAX #29 elsewhere).

Two texts both ASCII after normalisation are read with stdlib ``re`` patterns equal to the
``regex`` ones on ASCII (``_ASCII``; tests/engine/test_token_edits.py checks every pattern
and the kinds against the ``regex`` ones), so a score of ASCII text never imports the
``regex`` module (about 25 ms of start-up).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from engine.models import Span, VerdictRecord
from engine.text.normalize import normalize

TOKEN_CHARS = 2
"""The most characters (grapheme clusters, letter case, punctuation and spacing set aside)
a token edit may change: the issue's "at most two characters", a transposed pair
("recieve" -> "receive") being two."""


class _Rules:
    """The patterns one pair of texts is read with: ``grapheme`` (one character as a
    reader counts it), ``space``, ``punct_or_space``, ``punct``, ``number`` (a number as
    a reader reads it: digits of any script, ``\\p{N}``: Arabic-Indic, Devanagari,
    full-width, CJK numerals such as 〇 and Ⅻ, with the group and decimal separators
    between digits, "1,500", "3.1", "1 000", a sign before it and a currency sign; a
    currency sign alone counts too, "$" -> "€") and ``has_letter``."""

    __slots__ = ("grapheme", "has_letter", "number", "punct", "punct_or_space", "space")

    def __init__(
        self, compile: Any, grapheme: str, space: str, punct: str, digit: str, cur: str, letter: str
    ) -> None:
        self.grapheme = compile(grapheme)
        self.space = compile(f"[{space}]+")
        self.punct_or_space = compile(f"[{punct}{space}]+")
        self.punct = compile(f"[{punct}]+")
        self.number = compile(
            rf"(?<![{letter}{digit}])[+\-\u2212]?[{cur}]*[{digit}]+"
            rf"(?:[.,'\u2019\u00a0\u202f\u2009]?[{digit}]+)*|[{cur}]"
        )
        self.has_letter = compile(f"[{letter}]")


# ASCII: the Unicode classes' ASCII members (\s is [\t\n\v\f\r ], \p{P} the 23 marks below,
# \p{N} the digits, \p{Sc} "$", \p{L} and \p{M} A-Z a-z; \X one character, CR LF one)
_ASCII = _Rules(
    re.compile,
    r"\r\n|[\s\S]",
    r"\t\n\x0b\x0c\r ",
    re.escape("!\"#%&'()*,-./:;?@[\\]_{}"),
    "0-9",
    r"\$",
    "A-Za-z",
)
_unicode: _Rules | None = None


def _rules(a: str, b: str) -> _Rules:
    """``_ASCII`` for two ASCII texts, else the ``regex`` module's Unicode classes."""
    global _unicode
    if a.isascii() and b.isascii():
        return _ASCII
    if _unicode is None:
        import regex  # lazy: only text beyond ASCII needs Unicode's classes and graphemes

        _unicode = _Rules(regex.compile, r"\X", r"\s", r"\p{P}", r"\p{N}", r"\p{Sc}", r"\p{L}\p{M}")
    return _unicode


_word_breaker = None


def mark_token_edits(verdicts: list[VerdictRecord], v2_text: str | None = None) -> None:
    """Flag every ``edited`` verdict whose change is a token edit (``token_edit``,
    ``token_edit_kind``) and say so in its note; run after every other rule has settled
    the verdicts (a verdict made ``deleted`` for sharing a place is no token edit). A
    verdict whose words are the same but whose whitespace renders differently
    (``rendered_spacing``: inside ``<pre>``, ``white-space: pre``) is "only the spacing
    changed". ``v2_text``: the text the v2 spans index, to read each place as a reader
    sees it (``_as_read``)."""
    for v in verdicts:
        if v.verdict != "edited" or v.v1 is None or v.v2 is None:
            continue
        kind = token_edit_kind(v.v1.text, _as_read(v.v1.text, v.v2, v2_text))
        if not kind and v.rendered_spacing:  # whitespace that renders (engine.score.seen)
            kind = "only the spacing changed"
        if kind:
            v.token_edit, v.token_edit_kind = True, kind
            v.note = f"{v.note}; token edit: {kind}" if v.note else f"token edit: {kind}"


def _as_read(quote: str, v2: Span, v2_text: str | None) -> str:
    """The text of the new place ``v2``, with the punctuation that ends ``quote`` where that
    stands right after the place in v2: the diff may give a kept full stop to a deleted
    neighbour ("The fee is due in Mey. Please read the handbook." revised to "The fee is
    due in May." places the quote at "The fee is due in May"), and the punctuation a
    reader sees after the fix did not change."""
    text = v2.text
    tail = quote.rstrip()
    k = len(tail)
    while k and unicodedata.category(tail[k - 1])[0] in "PS":  # punctuation and symbols
        k -= 1
    mark = tail[k:]
    if not mark or v2_text is None or text.endswith(mark):
        return text
    if v2_text.startswith(mark, v2.end) and not text[-1:].isspace():
        return text + mark
    return text


def token_edit_kind(t1: str, t2: str) -> str:
    """How the edit from ``t1`` to ``t2`` is a token edit, in plain words, or ``""``.

    Both texts are compared as the verdict compares them (``engine.text.normalize``:
    NFC, whitespace runs folded, soft hyphens and zero-width spaces dropped). ``""`` too
    when they are then equal (no edit) or the change touches a number
    (``_Rules.number``: "21 days" -> "14 days"), adds or removes a word, or replaces a word by
    another (fewer than half of its characters kept: "a" -> "I", "cat" -> "dog")."""
    a, b = normalize(t1), normalize(t2)
    r = _rules(a, b)
    if a == b or r.number.findall(a) != r.number.findall(b):
        return ""
    fa, fb = a.casefold(), b.casefold()
    if fa == fb:
        return "only the letter case changed"
    sa, sb = r.punct_or_space.sub("", fa), r.punct_or_space.sub("", fb)
    case = ["letter case"] if _case_differs(r, a, b) else []
    if sa == sb:
        punct = ["punctuation"] if _marks(r, fa) != _marks(r, fb) else []
        spacing = ["spacing"] if _unpunctuated(r, fa) != _unpunctuated(r, fb) else []
        if not (case or punct or spacing):  # marks regrouped ("a ,b" -> "a, b")
            punct, spacing = ["punctuation"], ["spacing"]
        return _kind_words("", case + punct + spacing)
    n = _grapheme_distance(r, sa, sb)
    if n > TOKEN_CHARS or _word_replaced(r, fa, fb):
        return ""
    punct = ["punctuation"] if r.punct.findall(fa) != r.punct.findall(fb) else []
    return _kind_words("one character" if n == 1 else "two characters", case + punct)


def _case_differs(r: _Rules, a: str, b: str) -> bool:
    """Some letter the edit kept changed its case: the graphemes of ``a`` and ``b``
    (punctuation and spaces left out) aligned by their casefolded forms, and an aligned
    pair that differs as written."""
    from rapidfuzz.distance import Indel  # lazy, as engine.score.anchoring.words

    la = r.grapheme.findall(r.punct_or_space.sub("", a))
    lb = r.grapheme.findall(r.punct_or_space.sub("", b))
    ops = Indel.opcodes([g.casefold() for g in la], [g.casefold() for g in lb])
    return any(
        op.tag == "equal" and la[op.src_start : op.src_end] != lb[op.dest_start : op.dest_end]
        for op in ops
    )


def _marks(r: _Rules, text: str) -> list[tuple[int, str]]:
    """Each run of punctuation in ``text`` with where it stands: the number of characters
    before it that are neither spaces nor punctuation. Two texts with the same letters and
    equal lists have the same marks in the same places."""
    return [
        (len(r.punct_or_space.sub("", text[: m.start()])), m.group())
        for m in r.punct.finditer(text)
    ]


def _unpunctuated(r: _Rules, text: str) -> str:
    """``text`` with its punctuation left out and its spaces collapsed: where the words
    are spaced, whatever punctuation stands between them."""
    return r.space.sub(" ", r.punct.sub("", text)).strip()


def _kind_words(counted: str, folded: list[str]) -> str:
    """ "only the letter case changed", "only one character and the punctuation changed",
    "only the letter case, punctuation and spacing changed"."""
    parts = [counted] if counted else []
    if folded:
        tail = folded[-1] if len(folded) == 1 else f"{', '.join(folded[:-1])} and {folded[-1]}"
        parts.append("the " + tail)
    return f"only {' and '.join(parts)} changed"


def _grapheme_distance(r: _Rules, a: str, b: str) -> int:
    """Levenshtein distance of ``a`` and ``b`` counted in grapheme clusters (insertions,
    deletions and substitutions; a transposed pair counts two)."""
    from rapidfuzz.distance import Levenshtein  # lazy, as engine.score.anchoring.words

    return int(Levenshtein.distance(r.grapheme.findall(a), r.grapheme.findall(b)))


def _words(r: _Rules, text: str) -> list[str]:
    """The words of ``text`` (ICU word breaks), punctuation inside them dropped ("don't"
    is "dont"): only segments holding a letter or a mark are words."""
    global _word_breaker
    if _word_breaker is None:
        from icu4py.breakers import WordBreaker  # lazy: 50 ms most scores never need

        _word_breaker = WordBreaker
    # ICU counts UTF-16 code units; slice the UTF-16 encoding so astral characters (emoji)
    # do not shift every later boundary.
    units = text.encode("utf-16-le")
    out = []
    for s, e in _word_breaker(text, "root").segments():
        seg = units[2 * s : 2 * e].decode("utf-16-le", "replace")
        if r.has_letter.search(seg):
            out.append(r.punct.sub("", seg))
    return out


def _word_replaced(r: _Rules, fa: str, fb: str) -> bool:
    """A word was added, removed, or replaced by another between the casefolded texts:
    the word lists aligned by their Levenshtein edit script (a substitution preferred to a
    word removed and another added), a changed word must keep at least half of its
    characters (grapheme clusters, of the longer of the two spellings) to be the same word
    respelled; words only joined or split ("alot" -> "a lot") are the same letters."""
    from rapidfuzz.distance import Indel, Levenshtein

    wa, wb = _words(r, fa), _words(r, fb)
    groups: list[list[Any]] = []
    for op in Levenshtein.opcodes(wa, wb):
        if op.tag == "equal":
            groups.append([])
        elif groups and groups[-1]:
            groups[-1].append(op)
        else:
            groups.append([op])
    for group in filter(None, groups):
        xs = wa[group[0].src_start : group[-1].src_end]
        ys = wb[group[0].dest_start : group[-1].dest_end]
        if "".join(xs) == "".join(ys):
            continue
        if any(op.tag != "replace" for op in group):
            return True
        for x, y in zip(xs, ys, strict=True):
            gx, gy = r.grapheme.findall(x), r.grapheme.findall(y)
            kept = (len(gx) + len(gy) - Indel.distance(gx, gy)) // 2
            if 2 * kept < max(len(gx), len(gy)):
                return True
    return False
