"""Benchmark: `arl score` against its floor, git's word diff, in the same run (docs/engine.md, Speed).

The floor is the fastest tool doing part of the same work: ``git diff --no-index
--word-diff=porcelain v1.txt v2.txt`` aligns the same two texts word by word (it places no
comment and decides no verdict). For each shape of ``tools/gen_scoring_inputs.py`` (50
edited sentences, one word changed in every sentence, every sentence rewritten) at each
size (1, 5 and 20 MB by default), with 1,000 comments, runs git and the score process
alternately, ``--runs`` times each (default 5), and prints per shape:

- the median whole-process CPU seconds (user + system, from ``wait4``) of each and their
  ratio (the target: under 4);
- the median peak memory (max RSS) of each, and the score's as a multiple of v1's size in
  UTF-8 (the target at 20 MB: under 8);
- the verdicts and places that disagree with ``expect.json`` (``bench_score.disagreements``:
  the target is 0) and the quotes kept by the surviving-words rule (not wrong);
- the machine's load (``os.getloadavg``) before and after the shape's runs.

The score process reports its own peak (``VmHWM``; a forked child's max RSS counts its
parent's pages, see bench_score.py); git runs under ``/usr/bin/time`` (a small process,
so git's max RSS is its own), or its peak is left out where that program is missing. Both
run from the temporary folder with bytecode cached for the score, as bench_score.py does.

    uv run python benchmarks/bench_floor.py                      # 1, 5 and 20 MB
    uv run python benchmarks/bench_floor.py --sizes 1 --runs 7   # 1 MB only
    uv run python benchmarks/bench_floor.py --only all-heavy
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_score  # the score launcher, its environment and the checks

gen = bench_score.gen
MB = 1_000_000
SHAPES = {
    # name: gen_scoring_inputs.build's ``edits``
    "50 sentences": "50",
    "all-light": "all-light",
    "all-heavy": "all-heavy",
}
TIME = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else None)


def run_git(d: Path) -> tuple[float, int | None, int]:
    """CPU seconds, peak RSS (bytes, None if unknown) and output size of one git word diff."""
    cmd = ["git", "diff", "--no-index", "--word-diff=porcelain", "v1.txt", "v2.txt"]
    hwm = d / "git-hwm.txt"
    if TIME:
        cmd = [TIME, "-f", "%M", "-o", str(hwm), *cmd]
    with open(d / "git-out.txt", "wb") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, cwd=d)
        _, status, usage = os.wait4(p.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # 1: the files differ
        raise SystemExit(f"git diff failed in {d} (exit {code})")
    peak = None
    if TIME and hwm.exists():
        peak = int(hwm.read_text().split()[-1]) * 1024
    return usage.ru_utime + usage.ru_stime, peak, (d / "git-out.txt").stat().st_size


def bench(name: str, edits: str, size: int, runs: int, tmp: Path) -> dict:
    v1, v2, comments, _ = gen.build(size, 1000, edits, "uniq")
    expect = gen.build.expect
    d = tmp / f"{edits}-{size // MB}MB"
    gen.write(d, v1, v2, comments)
    load0 = os.getloadavg()
    gcpu, gpeak, scpu, speak = [], [], [], []
    out: dict = {}
    for _ in range(runs):
        c, p, _size = run_git(d)
        gcpu.append(c)
        if p is not None:
            gpeak.append(p)
        _, c, p, out = bench_score.run_score(d)
        scpu.append(c)
        speak.append(p)
    load1 = os.getloadavg()
    bad_v, bad_p, kept = bench_score.disagreements(expect, out["verdicts"], v1, v2)
    v1_bytes = len(v1.encode("utf-8"))
    return {
        "shape": name,
        "MB": v1_bytes / MB,
        "score cpu": statistics.median(scpu),
        "git cpu": statistics.median(gcpu),
        "ratio": statistics.median(scpu) / statistics.median(gcpu),
        "score peak": statistics.median(speak),
        "git peak": statistics.median(gpeak) if gpeak else None,
        "peak x": statistics.median(speak) / v1_bytes,
        "wrong v": bad_v,
        "wrong p": bad_p,
        "kept": kept,
        "load": (load0[0], load1[0]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="*", type=int, default=[1, 5, 20], help="sizes in MB")
    ap.add_argument("--runs", type=int, default=5, help="runs of each program per shape")
    ap.add_argument("--only", nargs="*", help="shapes whose name contains one of these words")
    ap.add_argument("--json", type=Path, help="also append each shape's figures to this file")
    args = ap.parse_args()
    shapes = SHAPES
    if args.only:
        shapes = {k: v for k, v in shapes.items() if any(w in k for w in args.only)}
    print(f"load {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores; medians of {args.runs} runs")
    head = (
        f"{'shape':14} {'MB':>4} {'score cpu':>9} {'git cpu':>8} {'ratio':>6} "
        f"{'score MiB':>9} {'git MiB':>8} {'peak x':>6} {'wrong v/p':>9} {'kept':>5} {'load':>11}"
    )
    print(head)
    print("-" * len(head))
    with tempfile.TemporaryDirectory(prefix="bench_floor_") as tmp:
        bench_score._ENV = bench_score.score_env(Path(tmp))
        warm = Path(tmp) / "warm-up"  # writes the bytecode cache, untimed
        v1, v2, comments, _ = gen.build(20_000, 20, "50", "uniq")
        gen.write(warm, v1, v2, comments)
        bench_score.run_score(warm)
        for size in args.sizes:
            for name, edits in shapes.items():
                t = time.perf_counter()
                r = bench(name, edits, size * MB, args.runs, Path(tmp))
                gp = "n/a" if r["git peak"] is None else f"{r['git peak'] / 2**20:.0f}"
                print(
                    f"{r['shape']:14} {r['MB']:4.0f} {r['score cpu']:9.3f} {r['git cpu']:8.3f} "
                    f"{r['ratio']:6.1f} {r['score peak'] / 2**20:9.0f} {gp:>8} "
                    f"{r['peak x']:6.1f} {r['wrong v']:4d}/{r['wrong p']:<4d} {r['kept']:5d} "
                    f"{r['load'][0]:5.2f}-{r['load'][1]:<5.2f}",
                    flush=True,
                )
                if args.json:
                    r["seconds"] = time.perf_counter() - t
                    with open(args.json, "a") as f:
                        f.write(json.dumps(r) + "\n")
    print(
        "targets: ratio under 4 on every shape at 1 to 20 MB; 20 MB all-heavy under 4 s "
        "CPU and peak under 8x; no wrong verdicts or places"
    )


if __name__ == "__main__":
    main()
