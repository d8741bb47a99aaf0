"""Verdicts and places on generated shapes of edits, checked against expect.json (docs/engine.md, Speed).

The inputs come from tools/gen_scoring_inputs.py (the generator benchmarks/bench_score.py
runs at 1 MB and more) at a small size, so a regression in correctness fails CI even where
speed is not measured. A place disagrees when an untouched comment's v2 span is not exactly
the expected one, or an edited comment's v2 span is not inside its rewritten sentence.
"""

from __future__ import annotations

import random
import re
import sys
import time
from pathlib import Path

import pytest

from engine.comments_io import parse_comments
from engine.diff.align import DiffLimits
from engine.diff.diffing import TextDiff
from engine.score.scoring import Version, score

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import gen_scoring_inputs as gen

SIZE, COMMENTS = 60_000, 300


def _inputs(shape: str, size: int = SIZE, n: int = COMMENTS):
    if shape in gen.SHAPES:
        return gen.build_shape(shape, size, n)
    v1, v2, comments, _ = gen.build(size, n, shape)
    return v1, v2, comments, dict(gen.build.expect)


def _score(v1: str, v2: str, comments: list[dict], diff: TextDiff | None = None):
    cs, bad = parse_comments(comments, "generated", v1)
    assert not bad
    return score(
        Version.from_source(v1, "text"), Version.from_source(v2, "text", "v2"), cs, diff=diff
    )


_WORD_EDGE = re.compile(r"\w*$"), re.compile(r"^\w*")


def _whole_words(text: str, s: int, t: int) -> str:
    """``text[s:t]`` widened to the words it starts and ends in."""
    if s < t and re.match(r"\w", text[s]):
        s -= len(_WORD_EDGE[0].search(text[max(0, s - 64) : s]).group())
    if s < t and re.match(r"\w", text[t - 1]):
        t += len(_WORD_EDGE[1].search(text[t : t + 64]).group())
    return text[s:t]


def _surviving_words(v, e, result=None) -> bool:
    """The documented disagreement with the generator (docs/verdicts.md, "The reviewer's
    exact words survive"): the quote's exact words survive at their place inside a
    rewritten sentence, so the verdict is untouched, where expect.json calls every quote of
    a rewritten sentence edited. Whole words only: a quote whose first or last word was
    replaced ("foun|d" -> "change|d", the "d" kept) is edited, not a survivor."""
    ok = (
        v.verdict == "untouched"
        and "edited" in e["verdict"].split("|")
        and v.v1 is not None
        and v.v2 is not None
        and " ".join(v.v2.text.split()) == " ".join(v.v1.text.split())
        and v.method in ("exact", "diff")
    )
    if not ok or result is None:
        return ok
    w1 = _whole_words(result.v1.text, v.v1.start, v.v1.end)
    w2 = _whole_words(result.v2.text, v.v2.start, v.v2.end)
    return " ".join(w1.split()) == " ".join(w2.split())


def _disagreements(expect: dict, result) -> list[str]:
    out = []
    for v in result.verdicts:
        e = expect[v.comment_id]
        if _surviving_words(v, e, result):
            continue
        if v.verdict not in e["verdict"].split("|"):
            out.append(f"{v.comment_id}: {v.verdict} ({v.method}), expected {e['verdict']}")
            continue
        if e["v2"] is None or v.v2 is None:
            continue
        es, et = e["v2"]
        s, t = v.v2.start, v.v2.end
        ok = (s, t) == (es, et) if v.verdict == "untouched" else es <= s and t <= et
        if not ok:
            out.append(f"{v.comment_id}: {v.verdict} ({v.method}) at {s}-{t}, expected {es}-{et}")
    return out


SHAPES = ["50", "all-light", "all-heavy", "moved", "repeat", "drift", "zh"]


@pytest.mark.parametrize("shape", SHAPES)
def test_verdicts_and_places_agree_with_expect(shape):
    v1, v2, comments, expect = _inputs(shape)
    result = _score(v1, v2, comments)
    assert len(result.verdicts) == len(comments)
    assert _disagreements(expect, result) == []


def test_moved_paragraphs_are_moved_in_the_diff():
    """The diff's part of the moved shape: every quote maps to its paragraph's new place."""
    v1, v2, comments, expect = _inputs("moved")
    d = TextDiff(v1, v2)
    assert d.moved_total() > 0
    for c in comments:
        s, e = c["anchor"]["start_offset"], c["anchor"]["end_offset"]
        where = d.moved_to(s, e)
        if where is None:
            b = d.unchanged_image(s, e)
            where = None if b is None else (b, b + e - s)
        assert where == tuple(expect[c["id"]]["v2"]), c["id"]
    # Moved text is not churn: what changed is only the paragraph breaks around the moves.
    assert d.total_changed() < d.moved_total() / 20


def test_chinese_edits_are_one_word_wide():
    v1, v2, comments, expect = _inputs("zh")
    d = TextDiff(v1, v2)
    for ch in d.changes():
        assert len(ch.deleted) <= 4 and len(ch.inserted) <= 4, ch


def _verdict_rows(result):
    return [
        (v.comment_id, v.verdict, v.method, v.v2 and (v.v2.start, v.v2.end))
        for v in result.verdicts
    ]


@pytest.mark.parametrize("shape", ["all-light", "all-heavy", "moved", "zh"])
def test_a_slow_machine_gives_the_same_verdicts(shape, monkeypatch):
    """Verdicts are a function of the inputs alone: with every clock jumping 1,000 s per
    reading (a machine made artificially slow), the verdicts are the same."""
    v1, v2, comments, _ = _inputs(shape, 20_000, 100)
    before = _verdict_rows(_score(v1, v2, comments))
    clock = [0.0]

    def slow() -> float:
        clock[0] += 1000.0
        return clock[0]

    for name in ("time", "monotonic", "perf_counter", "process_time"):
        monkeypatch.setattr(time, name, slow)
    assert _verdict_rows(_score(v1, v2, comments)) == before


@pytest.mark.parametrize("shape", ["all-light", "all-heavy", "repeat", "zh"])
def test_tight_bounds_give_the_same_verdicts_outside_approximate_regions(shape):
    """Bounds made tight change the diff only where they are hit, and the diff says where:
    every comment outside those regions keeps its verdict and place."""
    v1, v2, comments, _ = _inputs(shape, 20_000, 100)
    normal = _score(v1, v2, comments)
    tight = DiffLimits(myers_steps=200, total_steps_base=2_000, total_steps_per_char=0)
    diff = TextDiff(v1, v2, limits=tight)
    squeezed = _score(v1, v2, comments, diff=diff)
    same = 0
    for a, b in zip(normal.verdicts, squeezed.verdicts, strict=True):
        if diff.is_approximate(a.v1.start, a.v1.end):
            continue
        assert (a.verdict, a.v2 and (a.v2.start, a.v2.end)) == (
            b.verdict,
            b.v2 and (b.v2.start, b.v2.end),
        ), a.comment_id
        same += 1
    assert same >= len(comments) // 2


def test_a_verdict_in_an_approximate_region_says_so():
    """Where the diff hit a bound, the verdict is marked approximate and its note says why."""
    rnd = __import__("random").Random(3)
    a = "".join(rnd.choice("+-") for _ in range(3000)) + "+ keep this sentence."
    b = "".join(rnd.choice("+-") for _ in range(3000)) + "- keep this sentence."
    tight = DiffLimits(myers_steps=50, total_steps_base=100, total_steps_per_char=0)
    diff = TextDiff(a, b, limits=tight)
    assert diff.approximate
    comments = [
        {
            "id": "c1",
            "body": "x",
            "anchor": {"quote": a[100:140], "start_offset": 100, "end_offset": 140},
        },
        {
            "id": "c2",
            "body": "x",
            "anchor": {"quote": "keep this", "start_offset": 3003, "end_offset": 3012},
        },
    ]
    r = _score(a, b, comments, diff=diff)
    by = {v.comment_id: v for v in r.verdicts}
    assert by["c1"].approximate and "approximate" in by["c1"].note
    assert by["c2"].verdict == "untouched" and not by["c2"].approximate


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_all_heavy_agrees_with_expect_on_other_seeds(seed):
    v1, v2, comments, _ = gen.build(SIZE, COMMENTS, "all-heavy", "uniq", seed)
    assert _disagreements(dict(gen.build.expect), _score(v1, v2, comments)) == []


# -- the same kinds in other scripts -------------------------------------------------------


def _words(text: str) -> list[str]:
    return text.split()


_SCRIPTS = {
    # words, word separator, sentence end, rewrite marker
    "en": (
        _words(
            "data model review sentence quote editor budget meeting agenda result method "
            "figure table patient study sample value report draft version"
        ),
        " ",
        ".",
        "(revised)",
    ),
    "zh": (gen._ZH_WORDS, "", "。", "（修订）"),
    "fa": (
        _words(
            "می‌خواهیم کتاب‌ها نمی‌دانم خانه بزرگ است این ما دیروز رفتیم دانشگاه درس برای "
            "امتحان فردا شهر زیبا مردم کار می‌کنند"
        ),
        " ",
        ".",
        "(بازنویسی)",
    ),
    "th": (
        _words(
            "ผม ไป ตลาด เมื่อวาน ซื้อ ผลไม้ และ ผัก สด มาก ราคา ถูก แม่ ทำ อาหาร อร่อย ทุก วัน "
            "เด็ก เรียน หนังสือ โรงเรียน ใหญ่ บ้าน รถยนต์ ทะเล ภูเขา ฝน ตก หนัก ครู นักเรียน "
            "ประชุม งบประมาณ รายงาน กระทรวง สาธารณสุข โรงพยาบาล คนไข้ แพทย์ ยา วัคซีน "
            "ข้อมูล สถิติ ผลลัพธ์ การทดลอง ตัวอย่าง ความเสี่ยง นโยบาย รัฐบาล เศรษฐกิจ "
            "การค้า ส่งออก สินค้า เกษตรกร ข้าว น้ำ ไฟฟ้า"
        ),
        "",
        "",
        "(แก้ไข)",
    ),
    "emoji": (
        _words(
            "team 🎉 launch 👍🏽 family 👨\u200d👩\u200d👧 flag 🇫🇷 ship review done plan "
            "note ✅ fix later 🚀 release 🔥 hotfix 🙏 thanks 😀 demo 🧪 tests 📦 package build "
            "green 👀 look"
        ),
        " ",
        ".",
        "(revised)",
    ),
}


def _heavy_pair(script: str, seed: int = 5):
    """Four paragraphs of four sentences in ``script``, and a v2 where every sentence is
    rewritten as the generator's all-heavy does (words shuffled, half kept, a marker
    added). Thai sentences are separated by a space (Thai writes no full stop). Returns
    (v1, v2, v1 sentence spans, v2 sentence spans, paragraph-last sentence indexes)."""
    words, sep, end, marker = _SCRIPTS[script]
    rnd = random.Random(seed)
    gap = " " if script != "zh" else ""
    v1 = v2 = ""
    s1, s2, last = [], [], []
    for p in range(4):
        if p:
            v1 += "\n\n"
            v2 += "\n\n"
        for k in range(4):
            if k:
                v1 += gap
                v2 += gap
            ws = rnd.sample(words, 9)
            sent = sep.join(ws) + end
            s1.append((len(v1), len(v1) + len(sent)))
            v1 += sent
            rnd.shuffle(ws)
            new = sep.join(ws[:5]) + (sep or "") + marker + end
            s2.append((len(v2), len(v2) + len(new)))
            v2 += new
        last.append(len(s1) - 1)
    return v1, v2, s1, s2, last


def _anchor(v1: str, s: int, t: int, cid: str) -> dict:
    return {
        "id": cid,
        "body": "fix",
        "anchor": {
            "quote": v1[s:t],
            "prefix": v1[max(0, s - 32) : s],
            "suffix": v1[t : t + 32],
            "start_offset": len(v1[:s].encode("utf-16-le")) // 2,
            "end_offset": len(v1[:t].encode("utf-16-le")) // 2,
        },
    }


@pytest.mark.parametrize("script", list(_SCRIPTS))
def test_a_rewritten_quote_lands_in_its_own_rewritten_sentence(script):
    """Every sentence rewritten (words shuffled): a quote inside one sentence is edited and
    its v2 span lies inside that sentence's rewrite, never in a neighbour; a quote across a
    paragraph break lands inside the rewrites of the two sentences it spans."""
    v1, v2, s1, s2, last = _heavy_pair(script)
    comments, want = [], {}
    for i, (a, b) in enumerate(s1):
        n = b - a
        q0, q1 = a + n // 4, a + (3 * n) // 4
        comments.append(_anchor(v1, q0, q1, f"s{i}"))
        want[f"s{i}"] = s2[i]
    for i in last[:-1]:
        a, b = s1[i]
        c, d = s1[i + 1]
        comments.append(_anchor(v1, (a + b) // 2, (c + d) // 2, f"p{i}"))
        want[f"p{i}"] = (s2[i][0], s2[i + 1][1])
    result = _score(v1, v2, comments)
    assert sum(v.verdict == "edited" for v in result.verdicts) >= len(comments) // 2
    bad = []
    for v in result.verdicts:
        lo, hi = want[v.comment_id]
        if v.verdict == "deleted":
            continue  # every sentence around was rewritten too: no place survives
        if v.verdict != "edited" or not (lo <= v.v2.start and v.v2.end <= hi):
            bad.append((v.comment_id, v.verdict, v.method, v.v2 and v.v2.text, v2[lo:hi]))
    assert bad == []


@pytest.mark.parametrize(
    "t1,t2,quote,new",
    [
        # the quote starts inside a replaced word whose last letter survived
        (
            "We found the answer today.",
            "We changed the answer today.",
            "d the answer",
            "changed the answer",
        ),
        # ... or ends inside one whose first letters survived
        ("The cost was cheap for all.", "The cost was chosen for all.", "was ch", "was chosen"),
        # a letter added in front of the quote's first word
        ("The cat sat on the mat.", "The scat sat on the mat.", "cat sat", "scat sat"),
        # Persian: the zero-width non-joiner is inside the word (می‌خواهیم -> می‌توانیم)
        (
            "ما می‌خواهیم این را ببینیم.",
            "ما می‌توانیم این را ببینیم.",
            "یم این را",
            "می‌توانیم این را",
        ),
        # Hindi: a vowel sign is part of its word (पढ़ी -> लिखी, the sign ी kept)
        ("राम ने किताब पढ़ी और सो गया।", "राम ने किताब लिखी और सो गया।", "ी और सो", "लिखी और सो"),
        # Thai (no spaces: dictionary word breaks): เรียน -> เขียน, the quote cut inside it
        ("เด็กเรียนหนังสือทุกวัน", "เด็กเขียนหนังสือทุกวัน", "ียนหนังสือ", "เขียนหนังสือ"),
        # Chinese: 发现 -> 实现, the quote cut inside it, 现 kept
        ("我们发现了答案。", "我们实现了答案。", "现了答案", "实现了答案"),
    ],
)
def test_a_quote_whose_edge_word_was_replaced_is_edited(t1, t2, quote, new):
    i = t1.index(quote)
    r = _score(t1, t2, [_anchor(t1, i, i + len(quote), "c1")])
    (v,) = r.verdicts
    assert (v.verdict, v.v2.text) == ("edited", new), v.note


@pytest.mark.parametrize(
    "t1,t2,quote",
    [
        ("We found the answer.", "Yesterday we found the answer.", "found the"),
        ("ما می‌خواهیم این را ببینیم.", "ما واقعاً می‌خواهیم این را ببینیم.", "می‌خواهیم این"),
        # scripts without spaces: each character is a unit, so surviving characters survive
        ("我们发现了答案。", "我们改变了答案。", "了答案"),
    ],
)
def test_a_quote_whose_words_all_survive_is_untouched(t1, t2, quote):
    i = t1.index(quote)
    r = _score(t1, t2, [_anchor(t1, i, i + len(quote), "c1")])
    (v,) = r.verdicts
    assert (v.verdict, v.v2.text) == ("untouched", quote), v.note


_TH = "เมื่อวานนี้ฉันไปตลาดและซื้อผลไม้มาหลายอย่าง แม่ของฉันชอบทำอาหารไทยให้ครอบครัวกินทุกวัน"
_TH_REWRITE = "วันนี้ฝนตกหนักมากจนพวกเราต้องอยู่แต่ในบ้าน"


@pytest.mark.parametrize(
    "t2,quote,verdict,new,churn",
    [
        # a word replaced (fruit -> vegetables): the quote of that word, and one around it
        (_TH.replace("ผลไม้", "ผัก"), "ผลไม้", "edited", "ผัก", (6, 0)),
        (_TH.replace("ผลไม้", "ผัก"), "ซื้อผลไม้มา", "edited", "ซื้อผักมา", (6, 0)),
        # a one-word quote beside the edit, and one in the next sentence
        (_TH.replace("ผลไม้", "ผัก"), "ตลาด", "untouched", "ตลาด", (0, 6)),
        (_TH.replace("ผลไม้", "ผัก"), "แม่ของฉัน", "untouched", "แม่ของฉัน", (0, 6)),
        # the first sentence rewritten: a quote in it is edited, inside that sentence only
        (_TH.replace(_TH.split()[0], _TH_REWRITE), "ไปตลาด", "edited", _TH_REWRITE, (12, 73)),
        (_TH.replace(_TH.split()[0], _TH_REWRITE), "แม่ของฉัน", "untouched", "แม่ของฉัน", (0, 85)),
        # the second word of a compound replaced (Thai food -> Japanese food)
        (_TH.replace("อาหารไทย", "อาหารญี่ปุ่น"), "อาหารไทย", "edited", "อาหารญี่ปุ่น", (10, 0)),
    ],
)
def test_thai_edits_verdicts_and_churn_in_letters(t2, quote, verdict, new, churn):
    """Real Thai edits (docs/metrics.md: churn counts letters, vowel and tone marks
    included; "ผลไม้" -> "ผัก" keeps the shared "ผ")."""
    i = _TH.index(quote)
    r = _score(_TH, t2, [_anchor(_TH, i, i + len(quote), "c1")])
    (v,) = r.verdicts
    assert (v.verdict, v.v2.text, (r.churn_inside, r.churn_outside)) == (verdict, new, churn)
