"""The diff's fast paths equal the slow ways they replace (engine.diff.align, engine.diff.hunks).

Each fast path is checked against a reference kept here, on random token sequences
(Hypothesis): the anchor pairs of ``_anchors`` (its passes over tokens in C, one over
the smaller count table instead of an intersection of both tables' items), the longest
increasing subsequence of ``_lis`` (its bookkeeping in lists), the anchors of token
lists equal to those of their codes, the codes of
new tokens and sentence chunks assigned in bulk (``_TokenCodec.encode``,
``_encode_chunks``), the char-level refinement remembered
per pair of texts (``_CountedDmp.refined``, with the step budget counted as if run again),
the semantic cleanup skipped where a hunk has one change group (it folds nothing
there), and the word patterns written for speed (possessive runs, a look-ahead before the
joins) against their plain forms. ``tests/engine/test_diff_golden.py`` pins the whole diff's output besides.
"""

from __future__ import annotations

import re
from array import array
from collections import Counter

from hypothesis import given, settings, strategies as st

import engine.diff.align as align_module
from engine.diff.align import (
    DELETE,
    EQUAL,
    INSERT,
    _anchors,
    _counts,
    _lis,
)
from engine.diff.cleanup import _merge, _semantic_merge
from engine.diff.diffing import TextDiff
from engine.diff.myers import _Budget, _CountedDmp
from engine.diff.tokens import (
    _ASCII_WORD_RE,
    _EU_LETTERS,
    _encode_chunks,
    _eu_res,
    _TokenCodec,
    split_sentences,
)

# Token codes: a small alphabet so that tokens repeat, unique ones are few, and the three
# branches of _anchors (few unique tokens, many, none) are all reached.
codes = st.text(alphabet="abcdefghij \n.", max_size=120)
many_codes = st.text(alphabet=[chr(c) for c in range(0x4E00, 0x4E00 + 300)], max_size=400)


def _anchors_reference(A: str, B: str) -> tuple[list[int], list[int], list[int]]:
    """The earlier ``_anchors``: tokens occurring equally often on both sides as a set
    intersection of the two count tables' items, the unique ones among them."""
    ca, cb = _counts(A), _counts(B)
    same = ca.items() & cb.items()
    keep = {t for t, n in same if n == 1}
    ia, jb = array("q"), array("q")
    if keep and len(keep) <= 64:
        for j, i in sorted([(B.find(t), A.find(t)) for t in keep]):
            ia.append(i)
            jb.append(j)
    elif keep:
        pos = {t: i for i, t in enumerate(A) if t in keep}
        for j, t in enumerate(B):
            if t in keep:
                ia.append(pos[t])
                jb.append(j)
    else:
        keep = {t for t, _ in same}
        if not keep:
            return [], [], []
        occ: dict[str, list[int]] = {}
        for i, t in enumerate(A):
            if t in keep:
                occ.setdefault(t, []).append(i)
        seen: Counter[str] = Counter()
        for j, t in enumerate(B):
            if t in keep:
                ia.append(occ[t][seen[t]])
                jb.append(j)
                seen[t] += 1
    return list(ia), list(jb), _lis(ia)


@settings(max_examples=400, deadline=None)
@given(codes, codes)
def test_anchors_equal_the_reference(a, b):
    got = _anchors(a, b)
    assert (list(got.ia), list(got.jb), got.keep) == _anchors_reference(a, b)


@settings(max_examples=150, deadline=None)
@given(many_codes, many_codes)
def test_anchors_equal_the_reference_with_many_unique_tokens(a, b):
    got = _anchors(a, b)
    assert (list(got.ia), list(got.jb), got.keep) == _anchors_reference(a, b)


def _lis_reference(seq: list[int]) -> list[int]:
    """The earlier ``_lis``: patience sorting with an index loop and an array of
    predecessors."""
    import bisect

    n = len(seq)
    if list(seq) == sorted(seq):
        return list(range(n))
    tails, tail_idx = [seq[0]], [0]
    prev = array("q", bytes(8 * n))
    prev[0] = -1
    for k in range(1, n):
        i = seq[k]
        if i > tails[-1]:
            prev[k] = tail_idx[-1]
            tails.append(i)
            tail_idx.append(k)
            continue
        p = bisect.bisect_left(tails, i)
        tails[p] = i
        tail_idx[p] = k
        prev[k] = tail_idx[p - 1] if p else -1
    out = []
    k = tail_idx[-1] if tail_idx else -1
    while k >= 0:
        out.append(k)
        k = prev[k]
    return out[::-1]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 60), unique=True, max_size=60), st.booleans())
def test_lis_equals_the_reference(seq, as_array):
    want = _lis_reference(seq)
    assert _lis(array("q", seq) if as_array else seq) == want
    limit = align_module._LIST_MAX
    align_module._LIST_MAX = 3  # the array bookkeeping of long sequences
    try:
        assert _lis(seq) == want
    finally:
        align_module._LIST_MAX = limit


token_lists = st.lists(
    st.sampled_from(["the", "cat", " ", ".", "a", "日", "sat", "on"]), max_size=80
)


@settings(max_examples=400, deadline=None)
@given(token_lists, token_lists)
def test_anchors_of_tokens_equal_those_of_their_codes(ta, tb):
    """``_cut_group`` anchors the token lists themselves; the pairs are those of the codes."""
    codec = _TokenCodec()
    sa, sb = codec.encode(ta), codec.encode(tb)
    by_codes, by_tokens = _anchors(sa, sb), _anchors(ta, tb)
    assert (list(by_tokens.ia), list(by_tokens.jb), by_tokens.keep) == (
        list(by_codes.ia),
        list(by_codes.jb),
        by_codes.keep,
    )


words = st.text(alphabet="abcdefghiéж日 .", min_size=0, max_size=40)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(words, words), min_size=1, max_size=30),
    st.integers(min_value=0, max_value=400),
    st.integers(min_value=1, max_value=200),
)
def test_refined_remembered_equals_running_again(pairs, total, per_call):
    """With budgets small enough to run out: every result, every "ran out" flag and the
    budget left after each call equal a fresh run's, repeated pairs included."""
    pairs = pairs + pairs[::2]  # repeats, later in the run, with less budget left
    fast = _CountedDmp(_Budget(total, per_call))
    slow = _CountedDmp(_Budget(total, per_call))
    for x, y in pairs:
        got = fast.refined(x, y)
        fine = slow.run(x, y)
        slow.diff_cleanupSemantic(fine)
        assert got == ([(op, len(t)) for op, t in fine], slow.hit)
        assert fast.budget.left == slow.budget.left


ops_text = st.text(alphabet="ab .\n", min_size=1, max_size=8)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.none(), ops_text),
    st.lists(st.tuples(st.sampled_from([DELETE, INSERT]), ops_text), max_size=3),
    st.one_of(st.none(), ops_text),
)
def test_one_change_group_is_left_as_it_is_by_the_cleanup(head, group, tail):
    coarse = []
    if head:
        coarse.append((EQUAL, head))
    coarse += sorted(group, key=lambda o: o[0])  # deletions first, as the word pass makes
    if tail:
        coarse.append((EQUAL, tail))
    assert _merged(_semantic_merge(coarse)) == _merged(coarse)


def _merged(ops: list[tuple[int, str]]) -> list[tuple[int, int]]:
    """``(op, text)`` ops as ``(op, length)`` with neighbours of a kind joined (``_merge``)."""
    tags, lens = array("b", [op for op, _ in ops]), array("q", [len(t) for _, t in ops])
    _merge(tags, lens)
    return list(zip(tags, lens))


sentence = st.lists(st.sampled_from(["cat", "the", "colour", "color", "naïve", "日本", "3.14"]))


@settings(max_examples=150, deadline=None)
@given(st.lists(sentence, min_size=1, max_size=12), st.data())
def test_diff_reconstructs_both_texts_with_the_fast_paths(sents, data):
    a = "".join(" ".join(s) + ". " for s in sents)
    b_sents = [data.draw(sentence) if data.draw(st.booleans()) else s for s in sents]
    b = "".join(" ".join(s) + ". " for s in b_sents)
    d = TextDiff(a, b)
    assert "".join(t for o, t in d.diffs if o != INSERT) == a
    assert "".join(t for o, t in d.diffs if o != DELETE) == b


def _codec_reference(tokens_runs: list[list[str]], start: int) -> tuple[list[str], set[str]]:
    """The earlier ``_TokenCodec.encode``: a token at a time, new tokens coded in order of
    appearance from code ``start``, the surrogate block skipped."""
    table: dict[str, str] = {}
    blank: set[str] = set()
    out = []
    n = start
    for tokens in tokens_runs:
        for t in tokens:
            if t not in table:
                table[t] = c = chr(n if n < 0xD800 else n + 0x800)
                n += 1
                if t.isspace():
                    blank.add(c)
        out.append("".join(table[t] for t in tokens))
    return out, blank


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(["a", "b", " ", "\n", "日", "\t ", "cat"]), max_size=12)),
    st.sampled_from([0, 0xD800 - 3, 0xD800]),
)
def test_token_codes_equal_the_reference_across_the_surrogate_block(runs, start):
    codec = _TokenCodec()
    codec.tokens = [f"pad{i}" for i in range(start)]  # codes already taken
    got = [codec.encode(tokens) for tokens in runs]
    want, blank = _codec_reference(runs, start)
    assert got == want
    assert codec.blank == blank
    assert codec.tokens[start:] == list(dict.fromkeys(t for r in runs for t in r))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab.!? \n。", max_size=80), st.text(alphabet="ab.!? \n。", max_size=80))
def test_chunk_codes_equal_the_reference(a, b):
    table: dict[str, str] = {}
    got = [_encode_chunks(a, 0, len(a), table)[0], _encode_chunks(b, 0, len(b), table)[0]]
    want, _ = _codec_reference([split_sentences(a), split_sentences(b)], 0)
    assert got == want


# The word patterns in their plain form: greedy runs, no look-ahead before the joins.
_PLAIN_ASCII = re.compile(
    r"[A-Za-z0-9_]+(?:(?:(?<=[A-Za-z])[:.'](?=[A-Za-z])|(?<=[0-9])[.,;'](?=[0-9]))[A-Za-z0-9_]+)*"
    r"| +|\r\n|[\s\S]"
)
_EU_L = f"A-Za-z{_EU_LETTERS}"
_PLAIN_EU = re.compile(
    rf"[{_EU_L}0-9_]+(?:(?:(?<=[{_EU_L}])[:.'\u00b7\u2018\u2019\u2024\u2027](?=[{_EU_L}])"
    rf"|(?<=[0-9])[.,;'\u2018\u2019\u2024](?=[0-9]))[{_EU_L}0-9_]+)*"
    r"| +|\r\n|[\s\S]"
)
# Letters, digits, every joining character, spaces, line ends and other punctuation.
joins = st.text(alphabet="ab9Z_0 .:',;\r\n\t!-", max_size=60)
eu_joins = st.text(alphabet="aé9ж_ .:',;\u00b7\u2018\u2019\u2024\u2027\u2026\r\n«", max_size=60)


@settings(max_examples=600, deadline=None)
@given(joins)
def test_ascii_word_pattern_equals_its_plain_form(s):
    assert _ASCII_WORD_RE.findall(s) == _PLAIN_ASCII.findall(s)


@settings(max_examples=600, deadline=None)
@given(st.one_of(joins, eu_joins))
def test_european_word_pattern_equals_its_plain_form(s):
    assert _eu_res()[1].findall(s) == _PLAIN_EU.findall(s)
