"""Benchmark: `arl score` with 1,000 comments on a 1 MB plain-text pair, 50 edited sentences.

Prints the whole-process time of `arl score --json` (median of runs), the time of one
plain diff-match-patch ``diff_main`` of the same two texts (what a naive diff-based scorer
pays before it starts), and their ratio. Targets (docs/engine.md, "Speed"; on a 2-core machine): the score
under 2 s, the ratio under 1.5.

The text is real prose: the F1000RD papers in tests/data (CC-BY-SA 4.0) repeated to 1 MB.

    uv run python benchmarks/bench_score.py
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from diff_match_patch import diff_match_patch

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "tests/data/f1000rd/docs"


def build(seed: int = 7):
    rnd = random.Random(seed)
    papers = [p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*/v1.txt"))]
    parts, size, k = [], 0, 0
    while size < 1_000_000:
        t = papers[k % len(papers)] + "\n\n"
        parts.append(t)
        size += len(t)
        k += 1
    v1 = "".join(parts)[:1_000_000]
    # Sentences: spans ending at ". ".
    ends = [i + 1 for i in range(len(v1) - 1) if v1[i] == "." and v1[i + 1] == " "]
    sentences = [(a + 1, b) for a, b in zip(ends, ends[1:]) if 40 < b - a < 400]
    edited = sorted(rnd.sample(sentences, 50))
    v2_parts, pos = [], 0
    for s, e in edited:
        v2_parts.append(v1[pos:s])
        words = v1[s:e].split()
        rnd.shuffle(words)
        v2_parts.append(" ".join(words[: max(3, len(words) // 2)]) + " (revised).")
        pos = e
    v2_parts.append(v1[pos:])
    v2 = "".join(v2_parts)
    comments = []
    targets = [
        rnd.choice(edited) if rnd.random() < 0.2 else rnd.choice(sentences) for _ in range(1000)
    ]
    for i, (s, e) in enumerate(targets):
        q0 = s + rnd.randint(0, max(0, (e - s) // 3))
        q1 = min(e, q0 + rnd.randint(8, 80))
        comments.append(
            {
                "id": f"c{i}",
                "body": "fix",
                "anchor": {
                    "quote": v1[q0:q1],
                    "prefix": v1[max(0, q0 - 32) : q0],
                    "suffix": v1[q1 : q1 + 32],
                    "dom_path": "body",
                    "start_offset": q0,
                    "end_offset": q1,
                },
            }
        )  # ASCII: units == cps
    assert all(ord(ch) < 0x10000 for ch in v1)
    return v1, v2, comments


def main() -> None:
    v1, v2, comments = build()
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "v1.txt").write_text(v1, encoding="utf-8")
        (d / "v2.txt").write_text(v2, encoding="utf-8")
        (d / "c.json").write_text(json.dumps(comments), encoding="utf-8")
        cmd = [
            sys.executable,
            "-m",
            "engine.cli",
            "score",
            "--v1",
            str(d / "v1.txt"),
            "--v2",
            str(d / "v2.txt"),
            "--comments",
            str(d / "c.json"),
            "--json",
        ]
        runs = []
        for _ in range(5):
            t = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, cwd=ROOT)
            runs.append(time.perf_counter() - t)
            assert p.returncode == 0, p.stderr.decode()
        out = json.loads(p.stdout)
        counts = {}
        for v in out["verdicts"]:
            counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
        startup = []
        for _ in range(5):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], capture_output=True)
            startup.append(time.perf_counter() - t)
    dmp_runs = []
    for _ in range(3):
        t = time.perf_counter()
        diff_match_patch().diff_main(v1, v2)
        dmp_runs.append(time.perf_counter() - t)
    score_s = statistics.median(runs)
    dmp_s = statistics.median(dmp_runs)
    print(
        f"texts: v1 {len(v1):,} chars, v2 {len(v2):,} chars, 50 edited sentences, "
        f"{len(comments):,} comments"
    )
    print(f"verdicts: {counts}")
    print(
        f"arl score (whole process, median of {len(runs)}): {score_s * 1000:.0f} ms "
        f"(target < 2000 ms; bare interpreter start {statistics.median(startup) * 1000:.0f} ms)"
    )
    print(f"plain diff_match_patch.diff_main (median of {len(dmp_runs)}): {dmp_s * 1000:.0f} ms")
    print(f"ratio score / plain diff: {score_s / dmp_s:.2f} (target < 1.5)")


if __name__ == "__main__":
    main()
