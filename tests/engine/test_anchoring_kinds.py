"""Verdict rules by kind of edit, in several scripts and at several lengths
(docs/verdicts.md): short and non-letter quotes, edited vs deleted, moved text, repeated
passages, offsets against context, frequent quotes with drifted offsets."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text.utf16 import to_utf16


def _comment(t1: str, i: int, quote: str, cid: str = "c1", *, offsets=None, ctx_at=None):
    """A comment on ``t1[i:i+len(quote)]``; ``ctx_at`` takes prefix/suffix from another
    position (a comment whose offsets and context disagree); ``offsets`` overrides them."""
    j = i if ctx_at is None else ctx_at
    n = len(quote)
    s, e = (to_utf16(t1, i), to_utf16(t1, i + n)) if offsets is None else offsets
    return Comment(
        cid,
        "fix",
        Anchor(quote, t1[max(0, j - 32) : j], t1[j + n : j + n + 32], start_offset=s, end_offset=e),
    )


def _score(t1: str, t2: str, comments):
    return score(Version.from_source(t1, "text"), Version.from_source(t2, "text", "v2"), comments)


def _one(t1: str, t2: str, quote: str, occurrence: int = 0, **kw):
    i = -1
    for _ in range(occurrence + 1):
        i = t1.index(quote, i + 1)
    r = _score(t1, t2, [_comment(t1, i, quote, **kw)])
    (v,) = r.verdicts
    return r, v


# -- short and non-letter quotes ---------------------------------------------------------


@pytest.mark.parametrize(
    "t1,t2,quote,new",
    [
        ("Growth was 5% in May.", "Growth was 5‰ in May.", "%", "‰"),
        ("Wait... what happened?", "Wait… what happened?", "...", "…"),
        ("Turn left -> then right.", "Turn left → then right.", "->", "→"),
        ("Is it done! Yes.", "Is it done? Yes.", "!", "?"),
        ("(c) 2024 Acme Inc.", "© 2024 Acme Inc.", "(c)", "©"),
        ("Team: 👍 for launch.", "Team: 🎉 for launch.", "👍", "🎉"),
        (
            "Family: 👨\u200d👩\u200d👧 here.",
            "Family: 👨\u200d👩\u200d👦 here.",
            "👨\u200d👩\u200d👧",
            None,
        ),
        ("Flag 🇫🇷 shown.", "Flag 🇩🇪 shown.", "🇫🇷", "🇩🇪"),
        ("رقم واحد, اثنان وثلاثة", "رقم واحد، اثنان وثلاثة", ",", "،"),
        ("苹果,香蕉和梨。", "苹果、香蕉和梨。", ",", "、"),
        ("Price in £ only.", "Price in ¥ only.", "£", "¥"),
        ("x = a * b here", "x = a × b here", "*", "×"),
        ('Use "quotes" now.', "Use «quotes» now.", '"', "«"),
    ],
)
def test_a_replaced_symbol_or_punctuation_quote_is_edited(t1, t2, quote, new):
    r, v = _one(t1, t2, quote)
    assert v.verdict == "edited", (v.method, v.note)
    if new is not None:
        assert v.v2.text == new
    assert v.method != "none"


@pytest.mark.parametrize(
    "t1,t2,quote",
    [
        ("Tickets cost $ 40 each.", "Tickets cost 40 each.", "$"),
        ("It was late -- very late.", "It was late very late.", "--"),
        ("Nice 👍 work.", "Nice work.", "👍"),
    ],
)
def test_a_symbol_quote_removed_with_nothing_in_its_place_is_deleted(t1, t2, quote):
    r, v = _one(t1, t2, quote)
    assert v.verdict == "deleted" and v.v2 is None
    assert "nothing" in v.note


# -- edited vs deleted -------------------------------------------------------------------

_FILLER = (
    "The committee met on Tuesday to review the quarterly figures. "
    "Attendance was good and the minutes were approved without changes. "
)


def test_a_sentence_rewritten_in_place_with_few_shared_letters_is_edited():
    t1 = _FILLER * 20 + "Our budget is tight this year. " + _FILLER * 20
    t2 = _FILLER * 20 + "Money: scarce! " + _FILLER * 20
    r, v = _one(t1, t2, "budget is tight")
    assert v.verdict == "edited"
    assert v.v2.text.strip() in "Money: scarce!" or "scarce" in v.v2.text
    assert len(v.v2.text) < 40  # the rewritten sentence, not the document
    assert v.similarity is not None and v.similarity < 0.5
    assert v.approximate


def test_a_document_rewritten_from_scratch_is_deleted_not_whole_document_edits():
    t1 = (
        "Our product ships in March. The price is twelve dollars. "
        "Support is by email only. Returns are accepted within thirty days."
    )
    t2 = (
        "Zebras roam across wide savannas, grazing quietly at dawn while lions "
        "sleep; birds call over the river and the herd moves on toward the hills."
    )
    comments = [
        _comment(t1, t1.index(q), q, f"c{k}")
        for k, q in enumerate(
            ["ships in March", "twelve dollars", "by email only", "within thirty days"]
        )
    ]
    r = _score(t1, t2, comments)
    for v in r.verdicts:
        assert v.verdict == "deleted", (v.comment_id, v.method, v.v2, v.note)
        assert "now reads" in v.note  # what replaced the region
        assert 0.0 <= v.confidence <= 1.0
    assert r.metrics["attribution_rate"].value == 0.0


def test_a_paragraph_deleted_from_a_long_document_is_deleted():
    para = "This paragraph explains the refund policy for damaged goods in detail.\n"
    t1 = _FILLER * 40 + "\n" + para + _FILLER * 40
    t2 = _FILLER * 40 + "\n" + _FILLER * 40
    r, v = _one(t1, t2, "refund policy for damaged goods")
    assert v.verdict == "deleted" and v.v2 is None


def test_chinese_sentence_rewritten_in_place_is_edited_within_its_sentence():
    t1 = "第一句保持不变。我们明年将扩大研发团队的规模。第三句也保持不变。"
    t2 = "第一句保持不变。公司决定暂停招聘计划。第三句也保持不变。"
    r, v = _one(t1, t2, "扩大研发团队")
    assert v.verdict == "edited"
    assert v.v2.start >= t2.index("公司") and v.v2.end <= t2.index("第三句")


def test_thai_word_replaced_is_edited_at_its_place():
    t1 = "วันนี้อากาศดีมาก เราจะไปเที่ยวทะเล พรุ่งนี้กลับบ้าน"
    t2 = "วันนี้อากาศร้อนมาก เราจะไปเที่ยวทะเล พรุ่งนี้กลับบ้าน"
    r, v = _one(t1, t2, "ดี")
    assert v.verdict == "edited"
    assert "ร้อน" in v.v2.text and len(v.v2.text) <= 8


def test_confidence_has_no_floor_and_similarity_is_only_where_measured():
    t1 = "Intro. The onboarding takes about two weeks for most people. Outro."
    t2 = "Intro. Onboarding usually takes ten working days for most people. Outro."
    r, v = _one(t1, t2, "The onboarding takes about two weeks")
    j = r.to_json(extended=True)["verdicts"][0]
    assert j["similarity"] == v.similarity and 0 < v.similarity < 1
    r, v = _one(t1, t1, "about two weeks")
    j = r.to_json(extended=True)["verdicts"][0]
    assert v.verdict == "untouched" and j["similarity"] is None and j["confidence"] == 1.0
    # a fuzzy hit far from certain keeps its low confidence (no 0.6 floor)
    t1 = "A. " + "filler text here. " * 30 + "the quarterly revenue forecast was wrong. " + "B."
    t2 = "A. " + "filler text here. " * 30 + "yearly revenues forecasted are wrong now. " + "B."
    r, v = _one(t1, t2, "quarterly revenue forecast")
    assert v.verdict == "edited" and v.confidence < 1.0


# -- moved text --------------------------------------------------------------------------


def test_sentence_moved_to_another_paragraph_far_away_is_moved_untouched():
    moving = "Remember to back up the database every Friday evening. "
    body = "".join(f"Item {k} of the agenda was discussed at length. " for k in range(40))
    t1 = "Intro paragraph. " + moving + body + "\nClosing remarks follow here."
    t2 = "Intro paragraph. " + body + "\nClosing remarks follow here. " + moving
    r, v = _one(t1, t2, "back up the database")
    assert v.verdict == "untouched" and v.method == "moved"
    assert v.v2.start == t2.index("back up the database")


def test_japanese_sentence_swapped_within_paragraph_is_moved():
    t1 = "会議は十時に始まります。資料は事前に配布します。昼食は各自でお願いします。"
    t2 = "資料は事前に配布します。会議は十時に始まります。昼食は各自でお願いします。"
    comments = [
        _comment(t1, t1.index("十時に始まります"), "十時に始まります", "c1"),
        _comment(t1, t1.index("事前に配布"), "事前に配布", "c2"),
    ]
    r = _score(t1, t2, comments)
    assert any(v.method == "moved" for v in r.verdicts)
    for v in r.verdicts:
        assert v.verdict == "untouched", (v.comment_id, v.method, v.note)
        assert t2[v.v2.start : v.v2.end] == v.v1.text


def test_moved_and_edited_reads_edited():
    t1 = "One. The cat sat on the mat today. Two. Three. Four."
    t2 = "One. Two. Three. The dog sat on the mat today. Four."
    r, v = _one(t1, t2, "The cat sat on the mat")
    assert v.verdict in ("edited", "deleted")
    assert v.method != "moved"


def test_a_copy_kept_from_elsewhere_is_never_a_move():
    t1 = "Alpha says the rate is fixed. Beta. Gamma says the rate is fixed. Delta."
    t2 = "Alpha says the rate is floating. Beta. Gamma says the rate is fixed. Delta."
    r, v = _one(t1, t2, "the rate is fixed", occurrence=0)
    assert v.verdict == "edited" and v.v2.start < t2.index("Beta")


# -- repeated passages -------------------------------------------------------------------

_REP = "Payment is due within thirty days of the invoice date."


def test_the_copy_the_context_names_counts_when_the_other_copy_is_removed():
    # The common-prefix cut keeps the first copy; the agent removed the first one.
    head = "Section one covers delivery terms for all orders. "
    mid = "Section two covers returns and the refund process for goods. "
    t1 = head + _REP + " " + mid + _REP + " Final words of the contract."
    t2 = head + mid + _REP + " Final words of the contract."
    r, v = _one(t1, t2, _REP, occurrence=1)
    assert v.verdict == "untouched", (v.method, v.note)
    r, v = _one(t1, t2, _REP, occurrence=0)
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


def test_the_copy_the_context_names_counts_when_the_other_copy_is_edited():
    a = "Clause four applies to all buyers in the region. "
    b = " Clause nine applies only to resellers abroad. "
    t1 = a + _REP + b + _REP + " End."
    t2 = a + "Payment is due within sixty days of the invoice date." + b + _REP + " End."
    r, v = _one(t1, t2, _REP, occurrence=1)
    assert v.verdict == "untouched"
    r, v = _one(t1, t2, _REP, occurrence=0)
    assert v.verdict == "edited" and "sixty" in v.v2.text


def test_repeated_paragraphs_one_edited_in_a_long_document():
    p = "Keep the fire doors closed at all times during working hours.\n"
    block = _FILLER * 10
    k = 3
    t1 = (block + p) * 5
    t2 = (block + p) * k + block + p.replace("closed", "unlocked") + (block + p) * (4 - k)
    for occ in range(5):
        r, v = _one(t1, t2, "fire doors closed", occurrence=occ)
        want = "edited" if occ == k else "untouched"
        assert v.verdict == want, (occ, v.method, v.note)


# -- offsets against context -------------------------------------------------------------


def test_offsets_on_another_copy_lose_to_the_context():
    a = "The first clause says: "
    b = " The second clause, however, says: "
    t1 = a + _REP + b + _REP + " End of the clauses."
    t2 = a + _REP + b + "Payment is due at once." + " End of the clauses."
    first, second = t1.index(_REP), t1.rindex(_REP)
    # offsets point at the first copy, prefix/suffix name the second (the one the agent fixed)
    c = _comment(t1, first, _REP, ctx_at=second)
    r = _score(t1, t2, [c])
    (v,) = r.verdicts
    assert v.v1.start == second and v.offsets_repaired
    assert v.verdict == "edited"
    assert "another copy" in v.note


def test_offsets_and_context_agreeing_are_kept():
    t1 = "A: " + _REP + " B: " + _REP + " C."
    r, v = _one(t1, t1, _REP, occurrence=1)
    assert v.v1.start == t1.rindex(_REP) and not v.offsets_repaired


def test_frequent_quote_with_drifted_offsets_takes_the_nearest_occurrence():
    rnd = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma"]
    t1 = " ".join(f"{rnd.choice(words)} the {rnd.choice(words)}{k}" for k in range(6000))
    t2 = t1
    comments = []
    targets = []
    starts = [i for i in range(len(t1)) if t1.startswith(" the ", i)]
    for k, i in enumerate(rnd.sample(starts, 200)):
        s = i + 1
        targets.append(s)
        # offsets drifted by one: they no longer match "the"
        c = _comment(t1, s, "the", f"c{k}", offsets=(s + 1, s + 4))
        comments.append(c)
    r = _score(t1, t2, comments)
    got = {v.comment_id: v.v1.start for v in r.verdicts}
    assert all(got[f"c{k}"] == s for k, s in enumerate(targets))


def test_two_paragraphs_swapped_far_apart_are_moved_not_rewritten():
    pa = "Alpha paragraph explains how invoices are numbered and archived each month.\n"
    pb = "Beta paragraph lists the people who may approve refunds above the limit.\n"
    mid = _FILLER * 15 + "\n"
    t1 = pa + mid + pb
    t2 = pb + mid + pa
    comments = [
        _comment(t1, t1.index("invoices are numbered"), "invoices are numbered", "a"),
        _comment(t1, t1.index("approve refunds"), "approve refunds", "b"),
    ]
    r = _score(t1, t2, comments)
    for v in r.verdicts:
        assert v.verdict == "untouched", (v.comment_id, v.method, v.note)
        assert t2[v.v2.start : v.v2.end] == v.v1.text


# -- look-alike characters (UTS #39 confusables) -----------------------------------------


@pytest.mark.parametrize(
    "before,after",
    [
        ("Pay with paypal today.", "Pay with p\u0430ypal today."),  # Cyrillic а
        ("The open door.", "The \u03bfpen door."),  # Greek omicron
        ("Hello everyone here.", "\u041d\u0435llo everyone here."),  # Cyrillic Н, е
        ("copper price", "\u0441\u043e\u0440\u0440\u0435r price"),  # Cyrillic с о р р е
    ],
)
def test_lookalike_letters_only_are_untouched_and_flagged(before, after):
    quote = "paypal" if before.startswith("Pay") else before[:-1]
    r, v = _one(before, after, quote)
    assert v.verdict == "untouched", (v.method, v.note)
    assert v.lookalike_only and "look-alike characters only" in v.note
    assert r.to_json(extended=True)["verdicts"][0]["lookalike_only"] is True
    assert r.metrics["attribution_rate"].value == 0.0


@pytest.mark.parametrize(
    "before,after",
    [
        ("Code C0DE here.", "Code CODE here."),  # digit zero to letter O: a visible fix
        ("He11o there.", "Hello there."),  # digits to letters, one script
        ("Total ２０２５ yen.", "Total 2025 yen."),  # full-width to half-width
        ("Pay with paypal today.", "Pay with p\u0430yp\u0430l now."),  # look-alike + real edit
        ("Pay with paypal today.", "Pay with p\u0430ypai today."),  # look-alike + a typo
    ],
)
def test_visible_substitutions_are_still_edits(before, after):
    quote = before[: before.index(" here") if " here" in before else len(before) - 1]
    if before.startswith("Pay"):
        quote = "paypal today"
    r, v = _one(before, after, quote)
    assert v.verdict == "edited", (v.v2, v.note)
    assert not v.lookalike_only


def test_a_paragraph_removed_next_to_an_edit_is_deleted_not_its_neighbours_word():
    # The diff may delete "…request.This" and insert "This": the re-inserted word is the
    # quote's own surroundings, not something standing in its place.
    v1 = (
        "<p>Requests go to the line manager by email.</p>"
        "<p>Equipment is provided by the IT team on request.</p>"
        "<p>This policy is reviewed every year.</p>"
    )
    v2 = "<p>Requests go to the line manager by email.</p><p>This policy is reviewed every two years.</p>"
    a, b = Version.from_source(v1, "html"), Version.from_source(v2, "html", "v2")
    q = "Equipment is provided by the IT team on request."
    r = score(a, b, [_comment(a.text, a.text.index(q), q)])
    (v,) = r.verdicts
    assert v.verdict == "deleted" and v.v2 is None, (v.method, v.v2, v.note)


def _copies_by_word_start(t2: str, changes, quote: str) -> list[int]:
    """What the later far searches must find, by brute force: every copy of ``quote`` in
    ``t2`` whose first word start lies inside a change's v2 range."""
    import re

    m = re.search(r"(?<!\w)\w", quote)
    assert m is not None
    inserted = {p for c in changes for p in range(c.b0, c.b1)}
    return [
        i
        for i in range(len(t2) - len(quote) + 1)
        if t2.startswith(quote, i)
        and i + m.start() in inserted
        and not (i + m.start() > 0 and re.match(r"\w", t2[i + m.start() - 1]))
    ]


def test_the_far_search_finds_what_the_scan_finds(monkeypatch):
    import engine.score.anchoring.changes as A
    from engine.diff.diffing import TextDiff

    rnd = random.Random(11)
    words = ["alpha", "beta", "gamma", "delta", "kappa", "omega"]
    t1 = " ".join(rnd.choice(words) for _ in range(400)) + "."
    t2 = t1.replace("gamma delta", "new words here and gamma delta moved")
    d = TextDiff(t1, t2)
    far = A.ChangeIndex(d)
    monkeypatch.setattr(A, "INDEX_AFTER", 0)
    found = 0
    for q in ["new words here", "words here and gamma", "and gamma delta moved", "ords here an"]:
        want = sorted(h for h, _ in d.find_inserted(q, 64) if t2.startswith(q, h))
        got = far.find_inserted(q)
        if not q.startswith("ords"):  # a copy starting inside a word is not a far copy
            assert set(want) <= set(got), (q, want, got)  # every copy wholly in new text
        assert got == _copies_by_word_start(t2, d.changes(), q)[:64], q
        assert got == sorted(got)
        found += len(want)
    assert found > 0
    assert far.find_inserted("words here and", 2) == far.find_inserted("words here and")[:2]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["ab", "ba", "a", "b", " ", ". ", "ab ba"]), max_size=40),
    st.lists(st.sampled_from(["ab", "ba", "a", "b", " ", ". ", "ba ab"]), max_size=40),
    st.sampled_from(["ab ba", "ba ab", " ab b", "a ba a", "ab ab ab"]),
)
def test_the_far_search_agrees_with_brute_force(xs, ys, quote):
    """Any texts, any quote: the later far searches return exactly the copies whose first
    word starts in inserted text, in order."""
    import engine.score.anchoring.changes as A
    from engine.diff.diffing import TextDiff

    t1, t2 = "".join(xs), "".join(ys)
    d = TextDiff(t1, t2)
    m = A._INDEX_START.search(quote)
    assert m is not None
    got = A.ChangeIndex(d)._far_copies(quote, m.start(), 1000)
    assert got == _copies_by_word_start(t2, d.changes(), quote)


# -- the same kinds in more scripts --------------------------------------------------------

_SCRIPTS = {
    "arabic": [
        "يبدأ الاجتماع في الساعة العاشرة صباحا. ",
        "يرجى إحضار التقرير السنوي معكم. ",
        "سيتم تقديم الغداء بعد الظهر. ",
        "ينتهي اليوم في الساعة الخامسة. ",
    ],
    "devanagari": [
        "बैठक सुबह दस बजे शुरू होगी। ",
        "कृपया वार्षिक रिपोर्ट साथ लाएँ। ",
        "दोपहर में भोजन दिया जाएगा। ",
        "दिन शाम पाँच बजे समाप्त होगा। ",
    ],
    "korean": [
        "회의는 오전 열 시에 시작합니다. ",
        "연간 보고서를 가져오시기 바랍니다. ",
        "점심은 오후에 제공됩니다. ",
        "일정은 오후 다섯 시에 끝납니다. ",
    ],
}


@pytest.mark.parametrize("script", sorted(_SCRIPTS))
def test_each_kind_in_other_scripts(script):
    s1, s2, s3, s4 = _SCRIPTS[script]
    t1 = s1 + s2 + s3 + s4
    q2, q3 = s2.strip()[:-1], s3.strip()[:-1]  # sentence bodies without their full stop
    # moved: sentences 2 and 4 swap, words unchanged
    r = _score(t1, s1 + s4 + s3 + s2, [_comment(t1, t1.index(q2), q2)])
    (v,) = r.verdicts
    assert v.verdict == "untouched", (script, v.method, v.note)
    # rewritten in place: sentence 3 replaced by different words, neighbours kept
    t2 = s1 + s2 + "Lorem ipsum dolor sit amet. " + s4
    r = _score(t1, t2, [_comment(t1, t1.index(q3), q3)])
    (v,) = r.verdicts
    assert v.verdict == "edited" and "Lorem" in v.v2.text and s4[:4] not in v.v2.text
    # deleted: sentence 3 removed
    r = _score(t1, s1 + s2 + s4, [_comment(t1, t1.index(q3), q3)])
    (v,) = r.verdicts
    assert v.verdict == "deleted", (script, v.method, v.v2, v.note)
    # repeated passage: the copy the context names counts when the other one is edited
    rep = s1 + s2 + s3 + s2 + s4
    first, second = rep.index(q2), rep.rindex(q2)
    t2 = s1 + s2.replace(q2[:4], "ZZZZ") + s3 + s2 + s4
    r = _score(rep, t2, [_comment(rep, second, q2, "a"), _comment(rep, first, q2, "b")])
    by = {v.comment_id: v for v in r.verdicts}
    assert by["a"].verdict == "untouched" and by["b"].verdict == "edited"


def test_one_of_many_identical_symbols_replaced_in_a_long_document():
    # 200 ranges written with a hyphen; the agent fixes one to an en dash. Every other
    # hyphen stays untouched, and the fixed one is edited at its own place.
    t1 = "".join(f"Read pages {k}-{k + 5} for week {k}. " for k in range(200))
    i = t1.index("pages 120-") + len("pages 120")
    t2 = t1[:i] + "–" + t1[i + 1 :]
    comments = [_comment(t1, i, "-", "fixed")]
    for k in (3, 119, 121, 199):
        j = t1.index(f"pages {k}-") + len(f"pages {k}")
        comments.append(_comment(t1, j, "-", f"other{k}"))
    r = _score(t1, t2, comments)
    by = {v.comment_id: v for v in r.verdicts}
    assert by["fixed"].verdict == "edited" and by["fixed"].v2.text == "–"
    assert by["fixed"].v2.start == i
    for k in (3, 119, 121, 199):
        assert by[f"other{k}"].verdict == "untouched", k
