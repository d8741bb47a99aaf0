"""GUI speed. Prints two figures:

1. launch to rendered verdicts: wall time from starting ``agent-review-loop BUNDLE`` (a new
   process: interpreter, Qt, QtWebEngine, bundle reading and rescoring included) until both
   documents show their highlights. Target under 2 s.
2. opening the example bundle in a running window (after another bundle): time from
   ``open_bundle`` until both panes show their highlights. Target under 1 s.
3. a 1 MB document with 1,000 highlights: time from ``show_document`` until the highlights
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
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.main", str(bundle), "--quit-when-rendered"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    for line in proc.stdout:
        if line.startswith("RENDERED"):
            elapsed = time.perf_counter() - t0
            proc.wait(timeout=60)
            return elapsed
    proc.wait(timeout=60)
    raise RuntimeError(f"the program exited ({proc.returncode}) without rendering {bundle}")


def make_big_document(size: int = 1_000_000, highlights: int = 1000) -> tuple[str, list[dict]]:
    para = (
        "The committee reviewed the proposal in detail and agreed that the budget "
        "for the second phase should be revisited before the end of the quarter. "
    )
    parts, text_len = [], 0
    i = 0
    while text_len < size:
        p = f"{i} \U0001f4c4 {para}{para}"
        parts.append(f"<p>{p}</p>")
        text_len += len(p.encode("utf-16-le")) // 2
        i += 1
    html = (
        "<!doctype html><html><head><meta charset=utf-8></head><body>"
        + "".join(parts)
        + "</body></html>"
    )
    from engine.text.html_text import body_text

    text = body_text(html)
    n16 = len(text.encode("utf-16-le")) // 2
    step = n16 // highlights
    kinds = ("edited", "untouched", "deleted", "stale_anchor", "collateral")
    spans = []
    for k in range(highlights):
        s = k * step + 3
        # never start or end inside a surrogate pair
        spans.append(
            {
                "id": f"c{k}",
                "kind": kinds[k % len(kinds)],
                "start": s,
                "end": s + 40,
                "label": f"{k}",
            }
        )
    return html, spans


def make_big_bundle(folder: Path) -> Path:
    """A bundle of the 1 MB document (v2: 50 sentences edited) with 1,000 comments, scored
    by the engine: the heavy end of what the Verdicts view opens."""
    import re

    from engine.bundle.write import BundleContent, write_bundle
    from engine.models import Anchor, Comment
    from engine.score.scoring import Version, score

    html, _ = make_big_document()
    parts = html.split("</p>")
    for k in range(0, len(parts), max(1, len(parts) // 50)):
        parts[k] = parts[k].replace("revisited", "reconsidered", 1)
    html2 = "</p>".join(parts)
    v1, v2 = Version.from_source(html, "html", "v1"), Version.from_source(html2, "html", "v2")
    text = v1.text

    def u16(i: int) -> int:
        return len(text[:i].encode("utf-16-le")) // 2

    comments = []
    for k, m in enumerate(re.finditer("budget for the second phase", text)):
        if k == 1000:
            break
        s, e = m.span()
        comments.append(
            Comment(
                id=f"c{k}",
                body="Check this.",
                anchor=Anchor(
                    quote=text[s:e],
                    prefix=text[max(0, s - 32) : s],
                    suffix=text[e : e + 32],
                    start_offset=u16(s),
                    end_offset=u16(e),
                ),
            )
        )
    j = score(v1, v2, comments).to_json()
    return write_bundle(
        folder,
        BundleContent(
            run_id="bench",
            status="completed",
            reason="benchmark data",
            app_version="0",
            created_at="",
            finished_at="",
            model="benchmark (no model)",
            base_url="http://x/v1",
            document_title="1 MB benchmark document",
            document_kind="html",
            given_version_id="v1",
            v1=html,
            rounds=[("v2", html2, "", 1)],
            comments_before=[c.to_json() for c in comments],
            comments_after=[c.to_json() for c in comments],
            claims={},
            trace={},
            verdicts={
                "rounds": [{"round": 1, "verdicts": j["verdicts"]}],
                "final": j["verdicts"],
                "unusable": [],
            },
            metrics=j["metrics"],
            tokens=None,
            rounds_run=1,
            scripted=True,
        ),
    )


def render_big(runs: int = 3) -> list[float]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.main import _prepare_environment

    _prepare_environment(os.environ.get("QT_QPA_PLATFORM") == "offscreen")
    from PySide6 import QtWebEngineWidgets  # noqa: F401
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    _app = QApplication.instance() or QApplication([sys.argv[0]])
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

        def done(r, result=result, loop=loop):
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


def open_in_window(bundle: Path, runs: int = 3) -> list[float]:
    """Seconds from ``MainWindow.open_bundle(bundle)`` until both panes are highlighted, in a
    running program that showed the fixture bundle first (so the old panes must go)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.main import _fixture_bundle_path, _prepare_environment

    _prepare_environment(os.environ.get("QT_QPA_PLATFORM") == "offscreen")
    from PySide6 import QtWebEngineWidgets  # noqa: F401
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    _app = QApplication.instance() or QApplication([sys.argv[0]])
    from app.window import MainWindow

    w = MainWindow()
    w.show()

    def timed(path: Path) -> float:
        loop = QEventLoop()
        w.verdicts.rendered.connect(loop.quit)
        QTimer.singleShot(60000, loop.quit)
        t0 = time.perf_counter()
        w.open_bundle(path, remember=False)
        loop.exec()
        w.verdicts.rendered.disconnect(loop.quit)
        return time.perf_counter() - t0

    other = _fixture_bundle_path() or bundle
    times = []
    for _ in range(runs):
        timed(other)
        times.append(timed(bundle))
    w.close()
    return times


def main() -> None:
    bundle = Path(sys.argv[1]) if len(sys.argv) > 1 else default_bundle()
    print(f"launch to rendered verdicts ({bundle}):")
    with tempfile.TemporaryDirectory() as home:
        cold = launch_once(bundle, home)
        warm = [launch_once(bundle, home) for _ in range(3)]
    print(
        f"  first launch {cold:.2f} s; median of 3 more {statistics.median(warm):.2f} s "
        f"(target < 2 s)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        big = make_big_bundle(Path(tmp) / "big")
        with tempfile.TemporaryDirectory() as home:
            times = [launch_once(big, home) for _ in range(3)]
    print(
        f"launch to rendered verdicts, heavy bundle (two 1 MB versions, 1,000 comments): "
        f"median {statistics.median(times):.2f} s (informative)"
    )
    print(f"open the example in a running window, after another bundle ({bundle.name}):")
    times = open_in_window(bundle)
    print(f"  first {times[0]:.2f} s; median {statistics.median(times):.2f} s (target < 1 s)")
    print("1 MB document with 1,000 highlights:")
    times = render_big()
    print(f"  first {times[0]:.2f} s; median {statistics.median(times):.2f} s (target < 3 s)")


if __name__ == "__main__":
    main()
