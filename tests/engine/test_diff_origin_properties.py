"""Properties of the diff's position queries over any pair of texts (Hypothesis): where a v2
range came from (``TextDiff.v2_origin``, its runs as ``KeptRuns``) and which op holds a
character (``_op_at_a``, ``_op_at_b``), against a brute-force reading of the ops, in several
scripts (Latin, CJK, Arabic, Thai, emoji above U+FFFF)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from engine.diff.align import DELETE, EQUAL, INSERT
from engine.diff.diffing import TextDiff

_WORDS = [
    "the",
    "cat",
    "sat",
    "on",
    "mat",
    "東京",
    "は",
    "雨",
    "سلام",
    "دنیا",
    "สวัสดี",
    "ครับ",
    "😀",
    "👩‍🔬",
    ".",
    ",",
    "\n\n",
]
_SEP = st.sampled_from([" ", " ", "", ". ", "\n"])
_TEXT = st.lists(st.tuples(st.sampled_from(_WORDS), _SEP), max_size=40).map(
    lambda parts: "".join(w + s for w, s in parts)
)


def _owner_b(d: TextDiff, i: int) -> int | None:
    """The op holding v2 character ``i``, by walking every op."""
    for k in range(len(d._tag)):
        if d._tag[k] != DELETE and d._b0[k] <= i < d._b1[k]:
            return k
    return None


def _owner_a(d: TextDiff, i: int) -> int | None:
    for k in range(len(d._tag)):
        if d._tag[k] != INSERT and d._a0[k] <= i < d._a1[k]:
            return k
    return None


@given(_TEXT, _TEXT)
def test_the_op_holding_a_character_is_the_one_whose_range_holds_it(a: str, b: str) -> None:
    d = TextDiff(a, b)
    for i in range(-1, len(a) + 2):
        assert d._op_at_a(i) == _owner_a(d, i)
    for i in range(-1, len(b) + 2):
        assert d._op_at_b(i) == _owner_b(d, i)


@given(_TEXT, _TEXT, st.data())
def test_v2_origin_accounts_for_every_character_of_the_range(a: str, b: str, data) -> None:
    d = TextDiff(a, b)
    b0 = data.draw(st.integers(0, len(b)))
    b1 = data.draw(st.integers(b0, len(b) + 3))
    inserted, runs = d.v2_origin(b0, b1)
    expected_inserted = 0
    expected_runs = []
    for i in range(b0, min(b1, len(b))):
        k = _owner_b(d, i)
        assert k is not None
        if d._tag[k] == INSERT:
            expected_inserted += 1
        else:
            assert d._tag[k] == EQUAL
            j = d._a0[k] + (i - d._b0[k])
            if expected_runs and expected_runs[-1][2] == k:
                expected_runs[-1][1] = j + 1
            else:
                expected_runs.append([j, j + 1, k])
    assert inserted == expected_inserted
    assert list(runs) == [(s, e) for s, e, _k in expected_runs]
    assert len(runs) == len(expected_runs)
    # in v1 order, apart, each the v1 text of the v2 characters it stands for
    pairs = list(runs)
    assert all(e0 <= s1 for (_s0, e0), (s1, _e1) in zip(pairs, pairs[1:]))
    if pairs:
        assert runs.within(pairs[0][0], pairs[-1][1])
        assert not runs.within(pairs[0][0] + 1, pairs[-1][1])
    assert runs.within(0, 0) == (not pairs)


_SENTENCES = [
    "The committee met on Tuesday to review the budget.",
    "東京は今日も雨が降っていて、とても寒い一日でした。",
    "سلام دنیا، این یک جمله‌ی آزمایشی است که جابه‌جا می‌شود.",
    "ครับ สวัสดี วันนี้อากาศดีมากและท้องฟ้าแจ่มใส",
    "👩‍🔬 The lab results arrived late on Friday evening 😀.",
    "No.",
    "Members must renew their cards before the end of May.",
]


@given(
    st.permutations(range(len(_SENTENCES))),
    st.lists(st.tuples(st.integers(0, 400), st.integers(0, 400)), max_size=30),
)
def test_the_moved_part_of_a_range_is_its_overlap_with_the_moves(order, ranges) -> None:
    """``TextDiff.moved_part`` against the moves read one by one: characters of the range
    inside moved passages, and the v2 range from the first such piece's copy to the last's."""
    a = "\n\n".join(_SENTENCES)
    b = "\n\n".join(_SENTENCES[i] for i in order)
    d = TextDiff(a, b)
    for s, e in [*ranges, (0, len(a))]:
        s, e = min(s, e), max(s, e)
        held, y0, y1 = 0, [], []
        for m in d.moves:
            x0, x1 = max(s, m.a0), min(e, m.a1)
            if x0 < x1:
                held += x1 - x0
                y0.append(m.b0 + x0 - m.a0)
                y1.append(m.b0 + x1 - m.a0)
        want = (held, min(y0), max(y1)) if held else (0, 0, 0)
        assert d.moved_part(s, e) == want
