"""Time of listing a published folder of N runs (``engine.publish.published.entries``): every
entry is verified from its bundle copy (re-derived, signature checked), cached by the
copy's SHA-256 in the local data folder.

Builds N bundles (the fixture bundle of ``tools/make_fixture_bundle.py``, N run ids, one
in three signed), publishes them into a temporary folder, then times:

- ``cold``: no cache (the cache file deleted, memory cleared): every copy verified;
- ``cache file``: a new process's first listing (memory cleared, the cache file read);
- ``in memory``: a second listing in the same process (the Published tab's refresh).

Run: ``uv run python benchmarks/bench_published.py [N]`` (N defaults to 50).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ["ARL_HOME"] = str(base / "home")
        os.environ["ARL_TRUSTED_KEYS"] = str(base / "trusted.json")
        from engine.bundle import signing
        from engine.bundle.read import open_bundle
        from engine.bundle.write import content_of, write_bundle
        from engine.publish import check as published_check, published

        spec = importlib.util.spec_from_file_location(
            "make_fixture_bundle", ROOT / "tools" / "make_fixture_bundle.py"
        )
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        b = open_bundle(mod.build(base / "fixture"))
        key = signing.new_private_key()
        folder = base / "shared"
        t = time.perf_counter()
        for i in range(n):
            content = content_of(
                b,
                run_id=f"run-{i:04d}",
                finished_at=f"2026-11-{1 + i % 28:02d}T10:{i % 60:02d}:00Z",
                signing_key=key if i % 3 == 0 else None,
            )
            published.publish(write_bundle(base / f"b{i}", content), folder)
        publish_s = time.perf_counter() - t

        def listing() -> float:
            t = time.perf_counter()
            runs = published.entries(folder)
            assert len(runs) == n and not any(e.problem for e in runs)
            return time.perf_counter() - t

        (base / "home" / published_check.CACHE_FILE).unlink()
        published_check._memory.clear()
        published_check._disk_mtime = None
        cold = listing()
        published_check._memory.clear()
        published_check._disk_mtime = None
        from_file = listing()
        in_memory = listing()
        size = (folder / "index.json").stat().st_size
        print(f"{n} runs published in {publish_s:.1f} s (index.json {size // 1024} KB)")
        print(f"list, cold (every copy verified): {cold:.2f} s ({1000 * cold / n:.0f} ms/run)")
        print(f"list, cache file (a new process): {from_file:.3f} s")
        print(f"list, in memory (a refresh):      {in_memory:.3f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
