"""The diff's output pinned on small generated shapes, so speed work cannot change it.

The diff (ops, moved passages, approximate regions), the changed regions (``changes``) and
the churn split (``split_churn``) of small pairs from tools/gen_scoring_inputs.py and of
seeded random edits are compared with ``data/diff_golden.json``. Together they decide
every verdict, place and churn figure the scorer derives from the diff, so a change made
for speed must leave them identical. When a change of the diff's *behaviour* is intended,
rewrite the file and say why in the commit:

    uv run python tests/engine/test_diff_golden.py --write
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
import gen_scoring_inputs as gen  # noqa: E402

from engine.diff.align import DEFAULT_LIMITS, DiffLimits  # noqa: E402
from engine.diff.diffing import TextDiff  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "diff_golden.json"
SIZE, COMMENTS = 40_000, 100


def _random_pair(seed: int) -> tuple[str, str]:
    """A text of sentences with words, marks, CJK, CRLF, and random edits to them:
    words replaced, sentences deleted, inserted, moved and repeated."""
    rnd = random.Random(seed)
    words = [
        "the",
        "a",
        "lid",
        "cat",
        "colour",
        "theory",
        "3.14",
        "can't",
        "naïve",
        "日本語",
        "テスト,",
        ";",
        "—",
        "éte",
    ]
    sents = []
    for _ in range(rnd.randint(20, 200)):
        s = " ".join(rnd.choice(words) for _ in range(rnd.randint(1, 14)))
        sents.append(s + rnd.choice([". ", "! ", "? ", "。", ".\n", ".\r\n", "\n\n", "… "]))
    a = "".join(sents)
    b = list(sents)
    for _ in range(rnd.randint(1, 30)):
        k = rnd.randrange(len(b))
        r = rnd.random()
        if r < 0.4:
            ws = b[k].split(" ")
            ws[rnd.randrange(len(ws))] = rnd.choice(words)
            b[k] = " ".join(ws)
        elif r < 0.55:
            del b[k]
        elif r < 0.7:
            b.insert(k, b[rnd.randrange(len(b))])
        elif r < 0.85:
            b.insert(rnd.randrange(len(b) + 1), b.pop(k))
        else:
            b[k] = " ".join(rnd.choice(words) for _ in range(rnd.randint(1, 14))) + ". "
        if not b:
            b = ["x. "]
    return a, "".join(b)


def _cases() -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for edits in ("50", "all-light", "all-heavy"):
        for corpus in ("uniq", "rep"):
            v1, v2, _, _ = gen.build(SIZE, COMMENTS, edits, corpus)
            out[f"{edits} {corpus}"] = (v1, v2)
    for shape in gen.SHAPES:
        v1, v2, _, _ = gen.build_shape(shape, SIZE, COMMENTS)
        out[shape] = (v1, v2)
    for seed in range(40):
        out[f"random {seed}"] = _random_pair(seed)
    for seed in range(40, 50):
        out[f"tight bounds {seed}"] = _random_pair(seed)
    return out


TIGHT = DiffLimits(myers_steps=40, total_steps_base=400, total_steps_per_char=0, refine_chars=8)
"""Bounds hit on purpose (the "tight bounds" cases), so the approximate path is pinned."""


def _digest(obj: object) -> str:
    return hashlib.sha256(repr(obj).encode("utf-8")).hexdigest()[:20]


def _spans(n: int, seed: int) -> list[tuple[int, int]]:
    rnd = random.Random(seed)
    out = []
    for _ in range(60):
        s = rnd.randrange(n + 1)
        out.append((s, min(n, s + rnd.randint(0, 300))))
    return out


def summary(a: str, b: str, limits: DiffLimits = DEFAULT_LIMITS) -> dict:
    """What the scorer reads from the diff of ``a`` and ``b``, digested."""
    d = TextDiff(a, b, limits=limits)
    ops = [(d._tag[k], d._a0[k], d._a1[k], d._b0[k], d._b1[k]) for k in range(len(d._tag))]
    changes = [(c.a0, c.a1, c.b0, c.b1, c.deleted, c.inserted) for c in d.changes()]
    churn = []
    for seed in range(3):
        inside, outside, coll = d.split_churn(_spans(len(a), seed))
        churn.append((inside, outside, _digest([(c.a0, c.a1, c.b0, c.b1) for c in coll])))
    rnd = random.Random(len(a))
    probes = []
    for s, e in _spans(len(a), 7)[:40]:
        probes.append(
            (d.map_left(s), d.map_right(e), d.image(s, e), d.unchanged_image(s, e))
            + (d.moved_to(s, e), d.is_approximate(s, e))
        )
    for _ in range(40):
        x = rnd.randrange(len(b) + 1)
        y = min(len(b), x + rnd.randint(0, 400))
        inserted, runs = d.v2_origin(x, y)
        probes.append(((inserted, sorted(runs)), d.moved_from(x, y)))
    for needle in ("the", "a", ". ", "changed", "revised", "日本"):
        probes.append(tuple(d.find_inserted(needle, 50)))
    return {
        "mapping": _digest(probes),
        "ops": len(ops),
        "ops digest": _digest(ops),
        "moves": _digest(d.moves),
        "approximate": _digest(d.approximate),
        "moved chunks": _digest((d._moved_a, d._moved_b)),
        "changes": _digest(changes),
        "total changed": d.total_changed(),
        "moved total": d.moved_total(),
        "churn": [list(c) for c in churn],
    }


_CACHE: dict[str, tuple[str, str]] = {}


def _cases_cached() -> dict[str, tuple[str, str]]:
    if not _CACHE:
        _CACHE.update(_cases())
    return _CACHE


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(_cases_cached()))
def test_diff_output_is_unchanged(name: str, golden: dict) -> None:
    a, b = _cases_cached()[name]
    limits = TIGHT if name.startswith("tight") else DEFAULT_LIMITS
    assert summary(a, b, limits) == golden[name], (
        f"the diff of {name!r} changed; if intended, rewrite {GOLDEN.name} (see the "
        "module docstring)"
    )


def test_the_golden_file_covers_every_case(golden: dict) -> None:
    assert sorted(golden) == sorted(_cases_cached())


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit(__doc__)
    GOLDEN.parent.mkdir(exist_ok=True)
    data = {
        name: summary(a, b, TIGHT if name.startswith("tight") else DEFAULT_LIMITS)
        for name, (a, b) in sorted(_cases_cached().items())
    }
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN} ({len(data)} cases)")
