"""Reading a heavy evidence bundle, as the viewer does before its first screen.

Builds (once, cached under the temp folder; ``bench_viewer.build_bundle``) the viewer
benchmark's bundle: a 5 MB HTML document with 5,000 comments, about 18 MB of files. Then
prints, each the median of ``--runs`` runs (default 5) in this process, with
``os.getloadavg()`` before and after:

1. ``engine.bundle.read.open_bundle`` and ``app.bundledata.load_bundle`` on it, wall
   seconds, now and with the nesting-depth guard as it was (the exact walk of every parsed
   file, ``engine.safe_io._too_deep``, forced by a bound that always comes out over the cap);
2. per JSON member: parsing, the exact depth walk and the cheap bound
   (``engine.safe_io._depth_bound``) that now stands in front of it, milliseconds;
3. with ``--profile``: the top of a cProfile of one ``load_bundle``.

Run: ``uv run python benchmarks/bench_bundle_read.py [--runs 5] [--size 5000000]
[--comments 5000] [--profile]``. ``--build-only`` builds the bundle and prints its folder.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _med(xs: list[float]) -> float:
    return statistics.median(xs)


def _timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--size", type=int, default=5_000_000)
    ap.add_argument("--comments", type=int, default=5000)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--build-only", action="store_true")
    a = ap.parse_args()
    from bench_viewer import build_bundle

    bundle = build_bundle(a.size, a.comments)
    if a.build_only:
        print(bundle)
        return
    print(f"load average before: {os.getloadavg()}")
    t0 = time.perf_counter()
    import app.bundledata as bundledata
    import engine.safe_io as safe_io
    from engine.bundle.read import open_bundle

    print(f"imports of app.bundledata: {time.perf_counter() - t0:.2f} s (first import)")
    total = sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file())
    print(f"bundle: {bundle} ({total / 1e6:.1f} MB of files, {a.comments} comments)")

    def exact_guard(*_args):
        return safe_io.JSON_MAX_DEPTH + 1  # the bound is over the cap: the walk decides

    rows = {}
    for label, patch in (("now", None), ("exact walk", exact_guard)):
        ctx = mock.patch.object(safe_io, "_depth_bound", patch) if patch else mock.MagicMock()
        with ctx:
            rows[label] = (
                _timed(lambda: open_bundle(bundle), a.runs),
                _timed(lambda: bundledata.load_bundle(bundle), a.runs),
            )
    print(f"medians of {a.runs} runs, wall seconds:")
    for label, (ob, lb) in rows.items():
        print(
            f"  depth guard {label:>10}: open_bundle {_med(ob):.2f} s, load_bundle {_med(lb):.2f} s"
        )
    print("per JSON member, medians in ms: parse / exact walk / bound (what now runs first)")
    for f in sorted(bundle.glob("*.json")):
        data = f.read_bytes()
        parse = _timed(lambda d=data: json.loads(d), a.runs)
        obj = json.loads(data)
        walk = _timed(lambda o=obj: safe_io._too_deep(o, safe_io.JSON_MAX_DEPTH), a.runs)
        bound = _timed(lambda d=data: safe_io._depth_bound(d), a.runs)
        print(
            f"  {f.name:<22} {len(data) / 1e6:5.1f} MB: {_med(parse) * 1e3:6.0f} / "
            f"{_med(walk) * 1e3:6.0f} / {_med(bound) * 1e3:6.0f} (bound {safe_io._depth_bound(data)})"
        )
    if a.profile:
        import cProfile
        import pstats

        pr = cProfile.Profile()
        pr.enable()
        bundledata.load_bundle(bundle)
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(15)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
