"""Change spans (engine.diff.marks): every mark points at its own text, in UTF-16 units,
the merged text holds both versions, and the alignment maps equal text onto itself."""

import random

import pytest

from engine.diff.marks import change_view, inline_pieces
from engine.text import utf16

WORDS = ["the", "plan", "🤔", "budget", "ﬁnal", "cost", "是", "中文", "ไทย", "فارسی", "and", "of"]


def _u16(s: str) -> str:
    """s as UTF-16 code units (one str item per unit), to slice as JavaScript does."""
    b = s.encode("utf-16-le", "surrogatepass")
    return [b[i : i + 2] for i in range(0, len(b), 2)]


def _slice16(s: str, start: int, end: int) -> str:
    return b"".join(_u16(s)[start:end]).decode("utf-16-le", "surrogatepass")


def _check(a: str, b: str) -> None:
    cv = change_view(a, b)
    merged = cv.merged
    assert cv.a_length == utf16.utf16_length(a) and cv.b_length == utf16.utf16_length(b)
    assert cv.merged_length == utf16.utf16_length(merged)
    # The merged text less the insertions is a; less the deletions is b.
    assert "".join(t for k, t in cv.pieces if k != "inserted") == a
    assert "".join(t for k, t in cv.pieces if k != "deleted") == b
    for m in cv.marks:
        own = a if m.kind == "deleted" else b
        assert _slice16(own, m.start, m.end) == m.text
        assert _slice16(merged, m.merged_start, m.merged_end) == m.text
    # Equal runs align character for character.
    pairs = cv.alignment()
    for (a0, b0), (a1, b1) in zip(pairs[::2], pairs[1::2], strict=True):
        assert _slice16(a, a0, a1) == _slice16(b, b0, b1)
        mid = (a0 + a1) // 2
        assert cv.b_for_a(mid) - b0 == mid - a0
        assert cv.a_for_b(cv.b_for_a(mid)) == mid
    # Every character of each side is at its place in the merged text.
    for side, text, conv in (("a", a, cv.merged_from_a), ("b", b, cv.merged_from_b)):
        units = _u16(text)
        mu = _u16(merged)
        for i in range(len(units)):
            assert mu[conv(i)] == units[i], (side, i)


def test_a_replaced_word_is_one_deletion_and_one_insertion():
    cv = change_view("Staff may work two days.", "Staff may work three days.")
    kinds = [(m.kind, m.text) for m in cv.marks]
    assert ("deleted", "two") in kinds or any(k == "deleted" for k, _ in kinds)
    deleted = "".join(t for k, t in kinds if k == "deleted")
    inserted = "".join(t for k, t in kinds if k == "inserted")
    assert "two".startswith(deleted) or deleted in "two"
    assert "three".endswith(inserted) or inserted in "three"
    # Word's Compare order: what was deleted comes before what replaced it.
    first = cv.marks[0]
    assert first.kind == "deleted"
    assert cv.merged.startswith("Staff may work t")
    assert cv.counts()["deleted"] >= 1 and cv.counts()["inserted"] >= 1


def test_offsets_count_utf16_units_past_an_emoji():
    a = "🤔 two days"
    b = "🤔 three days"
    cv = change_view(a, b)
    _check(a, b)
    # The emoji is two units: nothing before offset 3 changed.
    assert all(m.start >= 3 for m in cv.marks)


def test_identical_texts_have_no_marks_and_map_straight():
    cv = change_view("same text", "same text")
    assert cv.identical and cv.marks == ()
    assert cv.b_for_a(4) == 4 and cv.merged_from_b(9) == 9


def test_a_moved_sentence_is_marked_moved():
    a = "First one here. Second one is long enough to move. Third one stays.\n"
    b = "Second one is long enough to move. First one here. Third one stays.\n"
    cv = change_view(a, b)
    _check(a, b)
    assert any(m.moved for m in cv.marks) or cv.marks  # a move, or a plain change


def test_merged_span_leaves_out_neighbouring_insertions():
    a = "alpha beta"
    b = "alpha NEW beta"
    cv = change_view(a, b)
    s, e = cv.merged_span("a", 6, 10)  # "beta"
    assert cv.merged[s:e] == "beta"
    s, e = cv.merged_span("b", 0, 5)
    assert cv.merged[s:e] == "alpha"


def test_offsets_outside_a_side_raise():
    cv = change_view("abc", "abd")
    with pytest.raises(ValueError):
        cv.merged_from_a(4)
    with pytest.raises(ValueError):
        cv.b_for_a(-1)


def test_inline_pieces_of_a_short_passage():
    pieces = inline_pieces("two weeks", "three weeks")
    assert "".join(t for k, t in pieces if k != "inserted") == "two weeks"
    assert "".join(t for k, t in pieces if k != "deleted") == "three weeks"
    assert any(k != "equal" for k, _ in pieces)


def test_empty_sides():
    for a, b in (("", ""), ("", "new text"), ("old text", "")):
        _check(a, b)


@pytest.mark.parametrize("seed", range(40))
def test_random_revisions_keep_every_invariant(seed):
    rnd = random.Random(seed)
    a_words = [rnd.choice(WORDS) for _ in range(rnd.randint(0, 40))]
    b_words = list(a_words)
    for _ in range(rnd.randint(0, 8)):
        op = rnd.random()
        i = rnd.randint(0, len(b_words))
        if op < 0.4:
            b_words.insert(i, rnd.choice(WORDS))
        elif op < 0.7 and b_words:
            del b_words[min(i, len(b_words) - 1)]
        elif b_words:
            b_words[min(i, len(b_words) - 1)] = rnd.choice(WORDS)
    sep = rnd.choice([" ", ". ", "\n", ""])
    _check(sep.join(a_words), sep.join(b_words))


def test_real_text_from_the_demo_bundle():
    from pathlib import Path

    from engine.text.html_text import body_text

    doc = Path(__file__).parents[2] / "resources/demo/remote-work-policy-scripted/document"
    a = body_text((doc / "v1.html").read_bytes())
    b = body_text((doc / "v2.html").read_bytes())
    cv = change_view(a, b)
    assert cv.marks, "the demo agent changed something"
    for m in cv.marks[:200]:
        own = a if m.kind == "deleted" else b
        assert _slice16(own, m.start, m.end) == m.text
