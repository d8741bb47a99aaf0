"""Invisible characters: a change a reader cannot see is no edit (docs/verdicts.md,
"Invisible characters only").

The candidates are Unicode's Default_Ignorable_Code_Point characters (DerivedCoreProperties,
read through the ``regex`` package), the bidi controls among them included. Whether one can
change what a reader sees depends on its neighbours, so each is judged where it stands
(``_can_show``); bidi controls are judged by laying the text out with the Unicode
Bidirectional Algorithm (UAX #9, the ``python-bidi`` package) and comparing what is
displayed. Everything here works on code-point strings for comparing only: no offsets
index its results.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from engine.text.normalize import _script, normalize

_IGNORABLE_ANY: re.Pattern[str] | None = None
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_ZW_JOINERS = frozenset("\u200c\u200d")
_MONGOLIAN_CONTROLS = frozenset("\u180b\u180c\u180d\u180e\u180f")
_HANGUL_JAMO_FILLERS = frozenset("\u115f\u1160")
_CGJ = "\u034f"
_BLACK_FLAG = "\U0001f3f4"
_KEYCAP = "\u20e3"
NEIGHBOUR_REACH = 32
"""How far (code points) a base letter is looked for back past combining marks, and how
long a flag tag sequence may be: a character that far away is no neighbour that shapes
with it (a real tag sequence is at most 7 tags long)."""


def _ignorable_pattern() -> re.Pattern[str]:
    global _IGNORABLE_ANY
    if _IGNORABLE_ANY is None:
        import regex

        _IGNORABLE_ANY = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    return _IGNORABLE_ANY


@lru_cache(maxsize=1)
def _ignorable_runs() -> re.Pattern[str]:
    import regex

    return regex.compile(r"\p{Default_Ignorable_Code_Point}+")


@lru_cache(maxsize=1)
def _props() -> dict[str, re.Pattern[str]]:
    import regex

    return {
        "joining": regex.compile(
            r"[\p{Joining_Type=Dual_Joining}\p{Joining_Type=Left_Joining}"
            r"\p{Joining_Type=Right_Joining}\p{Joining_Type=Join_Causing}]"
        ),
        "emoji": regex.compile(r"[\p{Emoji}\p{Extended_Pictographic}\p{Emoji_Component}]"),
        "ideograph": regex.compile(r"\p{Ideographic}"),
    }


@lru_cache(maxsize=1)
def _virama_scripts() -> frozenset[str]:
    """Scripts that have a virama (canonical combining class 9): the Indic scripts and
    their relatives, where ZWJ/ZWNJ choose half forms and conjuncts. Scanned once."""
    return frozenset(
        _script(chr(c))
        for c in range(0x0900, 0x20000)
        if unicodedata.combining(chr(c)) == 9 and not 0xD800 <= c <= 0xDFFF
    ) - {"COMMON", "INHERITED", "UNKNOWN"}


def _shapes(c: str) -> bool:
    """``c`` belongs to a script whose letters change shape with their neighbours: a
    cursively joining letter (Arabic, Syriac, N'Ko, Mongolian...: Joining_Type D, L, R or
    C) or a letter of a script with a virama (Devanagari, Bengali, Tamil, Sinhala...)."""
    if not c or c.isascii():
        return False
    if _props()["joining"].match(c):
        return True
    return _script(c) in _virama_scripts()


def _base_before(text: str, r0: int) -> str:
    """The character before ``text[r0]`` (the start of a run of ignorables), skipping the
    combining marks of scripts that do not shape (a virama or an Indic vowel sign is
    returned itself); at most ``NEIGHBOUR_REACH`` back."""
    j = r0 - 1
    while j >= max(0, r0 - NEIGHBOUR_REACH):
        ch = text[j]
        if unicodedata.category(ch) in ("Mn", "Me", "Mc") and not _shapes(ch):
            j -= 1
            continue
        return ch
    return ""


def _is_emoji(c: str) -> bool:
    return bool(c) and not c.isascii() and bool(_props()["emoji"].match(c))


def _can_show(text: str, i: int, r0: int, before: str, after: str) -> bool:
    """Whether the default-ignorable ``text[i]`` can change what a reader sees, given its
    neighbours: ``text[i]`` lies in a run of ignorables starting at ``r0``; ``before`` is
    the base character before the run, ``after`` the character after it. Bidi controls
    are left to the layout (True here).

    * ZWJ, ZWNJ and the Mongolian selectors: next to a letter that joins or forms
      conjuncts (Persian "کتاب‌ها", Devanagari "क्‍ष"), or a ZWJ between two emoji (a family
      or profession sequence). Between Latin, Greek, Cyrillic, CJK or Hangul letters they
      can at most ask for or refuse an optional ligature: the letters read the same.
    * variation selectors: first in the run, after an emoji (text or emoji presentation;
      ASCII digits and ``#``/``*`` only as a keycap), an ideograph (a glyph variant), a
      symbol, or a letter of a shaping script (standardized variants).
    * tag characters: in a flag tag sequence right after U+1F3F4 (the flag of England).
    * Hangul jamo fillers U+115F/U+1160: next to conjoining jamo.
    * the combining grapheme joiner: before a combining mark (it changes how marks stack).
    * anything else (U+2061-2064, U+3164, U+FFA0, U+17B4/5, tag characters elsewhere...):
      never.
    """
    c = text[i]
    if c in _BIDI_CONTROLS:
        return True
    if c in _ZW_JOINERS or c in _MONGOLIAN_CONTROLS:
        if _shapes(before) or _shapes(after):
            return True
        return c == "\u200d" and _is_emoji(before) and _is_emoji(after)
    o = ord(c)
    if 0xFE00 <= o <= 0xFE0F or 0xE0100 <= o <= 0xE01EF:
        if i != r0:  # after another ignorable: no base to select a variant of
            return False
        base = text[i - 1] if i > 0 else ""
        if base.isascii():
            return bool(base) and base in "0123456789#*" and text[i + 1 : i + 2] == _KEYCAP
        return (
            _is_emoji(base)
            or bool(_props()["ideograph"].match(base))
            or unicodedata.category(base) in ("Sm", "So")
            or _shapes(base)
        )
    if 0xE0001 <= o <= 0xE007F:
        return r0 > 0 and text[r0 - 1] == _BLACK_FLAG and i - r0 < NEIGHBOUR_REACH
    if c in _HANGUL_JAMO_FILLERS:
        near = text[i - 1 : i] + text[i + 1 : i + 2]
        return any(
            0x1100 <= ord(n) <= 0x11FF or 0xA960 <= ord(n) <= 0xA97F or 0xD7B0 <= ord(n) <= 0xD7FF
            for n in near
        )
    if c == _CGJ:
        return bool(unicodedata.combining(text[i + 1 : i + 2] or "a"))
    return False


def _without_unseen(text: str) -> tuple[str, bool]:
    """``text`` without the default-ignorable characters that cannot show where they stand
    (``_can_show``); and whether it still holds a bidi control. Linear in ``text``: the
    neighbours are found once per run of ignorables. ASCII has no default-ignorable
    character and no bidi control (tests/engine/test_invisible_only.py checks it), so ASCII text
    is returned as it is, without the ``regex`` module."""
    if text.isascii():
        return text, False
    ignorable = _ignorable_pattern()
    if not ignorable.search(text):
        return text, False
    out, pos, bidi = [], 0, False
    for m in _ignorable_runs().finditer(text):
        r0, r1 = m.span()
        before, after = _base_before(text, r0), text[r1 : r1 + 1]
        for i in range(r0, r1):
            if text[i] in _BIDI_CONTROLS:
                bidi = True
            elif not _can_show(text, i, r0, before, after):
                out.append(text[pos:i])
                pos = i + 1
    out.append(text[pos:])
    return "".join(out), bidi


def _displayed(text: str, rtl: bool) -> str:
    """``text`` in display order (UAX #9, paragraph direction given), bidi controls gone."""
    from bidi import get_display

    shown = get_display(text, base_dir="R" if rtl else "L")
    return "".join(ch for ch in shown if ch not in _BIDI_CONTROLS)


def seen_pair(a: str, b: str, before: str = "", after: str = "") -> tuple[str, str]:
    """What a reader sees of ``before + a + after`` and of ``before + b + after``:
    default-ignorable characters that cannot show where they stand removed (judged with
    their real neighbours, hence the shared context), and, when either holds a bidi
    control, both laid out in display order (UAX #9, the paragraph direction of the first
    strong letter of ``before + a + after``, P2-P3) with the controls removed. For
    comparing only: no offsets index the results."""
    sa, bidi_a = _without_unseen(before + a + after)
    sb, bidi_b = _without_unseen(before + b + after)
    if bidi_a or bidi_b:
        from bidi import get_base_level

        rtl = get_base_level(before + a + after) == 1
        sa, sb = _displayed(sa, rtl), _displayed(sb, rtl)
    return sa, sb


def invisible_only(a: str, b: str, before: str = "", after: str = "") -> bool:
    """``b`` differs from ``a`` (after ``normalize``) only by characters a reader cannot
    see where they stand: default-ignorable characters such as U+200D between Latin
    letters, U+2062, U+3164, tag characters, a variation selector after a plain letter, or
    bidi controls that leave the displayed text as it was (an RLO around reversed letters).
    A ZWNJ or ZWJ between Persian, Arabic or Indic letters, a ZWJ between two emoji, and
    a variation selector after an emoji can change what is shown and count as edits
    (docs/verdicts.md, "Invisible characters only"). ``before``/``after``: the text around
    ``a`` in its version (the same for both), so neighbours and the paragraph direction
    are the real ones. False when the texts are equal."""
    if normalize(a) == normalize(b):
        return False
    sa, sb = seen_pair(a, b, before, after)
    return normalize(sa) == normalize(sb)
