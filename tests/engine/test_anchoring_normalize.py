"""What normalisation folds (docs/verdicts.md, "Normalisation"): only what
renders the same to a reader. A visible change is an edit in every script."""

import random

import pytest

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text.normalize import FoldedText, compact, fold_needle, normalize
from engine.text.utf16 import to_utf16


def _verdict(before: str, after: str, quote: str, prefix: str = "Start: ", suffix: str = " end."):
    t1, t2 = prefix + before + suffix, prefix + after + suffix
    i = t1.index(quote)
    c = Comment(
        "c1",
        "fix",
        Anchor(
            quote,
            t1[max(0, i - 32) : i],
            t1[i + len(quote) : i + len(quote) + 32],
            start_offset=to_utf16(t1, i),
            end_offset=to_utf16(t1, i + len(quote)),
        ),
    )
    r = score(Version.from_source(t1, "text"), Version.from_source(t2, "text", "v2"), [c])
    (v,) = r.verdicts
    return v


VISIBLE = [
    ("CO2 output", "CO₂ output", "CO2"),  # subscript
    ("80 m2 floor", "80 m² floor", "80 m2"),  # superscript
    ("x2 + y2", "x² + y²", "x2 + y2"),
    ("２０２５年４月", "2025年4月", "２０２５年４月"),  # full-width digits
    ("ｻﾎﾟｰﾄ窓口", "サポート窓口", "ｻﾎﾟｰﾄ"),  # half-width katakana
    ("ＡＢＣ社", "ABC社", "ＡＢＣ"),  # full-width Latin
    ("ACME TM brand", "ACME ™ brand", "ACME TM"),
    ("add 1/2 cup", "add ½ cup", "1/2"),
    ("step 1 first", "step ① first", "step 1"),
    ("Chapter IV opens", "Chapter Ⅳ opens", "Chapter IV"),  # Roman numeral sign
    ("weighs 5 kg net", "weighs 5 ㎏ net", "5 kg"),
    ("the ſtate of it", "the state of it", "ſtate"),  # long s is a letter of its own
    # Persian: a zero-width non-joiner added between the prefix and the verb (renders apart)
    ("من میخواهم بروم", "من می\u200cخواهم بروم", "میخواهم"),
    ("من می\u200cخواهم بروم", "من میخواهم بروم", "می\u200cخواهم"),  # ... and removed
    # Devanagari: a zero-width joiner forces the half form of the conjunct
    ("शब्द क्ष यहाँ", "शब्द क्\u200dष यहाँ", "क्ष"),
    # Malayalam chillu written with ZWJ
    ("മലയാളം അവന് പറഞ്ഞു", "മലയാളം അവന്\u200d പറഞ്ഞു", "അവന് പറഞ്ഞു"),
    # emoji: a ZWJ sequence split into two emoji, and joined again
    ("team 👩\u200d💻 online", "team 👩💻 online", "👩\u200d💻"),
    ("team 👨👩👧 here", "team 👨\u200d👩\u200d👧 here", "👨👩👧"),
    ("Read pages 10-20 now", "Read pages 10–20 now", "10-20"),  # hyphen to en dash
    ('quoted "text" here', "quoted “text” here", '"text"'),
    ("Thai ภาษาไทย ok", "Thai ภาษาไท ok", "ภาษาไทย"),
    ("Arabic كتاب here", "Arabic كتب here", "كتاب"),
]


@pytest.mark.parametrize("before,after,quote", VISIBLE)
def test_a_visible_change_is_an_edit(before, after, quote):
    v = _verdict(before, after, quote)
    assert v.verdict == "edited", (v.method, v.note, v.v2)
    assert normalize(v.v1.text) != normalize(v.v2.text)


SAME = [
    ("caf\u00e9 open", "cafe\u0301 open", "caf\u00e9"),  # NFC vs NFD
    ("\uac01 ok", "\u1100\u1161\u11a8 ok", "\uac01"),  # Hangul syllable vs conjoining jamo
    ("\u212b units", "\u00c5 units", "\u212b"),  # Angstrom sign, canonically Å
    ("10\u00a0EUR", "10 EUR", "10\u00a0EUR"),  # NBSP
    ("10\u202fkm", "10 km", "10\u202fkm"),  # narrow NBSP
    ("two\u3000words", "two words", "two\u3000words"),  # ideographic space
    ("a\u2009thin", "a thin", "a\u2009thin"),  # thin space
    ("inter\u00adnational", "international", "inter\u00adnational"),  # soft hyphen
    ("zero\u200bwidth", "zerowidth", "zero\u200bwidth"),  # zero-width space
    ("word\u2060joined", "wordjoined", "word\u2060joined"),  # word joiner
    ("\ufeffbom text", "bom text", "\ufeffbom text"),  # BOM
    ("the \ufb01nal \ufb02ow", "the final flow", "\ufb01nal \ufb02ow"),  # Latin ligatures
    ("e\ufb00ect", "effect", "e\ufb00ect"),
    (
        "\ufefb \ufe8d\ufee0\ufedc\ufe98\ufe8e\ufe8f",
        "لا الكتاب",
        "\ufefb \ufe8d\ufee0\ufedc\ufe98\ufe8e\ufe8f",
    ),  # Arabic forms
    ("many   spaces\n\there", "many spaces here", "many   spaces\n\there"),
]


@pytest.mark.parametrize("before,after,quote", SAME)
def test_what_renders_the_same_is_untouched(before, after, quote):
    v = _verdict(before, after, quote)
    assert v.verdict == "untouched", (v.method, v.note, v.v2)


def test_zwnj_and_zwj_are_kept_when_searching_a_quote():
    # A quote with ZWNJ does not match the same letters without it: they render differently.
    t = "aa میخواهم bb می\u200cخواهم cc"
    f = FoldedText(t)
    hits = f.find_all(fold_needle("می\u200cخواهم"))
    assert hits == [(t.index("می\u200cخواهم"), t.index("می\u200cخواهم") + 8)]


_ALPHABET = list("ab é") + [
    "e\u0301",
    "\u0301",
    "\u00a0",
    "\u3000",
    "\n",
    "\u00ad",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\ufb01",
    "\ufefb",
    "\u1100\u1161",
    "\u11a8",
    "²",
    "ｶ",
    "字",
    "😀",
]


def test_folded_text_agrees_with_normalize_and_maps_back_to_raw():
    rnd = random.Random(8)
    for _ in range(400):
        raw = "".join(rnd.choice(_ALPHABET) for _ in range(rnd.randint(0, 30)))
        f = FoldedText(raw)
        assert f.folded.strip() == normalize(raw), repr(raw)
        assert FoldedText(raw, collapse_space=False).folded == compact(raw), repr(raw)
        # every folded substring maps to a raw span whose own folding contains it
        for _ in range(5):
            if not f.folded:
                break
            a = rnd.randrange(len(f.folded))
            b = rnd.randint(a + 1, len(f.folded))
            s, e = f.raw_span(a, b)
            assert 0 <= s <= e <= len(raw)
            assert f.folded[a:b].strip() in FoldedText(raw[s:e]).folded, (raw, a, b, s, e)
