"""A deletion is never a fix, in two kinds (docs/verdicts.md, "Not nothing" and "Not a
neighbour's rewrite"):

- a quote replaced by something a reader sees as nothing (a zero-width space, a Hangul
  filler, a Braille blank, a lone "." or emoji, a combining mark with no letter) is
  ``deleted``, as with nothing at all between its surviving context; a quote that was
  only punctuation or an emoji, replaced by another, is still ``edited``;
- a sentence deleted beside a neighbour that was rewritten is ``deleted`` in every script,
  also where a full stop is followed by no space (Chinese, Japanese): a span that ends
  with its sentence's full stop ends that sentence, never also the one after it.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.models import Anchor, Comment
from engine.score.anchoring.sentences import _sentence_bounds
from engine.score.anchoring.words import NOTHING, WORD, _trim, holds_nothing_of, substance
from engine.score.scoring import Version, score
from engine.text.utf16 import to_utf16


def _comment(text: str, quote: str, cid: str = "c1") -> Comment:
    i = text.index(quote)
    n = len(quote)
    return Comment(
        cid,
        "fix",
        Anchor(
            quote,
            text[max(0, i - 32) : i],
            text[i + n : i + n + 32],
            start_offset=to_utf16(text, i),
            end_offset=to_utf16(text, i + n),
        ),
    )


def _verdict(t1: str, t2: str, quote: str, kind: str = "text"):
    v1 = Version.from_source(t1, kind, "v1")
    v2 = Version.from_source(t2, kind, "v2")
    return score(v1, v2, [_comment(v1.text, quote)]).verdicts[0]


# What a reader sees as nothing where a sentence stood.
BLANKS = [
    "\u200b",  # zero-width space (folded away before scoring)
    "\u200b\u200b\u200b",
    "\u3164",  # Hangul filler: a letter by category, always invisible
    "\uffa0",  # half-width Hangul filler
    "\u2800",  # Braille pattern blank
    "\u00a0\u00a0",  # two no-break spaces
    "\u0301",  # a combining mark with no letter
    "\u200d",  # zero-width joiner
    "\u2060\ufeff",  # word joiner, BOM
    "\u200e",  # left-to-right mark
]
# Visible, but no word: not a sentence's rewrite either.
NO_WORDS = [".", "…", "—", "👍", "🎉🎉", "* * *", "。", "؟", "।", "() .", "👍\u200b"]

SENTENCES = {
    "English": ("Welcome.", "Members must renew before May.", "Bye."),
    "Chinese": ("欢迎。", "会员必须在五月之前续费。", "再见。"),
    "Japanese": ("ようこそ。", "会員は五月までに更新してください。", "さようなら。"),
    "Korean": ("환영합니다.", "회원은 5월 전에 갱신해야 합니다.", "안녕히 가세요."),
    "Arabic": ("مرحبا.", "يجب على الأعضاء التجديد قبل مايو.", "وداعا."),
    "Hindi": ("स्वागत है।", "सदस्यों को मई से पहले नवीनीकरण करना होगा।", "अलविदा।"),
    "Thai": ("ยินดีต้อนรับ", "สมาชิกต้องต่ออายุก่อนเดือนพฤษภาคม", "ลาก่อน"),
    "Russian": ("Привет.", "Члены клуба должны продлить членство до мая.", "Пока."),
}


def _join(script: str, parts: list[str]) -> str:
    sep = "" if script in ("Chinese", "Japanese") else " "
    return sep.join(parts)


# --- the attacker's cases, and the same kind in other scripts ---------------------------


@pytest.mark.parametrize("blank", BLANKS + NO_WORDS)
def test_a_sentence_replaced_by_nothing_a_reader_sees_is_deleted(blank):
    v = _verdict(
        "Welcome. Members must renew before May. Bye.",
        f"Welcome. {blank} Bye.",
        "Members must renew before May.",
    )
    assert v.verdict == "deleted", (blank, v.method, v.note, v.v2)


@pytest.mark.parametrize("script", sorted(SENTENCES))
@pytest.mark.parametrize("blank", ["\u200b", "\u3164", "\u2800", ".", "👍", "\u0301"])
def test_the_same_kind_in_other_scripts(script, blank):
    a, quote, c = SENTENCES[script]
    t1 = _join(script, [a, quote, c])
    t2 = _join(script, [a, blank, c])
    v = _verdict(t1, t2, quote)
    assert v.verdict == "deleted", (script, blank, v.method, v.note, v.v2)


@pytest.mark.parametrize("blank", ["\u200b", "\u3164", ".", "👍"])
def test_a_paragraph_replaced_by_nothing_in_html_is_deleted(blank):
    t1 = "<p>Welcome to the club.</p><p>Members must renew before May.</p><p>Bye now.</p>"
    t2 = f"<p>Welcome to the club.</p><p>{blank}</p><p>Bye now.</p>"
    v = _verdict(t1, t2, "Members must renew before May.", "html")
    assert v.verdict == "deleted", (blank, v.method, v.note, v.v2)


@pytest.mark.parametrize(
    ("t1", "t2", "quote"),
    [
        ("Team: 👍 for launch.", "Team: 🎉 for launch.", "👍"),
        ("Wait... what happened?", "Wait… what happened?", "..."),
        ("(c) 2024 Acme Inc.", "© 2024 Acme Inc.", "(c)"),
        ("Status: approved today.", "Status: ✓ today.", "approved"),
        (
            "Welcome. Members must renew before May. Bye.",
            "Welcome. Renew by June. Bye.",
            "Members must renew before May.",
        ),
        (
            "欢迎。会员必须在五月之前续费。再见。",
            "欢迎。会员必须在六月之前续费。再见。",
            "会员必须在五月之前续费。",
        ),
    ],
)
def test_a_rewrite_that_shows_as_much_as_the_quote_is_still_an_edit(t1, t2, quote):
    v = _verdict(t1, t2, quote)
    assert v.verdict == "edited", (v.method, v.note, v.v2)


# --- a deleted sentence beside a rewritten neighbour, in every script --------------------

NEIGHBOURS = {
    "Chinese": (
        "引言。\n\n会费必须在五月底之前支付。请联系我们。\n\n结束。",
        "引言。\n\n请尽快联系我们的办公室。\n\n结束。",
        "会费必须在五月底之前支付。",
    ),
    "Japanese": (
        "はじめに。\n\n会費は五月末までに支払ってください。お問い合わせください。\n\n終わり。",
        "はじめに。\n\n早めに事務所までお問い合わせください。\n\n終わり。",
        "会費は五月末までに支払ってください。",
    ),
    "Korean": (
        "소개.\n\n회비는 5월 말까지 납부해야 합니다. 연락해 주세요.\n\n끝.",
        "소개.\n\n가능한 한 빨리 사무실로 연락해 주세요.\n\n끝.",
        "회비는 5월 말까지 납부해야 합니다.",
    ),
    "English": (
        "Intro.\n\nMembers must renew before May. Call us.\n\nEnd.",
        "Intro.\n\nPlease call our office soon.\n\nEnd.",
        "Members must renew before May.",
    ),
    "Arabic": (
        "مقدمة.\n\nيجب دفع الرسوم قبل نهاية مايو. اتصل بنا.\n\nالنهاية.",
        "مقدمة.\n\nاتصل بمكتبنا في أقرب وقت.\n\nالنهاية.",
        "يجب دفع الرسوم قبل نهاية مايو.",
    ),
    "Thai": (
        "บทนำ\n\nต้องชำระค่าธรรมเนียมภายในสิ้นเดือนพฤษภาคม ติดต่อเรา\n\nจบ",
        "บทนำ\n\nติดต่อสำนักงานของเราโดยเร็ว\n\nจบ",
        "ต้องชำระค่าธรรมเนียมภายในสิ้นเดือนพฤษภาคม",
    ),
    "Hindi": (
        "परिचय।\n\nशुल्क मई के अंत तक देना होगा। हमसे संपर्क करें।\n\nसमाप्त।",
        "परिचय।\n\nजल्द ही हमारे कार्यालय से संपर्क करें।\n\nसमाप्त।",
        "शुल्क मई के अंत तक देना होगा।",
    ),
}


@pytest.mark.parametrize("script", sorted(NEIGHBOURS))
@pytest.mark.parametrize("kind", ["text", "html"])
def test_a_sentence_deleted_beside_a_rewritten_neighbour_is_deleted(script, kind):
    t1, t2, quote = NEIGHBOURS[script]
    if kind == "html":
        t1 = "".join(f"<p>{b}</p>" for b in t1.split("\n\n"))
        t2 = "".join(f"<p>{b}</p>" for b in t2.split("\n\n"))
    v = _verdict(t1, t2, quote, kind)
    assert v.verdict == "deleted", (script, kind, v.method, v.note, v.v2)


# --- properties ---------------------------------------------------------------------------

_blank_text = st.lists(st.sampled_from(BLANKS + [" "]), min_size=1, max_size=4).map("".join)
_no_word_text = st.lists(st.sampled_from(BLANKS + NO_WORDS), min_size=1, max_size=3).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    script=st.sampled_from(sorted(SENTENCES)),
    blank=_no_word_text,
    kind=st.sampled_from(["text", "html"]),
)
def test_property_a_sentence_replaced_by_no_word_is_deleted(script, blank, kind):
    a, quote, c = SENTENCES[script]
    if kind == "html":
        t1 = f"<p>{a}</p><p>{quote}</p><p>{c}</p>"
        t2 = f"<p>{a}</p><p>{blank}</p><p>{c}</p>"
    else:
        t1 = _join(script, [a, quote, c])
        t2 = _join(script, [a, blank, c])
    v = _verdict(t1, t2, quote, kind)
    assert v.verdict == "deleted", (script, kind, ascii(blank), v.method, v.note, v.v2)


# (not "!" or "?": a full stop put in the middle of a sentence splits it, and an emoji
# replaced by one reads deleted, as before this rule: a known limit, never a fix credited)
_SYMBOLS = ["👍", "🎉", "❤", "★", "©", "→", "…", "—", "§", "¥", "%", "#"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pair=st.lists(st.sampled_from(_SYMBOLS), min_size=2, max_size=2, unique=True),
    script=st.sampled_from(["English", "Chinese", "Arabic", "Thai"]),
)
def test_property_a_symbol_quote_replaced_by_another_symbol_is_edited(pair, script):
    old, new = pair
    a, _quote, c = SENTENCES[script]
    t1 = _join(script, [a, f"Note {old} here", c])
    t2 = _join(script, [a, f"Note {new} here", c])
    v = _verdict(t1, t2, old)
    assert v.verdict == "edited", (script, old, new, v.method, v.note, v.v2)


_letters = st.characters(categories=["Lu", "Ll", "Lo", "Nd"]).filter(
    lambda ch: ch not in "\u3164\uffa0\u115f\u1160"
)


@given(blank=_no_word_text, letter=_letters, at=st.integers(0, 8))
def test_property_substance_is_a_word_exactly_when_a_letter_or_number_shows(blank, letter, at):
    assert substance(blank) < WORD
    with_word = blank[:at] + letter + blank[at:]
    assert substance(with_word) == WORD
    # a text with a word is never nothing of a quote; a text without one is nothing of a
    # sentence (two words or more)
    assert not holds_nothing_of("Members must renew before May.", with_word)
    assert holds_nothing_of("Members must renew before May.", blank)


@given(blank=_blank_text, shown=st.sampled_from(_SYMBOLS))
def test_property_invisible_is_nothing_of_any_visible_quote(blank, shown):
    assert substance(blank) == NOTHING
    assert holds_nothing_of(shown, blank)
    assert not holds_nothing_of(shown, blank + shown)


_POOLS = {
    "English": [
        "Members must renew before May.",
        "Call us today.",
        "The fee is due soon.",
        "Our office opens at nine.",
        "Bring your card.",
    ],
    "Chinese": [
        "会费必须在五月底之前支付。",
        "请联系我们。",
        "办公室九点开门。",
        "请带上会员卡。",
        "费用很快到期。",
    ],
    "Japanese": [
        "会費は五月末までに支払ってください。",
        "お問い合わせください。",
        "事務所は九時に開きます。",
        "会員証をお持ちください。",
    ],
    "Korean": [
        "회비는 5월 말까지 납부해야 합니다.",
        "연락해 주세요.",
        "사무실은 9시에 엽니다.",
        "회원 카드를 지참하세요.",
    ],
    "Arabic": [
        "يجب دفع الرسوم قبل نهاية مايو.",
        "اتصل بنا.",
        "يفتح المكتب في التاسعة.",
        "أحضر بطاقتك.",
    ],
}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    script=st.sampled_from(sorted(_POOLS)),
    data=st.data(),
)
def test_property_a_span_ending_with_its_full_stop_is_one_sentence(script, data):
    pool = _POOLS[script]
    parts = data.draw(st.lists(st.sampled_from(pool), min_size=2, max_size=5))
    k = data.draw(st.integers(0, len(parts) - 1))
    text = _join(script, parts)
    sep = 0 if script in ("Chinese", "Japanese") else 1
    s = sum(len(p) + sep for p in parts[:k])
    e = s + len(parts[k])
    assert _trim(text, *_sentence_bounds(text, s, e)) == (s, e), (parts, k)
    # a span inside the sentence, ending before its stop, widens to the same sentence
    assert _trim(text, *_sentence_bounds(text, s, e - 1)) == (s, e), (parts, k)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=st.sampled_from(sorted(_POOLS)), data=st.data())
def test_property_a_sentence_deleted_beside_a_rewritten_neighbour_is_deleted(script, data):
    pool = _POOLS[script]
    gone, kept = data.draw(st.lists(st.sampled_from(pool), min_size=2, max_size=2, unique=True))
    extra = data.draw(st.sampled_from([p for p in pool if p not in (gone, kept)]))
    stop = kept[-1]
    # the neighbour rewritten: another sentence's words joined to it
    rewrite = extra[:-1] + ("，" if script in ("Chinese", "Japanese") else ", ") + kept
    rewrite = rewrite if rewrite.endswith(stop) else rewrite + stop
    intro, end = ("引言。", "结束。") if script in ("Chinese", "Japanese") else ("Intro.", "End.")
    t1 = f"{intro}\n\n{_join(script, [gone, kept])}\n\n{end}"
    t2 = f"{intro}\n\n{rewrite}\n\n{end}"
    v = _verdict(t1, t2, gone)
    assert v.verdict == "deleted", (script, gone, kept, rewrite, v.method, v.note, v.v2)


def _substance_by_regex(text: str) -> int:
    """``substance`` read with the regex module's classes, whatever the text."""
    import regex

    from engine.score.anchoring.words import MARKS

    if regex.search(r"[[\p{L}\p{N}]--\p{Default_Ignorable_Code_Point}]", text, regex.V1):
        return WORD
    marks = r"[[\p{P}\p{S}\p{Co}\p{Cn}]--[\u2800\p{Default_Ignorable_Code_Point}]]"
    return MARKS if regex.search(marks, text, regex.V1) else NOTHING


def test_ascii_substance_is_the_unicode_classes_on_every_ascii_character():
    for ch in map(chr, range(128)):
        assert substance(ch) == _substance_by_regex(ch), repr(ch)


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(max_codepoint=127), max_size=12))
def test_property_ascii_substance_agrees_with_regex(text):
    assert substance(text) == _substance_by_regex(text)
