"""Each known failure kind of quote-search anchoring, as tests of its own (docs/verdicts.md, step 2)."""

import pytest

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score


def _one(
    v1_src,
    v2_src,
    quote,
    *,
    kind="text",
    occurrence=0,
    prefix=None,
    suffix=None,
    start=None,
    end=None,
    created_on=None,
):
    v1 = Version.from_source(v1_src, kind, "v1")
    v2 = Version.from_source(v2_src, kind, "v2")
    i = -1
    for _ in range(occurrence + 1):
        i = v1.text.find(quote, i + 1)
    assert i >= 0 or start is not None
    from engine.text.utf16 import to_utf16

    s = to_utf16(v1.text, i) if start is None else start
    e = to_utf16(v1.text, i + len(quote)) if end is None else end
    if start == "missing":
        s = e = None
    c = Comment(
        "c1",
        "fix",
        Anchor(
            quote,
            v1.text[max(0, i - 32) : i] if prefix is None else prefix,
            v1.text[i + len(quote) : i + len(quote) + 32] if suffix is None else suffix,
            start_offset=s,
            end_offset=e,
        ),
        created_on_version_id=created_on,
    )
    r = score(v1, v2, [c])
    return r, (r.verdicts[0] if r.verdicts else None)


@pytest.mark.xfail(
    strict=True,
    reason="known limit (docs/verdicts.md, 'Not past a rewritten neighbour'): the kept lookalike's "
    "image by words alone, no longer held between its kept neighbours, reaches the rewrite and "
    "shields it, so the rewritten warning reads deleted, the safe side",
)
def test_lookalike_sentence_elsewhere_is_not_the_rewritten_one():
    v1 = (
        "Step 1. Warning: keep the lid closed while the unit is running. "
        "Step 2. Warning: keep the lid closed while the unit is running. Done."
    )
    v2 = (
        "Step 1. Make sure the cover stays shut whenever the motor turns. "
        "Step 2. Warning: keep the lid closed while the unit is running. Done."
    )
    r, v = _one(v1, v2, "keep the lid closed while the unit is running", occurrence=0)
    assert v.verdict == "edited"
    assert v.v2.start < v2.index("Step 2")  # never the untouched lookalike in step 2
    assert v.approximate


def test_lookalike_that_existed_in_v1_is_never_taken_for_a_moved_anchor():
    v1 = "Alpha. The rate is 5%. Beta gamma delta. The rate is 5%. End."
    v2 = "Alpha. The rate is 7%. Beta gamma delta. The rate is 5%. End."
    r, v = _one(v1, v2, "The rate is 5%", occurrence=0)
    assert v.verdict == "edited" and v.v2.text == "The rate is 7%"


def test_short_quote_is_not_matched_inside_a_longer_word():
    v1 = "We cat the list. Then concatenate them."
    v2 = "We print the list. Then concatenate them."
    r, v = _one(v1, v2, "cat", occurrence=0)
    assert v.verdict == "edited"
    assert v.v2.text == "print"


def test_short_quote_fragment_is_allowed_when_the_v1_span_was_a_fragment():
    v1 = "Please concatenate them."
    v2 = "Please concatenate them now."
    r, v = _one(v1, v2, "cat", occurrence=0)
    assert v.verdict == "untouched" and v.v2.text == "cat"


def test_span_is_never_stretched_from_the_prefix_to_a_later_suffix_repeat():
    v1 = "The fee is low. The fee is fixed by law, and the fee is fixed by law."
    v2 = "The fee is waived. The fee is fixed by law, and the fee is fixed by law."
    r, v = _one(v1, v2, "low", occurrence=0)
    assert v.verdict == "edited"
    assert v.v2.text == "waived"  # not "waived. The fee is fixed ..." up to a later suffix


def test_second_of_two_identical_phrases_when_the_context_points_at_it():
    v1 = "In 2023 revenue rose sharply. In 2024 revenue rose sharply."
    v2 = "In 2023 revenue fell slightly. In 2024 revenue rose sharply."
    # Offsets missing: only the prefix tells the two apart.
    r, v = _one(v1, v2, "revenue rose sharply", occurrence=1, start=None, end=None)
    assert v.v1.start == v1.rindex("revenue rose sharply")
    assert v.verdict == "untouched"
    r, v = _one(v1, v2, "revenue rose sharply", occurrence=0)
    assert v.verdict == "edited"


def test_second_phrase_by_context_when_offsets_are_missing():
    v1 = "In 2023 revenue rose sharply. In 2024 revenue rose sharply."
    v2 = "In 2023 revenue rose sharply. In 2024 revenue fell slightly."
    vv1 = Version.from_source(v1, "text")
    c = Comment(
        "c1",
        "x",
        Anchor("revenue rose sharply", "In 2024 ", ".", start_offset=None, end_offset=None),
    )
    r = score(vv1, Version.from_source(v2, "text", "v2"), [c])
    (v,) = r.verdicts
    assert v.v1.start == v1.rindex("revenue") and v.verdict == "edited"
    assert v.offsets_repaired


def test_utf16_offsets_after_emoji_are_not_read_as_code_points():
    v1 = "👩‍👩‍👧 🤔🤔 plan: ship on Friday. 𝐀 ship later."
    v2 = "👩‍👩‍👧 🤔🤔 plan: ship on Monday. 𝐀 ship later."
    r, v = _one(v1, v2, "Friday")
    j = r.to_json()["verdicts"][0]
    assert v.verdict == "edited" and v.v2.text == "Monday"
    assert not v.offsets_repaired
    # UTF-16 offsets in and out: 5 astral characters (3 in the ZWJ family, 2 thinking faces)
    i = v1.index("Friday")
    assert j["v1"]["start"] == i + 5
    r, v = _one(v1, v2, "ship", occurrence=1)
    assert (
        v.verdict == "untouched"
        and r.to_json()["verdicts"][0]["v2"]["start"] == v2.rindex("ship") + 6
    )


@pytest.mark.parametrize(
    "v1,v2,quote",
    [
        ("The ﬁnal offer stands.", "The final offer stands.", "ﬁnal offer"),  # ligature
        ("Pay 10\u00a0EUR now.", "Pay 10 EUR now.", "10\u00a0EUR"),  # NBSP
        ("An inter\u00adnational team.", "An international team.", "international"),  # soft hyphen
        ("Zero\u200bwidth here.", "Zerowidth here.", "Zero\u200bwidth"),  # zero width space
    ],
)
def test_compatibility_forms_and_ignorables_are_untouched(v1, v2, quote):
    # Only forms that render the same stay here (docs/verdicts.md, "Normalisation"): NFKC is no longer folded, so
    # superscripts, full-width forms and ZWJ/ZWNJ changes are edits
    # (tests/engine/test_anchoring_normalize.py).
    vv1 = Version.from_source(v1, "text")
    i = vv1.text.find(quote) if quote in v1 else v1.find(quote.replace("\u00ad", ""))
    if i < 0:  # soft hyphen case: the reviewer's quote lacks the U+00AD the text has
        i = 3
    r, v = _one(
        v1,
        v2,
        quote,
        start=i,
        end=i + len(quote) + (1 if "\u00ad" in v1 and "\u00ad" not in quote else 0),
    )
    assert v.verdict == "untouched", (v.verdict, v.note)


def test_quote_spanning_br_matches_text_content():
    v1 = "<p>first line<br>second line</p>"
    v2 = "<p>first line<br>second line, now longer</p>"
    vv1 = Version.from_source(v1)
    assert vv1.text == "first linesecond line"
    c = Comment("c1", "x", Anchor("line second", "first ", " line", start_offset=6, end_offset=16))
    r = score(vv1, Version.from_source(v2, "html", "v2"), [c])
    (v,) = r.verdicts
    assert v.verdict == "untouched" and v.v1.text == "linesecond" and not v.offsets_repaired


@pytest.mark.parametrize("quote", ["", None, "   "])
def test_empty_or_null_quotes_are_unusable_not_whole_document(quote):
    v1 = Version.from_source("Chapter one. A short preface follows.", "text")
    good = Comment("good", "x", Anchor("short", start_offset=15, end_offset=20))
    bad = Comment(
        "bad",
        "x",
        Anchor(quote, None, None, start_offset=None, end_offset=None)
        if quote is None
        else Anchor(quote),
    )
    r = score(
        v1, Version.from_source("Chapter one. A long preface follows.", "text", "v2"), [bad, good]
    )
    assert [v.comment_id for v in r.verdicts] == ["good"]
    assert r.unusable == [("bad", "the anchor has no quote")]
    assert r.metrics["attribution_rate"].denominator == 1


@pytest.mark.parametrize(
    "start,end", [(400, 410), (45, 400), (-5, 3), (10, 2), ("missing", "missing")]
)
def test_offsets_past_the_end_or_wrong_are_repaired_from_the_quote(start, end):
    text = "Alpha section. Beta section covers gamma rays."
    r, v = _one(text, text, "gamma rays", start=start, end=end)
    assert v.verdict == "untouched"
    assert v.v1.start == 35 and v.offsets_repaired


def test_quote_absent_from_v1_made_on_it_is_unusable():
    r, v = _one("abc def", "abc def", "xyz", start=0, end=3)
    assert v is None and r.unusable[0][0] == "c1"


def test_stale_anchor_rule_and_message():
    from engine.vocabulary import STALE_ANCHOR_MESSAGE

    r, v = _one(
        "The plan is good.", "The plan is great.", "old wording", start=0, end=3, created_on="v0"
    )
    assert v.verdict == "stale_anchor" and v.message == STALE_ANCHOR_MESSAGE
    assert STALE_ANCHOR_MESSAGE == (
        "ATTRIBUTION: STALE ANCHOR - quote not found in current version; comment left unresolved"
    )
    for m in ("attribution_rate", "claim_accuracy"):
        assert r.metrics[m].is_na
    # Made on another version but its quote is in the given one: scored normally.
    r, v = _one("The plan is good.", "The plan is great.", "good", created_on="v0")
    assert v.verdict == "edited"


def test_moved_paragraph_is_found_by_context():
    p1 = "First paragraph talks about budgets and the schedule for next year.\n"
    p2 = "Second paragraph explains the hiring plan in detail for every team.\n"
    p3 = "Third paragraph closes with thanks.\n"
    r, v = _one(p1 + p2 + p3, p2 + p3 + p1, "budgets and the schedule")
    assert v.verdict == "untouched"
    assert v.v2.start == (p2 + p3 + p1).index("budgets")


def test_deleted_sentence():
    v1 = "Keep this. Remove this sentence entirely. Keep that."
    v2 = "Keep this. Keep that."
    r, v = _one(v1, v2, "Remove this sentence entirely.")
    assert v.verdict == "deleted" and v.v2 is None and v.method == "none"


def test_whitespace_reflow_is_untouched():
    r, v = _one(
        "The quick survey covers three regions.",
        "The quick survey\n      covers three regions.",
        "survey covers three",
    )
    assert v.verdict == "untouched" and v.v2.text == "survey\n      covers three"


def test_rewritten_in_place_is_edited_and_approximate():
    v1 = "Intro. The onboarding takes about two weeks for most people. Outro."
    v2 = "Intro. Onboarding usually takes ten working days for most people. Outro."
    r, v = _one(v1, v2, "The onboarding takes about two weeks")
    assert v.verdict == "edited" and v.approximate
    assert "ten working days" in v.v2.text and "Outro" not in v.v2.text
