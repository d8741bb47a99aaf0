"""The diff, position mapping and churn accounting (engine.diff.diffing)."""

import random

import pytest

from engine.diff.align import DELETE, EQUAL, INSERT
from engine.diff.churn import Change
from engine.diff.diffing import TextDiff, diff_texts


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
    assert d.diffs == [(0, "Hi "), (-1, "AAAA BBBB"), (1, "ZZZZZZZZ"), (0, " end")]
    # Anchor "AAAA" = [3, 7): 4 of the 9 deleted characters are anchored, so the 8 inserted
    # ones are inside in that proportion: round(8 * 4 / 9) = 4 inside, 4 outside.
    # Inside: 4 deleted + 4 inserted; outside: 5 deleted (" BBBB") + 4 inserted.
    assert d.split_churn([(3, 7)])[:2] == (8, 9)
    # The whole replaced text anchored: everything is inside.
    assert d.split_churn([(3, 12)])[:2] == (17, 0)
    # No anchor touches it: everything is outside.
    assert d.split_churn([(13, 16)])[:2] == (0, 17)
    # A longer replacement, 1 of 3 anchored: round(12 * 1 / 3) = 4 of 12 inserted inside.
    d3 = TextDiff("x ABC y", "x 123456789012 y")
    assert d3.diffs == [(0, "x "), (-1, "ABC"), (1, "123456789012"), (0, " y")]
    assert d3.split_churn([(2, 3)])[:2] == (1 + 4, 2 + 8)


def test_collateral_lists_outside_changes_with_v2_ranges():
    a = "We utilize three vendors. Contracts renew yearly."
    b = "We use three vendors. Contracts renew monthly."
    d = TextDiff(a, b)
    inside, outside, coll = d.split_churn([(3, 10)])  # anchor "utilize"
    # "utilize" -> "use" is inside (5 deleted + 1 inserted); "yearly" -> "monthly" is the
    # collateral: "year" deleted and "month" inserted, each with its v1 and v2 range.
    assert (inside, outside) == (6, 9)
    assert coll == [
        Change(a0=42, a1=46, b0=38, b1=38, deleted="year", inserted=""),
        Change(a0=46, a1=46, b0=38, b1=43, deleted="", inserted="month"),
    ]
    for c in coll:
        assert a[c.a0 : c.a1] == c.deleted and b[c.b0 : c.b1] == c.inserted


@pytest.mark.parametrize("a,b", [("", ""), ("", "x"), ("x", ""), ("same", "same")])
def test_edge_texts(a, b):
    assert "".join(t for o, t in diff_texts(a, b) if o != INSERT) == a
    _check(a, b)


# -- counts, not clocks -------------------------------------------------------------------


def test_the_diff_never_reads_a_clock(monkeypatch):
    """A machine a thousand times slower gives the same diff: no deadline anywhere."""
    import time

    rnd = random.Random(5)
    words = [f"w{i}" for i in range(300)]
    a = " ".join(rnd.choice(words) + ("." if rnd.random() < 0.1 else "") for _ in range(4000))
    b = " ".join(w if rnd.random() < 0.9 else "x" for w in a.split(" "))
    before = TextDiff(a, b).diffs
    clock = [0.0]

    def slow() -> float:
        clock[0] += 1000.0
        return clock[0]

    for name in ("time", "monotonic", "perf_counter", "process_time"):
        monkeypatch.setattr(time, name, slow)
    assert TextDiff(a, b).diffs == before
    assert clock[0] == 0.0  # and no clock was even read


def test_tight_bounds_mark_the_region_approximate_and_stay_correct():
    from engine.diff.align import DiffLimits

    rnd = random.Random(9)
    # Two tokens only ("+" and "-"), in different numbers: nothing unique or equally
    # frequent to anchor on, so only Myers can align them, and its budget is tiny.
    a = "".join(rnd.choice("+-") for _ in range(3000)) + "+"
    b = "".join(rnd.choice("+-") for _ in range(3000)) + "-"
    while a.count("+") == b.count("+"):
        b += "+"
    tight = DiffLimits(myers_steps=50, total_steps_base=100, total_steps_per_char=0)
    d = TextDiff(a, b, limits=tight)
    assert "".join(t for o, t in d.diffs if o != INSERT) == a
    assert "".join(t for o, t in d.diffs if o != DELETE) == b
    assert d.approximate and d.is_approximate(0, len(a))
    assert TextDiff(a, b, limits=tight).diffs == d.diffs  # deterministic
    assert not TextDiff(a, a + "x").approximate


def test_every_sentence_changed_does_not_become_one_hunk():
    rnd = random.Random(2)
    vocab = [f"word{i}" for i in range(2000)]
    sents = [" ".join(rnd.choice(vocab) for _ in range(12)) + "." for _ in range(400)]
    a = " ".join(sents)
    b = " ".join(s.replace(s.split()[3], "changed", 1) for s in sents)
    d = TextDiff(a, b)
    ch = d.changes()
    assert len(ch) >= 390  # one small change per sentence, not one replaced document
    assert max(c.size for c in ch) < 40


# -- tokens in every script ---------------------------------------------------------------


def test_word_tokens_follow_unicode_word_boundaries():
    from engine.diff.tokens import word_tokens

    assert word_tokens("我们计划") == ["我", "们", "计", "划"]
    assert word_tokens("can't 3.14 e.g.") == ["can't", " ", "3.14", " ", "e.g", "."]
    assert "हिन्दी" in word_tokens("हिन्दी भाषा")  # marks stay with their letters
    assert "👩\u200d👩\u200d👧" in word_tokens("a 👩\u200d👩\u200d👧 b")  # one emoji
    assert "👍🏽" in word_tokens("ok 👍🏽")  # skin tone stays with its emoji
    assert "🇫🇷" in word_tokens("🇫🇷🇩🇪")
    assert "مرحبا" in word_tokens("مرحبا بالعالم")
    thai = word_tokens("ภาษาไทย")
    assert "".join(thai) == "ภาษาไทย" and len(thai) > 1


def test_ascii_fast_path_equals_the_unicode_rules():
    import regex

    from engine.diff.tokens import word_tokens

    uax = regex.compile(r"\b", flags=regex.WORD | regex.V1)
    rnd = random.Random(11)
    alphabet = "ab1_ .,:;'\"-\t\n\r!?()"
    for _ in range(2000):
        s = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 30)))
        assert word_tokens(s) == [t for t in uax.split(s) if t], repr(s)


def test_european_fast_path_equals_the_unicode_rules():
    """The fast path for text whose non-ASCII characters are common European letters and
    marks (engine.diff.tokens._eu_res) cuts exactly where the regex module does."""
    import regex

    from engine.diff.tokens import _eu_res, word_tokens

    uax = regex.compile(r"\b", flags=regex.WORD | regex.V1)
    not_eu, _ = _eu_res()
    covered = [chr(c) for c in range(0x80, 0x2200) if not not_eu.match(chr(c))]
    assert len(covered) > 1000 and "’" in covered and "é" in covered and "я" in covered
    rnd = random.Random(12)
    ascii_part = "ab1_ .,:;'\"-\t\n\r!?()"
    for _ in range(20000):
        pool = ascii_part + "".join(rnd.choice(covered) for _ in range(8)) + "’’··"
        s = "".join(rnd.choice(pool) for _ in range(rnd.randint(1, 30)))
        assert word_tokens(s) == [t for t in uax.split(s) if t], repr(s)
    for c in covered:  # every covered character, between letters and between digits
        for s in (f"a{c}b", f"1{c}2", f"{c}{c} {c}a", f"a{c}1"):
            assert word_tokens(s) == [t for t in uax.split(s) if t], repr(s)


def test_sentences_split_on_cjk_and_other_full_stops():
    from engine.diff.tokens import split_sentences

    assert split_sentences("你好。再见！真的？好") == ["你好。", "再见！", "真的？", "好"]
    assert split_sentences("「好。」他说。") == ["「好。」", "他说。"]
    assert split_sentences("مرحبا؟ نعم. ") == ["مرحبا؟ ", "نعم. "]
    assert split_sentences("One. Two!\nThree") == ["One. ", "Two!\n", "Three"]


def test_one_character_edit_in_chinese_is_one_character():
    a = "我们计划在下个月的第一周召开年度董事会会议并讨论明年的预算分配方案以及新员工的招聘计划。"
    b = a.replace("董事会", "理事会")
    d = TextDiff(a, b)
    assert d.total_changed() == 2
    s = a.index("董事会")
    assert d.image(s, s + 3) == (s, s + 3)
    n04 = a.replace("下个月", "本月").replace("董事会", "理事会")
    assert TextDiff(a, n04).total_changed() == 2 + 3


def test_one_character_edit_in_thai_japanese_arabic_and_emoji_is_small():
    cases = [
        ("ภาษาไทยเป็นภาษาที่สวยงามมาก", "ภาษาไทยเป็นภาษาที่สวยงามน้อย"),
        ("きょうはいいてんきですね。", "きょうはわるいてんきですね。"),
        ("مرحبا بالعالم الجميل", "مرحبا بالعالم الجميلة"),
        ("Great work 👍🏽 team", "Great work 👍🏿 team"),
    ]
    for a, b in cases:
        d = TextDiff(a, b)
        assert 0 < d.total_changed() <= 8, (a, b, d.diffs)


# -- moved text ---------------------------------------------------------------------------


def test_swapped_sentences_are_moved_not_deleted_and_inserted():
    s = [
        "Visitors must sign in at the front desk. ",
        "Parking is free for the first two hours. ",
        "Badges must be worn at all times. ",
        "The building closes at six.",
    ]
    a = "".join(s)
    b = s[0] + s[2] + s[1] + s[3]
    d = TextDiff(a, b)
    assert len(d.moves) == 1 and d.moved_total() >= len(s[2].strip())
    assert d.total_changed() <= 2  # only the spaces around the moved sentence
    for word in ("Parking", "Badges"):  # one kept in place, the other moved
        i, j = a.index(word), b.index(word)
        assert d.moved_to(i, i + 6) == (j, j + 6) or d.unchanged_image(i, i + 6) == j
    m = d.moves[0]
    assert a[m.a0 : m.a1] == b[m.b0 : m.b1] and d.moved_from(m.b0, m.b1) == (m.a0, m.a1)
    inside, outside, _ = d.split_churn([(m.a0, m.a1)])
    assert inside + outside == d.total_changed() <= 2


def test_reordered_paragraphs_are_moved_and_churn_stays_low():
    rnd = random.Random(4)
    vocab = [f"term{i}" for i in range(500)]
    paras = [
        " ".join(" ".join(rnd.choice(vocab) for _ in range(10)) + "." for _ in range(4))
        for _ in range(12)
    ]
    a = "\n\n".join(paras)
    order = list(range(12))
    order[2], order[9] = order[9], order[2]
    b = "\n\n".join(paras[k] for k in order)
    d = TextDiff(a, b)
    assert d.moved_total() >= len(paras[2]) - 4
    assert d.total_changed() < 20
    p = a.index(paras[2])
    assert d.moved_to(p, p + 30) == (b.index(paras[2]), b.index(paras[2]) + 30)


def test_whitespace_only_change_of_a_sentence_is_not_a_move():
    a = "Keep this line. It is fine. Staff must return it.\nNext line.\n"
    b = "Keep this line. It is fine.\nNext line.\n"
    d = TextDiff(a, b)
    assert not d.moves
    assert d.diffs[0] == (EQUAL, "Keep this line. It is fine.")


def test_random_cjk_and_moved_sentences_keep_every_invariant():
    """Random texts of CJK, Thai, Latin and emoji sentences, edited and with sentences
    moved: both texts rebuild from the diff, every move is the same text on both sides and
    lies in deleted/inserted text, and churn splits add up."""
    rnd = random.Random(17)
    pieces = ["我们", "计划", "会议", "ภาษา", "ไทย", "word", "other", "👍🏽", "ok", "数据"]
    ends = ["。", "！", "？", ". ", "!\n", "\n"]
    for _ in range(150):
        sents = [
            "".join(rnd.choice(pieces) for _ in range(rnd.randint(2, 9))) + rnd.choice(ends)
            for _ in range(rnd.randint(1, 12))
        ]
        a = "".join(sents)
        b_s = list(sents)
        for _ in range(rnd.randint(0, 3)):
            k = rnd.randrange(len(b_s))
            b_s[k] = b_s[k].replace(rnd.choice(pieces), rnd.choice(pieces), 1)
        if len(b_s) > 2 and rnd.random() < 0.5:
            s = b_s.pop(rnd.randrange(len(b_s)))
            b_s.insert(rnd.randrange(len(b_s) + 1), s)
        b = "".join(b_s)
        d = _check(a, b)
        for m in d.moves:
            assert a[m.a0 : m.a1] == b[m.b0 : m.b1]
            assert d.unchanged_image(m.a0, m.a1) is None
            assert d.moved_to(m.a0, m.a1) == (m.b0, m.b1)
            assert d.moved_from(m.b0, m.b1) == (m.a0, m.a1)
        assert d.total_changed() >= 0
