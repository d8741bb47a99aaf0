"""Collateral churn: a paragraph added beside an anchor is no part of it (docs/metrics.md).

Text inserted at an anchor's boundary counts inside the anchor (a sentence extended where
the comment stood is its fix), but a new paragraph is not: a Word revision that added "All
claims go through the new expenses app." after the last commented sentence read
"Collateral churn 0% (0 of 53)" and marked nothing, though no comment asked for it. The
part of such an insertion from its first line break or block edge on (after the anchor),
or up to its last (before it), is outside.
"""

from __future__ import annotations

import html

from hypothesis import given, strategies as st

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text.utf16 import to_utf16


def _comment(text: str, quote: str) -> Comment:
    s = text.index(quote)
    e = s + len(quote)
    anchor = Anchor(
        quote,
        text[max(0, s - 32) : s],
        text[e : e + 32],
        start_offset=to_utf16(text, s),
        end_offset=to_utf16(text, e),
    )
    return Comment("c1", "fix", anchor)


def _churn(kind: str, v1: str, v2: str, quote: str) -> tuple[int, int]:
    a, b = Version.from_source(v1, kind, "v1"), Version.from_source(v2, kind, "v2")
    m = score(a, b, [_comment(a.text, quote)]).metrics["collateral_churn"]
    return m.numerator, m.denominator


def _html(paras: list[str], sep: str) -> str:
    return (
        "<!DOCTYPE html><html><body>"
        + sep.join(f"<p>{html.escape(p)}</p>" for p in paras)
        + "</body></html>"
    )


QUOTE = "within a month."
BASE = ["Hotel costs are capped at 90 pounds.", "Receipts must reach finance " + QUOTE]
NEW = "All claims go through the new expenses app."


def test_a_paragraph_added_after_the_commented_sentence_is_collateral_in_every_kind():
    for kind, v1, v2 in [
        ("text", "\n\n".join(BASE), "\n\n".join([*BASE, NEW])),
        ("text", "\n".join(BASE), "\n".join([*BASE, NEW])),
        ("html", _html(BASE, "\n"), _html([*BASE, NEW], "\n")),
        ("html", _html(BASE, ""), _html([*BASE, NEW], "")),  # no character between blocks
    ]:
        outside, total = _churn(kind, v1, v2, QUOTE)
        assert total >= len(NEW) and outside == total, (kind, outside, total)


def test_a_paragraph_added_before_the_commented_sentence_is_collateral():
    paras = [QUOTE.capitalize() + " Then more.", "Other text here."]
    for kind, v1, v2 in [
        ("text", "\n\n".join(paras), "\n\n".join([NEW, *paras])),
        ("html", _html(paras, ""), _html([NEW, *paras], "")),
    ]:
        outside, total = _churn(kind, v1, v2, QUOTE.capitalize())
        assert total >= len(NEW) and outside == total, (kind, outside, total)


def test_words_added_at_the_anchors_edge_in_its_own_sentence_stay_inside():
    v1 = "\n\n".join(BASE)
    v2 = "\n\n".join([BASE[0], BASE[1][:-1] + " of the trip."])
    outside, total = _churn("text", v1, v2, QUOTE)
    assert total > 0 and outside == 0
    h1, h2 = _html(BASE, ""), _html([BASE[0], BASE[1][:-1] + " of the trip."], "")
    outside, total = _churn("html", h1, h2, QUOTE)
    assert total > 0 and outside == 0


def test_the_same_inside_the_same_paragraph_then_a_new_one():
    """Both at once: the words in the anchor's block inside, the new block outside."""
    v1 = "\n\n".join(BASE)
    v2 = "\n\n".join([BASE[0], BASE[1][:-1] + " of the trip.", NEW])
    a, b = Version.from_source(v1, "text", "v1"), Version.from_source(v2, "text", "v2")
    r = score(a, b, [_comment(a.text, QUOTE)])
    m = r.metrics["collateral_churn"]
    # the diff keeps v1's "." at the new paragraph's end: all but that one character
    assert m.numerator >= len(NEW) - 1 and m.numerator < m.denominator
    assert any(NEW[:-1] in c.inserted for c in r.collateral)


PARAGRAPHS = st.sampled_from(
    [
        NEW,
        "所有报销都通过新的应用程序提交。",
        "كل المطالبات تمر عبر التطبيق الجديد.",
        "همه درخواست‌ها از برنامه جدید می‌گذرند.",
        "การเบิกทั้งหมดผ่านแอปใหม่",
        "Expenses 🧾 go through the app 📱.",
    ]
)


@given(
    st.lists(PARAGRAPHS, min_size=1, max_size=3), st.sampled_from(["text", "html", "html-tight"])
)
def test_every_character_of_paragraphs_added_after_an_anchor_is_outside(added, kind):
    if kind == "text":
        v1, v2 = "\n\n".join(BASE), "\n\n".join([*BASE, *added])
    else:
        sep = "" if kind == "html-tight" else "\n"
        v1, v2 = _html(BASE, sep), _html([*BASE, *added], sep)
        kind = "html"
    outside, total = _churn(kind, v1, v2, QUOTE)
    assert outside == total and total >= sum(map(len, added))
