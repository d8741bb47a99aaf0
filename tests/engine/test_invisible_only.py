"""A change a reader cannot see is no edit: invisible characters inside a quote
(docs/verdicts.md, "Invisible characters only")."""

from __future__ import annotations

import pytest

from engine.events import ClaimUnchanged
from engine.models import Anchor, ClaimItem, ClaimReport, Comment
from engine.score.integrity import unchanged_claims
from engine.score.scoring import Version, score
from engine.text.invisible import invisible_only
from engine.text.utf16 import to_utf16


def _comment(t1: str, quote: str, cid: str = "c1") -> Comment:
    i = t1.index(quote)
    n = len(quote)
    return Comment(
        cid,
        "fix",
        Anchor(
            quote,
            t1[max(0, i - 32) : i],
            t1[i + n : i + n + 32],
            start_offset=to_utf16(t1, i),
            end_offset=to_utf16(t1, i + n),
        ),
    )


def _verdict(t1: str, t2: str, quote: str, kind: str = "text"):
    a, b = Version.from_source(t1, kind), Version.from_source(t2, kind, "v2")
    text1 = a.text
    r = score(a, b, [_comment(text1, quote)])
    (v,) = r.verdicts
    return r, v


LATIN = "The budget is ten million dollars. Staff may work remotely on Fridays."
QUOTE = "ten million dollars"

# What an attacker can slip into "ten million dollars" without any reader seeing it.
INVISIBLE_IN_LATIN = {
    "ZWJ U+200D": "ten mil\u200dlion dollars",
    "ZWNJ U+200C between Latin letters": "ten mil\u200clion dollars",
    "LRM U+200E": "ten mil\u200elion dollars",
    "RLM U+200F": "ten mil\u200flion dollars",
    "ALM U+061C": "ten mil\u061clion dollars",
    "CGJ U+034F": "ten mil\u034flion dollars",
    "VS16 U+FE0F after a letter": "ten mil\ufe0flion dollars",
    "VS1 U+FE00 after a letter": "ten mil\ufe00lion dollars",
    "MVS U+180E": "ten mil\u180elion dollars",
    "invisible times U+2062": "ten mil\u2062lion dollars",
    "tag character U+E0041": "ten mil\U000e0041lion dollars",
    "cancel tag U+E007F": "ten mil\U000e007flion dollars",
    "Hangul filler U+3164": "ten mil\u3164lion dollars",
    "halfwidth Hangul filler U+FFA0": "ten mil\uffa0lion dollars",
    "Khmer inherent vowel U+17B4": "ten mil\u17b4lion dollars",
    "LRO..PDF around LTR letters": "ten \u202dmillion\u202c dollars",
    "RLO around reversed letters (displays unchanged)": "ten \u202enoillim\u202c dollars",
    "LRI..PDI": "ten \u2066million\u2069 dollars",
    "several at once": "t\u200den mil\u2062lion\u200e dol\U000e0041lars",
}


@pytest.mark.parametrize("name", sorted(INVISIBLE_IN_LATIN))
def test_invisible_characters_in_a_quote_are_untouched_and_flagged(name):
    t2 = LATIN.replace(QUOTE, INVISIBLE_IN_LATIN[name])
    r, v = _verdict(LATIN, t2, QUOTE)
    assert v.verdict == "untouched", (name, v.method, v.v2, v.note)
    assert v.invisible_only and not v.lookalike_only
    assert "invisible characters only" in v.note
    item = r.to_json(extended=True)["verdicts"][0]
    assert item["invisible_only"] is True and item["verdict"] == "untouched"
    assert r.metrics["attribution_rate"].value == 0.0


def test_invisible_characters_in_html_are_untouched_too():
    t1 = f"<!DOCTYPE html><html><body><p>{LATIN}</p></body></html>"
    t2 = t1.replace(QUOTE, "ten mil&zwj;lion dollars")
    _r, v = _verdict(t1, t2, QUOTE, "html")
    assert v.verdict == "untouched" and v.invisible_only, (v.method, v.note)


@pytest.mark.parametrize(
    "new",
    [
        "ten \u202emillion\u202c dollars",  # RLO shows "noillim": a reader sees that
        "twelve million dollars",  # a real edit
        "ten mil\u200dlions dollars",  # invisible + a real edit
        "ten million\u00a0dollar",  # NBSP folds, the lost "s" does not
    ],
)
def test_a_change_a_reader_can_see_is_still_an_edit(new):
    _r, v = _verdict(LATIN, LATIN.replace(QUOTE, new), QUOTE)
    assert v.verdict == "edited", (new, v.note)
    assert not v.invisible_only


# Where the same characters change the letters' shapes, they are edits (several scripts).
SHAPING = [
    # Persian: ZWNJ removed / added between joining letters (the last session's rule)
    ("این کتاب\u200cها خوب هستند.", "این کتابها خوب هستند.", "کتاب\u200cها"),
    ("من میخواهم بروم.", "من می\u200cخواهم بروم.", "میخواهم"),
    # Arabic: ZWJ after a letter forces its joining form
    ("كتب الولد الدرس.", "كتب الولد\u200d الدرس.", "الولد"),
    # Devanagari: ZWJ after a virama makes a half form
    ("शब्द क्ष यहाँ है।", "शब्द क्\u200dष यहाँ है।", "क्ष"),
    # Malayalam: ZWJ after a virama makes a chillu letter
    ("അവന് പറഞ്ഞു.", "അവന്\u200d പറഞ്ഞു.", "അവന്"),
    # Emoji: ZWJ joins a family into one picture; VS16 gives a heart its emoji form
    ("Team 👨👩👧 here.", "Team 👨\u200d👩\u200d👧 here.", "👨👩👧"),
    ("Love \u2764 it.", "Love \u2764\ufe0f it.", "\u2764 it"),
    # A tag sequence after the black flag is the flag of England
    (
        "Flag \U0001f3f4 here.",
        "Flag \U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f here.",
        "\U0001f3f4 here",
    ),
    # An ideographic variation selector picks another glyph of the ideograph
    ("葛飾区の話。", "葛\U000e0100飾区の話。", "葛飾区"),
    # Hebrew in an English line: an RLM after "!" moves it to the other end of the word
    (
        "He said \u05e9\u05dc\u05d5\u05dd! ok",
        "He said \u05e9\u05dc\u05d5\u05dd!\u200f ok",
        "\u05e9\u05dc\u05d5\u05dd! ok",
    ),
]


@pytest.mark.parametrize("t1,t2,quote", SHAPING)
def test_joiners_and_selectors_that_change_shapes_are_edits(t1, t2, quote):
    _r, v = _verdict(t1, t2, quote)
    assert v.verdict == "edited", (quote, v.v2, v.note)
    assert not v.invisible_only


# The same invisible insertions in other scripts, where they cannot show.
@pytest.mark.parametrize(
    "t1,quote,new",
    [
        ("Бюджет десять миллионов.", "десять миллионов", "десять мил\u200dлионов"),
        ("Ο προϋπολογισμός είναι δέκα.", "είναι δέκα", "είναι δ\u2062έκα"),
        ("予算は一千万ドルです。", "一千万ドル", "一千\u200d万ドル"),
        ("예산은 천만 달러입니다.", "천만 달러", "천만\u3164 달러"),
        ("งบประมาณสิบล้านบาท", "สิบล้าน", "สิบ\U000e0041ล้าน"),
        ("התקציב הוא עשרה מיליון.", "עשרה מיליון", "עשרה \u200fמיליון"),
        ("الميزانية عشرة ملايين.", "عشرة ملايين", "عشرة \u2066ملايين\u2069"),
    ],
)
def test_invisible_insertions_in_other_scripts(t1, quote, new):
    _r, v = _verdict(t1, t1.replace(quote, new), quote)
    assert v.verdict == "untouched" and v.invisible_only, (quote, v.v2, v.note)


def test_lookalike_and_invisible_together_are_both_flagged():
    t2 = LATIN.replace(QUOTE, "ten mil\u200dlion doll\u0430rs")  # ZWJ + Cyrillic а
    _r, v = _verdict(LATIN, t2, QUOTE)
    assert v.verdict == "untouched" and v.invisible_only and v.lookalike_only, v.note


def test_invisible_only_is_a_pure_function():
    assert not invisible_only(QUOTE, QUOTE)  # equal texts are no change at all
    assert invisible_only(QUOTE, "ten mil\u200dlion dollars")
    assert not invisible_only("کتاب\u200cها", "کتابها")


def test_the_integrity_control_reopens_an_invisible_only_fix():
    t2 = LATIN.replace(QUOTE, "ten mil\u2062lion dollars")
    r, v = _verdict(LATIN, t2, QUOTE)
    report = ClaimReport([ClaimItem("c1", "addressed", "fixed", "done")], "")
    (u,) = unchanged_claims(r.verdicts, report, {"c1"})
    assert u.by == "resolved+report" and u.invisible_only and not u.lookalike_only
    line = ClaimUnchanged("run", round=1, comment_id="c1", invisible_only=True).describe()
    assert "invisible characters only" in line and "VERIFICATION" in line


def test_a_long_run_of_invisible_characters_is_judged_by_its_neighbours():
    # Each character of a run is judged by the letters around the whole run (a run of
    # ZWJs between Latin letters shows nothing; one ZWJ is "join causing" itself and must
    # not count as a shaping neighbour of the next).
    assert invisible_only(QUOTE, "ten mil" + "\u200d" * 5000 + "lion dollars")
    assert invisible_only(QUOTE, "ten mil" + "\U000e0041\u2062" * 3000 + "lion dollars")
    assert not invisible_only("کتابها", "کتاب" + "\u200c" * 50 + "ها")


def test_ascii_holds_no_default_ignorable_nor_bidi_control():
    """The ASCII fast path of ``_without_unseen`` (no ``regex`` import) is exact: no ASCII
    character is default-ignorable or a bidi control."""
    import regex

    from engine.text.invisible import _BIDI_CONTROLS, _without_unseen

    ascii_text = "".join(map(chr, range(128)))
    assert not regex.search(r"\p{Default_Ignorable_Code_Point}", ascii_text)
    assert not set(ascii_text) & set(_BIDI_CONTROLS)
    assert _without_unseen(ascii_text) == (ascii_text, False)
