"""Token edits (docs/verdicts.md, "Token edits"): an edited span whose only change is letter
case, punctuation, spacing or at most two characters (grapheme clusters) stays ``edited``
and is flagged, with its kind, in the verdict, its JSON and its note; a number changed, a
word added, removed or replaced by another is never one. Cases, then Hypothesis
properties over Latin, Greek, Cyrillic, Devanagari, Arabic, Persian, Thai, CJK and emoji."""

from __future__ import annotations

import re

import regex
from hypothesis import assume, given, settings, strategies as st

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.score.token_edits import TOKEN_CHARS, token_edit_kind

CASES = [
    ("Hello world", "hello world", "only the letter case changed"),
    ("hello world", "hello, world", "only the punctuation changed"),
    ("alot of it", "a lot of it", "only the spacing changed"),
    ("Members recieve a newsletter", "Members receive a newsletter", "only two characters changed"),
    ("form the", "from the", "only two characters changed"),
    ("ten people", "ten peoples", "only one character changed"),
    ("recieve,", "receive.", "only two characters and the punctuation changed"),
    ("Hello, world", "hello world!", "only the letter case and punctuation changed"),
    ("pages 3-5", "pages 3\u20135", "only the punctuation changed"),
    ("\U0001f44d\U0001f3fd ok", "\U0001f44d\U0001f3ff ok", "only one character changed"),
    (
        "कि\u092e\u0948\u0902 घर जा रहा हूँ",
        "कि\u092e\u0948\u0902 घर जा रहे हूँ",
        "only one character changed",
    ),
    ("كتب الولد", "كتب الولد،", "only the punctuation changed"),
    (
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u06cc\u0645",
        "\u0645\u06cc\u062e\u0648\u0627\u0647\u06cc\u0645",
        "only one character changed",
    ),
    ("我们发现了问题。", "我们发现了问题！", "only the punctuation changed"),
    ("ฉันชอบกินข้าว มาก", "ฉันชอบกินข้าวมาก", "only the spacing changed"),
]

NOT_TOKEN = [
    ("at least 21 days before departure", "at least 14 days before departure"),  # a number
    ("1,000 people", "1.000 people"),  # separators inside a number are the number
    ("version 3.1", "version 31"),
    ("price $5", "price \u20ac5"),  # a currency sign
    ("\u0663 \u0643\u062a\u0628", "\u0664 \u0643\u062a\u0628"),  # Arabic-Indic digit
    ("the cat sat", "the dog sat"),  # three characters
    ("a cat", "I cat"),  # a word replaced by another
    ("the cat", "the big cat"),  # a word added
    ("a big cat", "big cat"),  # a word removed
    ("Bravo sentence two is commented.", "Bravo sentence two is revised."),
    ("same", "same"),  # no edit at all
    ("soft\u00adhyphen", "softhyphen"),  # folded by the verdict's normalisation: no edit
]


def test_kinds_of_token_edits() -> None:
    for t1, t2, kind in CASES:
        assert token_edit_kind(t1, t2) == kind, (t1, t2)


def test_never_a_token_edit() -> None:
    for t1, t2 in NOT_TOKEN:
        assert token_edit_kind(t1, t2) == "", (t1, t2)


def _scored(v1: str, v2: str, quote: str) -> dict:
    i = v1.index(quote)
    n = len(quote)
    anchor = Anchor(
        quote, v1[max(0, i - 32) : i], v1[i + n : i + n + 32], start_offset=i, end_offset=i + n
    )
    res = score(
        Version.from_source(v1, "text", "v1"),
        Version.from_source(v2, "text", "v2"),
        [Comment("c1", "Typo.", anchor)],
    )
    return res.verdicts[0].to_json(v1, v2, extended=True)


def test_verdict_flags_a_token_edit_and_keeps_edited() -> None:
    v1 = "Intro line here.\n\nThe committee will review every applicaton by Friday.\n\nEnd."
    v2 = v1.replace("every applicaton", "Every application,")
    item = _scored(v1, v2, "every applicaton")
    assert item["verdict"] == "edited"
    assert item["token_edit"] is True
    assert (
        item["token_edit_kind"] == "only one character and the letter case and punctuation changed"
    )
    assert "token edit: only one character" in item["note"]


def test_real_edit_is_not_flagged() -> None:
    v1 = "Book at least 21 days before departure.\n\nHotels cost 150 euros per night."
    v2 = v1.replace("21 days", "14 days")
    item = _scored(v1, v2, "at least 21 days before departure")
    assert item["verdict"] == "edited"
    assert "token_edit" not in item and "token_edit_kind" not in item


def test_untouched_is_never_a_token_edit() -> None:
    v1 = "Alpha beta gamma.\n\nDelta epsilon zeta."
    item = _scored(v1, v1.replace("Delta", "DELTA"), "Alpha beta")
    assert item["verdict"] == "untouched" and "token_edit" not in item


# -- properties -------------------------------------------------------------------------------

# Graphemes of several code points each, by script: inserting one is one character.
POOLS = {
    "latin": ["e\u0301", "n\u0303", "a", "b", "o\u0308", "s"],
    "greek": ["\u03b1\u0301", "\u03b2", "\u03b3", "\u03bf\u0308"],
    "cyrillic": ["\u0438\u0306", "\u0431", "\u0434", "\u0435\u0308"],
    "devanagari": ["\u0915\u093f", "\u0915\u094d\u0937", "\u0928\u0947", "\u092e\u0948\u0902"],
    "arabic": ["\u0628\u064e", "\u062a\u0650", "\u0633\u064f", "\u0644"],
    "persian": ["\u06a9", "\u06af\u0650", "\u067e", "\u0686\u064e"],
}
CASED = ["latin", "greek", "cyrillic"]
DIGITS = "0123456789\u0660\u0661\u0662\u0663\u06f4\u06f5\u0966\u0967\u0e51\u0e52\uff13\uff14"
PUNCT = [",", ".", ";", "!", "?", "\u060c", "\u3001", "\u3002", "\u201c", "\u00bf", "\u2014"]
NO_SPACE_TEXT = ["我们发现了问题", "ฉันชอบกินข้าว", "日本語のテキスト", "ภาษาไทยง่าย"]
EMOJI = [
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",
    "\U0001f1eb\U0001f1f7",
    "\U0001f44d\U0001f3fd",
]

_G = regex.compile(r"\X")


@st.composite
def words(draw: st.DrawFn, script: str, min_size: int = 5) -> str:
    return "".join(draw(st.lists(st.sampled_from(POOLS[script]), min_size=min_size, max_size=9)))


@st.composite
def sentence(draw: st.DrawFn, script: str) -> list[str]:
    return draw(st.lists(words(script), min_size=2, max_size=6))


SETTINGS = settings(max_examples=120, derandomize=True, deadline=None)


@SETTINGS
@given(st.sampled_from(CASED).flatmap(sentence), st.data())
def test_case_only_is_a_token_edit(ws: list[str], data: st.DataObject) -> None:
    t1 = " ".join(ws)
    i = data.draw(st.integers(0, len(ws) - 1))
    t2 = " ".join(w.upper() if j == i else w for j, w in enumerate(ws))
    assume(t1 != t2)
    assert token_edit_kind(t1, t2) == "only the letter case changed"


@SETTINGS
@given(
    st.one_of(st.sampled_from(list(POOLS)).flatmap(sentence), st.just(NO_SPACE_TEXT)),
    st.data(),
)
def test_punctuation_only_is_a_token_edit(ws: list[str], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(ws) - 1))
    marks = data.draw(st.lists(st.sampled_from(PUNCT), min_size=1, max_size=5))
    t1 = " ".join(ws)
    t2 = " ".join(w + "".join(marks) if j == i else w for j, w in enumerate(ws))
    kind = token_edit_kind(t1, t2)
    assert kind.startswith("only the punctuation"), (t1, t2, kind)
    assert token_edit_kind(t2, t1) == kind


@SETTINGS
@given(
    st.one_of(st.sampled_from(list(POOLS)).flatmap(sentence), st.just(NO_SPACE_TEXT)),
    st.data(),
)
def test_a_changed_digit_is_never_a_token_edit(ws: list[str], data: st.DataObject) -> None:
    a, b = data.draw(st.lists(st.sampled_from(DIGITS), min_size=2, max_size=2, unique=True))
    i = data.draw(st.integers(0, len(ws)))
    number = data.draw(st.sampled_from(["{}", "{}0", "1,{}00", "3.{}", "{}%"]))
    t1 = " ".join([*ws[:i], number.format(a), *ws[i:]])
    t2 = " ".join([*ws[:i], number.format(b), *ws[i:]])
    assert token_edit_kind(t1, t2) == ""
    assert token_edit_kind(t2, t1) == ""


@SETTINGS
@given(st.sampled_from(list(POOLS)), st.data())
def test_characters_are_counted_as_graphemes(script: str, data: st.DataObject) -> None:
    """k graphemes (each of up to three code points) inserted into one word of at least
    six: a token edit for k <= TOKEN_CHARS, none beyond."""
    ws = data.draw(sentence(script))
    i = data.draw(st.integers(0, len(ws) - 1))
    word = data.draw(words(script, min_size=6))
    k = data.draw(st.integers(1, TOKEN_CHARS + 2))
    gs = _G.findall(word)
    for _ in range(k):
        at = data.draw(st.integers(1, len(gs) - 1))
        gs.insert(at, data.draw(st.sampled_from(POOLS[script])))
    new = "".join(gs)
    assume(len(_G.findall(new)) == len(_G.findall(word)) + k)
    t1 = " ".join([*ws[:i], word, *ws[i:]])
    t2 = " ".join([*ws[:i], new, *ws[i:]])
    kind = token_edit_kind(t1, t2)
    from rapidfuzz.distance import Levenshtein

    n = Levenshtein.distance(_G.findall(word), _G.findall(new))  # repeats may align
    if n <= TOKEN_CHARS:
        assert kind == ("only one character changed" if n == 1 else "only two characters changed")
    else:
        assert kind == ""
    assert (token_edit_kind(t2, t1) == "") == (kind == "")


@SETTINGS
@given(st.lists(st.sampled_from(EMOJI), min_size=3, max_size=6), st.data())
def test_an_emoji_sequence_is_one_character(seq: list[str], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(seq)))
    extra = data.draw(st.sampled_from(EMOJI))
    t1 = "ok " + "".join(seq) + " done"
    t2 = "ok " + "".join([*seq[:i], extra, *seq[i:]]) + " done"
    assert token_edit_kind(t1, t2) == "only one character changed"


@SETTINGS
@given(st.sampled_from(list(POOLS)).flatmap(sentence), st.data())
def test_a_word_added_or_replaced_is_never_a_token_edit(ws: list[str], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(ws)))
    short = data.draw(st.sampled_from(["I", "a", "\u0438", "\u0628", "\u0915"]))
    t1 = " ".join(ws)
    assert token_edit_kind(t1, " ".join([*ws[:i], short, *ws[i:]])) == ""  # added
    assert token_edit_kind(" ".join([*ws[:i], short, *ws[i:]]), t1) == ""  # removed
    other = "O" if short != "O" else "U"
    assert (
        token_edit_kind(" ".join([*ws[:i], short, *ws[i:]]), " ".join([*ws[:i], other, *ws[i:]]))
        == ""
    )  # replaced: no character kept


# -- where it is shown ------------------------------------------------------------------------


def _items() -> list[dict]:
    base = {"v1": {"start": 0, "end": 5, "text": "Hello"}, "method": "exact", "claim": None}
    return [
        {
            **base,
            "comment_id": "c1",
            "verdict": "edited",
            "token_edit": True,
            "token_edit_kind": "only the letter case changed",
        },
        {
            **base,
            "comment_id": "c2",
            "verdict": "edited",
            "token_edit": True,
            "token_edit_kind": "only the letter case changed",
        },
        {
            **base,
            "comment_id": "c3",
            "verdict": "edited",
            "token_edit": True,
            "token_edit_kind": "only the letter case changed",
        },
        {**base, "comment_id": "c4", "verdict": "edited"},
        {**base, "comment_id": "c5", "verdict": "untouched"},
    ]


def test_words_of_the_count() -> None:
    from engine.vocabulary import token_edit_items, token_edits_words

    edited, kinds = token_edit_items(_items())
    assert edited == 4
    assert f"{edited} edited, {token_edits_words(kinds)}" == (
        "4 edited, 3 of them token edits: only the letter case changed"
    )
    assert token_edits_words(
        [
            "only the punctuation changed",
            "only one character changed",
            "only the punctuation changed",
        ]
    ) == ("3 of them token edits: only the punctuation changed (2); only one character changed (1)")
    assert token_edits_words([]) == ""


def test_scorecard_first_line_after_tampered() -> None:
    from engine.bundle.scorecard import render_scorecard

    comments = [{"id": f"c{i}", "body": "fix"} for i in range(1, 6)]
    manifest = {"status": "completed", "document_title": "t"}
    page = render_scorecard(manifest, {"final": _items()}, {}, comments, comments, {})
    banners = re.findall(r"<div class='banner[^']*'>(.*?)</div>", page)
    assert banners[0] == (
        "<b>Token edits.</b> 4 edited, 3 of them token edits: only the letter case changed. "
        "A token edit is still an edit; check that it is the fix the comment asked for."
    )
    assert page.count("A token edit \u2014 only the letter case changed") == 3  # each row
    page = render_scorecard(
        manifest,
        {"final": _items()},
        {},
        comments,
        comments,
        {},
        tampered=["x"],
        review=("<div class='banner awaiting'>Awaiting review: 5</div>", ""),
    )
    banners = re.findall(r"<div class='banner[^']*'>(.*?)</div>", page, re.S)
    assert banners[0].startswith("<b>TAMPERED.</b>")
    assert banners[1].startswith("Awaiting review")
    assert banners[2].startswith("<b>Token edits.</b>")
    plain = [dict(v, token_edit=None) for v in _items()]
    assert "Token edits." not in render_scorecard(manifest, {"final": plain}, {}, comments, [], {})


def test_a_token_edit_needs_review() -> None:
    from engine.bundle.review import needs_review

    assert "a token edit (only the letter case changed)" in needs_review(_items()[0])
    assert needs_review(_items()[3]) == []


def test_cli_summary_says_it() -> None:
    from engine.cli.main import render_summary

    v1 = "Intro line here.\n\nThe committee will review every applicaton by Friday.\n\nEnd."
    v2 = v1.replace("every applicaton", "every application")
    i = v1.index("every applicaton")
    anchor = Anchor("every applicaton", v1[:i], v1[i + 16 :], start_offset=i, end_offset=i + 16)
    res = score(
        Version.from_source(v1, "text", "v1"),
        Version.from_source(v2, "text", "v2"),
        [Comment("c1", "Typo.", anchor)],
    )
    text = render_summary(res, [])
    assert "1 edited (1 of them a token edit: only one character changed)" in text
    assert "token edit: only one character changed" in text


def test_bundle_schema_takes_the_fields() -> None:
    from engine.bundle.formats import FORMAT_V3
    from engine.bundle.schema import check_file

    item = {
        "comment_id": "c1",
        "verdict": "edited",
        "v1": None,
        "v2": None,
        "method": "exact",
        "markup_changed": False,
        "claim": None,
        "claim_agrees": None,
        "message": None,
        "confidence": 1.0,
        "offsets_repaired": False,
        "approximate": False,
        "note": "",
        "token_edit": True,
        "token_edit_kind": "only the letter case changed",
    }
    doc = {"rounds": [], "final": [item], "unusable": [], "collateral": []}
    assert check_file("verdicts.json", doc, FORMAT_V3) == []
    assert check_file("verdicts.json", {**doc, "final": [{**item, "token_edit": "yes"}]}, FORMAT_V3)


# -- ASCII text is read without the regex module ------------------------------------------

_ASCII_ALPHABET = "".join(map(chr, range(128)))
_ASCII_TEXT = st.text(
    st.one_of(st.sampled_from(_ASCII_ALPHABET), st.sampled_from(list("aAbB1 ,.-$'\r\n"))),
    max_size=40,
)


def _unicode_rules():
    import engine.score.token_edits as T

    T._rules("é", "é")  # builds the regex module's rules
    assert T._unicode is not None
    return T._unicode


def test_the_ascii_patterns_are_the_unicode_classes_on_every_ascii_character() -> None:
    import engine.score.token_edits as T

    u = _unicode_rules()
    for name in T._Rules.__slots__:
        a, b = getattr(T._ASCII, name), getattr(u, name)
        assert a.findall(_ASCII_ALPHABET) == b.findall(_ASCII_ALPHABET), name
        for ch in _ASCII_ALPHABET:
            assert bool(a.fullmatch(ch)) == bool(b.fullmatch(ch)), (name, ch)


@SETTINGS
@given(_ASCII_TEXT)
def test_the_ascii_patterns_read_ascii_as_the_regex_ones(text: str) -> None:
    import engine.score.token_edits as T

    u = _unicode_rules()
    for name in T._Rules.__slots__:
        a, b = getattr(T._ASCII, name), getattr(u, name)
        assert a.findall(text) == b.findall(text), (name, text)
        assert a.sub("", text) == b.sub("", text), (name, text)
        assert [m.span() for m in a.finditer(text)] == [m.span() for m in b.finditer(text)]


@SETTINGS
@given(_ASCII_TEXT, st.data())
def test_ascii_token_edit_kinds_are_the_unicode_ones(t1: str, data: st.DataObject) -> None:
    """The same kind, read either way: ASCII pairs (edits of a few characters, so most are
    token edits) give ``token_edit_kind`` the same answer with the ``regex`` rules."""
    import engine.score.token_edits as T

    chars = list(t1)
    for _ in range(data.draw(st.integers(0, 3))):
        i = data.draw(st.integers(0, len(chars)))
        chars.insert(i, data.draw(st.sampled_from(list("aAe1,. -$"))))
    t2 = "".join(chars)
    got = T.token_edit_kind(t1, t2)
    u = _unicode_rules()
    try:
        T._ASCII, saved = u, T._ASCII
        want = T.token_edit_kind(t1, t2)
    finally:
        T._ASCII = saved
    assert got == want, (t1, t2)


def test_scoring_ascii_text_never_imports_regex() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from engine.score.token_edits import token_edit_kind\n"
        "assert token_edit_kind('Members recieve it', 'Members receive it')\n"
        "assert token_edit_kind('Hello, world', 'hello world!')\n"
        "print('regex' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_full_stop_the_diff_gave_to_a_deleted_neighbour_is_no_punctuation_change() -> None:
    """ "Mey" fixed and the next sentence deleted: the diff kept the quote's full stop as the
    deleted sentence's, so the new place is "The fee is due in May" with "." right after it.
    The punctuation a reader sees did not change (a new user's report, stop 41)."""
    for v1, v2, quote, kind in [
        (
            "Welcome to the team. The fee is due in Mey. Please read the handbook before "
            "Monday. Our office opens at nine every day.",
            "Welcome to the team. The fee is due in May. Our office opens at nine every day.",
            "The fee is due in Mey.",
            "only one character changed",
        ),
        (
            "欢迎加入团队。费用在五月到期，无需支付。请在周一之前阅读手册。办公室每天九点开门。",
            "欢迎加入团队。费用在六月到期，无需支付。办公室每天九点开门。",
            "费用在五月到期，无需支付。",
            "only one character changed",
        ),
    ]:
        item = _scored(v1, v2, quote)
        assert item["verdict"] == "edited", item
        assert item["token_edit_kind"] == kind, item
    # where the full stop really went, it is still said
    item = _scored(
        "Intro.\n\nThe fee is due in Mey.\n\nEnd.",
        "Intro.\n\nThe fee is due in May\n\nEnd.",
        "The fee is due in Mey.",
    )
    assert item["token_edit_kind"] == "only one character and the punctuation changed", item


def test_only_punctuation_and_symbols_are_read_after_the_new_place() -> None:
    from engine.models import Span
    from engine.score.token_edits import _as_read

    v2 = "The fee is due in May. Next."
    assert _as_read("The fee is due in Mey.", Span(0, 21, v2[:21]), v2) == v2[:22]
    assert _as_read("in Mey 📘", Span(0, 21, v2[:21]), v2) == v2[:21]  # no "📘" after it
    thai = "ราคาค่าบริการ"  # a quote ending in a tone mark (a combining mark, no punctuation)
    assert _as_read("ราคาค่", Span(0, 5, thai[:5]), thai) == thai[:5]
    assert _as_read("x.", Span(0, 21, v2[:21]), None) == v2[:21]
