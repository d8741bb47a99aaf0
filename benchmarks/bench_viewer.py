"""The viewer on a heavy bundle, beside the floor: a bare QtWebEngine window, same run.

Builds (once, cached under the temp folder) an evidence bundle of a 5 MB HTML document
with 5,000 comments, written by the engine itself (``engine.run.external.check_revision``:
v2 rewrites one sentence in ten and drops a paragraph in forty), then prints, each the
median of ``--runs`` runs (default 5):

1. launch to the first highlighted screen: wall time from starting
   ``python -m app.main BUNDLE --quit-when-rendered`` (a new process: interpreter, Qt,
   QtWebEngine, reading the bundle) until both panes show their first screen with its
   marks (``FIRST`` line), and until every mark of both documents is in (``RENDERED``);
2. the floor: a bare PySide6 window with two QWebEngineViews side by side loading the same
   two pages from a loopback server (no marks, no script), until both ``loadFinished``;
3. the CPU seconds (user + system) the process tree used until then, from ``/proc``: a
   figure the machine's load changes little, unlike the wall times;
4. the peak resident memory of each process tree (the program and QtWebEngine's renderer,
   GPU and zygote processes), read from ``/proc`` (psutil when it is installed), and its
   peak proportional set size (PSS: shared pages counted once, ``tree_pss``);
5. in a running window, timed by the page in its own frames: scrolling a pane by one screen
   until the frame that showed the new screen's badges, and jumping to a comment far down
   (a row picked in the table) until its badge is whole in view in both panes, and until
   it last moved there; beside each, the same seen from Python (``round trip``):
   milliseconds (``--settled``: once the re-derivation is done; ``--only-interaction``).

It prints ``os.getloadavg()`` before and after, and the ratios to the floor. Why this module
is long: the bundle it builds, the two launches and the running window's timings are one
measurement, each read against the others in the same run. The program's
bytecode is cached as an installed program has it (one untimed launch first; see ``_env``).

Run: ``xvfb-run -a env QTWEBENGINE_DISABLE_SANDBOX=1 QTWEBENGINE_CHROMIUM_FLAGS=--disable-gpu
uv run python benchmarks/bench_viewer.py [--runs 5] [--size 5000000] [--comments 5000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
WINDOW = (1366, 900)

# -------------------------------------------------------------------------------------------
# The bundle
# -------------------------------------------------------------------------------------------

_WORDS = [
    "analysis",
    "sample",
    "protocol",
    "measure",
    "result",
    "review",
    "cohort",
    "signal",
    "variance",
    "model",
    "method",
    "figure",
    "table",
    "data",
    "study",
    "patient",
    "effect",
    "control",
    "outcome",
    "trial",
    "report",
    "source",
    "estimate",
    "baseline",
    "interval",
    "evidence",
    "dose",
    "response",
    "rate",
    "group",
    "survey",
    "region",
    "season",
    "record",
]


def _sentence(rnd: random.Random) -> str:
    w = [rnd.choice(_WORDS) for _ in range(rnd.randint(8, 24))]
    w.append(f"{rnd.randrange(10**6)}")  # every sentence its own (a number in it)
    rnd.shuffle(w)
    s = " ".join(w)
    return s[0].upper() + s[1:] + "."


def make_documents(size: int, seed: int = 7) -> tuple[str, str]:
    """(v1, v2) HTML of about ``size`` bytes each: headings and paragraphs of unique
    sentences; v2 rewrites one sentence in ten and drops one paragraph in forty."""
    rnd = random.Random(seed)
    paras: list[list[str]] = []
    n = 0
    while n < size:
        p = [_sentence(rnd) for _ in range(rnd.randint(3, 7))]
        paras.append(p)
        n += sum(len(s) + 1 for s in p) + 9
    v1, v2 = [], []
    for i, p in enumerate(paras):
        head = f"<h2>Section {i // 20 + 1}</h2>\n" if i % 20 == 0 else ""
        v1.append(head + "<p>" + " ".join(p) + "</p>\n")
        if i % 40 == 39:
            continue
        q = [
            (" ".join(reversed(s[:-1].split())) + " (revised).") if rnd.random() < 0.1 else s
            for s in p
        ]
        v2.append(head + "<p>" + " ".join(q) + "</p>\n")
    page = (
        "<!doctype html><html><head><meta charset=utf-8><title>Viewer benchmark</title>"
        "</head><body>\n{}</body></html>"
    )
    return page.format("".join(v1)), page.format("".join(v2))


def make_comments(v1_html: str, count: int, seed: int = 11) -> list:
    """``count`` comments on sentences of v1, spread over the whole document (UTF-16
    offsets of its body text, as a browser counts them)."""
    from engine.models import Anchor, Comment
    from engine.text.html_text import body_text

    text = body_text(v1_html)
    spans = [m.span() for m in re.finditer(r"[A-Z][^.<>]{30,}\.", text)]
    rnd = random.Random(seed)
    step = len(spans) / count
    out = []
    for k in range(count):
        s, e = spans[int(k * step)]
        q0 = s + rnd.randint(0, (e - s) // 3)
        q1 = min(e, q0 + rnd.randint(12, 60))
        out.append(
            Comment(
                id=f"c{k + 1}",
                body=f"Check this ({k + 1}).",
                anchor=Anchor(
                    quote=text[q0:q1],
                    prefix=text[max(0, q0 - 32) : q0],
                    suffix=text[q1 : q1 + 32],
                    start_offset=q0,  # ASCII text: code points = UTF-16 units
                    end_offset=q1,
                ),
            )
        )
    return out


def build_bundle(size: int, comments: int) -> Path:
    """The bundle, built once per (size, comments) under the temp folder."""
    folder = Path(tempfile.gettempdir()) / f"arl-bench-viewer-{size}-{comments}"
    if (folder / "manifest.json").exists():
        return folder
    from engine.run.external import ExternalRevision, check_revision

    t0 = time.perf_counter()
    v1, v2 = make_documents(size)
    rev = ExternalRevision(
        title="Viewer benchmark",
        kind="html",
        v1=v1,
        v2=v2,
        comments=make_comments(v1, comments),
        message="Addressed all review comments.",
    )
    tmp = folder.with_name(folder.name + ".part")
    if tmp.exists():
        import shutil

        shutil.rmtree(tmp)
    check_revision(rev, folder=tmp)
    tmp.rename(folder)
    print(f"  built {folder} in {time.perf_counter() - t0:.1f} s")
    return folder


# -------------------------------------------------------------------------------------------
# Process trees and their memory
# -------------------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    """The children of ``pid`` (none once it has exited: a renderer may end while read)."""
    out = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and every descendant (psutil when installed, else /proc)."""
    try:
        import psutil

        p = psutil.Process(pid)
        total = 0
        for q in [p, *p.children(recursive=True)]:
            try:
                total += q.memory_info().rss
            except psutil.Error:
                pass
        return total
    except ImportError:
        pass
    total, todo, seen = 0, [pid], set()
    page = os.sysconf("SC_PAGE_SIZE")
    while todo:
        q = todo.pop()
        if q in seen:
            continue
        seen.add(q)
        try:
            total += int(Path(f"/proc/{q}/statm").read_text().split()[1]) * page
        except (OSError, IndexError, ValueError):
            continue
        todo += _children(q)
    return total


def tree_pss(pid: int) -> int:
    """Proportional set size in bytes of ``pid`` and every descendant (``Pss`` of
    ``/proc/PID/smaps_rollup``: a page shared by n processes counts 1/n in each, so the
    libraries QtWebEngine's processes share are counted once); 0 where it is not there."""
    total, todo, seen = 0, [pid], set()
    while todo:
        q = todo.pop()
        if q in seen:
            continue
        seen.add(q)
        try:
            for line in Path(f"/proc/{q}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
                    break
        except (OSError, IndexError, ValueError):
            pass
        todo += _children(q)
    return total


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid`` and every live descendant, from
    ``/proc`` (a load-independent measure beside the wall time)."""
    total, todo, seen = 0, [pid], set()
    while todo:
        q = todo.pop()
        if q in seen:
            continue
        seen.add(q)
        try:
            fields = Path(f"/proc/{q}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            continue
        todo += _children(q)
    return total / os.sysconf("SC_CLK_TCK")


class PeakWatch:
    """Samples the process tree of ``pid`` every 50 ms; ``peak`` (resident) and
    ``peak_pss`` (proportional, ``tree_pss``) in bytes."""

    def __init__(self, pid: int):
        self.pid, self.peak, self.peak_pss, self._stop = pid, 0, 0, threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_rss(self.pid))
            self.peak_pss = max(self.peak_pss, tree_pss(self.pid))
            self._stop.wait(0.05)

    def stop(self) -> int:
        self.peak = max(self.peak, tree_rss(self.pid))
        self._stop.set()
        self._t.join()
        return self.peak


# -------------------------------------------------------------------------------------------
# The program, and the bare floor
# -------------------------------------------------------------------------------------------


def _env(home: str) -> dict[str, str]:
    """The program's environment: its own settings folder, and bytecode cached as an
    installed program has it (without ``PYTHONDONTWRITEBYTECODE``, in a cache folder of the
    temp folder; ``main`` launches once untimed first), so no launch compiles the sources."""
    env = dict(os.environ, ARL_HOME=home)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "arl-bench-viewer-pycache")
    env.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
    env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--disable-gpu")
    return env


def _timed_lines(
    cmd: list[str], env: dict, marks: tuple[str, ...], settle: float, cwd: Path = ROOT
) -> dict:
    """Run ``cmd``; seconds from start to each line starting with one of ``marks``; the
    tree's peak memory until the last mark and ``settle`` seconds after it."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=cwd
    )
    watch = PeakWatch(proc.pid)
    seen: dict = {}
    assert proc.stdout is not None
    for line in proc.stdout:
        word = line.split(" ", 1)[0].strip()
        if word in marks and word not in seen:
            seen[word] = time.perf_counter() - t0
            seen["cpu " + word] = tree_cpu(proc.pid)
        if all(m in seen for m in marks):
            break
    time.sleep(settle)
    seen["peak"] = watch.stop()
    seen["pss"] = watch.peak_pss
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if not all(m in seen for m in marks):
        raise RuntimeError(f"{cmd[-2:]} exited ({proc.returncode}) before {marks}")
    return seen


def launch_program(bundle: Path, home: str, settle: float, root: Path = ROOT) -> dict:
    """One launch of the program in checkout ``root`` (its own virtual environment when
    it has one: ``--before`` compares an older checkout in the same run)."""
    python = root / ".venv" / "bin" / "python"
    return _timed_lines(
        [
            str(python if root != ROOT and python.exists() else sys.executable),
            "-m",
            "app.main",
            str(bundle),
            "--quit-when-rendered",
            "--stay",
        ],
        _env(home),
        ("FIRST", "RENDERED"),
        settle,
        cwd=root,
    )


BARE = r"""
import sys, threading, http.server
from PySide6 import QtWebEngineWidgets
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QApplication, QSplitter
from PySide6.QtWebEngineWidgets import QWebEngineView
pages = {"/v1": open(sys.argv[1], "rb").read(), "/v2": open(sys.argv[2], "rb").read()}
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = pages[self.path]
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
threading.Thread(target=srv.serve_forever, daemon=True).start()
app = QApplication([sys.argv[0]])
win = QSplitter()
win.resize(int(sys.argv[3]), int(sys.argv[4]))
done = set()
def finished(name, ok):
    done.add(name)
    if len(done) == 2:
        print("LOADED", flush=True)
for name in ("v1", "v2"):
    v = QWebEngineView()
    v.loadFinished.connect(lambda ok, n=name: finished(n, ok))
    win.addWidget(v)
    v.load(QUrl(f"http://127.0.0.1:{srv.server_address[1]}/{name}"))
win.show()
app.exec()
"""


def launch_bare(bundle: Path, settle: float) -> dict:
    p1, p2 = bundle / "document" / "v1.html", bundle / "document" / "v2.html"
    with tempfile.TemporaryDirectory() as home:
        return _timed_lines(
            [sys.executable, "-c", BARE, str(p1), str(p2), *map(str, WINDOW)],
            _env(home),
            ("LOADED",),
            settle,
        )


# -------------------------------------------------------------------------------------------
# Scroll and jump, in a running window
# -------------------------------------------------------------------------------------------


# Each frame of a pane, logged by the page itself from a requestAnimationFrame callback:
# [epoch ms at the frame's start, badge drawings since, the watched badge's box whole in the
# view (null: none watched), that box's top (CSS px from the view's top; null: not drawn)].
# A callback registered before the action runs first in its frame, so a drawing made in
# frame k is logged at frame k + 1: by then frame k, badges in, was presented.
_WATCH = """(function (id) {
  var log = window.__benchFrames = [], r0 = __arl.redraws();
  function f() {
    var box = id === null ? null : __arl.badgeBoxes()[id];
    var seen = id === null ? null : !!box && box[0] >= 0 && box[1] <= innerHeight;
    log.push([performance.timeOrigin + performance.now(), __arl.redraws() - r0, seen,
              box ? Math.round(box[0]) : null]);
    if (log.length < 90) requestAnimationFrame(f);  // 1.5 s at 60 frames a second
  }
  requestAnimationFrame(f);
  return performance.timeOrigin + performance.now();
})"""


def _scroll_ms(frames: list, t0: float) -> float | None:
    """Milliseconds from the scroll to the frame after the first drawing of the badges."""
    return next((f[0] - t0 for f in frames if f[0] >= t0 and f[1] > 0), None)


def _jump_ms(frames: list, t0: float) -> tuple[float | None, float, bool]:
    """(ms until the chosen badge is first whole in view, ms until it last moved on the
    screen or left it, whether it is in view at the end) from a pane's frames after the
    pick at ``t0``. The page's own scroll position is no measure of rest: as blocks above
    are laid out, scroll anchoring moves it and the text stays where it is."""
    after = [f for f in frames if f[0] >= t0]
    seen = next((f[0] - t0 for f in after if f[2]), None)
    moved = [b[0] - t0 for a, b in zip(after, after[1:]) if _moved(a, b)]
    if os.environ.get("ARL_BENCH_DEBUG"):
        print(
            "  moves:",
            [(round(b[0] - t0), a[2:], b[2:]) for a, b in zip(after, after[1:]) if _moved(a, b)],
        )
    rest = max(moved[-1] if moved else 0.0, seen or 0.0)
    return seen, rest, bool(after and after[-1][2])


def _moved(a: list, b: list) -> bool:
    """Whether the watched badge left or entered the view, or moved more than 1 CSS px
    (the page's own settling tolerance: a rounding of the layout is no move)."""
    if a[2] != b[2] or (a[3] is None) != (b[3] is None):
        return True
    return a[3] is not None and abs(a[3] - b[3]) > 1


def interaction(bundle: Path, runs: int, settled: bool = False) -> dict[str, list[float]]:
    """Milliseconds, timed by the page in its own frames (see ``_WATCH``): a pane scrolled
    by one screen until the frame with the new screen's badges was shown (``scroll``); a
    comment far down picked in the table until its badge stands whole in view in both panes
    (``jump``), and until it last moved on either screen (``jump at rest``: blocks laid out
    as they come into view move the text, and the page scrolls back onto it). ``... round trip``: the
    same seen from Python through runJavaScript (an upper bound: each poll waits for a busy
    renderer). A screen without badges, or a jump whose badge is not in view at the end, is
    counted and printed."""
    app, w, v, js = _open_window(bundle, settled)
    out: dict[str, list[float]] = {
        k: [] for k in ("scroll", "scroll round trip", "jump", "jump at rest", "jump round trip")
    }
    rnd = random.Random(3)
    height = js(v.v1, "document.documentElement.scrollHeight") or 0
    comments = json.loads((bundle / "comments.before.json").read_text("utf-8"))["comments"]
    starts = sorted((c["anchor"]["start_offset"], c["id"]) for c in comments)
    missing = 0
    for _ in range(runs):
        y = rnd.randrange(0, max(1, int(height) - 3000))
        js(v.v1, f"(window.scrollTo(0,{y}), 0)")
        _pause(app, 0.4)
        before = js(v.v1, "__arl.redraws()")
        t = time.perf_counter()
        t0 = js(v.v1, _WATCH + "(null), window.scrollBy(0, window.innerHeight), " + _NOW)
        _pause(app, 0, lambda before=before: js(v.v1, "__arl.redraws()") != before, 2.0)
        out["scroll round trip"].append((time.perf_counter() - t) * 1000)
        _pause(app, 1.0)
        ms = _scroll_ms(js(v.v1, "window.__benchFrames") or [], t0)
        unbadged = _unbadged(js, v.v1, starts)
        if ms is None or unbadged:
            missing += 1
            if os.environ.get("ARL_BENCH_DEBUG"):
                print("  screen without its badges:", y, ms, unbadged)
        if ms is not None:
            out["scroll"].append(ms)
        r = rnd.randrange(int(len(v.rows) * 0.8), len(v.rows))  # in the table's last fifth
        cid = v.rows[r]["id"]
        for view in (v.v1, v.v2):
            js(view, _WATCH + "(" + json.dumps(cid) + ")")
        got: list = []
        t, t0 = time.perf_counter(), time.time() * 1000
        v.table.selectRow(r)  # the pick jumps both panes; focus_span answers after it
        v.v1.focus_span(cid, got.append)
        v.v2.focus_span(cid, got.append)
        _pause(app, 0, lambda got=got: len(got) >= 2, 20.0)
        out["jump round trip"].append((time.perf_counter() - t) * 1000)
        _pause(app, 1.5)
        panes = [_jump_ms(js(view, "window.__benchFrames") or [], t0) for view in (v.v1, v.v2)]
        if all(p[0] is not None and p[2] for p in panes):
            out["jump"].append(max(p[0] for p in panes))
            out["jump at rest"].append(max(p[1] for p in panes))
        else:
            missing += 1
            if os.environ.get("ARL_BENCH_DEBUG"):
                print("  jump without its badge:", cid, v.rows[r].get("verdict"), panes)
    if missing:
        print(f"  warning: {missing} screens or jumps without their badges")
    w.close()
    return out


_NOW = "performance.timeOrigin + performance.now()"


def _unbadged(js, view, starts: list[tuple[int, str]]) -> list[str]:
    """The comments whose quote starts on a line whole in ``view``'s screen and whose
    badge is not drawn whole in it. ``starts``: (UTF-16 offset in v1's body text, id),
    sorted; a screen holds far fewer than 8,000 characters."""
    top = js(view, "__arl.topOffset()")
    if top is None:
        return ["(no text at the top of the view)"]
    near = [(o, i) for o, i in starts if top - 200 <= o < top + 8000]
    probe = (
        "(function (near) { var out = [], boxes = __arl.badgeBoxes(), h = innerHeight;"
        " near.forEach(function (c) { var y = __arl.placeOf(c[0]);"
        " if (typeof y !== 'number' || y < 12 || y > h - 24) return;"
        " var b = boxes[c[1]]; if (!b || b[0] < 0 || b[1] > h) out.push(c[1]); });"
        " return out; })(" + json.dumps(near) + ")"
    )
    return js(view, probe) or []


def _pause(app, seconds: float, until=None, timeout: float = 0.0) -> None:
    """Let Qt run for ``seconds``, or until ``until()`` holds (at most ``timeout`` s)."""
    from PySide6.QtCore import QEventLoop

    end = time.perf_counter() + (timeout if until else seconds)
    while time.perf_counter() < end and not (until and until()):
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)


def _open_window(bundle: Path, settled: bool):
    """(app, main window, its verdicts view, js(view, source) -> value) with ``bundle``
    open and rendered; ``settled``: after the re-derivation too (it holds the
    interpreter while it runs)."""
    from app.main import _prepare_environment

    _prepare_environment(os.environ.get("QT_QPA_PLATFORM") == "offscreen")
    from PySide6 import QtWebEngineWidgets  # noqa: F401
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    from app.window import MainWindow

    w = MainWindow()
    w.resize(*WINDOW)
    w.show()
    loop = QEventLoop()
    w.verdicts.rendered.connect(loop.quit)
    QTimer.singleShot(120_000, loop.quit)
    w.open_bundle(bundle, remember=False)
    loop.exec()
    v = w.verdicts

    def js(view, src):
        box: list = []
        view.run_js(src, box.append)
        _pause(app, 0, lambda: bool(box), 20.0)
        return box[0] if box else None

    if settled:
        _pause(app, 0, lambda: v.data.rederivation is not None or bool(v.data.rederive_error), 600)
    for name, view in (("v1", v.v1), ("v2", v.v2)):
        got = js(
            view,
            "__arlEarly.lazy ? {groups: __arlEarly.groups, ms: __arlEarly.groupMs,"
            " not: __arlEarly.ungrouped} : null",
        )
        print(f"  {name}: laid out as seen, blocks grouped (arl-early.js): {got}")
    return app, w, v, js


# -------------------------------------------------------------------------------------------


def _med(xs: list[float]) -> float:
    return statistics.median(xs)


def _launch_figures(a: argparse.Namespace, bundle: Path) -> None:
    """Launch to first screen and every mark, the floor beside, memory: medians."""
    prog, bare, old = [], [], []
    with tempfile.TemporaryDirectory() as home:  # warm-up: the bytecode cache is written
        launch_program(bundle, home, 0.0)
        if a.before:
            launch_program(bundle, home, 0.0, a.before.resolve())
    for i in range(a.runs):
        with tempfile.TemporaryDirectory() as home:
            prog.append(launch_program(bundle, home, a.settle))
        bare.append(launch_bare(bundle, a.settle))
        print(
            f"  run {i + 1}: program first screen {prog[-1]['FIRST']:.2f} s "
            f"({prog[-1]['cpu FIRST']:.1f} CPU s), all marks {prog[-1]['RENDERED']:.2f} s, "
            f"peak {prog[-1]['peak'] / 2**30:.2f} GiB; bare {bare[-1]['LOADED']:.2f} s "
            f"({bare[-1]['cpu LOADED']:.1f} CPU s), peak {bare[-1]['peak'] / 2**30:.2f} GiB",
            flush=True,
        )
        if a.before:
            with tempfile.TemporaryDirectory() as home:
                old.append(launch_program(bundle, home, a.settle, a.before.resolve()))
            print(
                f"         before: first screen {old[-1]['FIRST']:.2f} s "
                f"({old[-1]['cpu FIRST']:.1f} CPU s), all marks "
                f"{old[-1]['RENDERED']:.2f} s, peak {old[-1]['peak'] / 2**30:.2f} GiB",
                flush=True,
            )
    first = _med([p["FIRST"] for p in prog])
    every = _med([p["RENDERED"] for p in prog])
    floor = _med([b["LOADED"] for b in bare])
    pk, bpk = _med([p["peak"] for p in prog]), _med([b["peak"] for b in bare])
    pss, bpss = _med([p["pss"] for p in prog]), _med([b["pss"] for b in bare])
    print(f"medians of {a.runs} runs:")
    print(f"  launch to first highlighted screen: {first:.2f} s (target < 2 s)")
    print(f"  launch to every mark in:            {every:.2f} s")
    print(f"  bare QtWebEngine, both pages loaded: {floor:.2f} s (the floor)")
    cpu_first = _med([p["cpu FIRST"] for p in prog])
    cpu_floor = _med([b["cpu LOADED"] for b in bare])
    print(
        f"  CPU seconds of the process tree: first screen {cpu_first:.1f}, the floor "
        f"{cpu_floor:.1f} ({cpu_first / cpu_floor:.2f}x)"
        + (f"; before {_med([p['cpu FIRST'] for p in old]):.1f}" if old else "")
    )
    print(
        f"  ratio first screen / floor: {first / floor:.2f}x; every mark / floor: "
        f"{every / floor:.2f}x"
    )
    print(
        f"  process tree peak: program {pk / 2**30:.2f} GiB, bare {bpk / 2**30:.2f} GiB "
        f"(target < 1 GiB; ratio {pk / bpk:.2f}x); proportional (PSS) program "
        f"{pss / 2**30:.2f} GiB, bare {bpss / 2**30:.2f} GiB"
    )
    if old:
        was = _med([p["RENDERED"] for p in old])
        was_first = _med([p["FIRST"] for p in old])
        opk = _med([p["peak"] for p in old])
        opss = _med([p["pss"] for p in old])
        print(
            f"  before ({a.before}): first screen {was_first:.2f} s ({was_first / floor:.2f}x "
            f"the floor), every mark in {was:.2f} s ({was / floor:.2f}x), peak "
            f"{opk / 2**30:.2f} GiB (PSS {opss / 2**30:.2f}); first screen now {was_first / first:.2f}x sooner"
        )


def _interaction_figures(a: argparse.Namespace, bundle: Path) -> None:
    """Scroll and jump in a running window: medians and worst cases."""
    inter = interaction(bundle, max(a.runs, 5), settled=a.settled)
    for k, xs in inter.items():
        if xs:
            print(
                f"  {k}: median {_med(xs):.0f} ms, worst {max(xs):.0f} ms over {len(xs)}"
                + ("" if "round trip" in k or "rest" in k else " (target < 100 ms)")
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--size", type=int, default=5_000_000)
    ap.add_argument("--comments", type=int, default=5000)
    ap.add_argument("--settle", type=float, default=3.0, help="seconds watched after the marks")
    ap.add_argument("--skip-interaction", action="store_true")
    ap.add_argument(
        "--settled",
        action="store_true",
        help="scroll and jump once the re-derivation is done (it holds the interpreter and "
        "a core while it runs)",
    )
    ap.add_argument("--only-interaction", action="store_true", help="no launches")
    ap.add_argument(
        "--before",
        type=Path,
        help="an older checkout (printing FIRST and RENDERED) launched in the same runs",
    )
    a = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    bundle = build_bundle(a.size, a.comments)
    sizes = {n: (bundle / "document" / n).stat().st_size for n in ("v1.html", "v2.html")}
    print(
        f"bundle: {bundle} (v1 {sizes['v1.html'] / 1e6:.1f} MB, v2 {sizes['v2.html'] / 1e6:.1f} MB"
        f" of HTML, {a.comments} comments)"
    )
    if not a.only_interaction:
        _launch_figures(a, bundle)
    if not a.skip_interaction:
        _interaction_figures(a, bundle)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
