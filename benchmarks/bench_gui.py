"""GUI speed (issue 4, section 10). Prints two figures:

1. launch to rendered verdicts: wall time from starting ``agent-review-loop BUNDLE`` (a new
   process: interpreter, Qt, QtWebEngine, bundle reading and rescoring included) until both
   documents show their highlights. Target under 2 s.
2. a 1 MB document with 1,000 highlights: time from ``show_document`` until the highlights
   (and their labels) are painted, in a running program. Target under 3 s.

Run: ``QT_QPA_PLATFORM=offscreen uv run python benchmarks/bench_gui.py [BUNDLE]``.
Each figure is the median of a few runs; the first launch (cold caches) is shown apart.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def default_bundle() -> Path:
    from app.main import _fixture_bundle_path, example_bundle_path

    return example_bundle_path() or _fixture_bundle_path()


def launch_once(bundle: Path, home: str) -> float:
    env = dict(os.environ, ARL_HOME=home)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "app.main", str(bundle),
                             "--quit-when-rendered"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    for line in proc.stdout:
        if line.startswith("RENDERED"):
            elapsed = time.perf_counter() - t0
            proc.wait(timeout=60)
            return elapsed
    proc.wait(timeout=60)
    raise RuntimeError(f"the program exited ({proc.returncode}) without rendering {bundle}")


def make_big_document(size: int = 1_000_000, highlights: int = 1000) -> tuple[str, list[dict]]:
    para = ("The committee reviewed the proposal in detail and agreed that the budget "
            "for the second phase should be revisited before the end of the quarter. ")
    parts, text_len = [], 0
    i = 0
    while text_len < size:
        p = f"{i} \U0001F4C4 {para}{para}"
        parts.append(f"<p>{p}</p>")
        text_len += len(p.encode("utf-16-le")) // 2
        i += 1
    html = "<!doctype html><html><head><meta charset=utf-8></head><body>" + "".join(parts) + \
        "</body></html>"
    from engine.html_text import body_text

    text = body_text(html)
    n16 = len(text.encode("utf-16-le")) // 2
    step = n16 // highlights
    kinds = ("edited", "untouched", "deleted", "stale_anchor", "collateral")
    spans = []
    for k in range(highlights):
        s = k * step + 3
        # never start or end inside a surrogate pair
        spans.append({"id": f"c{k}", "kind": kinds[k % len(kinds)], "start": s, "end": s + 40,
                      "label": f"{k}"})
    return html, spans


def render_big(runs: int = 3) -> list[float]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.main import _prepare_environment

    _prepare_environment(os.environ.get("QT_QPA_PLATFORM") == "offscreen")
    from PySide6 import QtWebEngineWidgets  # noqa: F401
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    from app.docview import DocumentView

    html, spans = make_big_document()
    print(f"  document: {len(html.encode()) / 1e6:.2f} MB of HTML, {len(spans)} highlights")
    times = []
    view = DocumentView()
    view.resize(1200, 900)
    view.show()
    for _ in range(runs):
        loop = QEventLoop()
        result = {}

        def done(r, result=result):
            result["r"] = r
            loop.quit()

        view.highlighted.connect(done)
        QTimer.singleShot(60000, loop.quit)
        t0 = time.perf_counter()
        view.show_document(html)
        view.set_highlights(spans)
        loop.exec()
        times.append(time.perf_counter() - t0)
        view.highlighted.disconnect(done)
        r = result.get("r") or {}
        if r.get("made") != len(spans):
            print(f"  warning: {r.get('made')} of {len(spans)} highlights applied")
    view.close()
    return times


def main() -> None:
    bundle = Path(sys.argv[1]) if len(sys.argv) > 1 else default_bundle()
    print(f"launch to rendered verdicts ({bundle}):")
    with tempfile.TemporaryDirectory() as home:
        cold = launch_once(bundle, home)
        warm = [launch_once(bundle, home) for _ in range(3)]
    print(f"  first launch {cold:.2f} s; median of 3 more {statistics.median(warm):.2f} s "
          f"(target < 2 s)")
    print("1 MB document with 1,000 highlights:")
    times = render_big()
    print(f"  first {times[0]:.2f} s; median {statistics.median(times):.2f} s (target < 3 s)")


if __name__ == "__main__":
    main()
