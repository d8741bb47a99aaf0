"""Suite throughput against the scripted model server with realistic latency.

Runs the same suite (the four built-in brief documents, one model, ``--repeats`` repeats,
one round each) at concurrency 1, 4 and 16 against ``tests/helpers/scripted_server.py``
answering every model call after ``--latency`` seconds, and prints runs per hour, model
calls per run and the share of wall time the engine (scoring, bundles) takes.

    uv run python benchmarks/bench_suite.py [--latency 1.0] [--repeats 4]

The model calls dominate: at latency L seconds and C calls per run, one machine makes at
most about K * 3600 / (C * L) runs an hour at concurrency K until a provider's rate limit
(requests per minute R) caps it at R * 60 / C.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.suite.runner import SuiteLimits, execute_suite, new_suite_run
from engine.suite.store import SuiteStore
from engine.suite.suite import expand_items, load_suite
from tests.helpers.scripted_server import FixEverything, ScriptedServer


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=1.0, help="seconds per model call")
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--levels", default="1,4,16")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="arl-bench-suite-"))
    os.environ["ARL_HOME"] = str(tmp / "home")
    print(
        f"scripted server latency {args.latency:g} s per call; 4 documents x "
        f"{args.repeats} repeats; 1 round per run"
    )
    print(
        f"{'concurrency':>11} {'runs':>5} {'wall s':>8} {'runs/hour':>10} {'calls/run':>9} "
        f"{'s/run':>7}"
    )
    for k in (int(x) for x in args.levels.split(",")):
        with ScriptedServer(FixEverything(), latency=args.latency) as srv:
            suite_file = tmp / f"suite-{k}.toml"
            suite_file.write_text(
                f'name = "bench"\nrounds = 1\nrepeats = {args.repeats}\n'
                'documents = ["briefs"]\n[limits]\ntimeout = 60\n[[models]]\n'
                f'name = "scripted"\nbase_url = "{srv.base_url}"\nmodel = "scripted-model"\n',
                encoding="utf-8",
            )
            suite = load_suite(suite_file)
            items = expand_items(suite)
            with SuiteStore(tmp / f"store-{k}.sqlite") as store:
                sid = new_suite_run(store, suite, items, tmp / f"out-{k}", None, {})
                t0 = time.perf_counter()
                asyncio.run(
                    execute_suite(
                        store, suite, sid, items, SuiteLimits(concurrency=k), key_for=lambda m: None
                    )
                )
                wall = time.perf_counter() - t0
                done = [i for i in store.items(sid) if i.status == "finished"]
            calls = len(srv.requests) / max(1, len(items))
            print(
                f"{k:>11} {len(done):>5} {wall:>8.1f} {len(done) * 3600 / wall:>10.0f} "
                f"{calls:>9.1f} {wall / max(1, len(done)):>7.2f}"
            )


if __name__ == "__main__":
    main()
