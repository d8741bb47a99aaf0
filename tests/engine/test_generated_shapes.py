"""Verdicts and places on generated shapes of edits, checked against expect.json (docs/engine.md, Speed).

The inputs come from tools/gen_scoring_inputs.py (the generator benchmarks/bench_score.py
runs at 1 MB and more) at a small size, so a regression in correctness fails CI even where
speed is not measured. A place disagrees when an untouched comment's v2 span is not exactly
the expected one, or an edited comment's v2 span is not inside its rewritten sentence.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from engine.comments_io import parse_comments
from engine.diffing import DiffLimits, TextDiff
from engine.scoring import Version, score

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


def _surviving_words(v, e) -> bool:
    """The documented disagreement with the generator (docs/verdicts.md, "Decisions"): the
    quote's exact words survive at their place inside a rewritten sentence, so the verdict
    is untouched, where expect.json calls every quote of a rewritten sentence edited."""
    return (
        v.verdict == "untouched"
        and "edited" in e["verdict"].split("|")
        and v.v1 is not None
        and v.v2 is not None
        and v.v2.text == v.v1.text
        and v.method in ("exact", "diff")
    )


def _disagreements(expect: dict, result) -> list[str]:
    out = []
    for v in result.verdicts:
        e = expect[v.comment_id]
        if _surviving_words(v, e):
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


SHAPES = [
    "50",
    "all-light",
    pytest.param(
        "all-heavy",
        marks=pytest.mark.xfail(
            strict=True,
            reason="anchor: a quote that is one surviving word of a rewritten sentence reads "
            "untouched, and a rewritten quote whose words moved across the sentence end gets "
            "a v2 span reaching into the next sentence (needs the re-anchoring window bounded "
            "to the quote's mapped sentence)",
        ),
    ),
    "moved",
    "repeat",
    "drift",
    "zh",
]


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
