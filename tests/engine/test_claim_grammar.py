"""What an agent wrote, read as claims by a small grammar (engine.claim_grammar,
engine.agent_message; docs/agent.md, "A revision made elsewhere"): a negated, excepted or
unclear statement is never a claim of addressed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from engine.agent_message import claims_from_message
from engine.claim_grammar import line_claim

IDS = ["c1", "c2", "c3", "c4"]


def _claims(message: str, ids: list[str] = IDS) -> dict[str, str]:
    report = claims_from_message(message, ids)
    assert report is not None
    return {c.comment_id: c.claim for c in report.comments} if report.usable else {}


@pytest.mark.parametrize(
    "what",
    [
        "Not fixed - the sentence is correct as written",
        "won't fix",
        "won’t fix",
        "no changes",
        "No change needed",
        "Nothing to change; it is already right",
        "I did not change it",
        "We couldn't find a better word",
        "unchanged",
        "declined: out of scope",
        "nicht geändert",
        "pas de changement",
        "sin cambios",
        "не исправлено",
        "لم يتم التعديل",
        "未修改",
        "没有改",
        "ไม่ได้แก้ไข",
    ],
)
def test_a_line_that_leads_with_a_negation_is_not_addressed(what: str) -> None:
    assert line_claim(what) == "not_addressed"
    assert _claims(f"c1: {what}") == {"c1": "not_addressed"}


@pytest.mark.parametrize(
    "what",
    [
        "N/A",
        "n/a",
        "Not applicable",
        "TBD",
        "pending",
        "?",
        "—",
        "Done, but see notes",
        "Fixed except the second sentence",
        "partly done",
        "Rewrote it so it does not mention June",
        "修改了一部分",
        "修正していません",
        "تم التعديل لكن جزئيا",
        "แก้ไขแล้ว แต่ยังไม่ครบ",
        "geändert, aber nicht alles",
    ],
)
def test_an_unclear_line_is_no_claim(what: str) -> None:
    assert line_claim(what) is None
    report = claims_from_message(f"c1: {what}\nc2: shortened", IDS)
    assert report is not None and report.usable
    assert {c.comment_id: c.claim for c in report.comments} == {"c2": "addressed"}
    assert "c1" in report.notes


@pytest.mark.parametrize(
    "what",
    [
        "now three days",
        "Replaced 'not' with 'never'",
        "changed “no later than” to “by”",
        "已修改",
        "تم التعديل",
        "แก้ไขแล้ว 🎉",
        "geändert",
        "ha cambiado la fecha",
    ],
)
def test_a_plain_change_summary_is_addressed(what: str) -> None:
    assert line_claim(what) == "addressed"


def test_a_time_is_not_a_claim_line() -> None:
    assert (
        _claims("10:30 the meeting moved\n1:2 is the ratio", [str(i) for i in range(1, 12)]) == {}
    )


def test_a_line_about_a_comment_that_does_not_exist_is_kept_as_json_would_be() -> None:
    report = claims_from_message("c1: fixed\nc9: fixed\nNote: thanks", IDS)
    assert report is not None and report.usable
    assert [c.comment_id for c in report.comments] == ["c1", "c9"]
    assert "Note: thanks" in report.notes


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "Addressed all review comments except c1, which I left alone.",
            {"c1": "not_addressed", "c2": "addressed", "c3": "addressed", "c4": "addressed"},
        ),
        (
            "I fixed every comment except c1, c3 and c4.",
            {
                "c1": "not_addressed",
                "c2": "addressed",
                "c3": "not_addressed",
                "c4": "not_addressed",
            },
        ),
        (
            "All comments were addressed but not comment 2.",
            {"c1": "addressed", "c2": "not_addressed", "c3": "addressed", "c4": "addressed"},
        ),
        ("Nothing was addressed; all comments remain open.", dict.fromkeys(IDS, "not_addressed")),
        ("No comments were fixed.", dict.fromkeys(IDS, "not_addressed")),
        (
            "All comments were addressed; no other changes were made.",
            dict.fromkeys(IDS, "addressed"),
        ),
        ("I fixed every comment but one.", {}),
        ("Addressed every comment apart from the one about fees.", {}),
        ("Not every comment could be fixed.", {}),
        ("Addressed all comments. No comments were addressed.", {}),
    ],
)
def test_the_blanket_sentence_reads_its_negation_and_exceptions(
    message: str, expected: dict
) -> None:
    assert _claims(message) == expected


def test_an_excepted_id_that_does_not_exist_is_named() -> None:
    report = claims_from_message("Addressed all review comments except c1.", ["2", "1"])
    assert report is not None and report.usable
    assert "c1" in {c.comment_id for c in report.comments}


_NEG = st.sampled_from(
    [
        "not",
        "no",
        "never",
        "won't",
        "didn't",
        "can't",
        "cannot",
        "nicht",
        "pas",
        "не",
        "لم",
        "未",
        "ไม่",
    ]
)
_EXC = st.sampled_from(
    ["but", "except", "apart from", "other than", "partly", "aber", "sauf", "кроме", "但", "แต่"]
)
_WORDS = st.lists(
    st.sampled_from(
        [
            "fixed",
            "the",
            "date",
            "reworded",
            "sentence",
            "Fees",
            "June",
            "täglich",
            "日期",
            "วันที่",
            "التاريخ",
            "😀",
            "now",
        ]
    ),
    min_size=0,
    max_size=6,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(
    before=_WORDS,
    word=st.one_of(_NEG, _EXC),
    after=_WORDS,
    ref=st.sampled_from(["c1", "1", "#1", "- c1", '"c1"']),
)
def test_a_line_with_a_negation_or_exception_word_is_never_addressed(
    before, word, after, ref
) -> None:
    """Wherever a negation or exception word stands in a claim line, in any of the
    languages read, the line is never a claim of addressed."""
    what = " ".join(p for p in (before, word, after) if p)
    report = claims_from_message(f"{ref}: {what}", IDS)
    assert report is not None
    assert not any(c.claim == "addressed" for c in report.comments), what


@settings(max_examples=200, deadline=None)
@given(
    lead=st.sampled_from(
        [
            "Addressed all review comments",
            "All comments have been fixed",
            "I resolved every comment",
        ]
    ),
    exc=st.sampled_from(["except", "but", "apart from", "other than", "excluding"]),
    picked=st.lists(st.sampled_from(IDS), min_size=1, max_size=3, unique=True),
)
def test_every_excepted_comment_is_not_addressed(lead, exc, picked) -> None:
    names = ", ".join(picked[:-1]) + (" and " if len(picked) > 1 else "") + picked[-1]
    got = _claims(f"{lead} {exc} {names}.")
    assert got == {c: ("not_addressed" if c in picked else "addressed") for c in IDS}


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_read_without_raising_and_a_negative_lead_is_never_addressed(text) -> None:
    """Any text, hostile included, reads as a report or None; a claim line whose text
    begins with "not" is never a claim of addressed."""
    claims_from_message(text, IDS)
    report = claims_from_message(f"c1: not {text}", IDS)
    assert report is not None
    assert not any(c.comment_id == "c1" and c.claim == "addressed" for c in report.comments)
