"""The desktop program: ``agent-review-loop [BUNDLE] [--smoke-test]``.

Starts a QApplication, then runs the main window on a qasync event loop. A first start with
an empty workspace offers two things: browse the recorded example run (no key needed) and
set up a run. Opening an evidence bundle (menu, drag and drop, command line) jumps straight
to the Verdicts view.

``--smoke-test``: starts the real UI without the wizard, opens the example bundle, applies
the highlights, checks each page's text against the engine's extraction, prints the versions
and the keyring backend, prints ``SMOKE OK`` and exits 0 (non-zero with the reason).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
import traceback
from importlib import resources
from pathlib import Path

from app.about import _fixture_bundle_path, example_bundle_path, versions_text
from app.smoke_styles import smoke_styles
from engine.vocabulary import error_words, plural

__all__ = ["_fixture_bundle_path", "example_bundle_path", "main", "versions_text"]

log = logging.getLogger("agent-review-loop")


def _prepare_environment(offscreen_gpu: bool) -> None:
    """Environment QtWebEngine needs, set before it loads."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # Chromium refuses to run its sandbox as root.
        os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
    if offscreen_gpu:
        flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
        if "--disable-gpu" not in flags:
            os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = (flags + " --disable-gpu").strip()
    from app import webflags

    webflags.apply()  # no network at the socket level (preconnect, DNS prefetch)


def setup_logging() -> Path:
    from app.settings import log_path

    path = log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    from engine.redact import RedactingFilter

    handler.addFilter(RedactingFilter())  # no key or bearer token reaches the log file
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return path


def install_excepthook(window_getter) -> None:
    """Unhandled errors (including those of async slots) become a plain message; the
    traceback goes to the log file."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    from app.settings import log_path

    def hook(exc_type, exc, tb):
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        log.error("unhandled error\n%s", text)
        try:
            parent = window_getter()
            box = QMessageBox(parent)
            box.setIcon(QMessageBox.Icon.Warning)
            box.setTextFormat(Qt.TextFormat.PlainText)  # the error may quote a server
            box.setWindowTitle("Something went wrong")
            box.setText(f"Something went wrong: {error_words(exc)}.")
            box.setInformativeText(f"The details were written to {log_path()}.")
            box.open()
            hook._boxes = getattr(hook, "_boxes", [])[-4:] + [box]
        except Exception:
            sys.__excepthook__(exc_type, exc, tb)

    sys.excepthook = hook


def startup_problem(args: argparse.Namespace) -> str | None:
    """Why the window cannot open on this machine, in one line (None when it can): system
    libraries Qt's platform plugin or QtWebEngine lack (found as the dynamic loader would,
    with the install command for this machine's package manager; said first, since a
    fresh machine needs them whatever else is wrong), no display, or a ``DISPLAY`` where no
    X server answers (Qt would abort with exit 134 and its message in the log file)."""
    from engine.environment import no_display
    from engine.system_libs import display_problem, startup_problem as missing_libraries_line

    headless = no_display() and not args.qt_args
    libraries = missing_libraries_line(
        also=" (and no display is set here: start it in a desktop session)" if headless else ""
    )
    if libraries:
        return libraries
    if headless:
        return (
            "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); start "
            "it in a desktop session"
            + (", or set QT_QPA_PLATFORM=offscreen for the smoke test" if args.smoke_test else "")
            + ". The arl command works without one."
        )
    return display_problem()


def quiet_native_stderr(log_file: Path) -> None:
    """Send what Qt and Chromium write to the process's standard error (file descriptor 2:
    GPU, Vulkan, D-Bus and command-buffer notices, from this process and its Chromium
    children) to ``log_file``; Python's own ``sys.stderr`` keeps the terminal."""
    try:
        terminal = os.dup(2)
        fd = os.open(log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError:
        return
    os.dup2(fd, 2)
    os.close(fd)
    sys.stderr = os.fdopen(terminal, "w", buffering=1, encoding="utf-8", errors="backslashreplace")


def say_qt_fatal_in_terminal(log_file: Path) -> None:
    """Qt's own messages keep going to ``log_file`` (file descriptor 2, see
    ``quiet_native_stderr``), but a fatal one -- Qt is about to abort: no usable platform
    plugin, a display it cannot open -- is also said in the terminal in one line, with the
    last platform warning before it (the reason; Qt's fatal text itself ends "Reinstalling
    the application may fix this problem", which is wrong advice), and the program exits 2
    instead of a silent 134."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    reason: list[str] = []

    def handler(mode, context, message: str) -> None:
        category = getattr(context, "category", None) or ""
        text = f"{category}: {message}" if category and category != "default" else message
        try:
            os.write(2, (text + "\n").encode("utf-8", "backslashreplace"))
        except OSError:
            pass
        if mode != QtMsgType.QtFatalMsg:
            if category.startswith("qt.qpa"):
                reason[:] = [message.strip()]
            return
        why = reason[0] if reason else message.strip().splitlines()[0]
        print(
            f"agent-review-loop: Qt could not start: {why} (Qt's own messages are in "
            f"{log_file}; 'uv run arl doctor' checks this machine)",
            file=sys.stderr,
            flush=True,
        )
        os._exit(2)

    qInstallMessageHandler(handler)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="agent-review-loop",
        description="Check whether an AI agent really addressed "
        "the review comments it says it addressed.",
    )
    p.add_argument("bundle", nargs="?", help="an evidence bundle (folder or .zip) to open")
    p.add_argument(
        "--smoke-test",
        action="store_true",
        help="open the example bundle, check the rendering, print versions, exit",
    )
    p.add_argument(
        "--debug",
        action="store_true",
        help="show Qt's and Chromium's own messages in this terminal (normally they go to "
        "the log file only)",
    )
    p.add_argument("--timeout", type=float, default=60.0, help=argparse.SUPPRESS)
    p.add_argument("--quit-when-rendered", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--stay", action="store_true", help=argparse.SUPPRESS)
    args, qt_args = p.parse_known_args(argv)
    args.qt_args = qt_args
    return args


# "easy Thai": three words and no spaces; made from code points, as the program's strings
# hold only characters stock fonts have (tests/app/test_app_icons.py)
_THAI = "".join(
    map(
        chr,
        (0x0E20, 0x0E32, 0x0E29, 0x0E32, 0x0E44, 0x0E17, 0x0E22, 0x0E07, 0x0E48, 0x0E32, 0x0E22),
    )
)


def _smoke_word_breaks() -> str:
    """ICU's dictionary word breaks work (``icu4py``, imported lazily by the re-anchoring of
    scripts without spaces, so a frozen build could lack it unnoticed): "" or the problem.
    Prints one line when they work."""
    try:
        from icu4py.breakers import WordBreaker

        words = [(a, b) for a, b in WordBreaker(_THAI, "root").segments()]
    except Exception as exc:  # ImportError, a missing ICU library (OSError), ICU's own
        return f"ICU word breaks do not work ({type(exc).__name__}: {exc})"
    if len(words) < 2 or words[0][0] != 0 or words[-1][1] != len(_THAI):
        return f"ICU word breaks gave {words} for a Thai phrase"
    print(f"ICU word breaks: {len(words)} Thai words", flush=True)
    return ""


def _smoke_bidi() -> str:
    """The Unicode bidi algorithm works (``python-bidi``, imported lazily by the invisible-
    characters check only when a bidi control is present, so a frozen build could lack it
    unnoticed): "" or the problem. Prints one line when it works."""
    try:
        from engine.text.invisible import seen_pair

        # U+202E U+202C around a palindrome displays unchanged: seen the same as without.
        shown = seen_pair("level", chr(0x202E) + "level" + chr(0x202C), "a ", " b")
    except Exception as exc:  # ImportError, a missing native extension (OSError)
        return f"the bidi algorithm does not work ({type(exc).__name__}: {exc})"
    if shown[0] != shown[1]:
        return f"the bidi algorithm gave {shown!r} for a palindrome inside an override"
    print("bidi: display order checked", flush=True)
    return ""


def _smoke_word() -> str:
    """A Word review opens and scores (mammoth, lxml and olefile shipped): the example pair
    in ``resources/word`` read as a reviewed and a revised ``.docx``, its comments placed,
    the revised file's resolved marks read as claims, the pair scored. "" or the problem;
    prints one line when it works."""
    try:
        import olefile  # noqa: F401  (tells an encrypted .docx from an old .doc)

        from engine.score.scoring import Version, score
        from engine.text.documents import open_document
        from engine.word_review import word_claims, word_comments

        folder = Path(str(resources.files("resources").joinpath("word")))
        v1, v2 = open_document(folder / "review.docx"), open_document(folder / "revised.docx")
        if v1.word is None or v2.word is None:
            return "the Word example was not read as Word"
        comments, unusable = word_comments(v1.word)
        found = word_claims(v1.word, v2.word)
        result = score(
            Version.from_source(v1.content, "html", "v1"),
            Version.from_source(v2.content, "html", "v2"),
            comments,
            claims=found.claims,
        )
    except Exception as exc:  # a missing library (ImportError), an unreadable example
        return f"a Word review could not be read and scored ({type(exc).__name__}: {exc})"
    counts = result.counts()
    if len(comments) != 4 or unusable or counts["edited"] != 2 or len(found.resolved) != 3:
        return (
            f"the Word example scored {counts} with "
            f"{plural(len(found.resolved), 'resolved comment')}"
        )
    print(
        f"word: review.docx read ({len(comments)} comments placed), scored against "
        f"revised.docx ({v2.word.tracked_changes} tracked changes): {counts['edited']} edited, "
        f"{counts['untouched']} untouched, {len(found.resolved)} claims from resolved marks",
        flush=True,
    )
    return ""


def _smoke_markdown() -> str:
    """A Markdown review reads as rendered text and scores (markdown-it-py and its GFM
    plugins shipped): the pair in ``resources/markdown``, whose revision re-wraps,
    re-numbers and re-pads besides one word. "" or the problem; prints one line when it
    works."""
    try:
        from engine.comments_io import load_comments
        from engine.score.scoring import Version, score
        from engine.text.documents import open_document

        folder = Path(str(resources.files("resources").joinpath("markdown")))
        d1, d2 = open_document(folder / "review.md"), open_document(folder / "revised.md")
        if (d1.kind, d2.kind) != ("markdown", "markdown"):
            return f"the Markdown example was read as {d1.kind}, not Markdown"
        v1 = Version.from_source(d1.content, "markdown", "v1")
        v2 = Version.from_source(d2.content, "markdown", "v2")
        comments, unusable = load_comments(folder / "comments.json", v1.text)
        result = score(v1, v2, comments)
    except Exception as exc:  # a missing library (ImportError), an unreadable example
        return f"a Markdown review could not be read and scored ({type(exc).__name__}: {exc})"
    counts = result.counts()
    if (
        "**" in v1.text
        or "| Item" in v1.text
        or "two days per week, with the agreement of their manager." not in v1.text
    ):
        return "the Markdown example was not read as rendered text"
    if unusable or counts["edited"] != 1 or counts["untouched"] != 3:
        return f"the Markdown example scored {counts} ({len(unusable)} unusable)"
    print(
        f"markdown: review.md read as rendered text ({len(v1.text)} characters), scored "
        f"against revised.md: {counts['edited']} edited, {counts['untouched']} untouched "
        "(re-wrapped, re-numbered, re-padded)",
        flush=True,
    )
    return ""


def _smoke_suites(window) -> str:
    """The Suites tab is there (Qt Charts shipped) and opens the example suite: "" or the
    problem. Prints one line when it works."""
    try:
        from app.suites import SuitesView, example_suite_path
    except ImportError as exc:
        return f"the Suites tab cannot load ({exc})"
    view = getattr(window, "suites", None)
    if not isinstance(view, SuitesView):
        return "the Suites tab is missing"
    view._error = lambda title, text: None  # a failure is reported below, not in a dialog
    if not view.open_results(example_suite_path()):
        return f"the example suite in {example_suite_path()} could not be opened"
    if not view.spread_chart.chart.series():
        return "the example suite's chart is empty"
    print(f"suites: example suite opened ({len(view.items)} runs, charts drawn)", flush=True)
    return ""


def smoke_test(app, window, bundle: Path | None, timeout: float) -> int:
    """Run the smoke test on a live window; returns the exit code."""
    from PySide6.QtCore import QEventLoop, QTimer

    from engine.text.html_text import body_text

    if bundle is None:
        print("SMOKE FAILED: no example bundle found in resources/example", flush=True)
        return 2
    result: dict = {}
    loop = QEventLoop()

    def fail(reason: str) -> None:
        if "code" not in result:
            result.update(code=1, reason=reason)
        loop.quit()

    def check_texts() -> None:
        data = window.verdicts.data
        pending = {"v1": (window.verdicts.v1, data.v1), "v2": (window.verdicts.v2, data.v2)}
        texts: dict[str, str] = {}

        def got(name: str, text) -> None:
            texts[name] = text
            if len(texts) < 2:
                return
            for n, (_, raw) in pending.items():
                expected = body_text(raw)
                if texts[n] != expected:
                    return fail(
                        f"the page text of {n} differs from the engine's extraction "
                        f"({len(texts[n] or '')} vs {len(expected)} characters)"
                    )
            hl = window.verdicts.last_highlight
            for n in ("v1", "v2"):
                r = hl.get(n) or {}
                if r.get("failed"):
                    return fail(
                        f"{plural(len(r['failed']), 'highlight')} could not be applied in {n}"
                    )
            result.update(code=0, spans={n: (hl.get(n) or {}).get("made") for n in ("v1", "v2")})
            loop.quit()

        for name, (view, _) in pending.items():
            view.body_text(lambda t, name=name: got(name, t))

    window.verdicts.rendered.connect(check_texts)
    QTimer.singleShot(int(timeout * 1000), lambda: fail(f"nothing rendered within {timeout:.0f} s"))
    window.bundleFailed.connect(lambda why: fail(f"the bundle {bundle} could not be opened: {why}"))
    window.open_bundle(bundle, remember=False)
    loop.exec()
    print(versions_text(), flush=True)
    print(f"bundle: {bundle}", flush=True)
    if result.get("code") == 0:
        suites_problem = (
            _smoke_suites(window)
            or _smoke_word_breaks()
            or _smoke_bidi()
            or smoke_styles()
            or _smoke_word()
            or _smoke_markdown()
        )
        if suites_problem:
            print(f"SMOKE FAILED: {suites_problem}", flush=True)
            return 1
        spans = result.get("spans", {})
        print(f"highlights applied: v1 {spans.get('v1')}, v2 {spans.get('v2')}", flush=True)
        print("page text equals the engine's extraction for v1 and v2", flush=True)
        print("SMOKE OK", flush=True)
        return 0
    print(f"SMOKE FAILED: {result.get('reason')}", flush=True)
    return int(result.get("code") or 1)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(list(sys.argv[1:] if argv is None else argv))

    problem = startup_problem(args)
    if problem:
        # Qt would abort (exit 134) with "Reinstalling the application may fix this problem".
        print(f"agent-review-loop: {problem}", file=sys.stderr)
        return 2
    offscreen = os.environ.get("QT_QPA_PLATFORM") == "offscreen" or args.smoke_test
    _prepare_environment(offscreen)
    log_file = setup_logging()
    if not args.debug:
        quiet_native_stderr(log_file)
    from PySide6 import QtWebEngineWidgets  # noqa: F401 - must precede the QApplication
    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtWidgets import QApplication

    if not args.debug:
        say_qt_fatal_in_terminal(log_file)

    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts, True)
    app = QApplication.instance() or QApplication([sys.argv[0], *args.qt_args])
    app.setApplicationName("Agent Review Loop")
    app.setOrganizationName("agent-review-loop")
    app.setApplicationDisplayName("Agent Review Loop")
    from app.jobs import collect_garbage_on_ui_thread

    app._gc_timer = collect_garbage_on_ui_thread(app)  # never in a worker thread
    from PySide6.QtGui import QIcon

    icon = resources.files("resources").joinpath("icons/agent-review-loop.svg")
    app.setWindowIcon(QIcon(str(icon)))
    from app import theme

    theme.follow(app)  # light or dark as the system says (ARL_THEME overrides)

    from app.window import MainWindow

    t0 = time.perf_counter()
    window = MainWindow()
    install_excepthook(lambda: window)
    log.info("started; log at %s", log_file)

    if args.smoke_test:
        window.show()
        bundle = (
            Path(args.bundle) if args.bundle else (example_bundle_path() or _fixture_bundle_path())
        )
        code = smoke_test(app, window, bundle, args.timeout)
        window.close()
        return code

    window.show()
    if args.quit_when_rendered:  # benchmarks: FIRST screen with marks, RENDERED every mark
        v = window.verdicts
        v.firstScreen.connect(lambda: print(f"FIRST {time.perf_counter() - t0:.3f}", flush=True))
        v.rendered.connect(lambda: print(f"RENDERED {time.perf_counter() - t0:.3f}", flush=True))
        v.rendered.connect(lambda: args.stay or app.quit())  # --stay: memory watched after
    if args.bundle:
        window.open_bundle(Path(args.bundle))
    else:
        window.show_start()
    log.info("window shown after %.2f s", time.perf_counter() - t0)
    return run_event_loop(app, window)


def run_event_loop(app, window) -> int:
    """Run Qt on a qasync loop until the application quits (docs/conventions.md, async in Qt)."""
    import asyncio

    import qasync

    def on_loop_error(loop, context) -> None:
        exc = context.get("exception")
        if isinstance(exc, BaseException) and not isinstance(exc, asyncio.CancelledError):
            sys.excepthook(type(exc), exc, exc.__traceback__)
        else:
            log.error("event loop: %s", context.get("message"))

    async def until_quit() -> None:
        asyncio.get_running_loop().set_exception_handler(on_loop_error)
        done = asyncio.Event()
        app.aboutToQuit.connect(done.set)
        window.loop_ready()
        await done.wait()
        await window.shutdown()

    try:
        qasync.run(until_quit())
    except asyncio.CancelledError:
        pass
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
