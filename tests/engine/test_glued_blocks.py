"""No unit of the diff runs over a block edge that no character marks (docs/verdicts.md,
"Blocks and words").

``textContent`` puts nothing between two blocks: ``<h1>Remote work policy</h1><p>Staff``
reads "policyStaff", one word to a tokeniser. The diff used to align such glued tokens
across blocks: a heading "Software availability" rewritten to "Software river" beside a
deleted paragraph, after "Data availability", was aligned by "availabilitySoftware" (v1:
the heading's end and the next paragraph's start; v2: the first heading's end and the
rewritten heading's start) and read ``deleted``. Found by the long Hypothesis profile of
tests/engine/test_deleted_span_properties.py on f1000rd/8-1459.
"""

from __future__ import annotations

import html

from hypothesis import given, strategies as st

from engine.diff.align import DELETE, EQUAL, INSERT
from engine.diff.diffing import TextDiff
from engine.diff.tokens import word_tokens_cut
from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text.utf16 import to_utf16


def _tight(*paras: str) -> str:
    """Paragraphs as HTML with no character between blocks."""
    return "<!DOCTYPE html><html><body>" + "".join(f"<p>{html.escape(p)}</p>" for p in paras)


def _comment(text: str, quote: str, cid: str = "c1") -> Comment:
    s = text.index(quote)
    e = s + len(quote)
    anchor = Anchor(
        quote,
        text[max(0, s - 32) : s],
        text[e : e + 32],
        start_offset=to_utf16(text, s),
        end_offset=to_utf16(text, e),
    )
    return Comment(cid, "fix", anchor)


def _verdict(v1_paras, v2_paras, quote):
    v1 = Version.from_source(_tight(*v1_paras), "html", "v1")
    v2 = Version.from_source(_tight(*v2_paras), "html", "v2")
    r = score(v1, v2, [_comment(v1.text, quote)])
    return r.verdicts[0], v2


def test_a_two_word_heading_rewritten_beside_a_deleted_paragraph_reads_edited():
    # the long profile's case, as found
    v1 = [
        "Data availability",
        "All data underlying the results are available as part of the article.",
        "Software availability",
        "Software available from : http://bioconductor.org/packages/HDCytoData",
    ]
    v2 = [v1[0], "Software river", v1[3]]
    v, doc2 = _verdict(v1, v2, "Software availability")
    assert v.verdict == "edited", v
    assert doc2.text[v.v2.start : v.v2.end] == "Software river"


def test_a_heading_given_a_longer_title_changes_only_the_words_added():
    # tests/data/bundle-min: "Remote work policy" became "Remote work policy (2026 edition)"
    a, b = "Remote work policyStaff may work", "Remote work policy (2026 edition)Staff may work"
    plain = TextDiff(a, b).diffs
    assert (DELETE, "policyStaff") in plain  # what the glued token did
    d = TextDiff(a, b, breaks=([18], [33]))
    assert d.diffs == [
        (EQUAL, "Remote work policy"),
        (INSERT, " (2026 edition)"),
        (EQUAL, "Staff may work"),
    ]


# Paragraph words in scripts whose letters join into one word with no space: Latin,
# Cyrillic, Arabic, Persian (with its ZWNJ), Thai (no spaces at all), emoji after a letter.
WORDS = [
    "policy", "Staff", "availability", "Software", "data", "river",
    "политика", "данные", "سياسة", "البيانات", "سیاست", "می‌شود", "ข้อมูล", "นโยบาย",
    "café", "naïve", "🏠", "3.1", "2026",
]  # fmt: skip


@given(st.lists(st.sampled_from(WORDS), min_size=2, max_size=8), st.data())
def test_tokens_cut_at_breaks_join_to_the_text_and_end_at_every_break(words, data):
    text = "".join(words)
    edges = sorted(set(data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=4))))
    edges = [i for i in edges if 0 < i < len(text)]
    toks = word_tokens_cut(text, edges)
    assert "".join(toks) == text
    ends = {sum(map(len, toks[: k + 1])) for k in range(len(toks))}
    assert set(edges) <= ends


def test_a_deleted_paragraph_between_glued_blocks_in_other_scripts_reads_deleted():
    # the quote's paragraph removed; the neighbours glue to each other in v2 ("دنیاМир")
    v1 = ["سلام دنیا", "Это предложение будет удалено", "Мир данных", "ข้อมูลนโยบาย"]
    v2 = [v1[0], v1[2], v1[3]]
    v, _ = _verdict(v1, v2, "Это предложение будет удалено")
    assert v.verdict == "deleted", v


def test_a_persian_heading_rewritten_after_a_deleted_paragraph_reads_edited():
    v1 = [
        "داده‌ها در دسترس",
        "همه داده‌ها بخشی از مقاله هستند و منبع دیگری لازم نیست.",
        "نرم‌افزار در دسترس",
        "نرم‌افزار از اینجا",
    ]
    v2 = [v1[0], "نرم‌افزار رودخانه", v1[3]]
    v, doc2 = _verdict(v1, v2, "نرم‌افزار در دسترس")
    assert v.verdict == "edited", v
    assert doc2.text[v.v2.start : v.v2.end] == "نرم‌افزار رودخانه"
