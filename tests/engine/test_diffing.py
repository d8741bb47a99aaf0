"""The diff, position mapping and churn accounting (engine.diffing)."""

import random

import pytest

from engine.diffing import DELETE, EQUAL, INSERT, TextDiff, diff_texts


def _check(a, b):
    d = TextDiff(a, b)
    assert "".join(t for o, t in d.diffs if o != INSERT) == a
    assert "".join(t for o, t in d.diffs if o != DELETE) == b
    for i in range(len(a) + 1):
        left, right = d.map_left(i), d.map_right(i)
        assert 0 <= left <= right <= len(b)
    inside, outside, _ = d.split_churn([(0, len(a))])
    assert inside + outside == d.total_changed()
    inside, outside, coll = d.split_churn([])
    assert inside == 0 and outside == d.total_changed()
    return d


def test_diff_reconstructs_both_texts_on_random_edits():
    rnd = random.Random(3)
    for _ in range(400):
        a = "".join(rnd.choice("ab. \ncd!?") for _ in range(rnd.randint(0, 80)))
        b = list(a)
        for _ in range(rnd.randint(0, 6)):
            if b and rnd.random() < 0.5:
                del b[rnd.randrange(len(b))]
            else:
                b.insert(rnd.randint(0, len(b)), rnd.choice("xyz. \n"))
        _check(a, "".join(b))


def test_astral_and_many_chunks_encode_safely():
    # More distinct sentence chunks than the BMP below the surrogates, and astral text.
    a = "".join(f"S{i}. " for i in range(60000)) + "🤔 end."
    b = a.replace("S5. ", "S5 changed. ").replace("🤔", "😀")
    d = _check(a, b)
    assert d.total_changed() == len(" changed") + 2


def test_replaced_word_is_one_deletion_and_one_insertion():
    d = TextDiff("the blue teapot", "the green teapot")
    assert d.diffs == [(EQUAL, "the "), (DELETE, "blue"), (INSERT, "green"), (EQUAL, " teapot")]
    assert d.image(4, 8) == (4, 9)
    assert d.unchanged_image(0, 3) == 0 and d.unchanged_image(4, 8) is None


def test_short_replacement_counts_characters_not_words():
    d = TextDiff("We say colour here.", "We say color here.")
    assert d.total_changed() == 1


def test_insertion_at_anchor_boundary_counts_inside():
    d = TextDiff("keep the lid closed", "keep the big lid closed")
    # anchor "lid" = [9, 12): "big " is inserted at its left boundary
    assert d.split_churn([(9, 12)])[:2] == (4, 0)
    assert d.unchanged_image(9, 12) == 13  # the anchor's own text is unchanged


def test_replacement_of_a_partly_anchored_deletion_is_split_proportionally():
    a = "Hi AAAA BBBB end"
    b = "Hi ZZZZZZZZ end"
    d = TextDiff(a, b)
    inside, outside, _ = d.split_churn([(3, 7)])  # "AAAA": half of "AAAA BBBB"
    assert inside + outside == d.total_changed()
    assert 0 < inside < d.total_changed()


def test_collateral_lists_outside_changes_with_v2_ranges():
    a = "We utilize three vendors. Contracts renew yearly."
    b = "We use three vendors. Contracts renew monthly."
    d = TextDiff(a, b)
    inside, outside, coll = d.split_churn([(3, 10)])
    texts = [(c.deleted, c.inserted) for c in coll]
    assert any("year" in dd or "month" in ii for dd, ii in texts)
    for c in coll:
        assert b[c.b0 : c.b1] == c.inserted


@pytest.mark.parametrize("a,b", [("", ""), ("", "x"), ("x", ""), ("same", "same")])
def test_edge_texts(a, b):
    assert "".join(t for o, t in diff_texts(a, b) if o != INSERT) == a
    _check(a, b)
