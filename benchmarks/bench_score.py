"""Benchmark: `arl score`, whole process, on generated shapes of edits (docs/engine.md, Speed).

For each shape: a v1/v2 pair with comments and the expected verdicts and places written by
``tools/gen_scoring_inputs.py`` into a temporary folder (never the repository). Prints per
shape: the whole-process time of `arl score --json` (median of runs), one plain
diff-match-patch ``diff_main`` of the same two texts in this process (what a naive
diff-based scorer pays before it starts; its own 1 s default timeout, as a user of the
library gets it), their ratio; the same three in CPU seconds (user + system: on a busy
machine wall time measures the other processes too, and the plain diff's 1 s timeout caps
its wall time but not ours); the score process's peak memory (max RSS, and as a multiple
of v1's size in UTF-8), and the count of verdicts and places that disagree with
``expect.json`` (a place disagrees when an untouched comment's v2 span is not exactly the
expected one, or an edited comment's v2 span is not inside its rewritten sentence).

Bytecode is cached as an installed program has it: the score processes run without
``PYTHONDONTWRITEBYTECODE`` and with ``PYTHONPYCACHEPREFIX`` in the temporary folder
(nothing is written to the repository), after one untimed warm-up run; with that variable
set (as some shells and sandboxes do) every run compiles the engine from source again,
about 60 ms. ``--compile-each-run`` keeps the caller's environment instead.

Targets (2-core machine, whole process): 1 MB with 1,000 comments under 2 s and under 1.5x
one plain ``diff_main`` for every shape; 5 MB under 10 s; 20 MB under 15 s and under 10x
memory.

    uv run python benchmarks/bench_score.py                  # the 1 MB shapes
    uv run python benchmarks/bench_score.py --large          # + 5 MB, 10 MB and 20 MB
    uv run python benchmarks/bench_score.py --only zh drift  # some shapes
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from diff_match_patch import diff_match_patch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import gen_scoring_inputs as gen

MB = 1_000_000
SHAPES = {
    # name: (builder arguments, size in code points, comments, runs)
    "50 sentences": (("build", "50", "uniq"), MB, 1000, 3),
    "50 sentences (repeated papers)": (("build", "50", "rep"), MB, 1000, 3),
    "all-light": (("build", "all-light", "uniq"), MB, 1000, 3),
    "all-heavy": (("build", "all-heavy", "uniq"), MB, 1000, 3),
    "moved paragraphs": (("shape", "moved"), MB, 1000, 3),
    "repeated text": (("shape", "repeat"), MB, 1000, 3),
    "frequent quote, drifted offsets": (("shape", "drift"), MB, 1000, 3),
    "Chinese, 50 sentences": (("shape", "zh"), MB // 3, 1000, 3),  # 1 MB of UTF-8
}
LARGE = {
    "5 MB all-light": (("build", "all-light", "uniq"), 5 * MB, 1000, 1),
    "10 MB, 50 sentences": (("build", "50", "uniq"), 10 * MB, 1000, 1),
    "20 MB, 50 sentences": (("build", "50", "uniq"), 20 * MB, 1000, 1),
}


def make(spec, size: int, n: int):
    if spec[0] == "build":
        v1, v2, comments, _ = gen.build(size, n, spec[1], spec[2])
        return v1, v2, comments, gen.build.expect
    return gen.build_shape(spec[1], size, n)


_WORD = re.compile(r"\w")


def _whole_words(text: str, s: int, t: int) -> str:
    """``text[s:t]`` widened to the words it starts and ends in."""
    if s < t and _WORD.match(text[s]):
        while s > 0 and _WORD.match(text[s - 1]):
            s -= 1
    if s < t and _WORD.match(text[t - 1]):
        while t < len(text) and _WORD.match(text[t]):
            t += 1
    return text[s:t]


def surviving_words(v: dict, e: dict, v1: str, v2: str) -> bool:
    """The documented disagreement with the generator (docs/verdicts.md, "The reviewer's
    exact words survive"): the quote's whole words survive at their place in a rewritten
    sentence, so the verdict is untouched where expect.json says edited (the same rule as
    tests/engine/test_generated_shapes.py). Spans are UTF-16 units: the generated texts
    are ASCII or BMP-only Chinese, where they equal code points."""
    a, b = v.get("v1"), v.get("v2")
    if v["verdict"] != "untouched" or "edited" not in e["verdict"].split("|") or not a or not b:
        return False
    if _spaces(a["text"]) != _spaces(b["text"]) or v.get("method") not in ("exact", "diff"):
        return False
    w1, w2 = _whole_words(v1, a["start"], a["end"]), _whole_words(v2, b["start"], b["end"])
    return _spaces(w1) == _spaces(w2)


def _spaces(text: str) -> str:
    """Whitespace collapsed and trimmed (the verdict's normalisation folds no more here)."""
    return " ".join(text.split())


def disagreements(
    expect: dict, verdicts: list[dict], v1: str = "", v2: str = ""
) -> tuple[int, int, int]:
    """(verdicts, places) that disagree with ``expect`` (gen_scoring_inputs.py's format),
    and the quotes whose whole words survived (``surviving_words``, not counted wrong)."""
    bad_verdicts = bad_places = kept = 0
    for v in verdicts:
        e = expect.get(v["comment_id"])
        if e is None:
            continue
        if surviving_words(v, e, v1, v2):
            kept += 1
            continue
        if v["verdict"] not in e["verdict"].split("|"):
            bad_verdicts += 1
            continue
        if e["v2"] is None or v.get("v2") is None:
            continue
        s, t = v["v2"]["start"], v["v2"]["end"]
        es, et = e["v2"]
        ok = (s, t) == (es, et) if v["verdict"] == "untouched" else es <= s and t <= et
        bad_places += not ok
    return bad_verdicts, bad_places, kept


# The score process reports its own peak: the kernel's max RSS of a child counts the pages
# of the parent it was forked from (this benchmark, holding the generated texts), so
# wait4's figure would be this process's size, not the score's.
_LAUNCH = """
import atexit, runpy, sys
out = sys.argv[1]
def hwm():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    with open(out, "w") as o:
                        o.write(line.split()[1])
    except OSError:
        pass
atexit.register(hwm)
sys.argv = ["arl", *sys.argv[2:]]
runpy.run_module("engine.cli.main", run_name="__main__", alter_sys=True)
"""


_ENV: dict[str, str] | None = None  # the score processes' environment (None: this one's)


def score_env(tmp: Path) -> dict[str, str]:
    """This environment with bytecode cached in ``tmp`` (see the module docstring)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    return env


def run_score(d: Path) -> tuple[float, float, int, dict]:
    """Whole-process wall time and CPU time (s), peak RSS (bytes) and JSON output of one
    `arl score`."""
    hwm = d / "hwm.txt"
    hwm.unlink(missing_ok=True)
    cmd = [sys.executable, "-c", _LAUNCH, str(hwm), "score"]
    cmd += ["--v1", str(d / "v1.txt"), "--v2", str(d / "v2.txt")]
    cmd += ["--comments", str(d / "c.json"), "--json"]
    with open(d / "out.json", "wb") as out, open(d / "err.txt", "wb") as err:
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=ROOT, env=_ENV)
        _, status, usage = os.wait4(p.pid, 0)
        elapsed = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit((d / "err.txt").read_text(encoding="utf-8"))
    cpu = usage.ru_utime + usage.ru_stime
    peak = int(hwm.read_text()) * 1024 if hwm.exists() else usage.ru_maxrss * 1024
    return elapsed, cpu, peak, json.loads((d / "out.json").read_bytes())


def bench(name: str, spec, size: int, n: int, runs: int, tmp: Path) -> dict:
    v1, v2, comments, expect = make(spec, size, n)
    d = tmp / name.replace(" ", "-").replace(",", "").replace("(", "").replace(")", "")
    gen.build.expect = expect
    gen.write(d, v1, v2, comments)
    times, cpus, peaks = [], [], []
    for _ in range(runs):
        t, cpu, peak, out = run_score(d)
        times.append(t)
        cpus.append(cpu)
        peaks.append(peak)
    t, c = time.perf_counter(), time.process_time()
    diff_match_patch().diff_main(v1, v2)
    plain, plain_cpu = time.perf_counter() - t, time.process_time() - c
    bad_v, bad_p, kept = disagreements(expect, out["verdicts"], v1, v2)
    score_s = statistics.median(times)
    v1_bytes = len(v1.encode("utf-8"))
    return {
        "shape": name,
        "v1 MB": v1_bytes / MB,
        "score s": score_s,
        "plain s": plain,
        "ratio": score_s / plain,
        "score cpu": statistics.median(cpus),
        "plain cpu": plain_cpu,
        "cpu ratio": statistics.median(cpus) / plain_cpu,
        "peak MB": max(peaks) / MB,
        "peak x": max(peaks) / v1_bytes,
        "wrong verdicts": bad_v,
        "wrong places": bad_p,
        "kept words": kept,
        "comments": len(out["verdicts"]),
    }


def main() -> None:
    global _ENV
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--large", action="store_true", help="also the 5, 10 and 20 MB shapes")
    ap.add_argument("--only", nargs="*", help="shapes whose name contains one of these words")
    ap.add_argument("--runs", type=int, help="runs per shape (default 3 at 1 MB, 1 above)")
    ap.add_argument(
        "--compile-each-run",
        action="store_true",
        help="keep this environment's bytecode setting (PYTHONDONTWRITEBYTECODE compiles "
        "the engine again in every run)",
    )
    args = ap.parse_args()
    shapes = dict(SHAPES)
    if args.large:
        shapes.update(LARGE)
    if args.only:
        shapes = {k: v for k, v in shapes.items() if any(w in k for w in args.only)}
    startup = []
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], capture_output=True)
        startup.append(time.perf_counter() - t)
    print(f"bare interpreter start: {statistics.median(startup) * 1000:.0f} ms")
    head = (
        f"{'shape':34} {'v1 MB':>6} {'score s':>8} {'plain s':>8} {'ratio':>6} "
        f"{'cpu s':>6} {'pl cpu':>6} {'ratio':>6} "
        f"{'peak MB':>8} {'peak x':>7} {'wrong v':>8} {'wrong p':>8} {'kept w':>7}"
    )
    print(head)
    print("-" * len(head))
    with tempfile.TemporaryDirectory(prefix="bench_score_") as tmp:
        if not args.compile_each_run:
            _ENV = score_env(Path(tmp))
            warm = Path(tmp) / "warm-up"  # writes the bytecode cache, untimed
            v1, v2, comments, expect = make(("build", "50", "uniq"), 20_000, 20)
            gen.build.expect = expect
            gen.write(warm, v1, v2, comments)
            run_score(warm)
        for name, (spec, size, n, runs) in shapes.items():
            r = bench(name, spec, size, n, args.runs or runs, Path(tmp))
            print(
                f"{r['shape']:34} {r['v1 MB']:6.1f} {r['score s']:8.2f} {r['plain s']:8.2f} "
                f"{r['ratio']:6.2f} {r['score cpu']:6.2f} {r['plain cpu']:6.2f} "
                f"{r['cpu ratio']:6.2f} {r['peak MB']:8.0f} {r['peak x']:7.1f} "
                f"{r['wrong verdicts']:8d} {r['wrong places']:8d} {r['kept words']:7d}",
                flush=True,
            )
    print(
        "targets: 1 MB shapes under 2 s and ratio under 1.5; 5 MB under 10 s; 20 MB under "
        "15 s and peak under 10x; no wrong verdicts or places ('kept w': quotes whose "
        "whole words survive in a rewritten sentence, untouched by the documented rule, not "
        "counted wrong)"
    )


if __name__ == "__main__":
    main()
