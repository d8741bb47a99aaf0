"""A paragraph split in two, or two joined, with the words unchanged, reads ``untouched`` with
a note (docs/verdicts.md, "A paragraph split or joined"): ``textContent`` has no character
where one block ends and the next begins, so "in May. See" split reads "in May.See"; the
verdict reads a block boundary as the reader does, a line end, not a change of words. In
HTML (with and without a character between the paragraphs), plain text and rendered
Markdown, and in other scripts."""

from __future__ import annotations

import pytest

from engine.score.anchoring.index import JOINED_NOTE, SPLIT_NOTE
from engine.score.scoring import Version, score
from tests.engine.test_deleted_places import _comment

# (first sentence, second sentence, the quote's start in the first, its end in the second)
SCRIPTS = [
    ("The fee is due in May.", "See the map for the office.", "in May.", "See the map"),
    ("今天的会议在三楼举行。", "请带上你的笔记本电脑。", "三楼举行。", "请带上"),
    ("يبدأ الاجتماع في الساعة التاسعة.", "يرجى إحضار الحاسوب المحمول.", "التاسعة.", "يرجى إحضار"),
    ("การประชุมเริ่มเวลาเก้าโมง", "กรุณานำคอมพิวเตอร์มาด้วย", "เก้าโมง", "กรุณานำ"),
    ("The party starts at nine 🎉.", "Bring snacks 🍕 and friends.", "nine 🎉.", "Bring snacks 🍕"),
]


def _render(kind: str, paras: list[str]) -> str:
    if kind == "text" or kind == "markdown":
        return "\n\n".join(paras) + "\n"
    nl = "" if kind == "html-tight" else "\n"
    return "<!DOCTYPE html><body>" + nl + "".join(f"<p>{p}</p>{nl}" for p in paras) + "</body>"


def _one(kind: str, a: str, b: str, sep: str) -> str:
    return _render(kind, [a + sep + b])


def _verdict(kind: str, src1: str, src2: str, head: str, tail: str):
    """The verdict of a comment on v1 from ``head`` to the end of ``tail`` (what lies
    between is as v1's textContent has it)."""
    k = "html" if kind.startswith("html") else kind
    v1, v2 = Version.from_source(src1, k, "v1"), Version.from_source(src2, k, "v2")
    i = v1.text.index(head)
    j = v1.text.index(tail, i + len(head)) + len(tail)
    (v,) = score(v1, v2, [_comment(v1.text, v1.text[i:j])]).verdicts
    return v


def _sep(a: str) -> str:
    """What stands between two sentences in one paragraph: nothing after a full stop of
    Chinese."""
    return "" if a.endswith("。") else " "


KINDS = ["html-tight", "html", "text", "markdown"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("a,b,head,tail", SCRIPTS)
def test_a_paragraph_split_in_two_reads_untouched_with_a_note(kind, a, b, head, tail):
    v = _verdict(kind, _one(kind, a, b, _sep(a)), _render(kind, [a, b]), head, tail)
    assert v.verdict == "untouched", (v.method, v.v2, v.note)
    assert SPLIT_NOTE in v.note


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("a,b,head,tail", SCRIPTS)
def test_two_paragraphs_joined_read_untouched_with_a_note(kind, a, b, head, tail):
    v = _verdict(kind, _render(kind, [a, b]), _one(kind, a, b, _sep(a)), head, tail)
    assert v.verdict == "untouched", (v.method, v.v2, v.note)
    assert JOINED_NOTE in v.note


@pytest.mark.parametrize("kind", KINDS)
def test_a_split_with_a_word_changed_is_an_edit(kind):
    a, b = "The fee is due in May.", "See the map for the office."
    v = _verdict(
        kind,
        _one(kind, a, b, " "),
        _render(kind, [a, "See the plan for the office."]),
        "in May.",
        "See the map",
    )
    assert v.verdict == "edited", (v.method, v.v2, v.note)


@pytest.mark.parametrize("kind", KINDS)
def test_a_split_that_drops_a_space_inside_a_paragraph_is_an_edit(kind):
    # only a block boundary stands for a space: "the map" -> "themap" in one paragraph
    # is a change of words
    a, b = "The fee is due in May.", "See the map for the office."
    v = _verdict(
        kind,
        _one(kind, a, b, " "),
        _render(kind, [a, "See themap for the office."]),
        "See",
        "the map",
    )
    assert v.verdict == "edited", (v.method, v.v2, v.note)


@pytest.mark.parametrize("kind", KINDS)
def test_a_quote_beside_the_split_reads_untouched_without_a_note(kind):
    a, b = "The fee is due in May.", "See the map for the office."
    v = _verdict(kind, _one(kind, a, b, " "), _render(kind, [a, b]), "fee", "is due")
    assert v.verdict == "untouched" and SPLIT_NOTE not in v.note, (v.method, v.note)


def test_a_longer_document_split_in_several_places():
    paras = [
        f"Paragraph {k} opens with a claim. It goes on with evidence number {k}. "
        f"It closes with a remark about item {k}."
        for k in range(1, 13)
    ]
    split = []
    for p in paras:
        first, rest = p.split(". ", 1)
        split += [first + ".", rest]
    src1 = "".join(f"<p>{p}</p>" for p in paras)
    src2 = "".join(f"<p>{p}</p>" for p in split)
    v1, v2 = Version.from_source(src1, "html", "v1"), Version.from_source(src2, "html", "v2")
    quotes = [f"a claim. It goes on with evidence number {k}." for k in (1, 6, 12)]
    comments = [_comment(v1.text, q, f"c{k}") for k, q in enumerate(quotes)]
    for v in score(v1, v2, comments).verdicts:
        assert v.verdict == "untouched" and SPLIT_NOTE in v.note, (v.comment_id, v.v2, v.note)
