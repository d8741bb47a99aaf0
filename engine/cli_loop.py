"""The review-loop commands of ``arl``: ``run``, ``author``, ``bundle``, ``doctor``, ``comments``.

``engine.cli`` calls ``register(subparsers)``; each subcommand sets ``func(args) -> int``.

Exit codes: 0 done (for ``run``: completed, whatever the verdicts), 1 failed (model,
network), 2 unusable input (one line on stderr naming the file and the problem, never a
traceback), 3 a bundle that fails its manifest check, 130 cancelled.

The API key for ``run``, ``author`` and ``doctor`` follows the one rule of
``engine.credentials``: ``OPENAI_API_KEY`` overrides the keyring, whose keys are stored per
endpoint host; else none (local servers). The engine never imports keyring: the ``arl``
entry point (``arl_keys.cli``) installs the keyring look-up with ``set_key_provider``;
without it only the environment is read. The key is never printed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.credentials import KeyChoice, choose_api_key

EXIT_OK, EXIT_FAILED, EXIT_INPUT, EXIT_TAMPERED, EXIT_CANCELLED = 0, 1, 2, 3, 130

KeyProvider = Callable[[str | None], KeyChoice]
_key_provider: KeyProvider | None = None


def _fail(message: str, code: int = EXIT_INPUT) -> int:
    from engine.redact import redact

    print(f"arl: {redact(message)}", file=sys.stderr)
    return code


def set_key_provider(provider: KeyProvider | None) -> None:
    """Install the stored-key look-up (``arl_keys.api_key_for``); None: environment only."""
    global _key_provider
    _key_provider = provider


#: ``() -> (key material, where, note)``: the bundle-signing key (``arl_keys.signing``
#: installs the keyring one). Without it each ``arl`` process signs with a session key.
SigningProvider = Callable[[], tuple[bytes, str, str]]
_signing_provider: SigningProvider | None = None


def set_signing_provider(provider: SigningProvider | None) -> None:
    """Install the signing-key look-up (``arl_keys.signing``); None: a session key."""
    global _signing_provider
    _signing_provider = provider


def signing_key_for_run() -> tuple[bytes, str]:
    """(key material, one line saying which key signs and where it is kept)."""
    from engine import signing

    if _signing_provider is not None:
        material, where, note = _signing_provider()
    else:
        material, where = signing.new_private_key(), "session"
        note = (
            "no key store was installed (run through the arl command to use the keyring): "
            "signed with a key for this run only"
        )
    fp = signing.key_fingerprint(material)
    line = f"Signing the evidence bundle with key {fp} ({where})" + (f": {note}" if note else "")
    return material, line


def resolve_api_key(base_url: str | None) -> KeyChoice:
    """The key to send to ``base_url`` and where it came from (``engine.credentials``)."""
    from engine.redact import remember

    choice = _key_provider(base_url) if _key_provider is not None else choose_api_key(base_url)
    remember(choice.key)  # redacted from everything printed or stored from now on
    return choice


def _shown(text: str) -> str:
    """A command-line value as an error shows it: quoted, at most 40 characters."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:  # also over CPython's 4,300-digit conversion limit
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{_shown(text)} must be at least 1")
    if n > 10**9:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is too large")
    return n


def _seconds(text: str) -> float:
    """A number of seconds above 0: finite (not nan, inf) and at most a day."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number of seconds") from None
    if not math.isfinite(x) or x <= 0:
        raise argparse.ArgumentTypeError(f"{_shown(text)} must be a number of seconds above 0")
    if x > 86400:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is more than a day (86400 seconds)")
    return x


def _read_doc_and_comments(doc: str, comments_path: str) -> tuple[str, str, Any, list, list]:
    """(kind, raw, Version, comments, unusable). Raises DocumentError or InputError."""
    from engine.comments_io import load_comments
    from engine.documents import read_document
    from engine.scoring import Version

    kind, raw = read_document(doc)
    version = Version.from_source(raw, kind, "v1")
    comments, unusable = load_comments(comments_path, version.text)
    return kind, raw, version, comments, unusable


def default_title(path: str, kind: str, raw: str) -> str:
    """A document's title (``engine.documents.document_title``; kept for callers)."""
    from engine.documents import document_title

    return document_title(path, kind, raw)


# -- arl run ---------------------------------------------------------------------------------


def _bad_url(url: str | None) -> str | None:
    """A one-line problem with an endpoint URL, or None when it is usable. The URL is shown
    masked (``engine.safe_io.mask_url``): user info and key-like query values hidden."""
    from urllib.parse import urlsplit

    from engine.safe_io import mask_url

    if url is None:
        return None
    example = "(for example http://127.0.0.1:8089/v1 or https://api.openai.com/v1)"
    shown = mask_url(url)
    shown = shown if len(shown) <= 200 else shown[:197] + "..."
    if any(c.isspace() or ord(c) < 0x20 for c in url):
        return f"--base-url {shown!r} contains spaces or control characters {example}"
    try:
        u = urlsplit(url)
        host = u.hostname
        u.port  # noqa: B018 - raises ValueError for a port that is not 0-65535
    except ValueError as exc:
        return f"--base-url {shown!r} is not a valid URL ({exc}) {example}"
    if u.scheme not in ("http", "https") or not u.netloc or not host:
        return f"--base-url {shown!r} is not an http(s) URL {example}"
    return None


def cmd_run(args: argparse.Namespace) -> int:

    from engine.agent import AgentConfig
    from engine.documents import DocumentError
    from engine.events import RunEvent, RunFailed, RunFinished
    from engine.models import InputError
    from engine.run import ReviewRequest, RunHandle, start_review

    if problem := _bad_url(args.base_url):
        return _fail(problem)
    if args.out and Path(args.out).exists() and not Path(args.out).is_dir():
        # Said before any model call: the bundle goes into this folder at the end.
        return _fail(f"{args.out}: not a folder (--out names the folder the bundle goes in)")
    try:
        kind, raw, version, comments, unusable = _read_doc_and_comments(args.doc, args.comments)
    except (DocumentError, InputError) as exc:
        return _fail(str(exc))
    if not comments:
        why = f" ({unusable[0][0]}: {unusable[0][1]})" if unusable else ""
        return _fail(f"{args.comments}: no usable comments in the file{why}")
    # Which comments fit the document is known before any model call: a run whose
    # comments all miss the document would "converge" at once and prove nothing.
    from engine.scoring import score as _score

    check = _score(version, version, comments)
    unusable = unusable + check.unusable
    name = os.path.basename(args.comments)
    for cid, reason in unusable:
        print(f"arl: {name}: comment {cid} skipped: {reason}", file=sys.stderr)
    if not check.verdicts:
        return _fail(
            f"{args.comments}: none of its {len(comments)} comment(s) fits "
            f"{os.path.basename(args.doc)} ({unusable[0][0]}: {unusable[0][1]})"
        )
    if not check.actionable_ids and not any(v.verdict == "stale_anchor" for v in check.verdicts):
        return _fail(
            f"{args.comments}: no comment is actionable and open, so there is "
            "nothing for the agent to address"
        )
    choice = resolve_api_key(args.base_url)
    config = AgentConfig(
        base_url=args.base_url,
        model=args.model,
        api_key=choice.key,
        request_timeout=args.timeout,
        max_turns_per_round=args.turns,
        max_tokens_per_run=args.max_tokens,
        max_retries=args.retries,
        echo_tool_results=args.echo_tool_results,
        max_output_tokens=args.max_output_tokens,
        mode=args.mode,
    )
    request = ReviewRequest(
        config=config,
        title=args.title or default_title(args.doc, kind, raw),
        raw=raw,
        kind=kind,
        comments=comments,
        rounds=args.rounds,
        out_dir=Path(args.out) if args.out else None,
        workspace_path=Path(args.workspace) if args.workspace else None,
        key_source=choice.describe(),
    )
    if not args.no_sign:
        request.signing_key, sign_line = signing_key_for_run()
        print(sign_line, flush=True)
    out = sys.stdout
    finished: dict[str, Any] = {}

    def on_event(ev: RunEvent) -> None:
        if isinstance(ev, (RunFinished, RunFailed)):  # this run's end (not a RunRecovered)
            finished["event"] = ev
        print(ev.describe(), file=out, flush=True)

    handle = RunHandle()
    with StopSignals() as stop:
        return _run_and_report(
            stop, start_review(request, handle=handle, on_event=on_event), args, finished
        )


def _run_and_report(
    stop: StopSignals, coro: Any, args: argparse.Namespace, finished: dict[str, Any]
) -> int:
    """Run under ``stop``; print the ``--json`` line; the exit code."""
    import asyncio

    from engine.workspace import WorkspaceError

    try:
        outcome = stop.run(coro)
    except WorkspaceError as exc:
        return _fail(str(exc))
    except (KeyboardInterrupt, asyncio.CancelledError):
        ev = finished.get("event")
        bundle = getattr(ev, "bundle", None)
        if args.json:
            print(
                json.dumps(
                    {
                        "bundle": bundle,
                        "status": "cancelled",
                        "metrics": getattr(ev, "metrics", {}),
                    }
                ),
                flush=True,
            )
        return EXIT_CANCELLED
    if args.json:
        print(json.dumps(outcome.to_json(), ensure_ascii=False), flush=True)
    if outcome.status == "completed":
        return EXIT_OK
    if outcome.status == "cancelled":
        return EXIT_CANCELLED
    return EXIT_FAILED


def _ending(signum: int, frame: Any) -> None:
    """SIGTERM/SIGHUP after a run: the process is ending; let it end normally."""


class StopSignals:
    """Ctrl-C, SIGTERM and SIGHUP while a review run runs (a context manager).

    The first signal cancels the run's task (``run(coro)``): the run stops at once and
    writes its bundle marked cancelled, then ``asyncio.CancelledError`` is raised from
    ``run``. Every further signal is only counted (a note on stderr): finalisation (final
    scoring, bundle write, the workspace record of the ending) and the last output lines
    are never interrupted, so two kills in quick succession still leave a bundle and no run
    stuck at ``running``. (``asyncio.run``'s own SIGINT handling raises KeyboardInterrupt on
    the second Ctrl-C wherever the code is; it stays out because a handler is installed.)
    On exit SIGINT's previous handler comes back; a SIGTERM or SIGHUP that arrives after
    the run, while the process ends, is ignored (the process is ending anyway, and its last
    lines are still printed).
    """

    NAMES = ("SIGINT", "SIGTERM", "SIGHUP")

    def __init__(self) -> None:
        self.signals = 0
        self._cancel: Callable[[], object] | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopSignals:
        for name in self.NAMES:
            sig = getattr(signal, name, None)
            if sig is not None:
                self._previous[sig] = signal.signal(sig, self._on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler if sig == signal.SIGINT else _ending)

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.signals += 1
        if self.signals == 1 and self._cancel is not None:
            self._cancel()
        elif self.signals > 1:  # os.write: print() is not safe inside a signal handler
            os.write(2, b"arl: already stopping; the evidence bundle is written first\n")

    def run(self, coro: Any) -> Any:
        """``asyncio.run(coro)`` as a task the first signal cancels."""
        import asyncio

        async def main() -> Any:
            loop = asyncio.get_running_loop()
            task = asyncio.ensure_future(coro)
            self._cancel = lambda: loop.call_soon_threadsafe(task.cancel)
            if self.signals:  # a signal came before the task existed
                task.cancel()
            try:
                return await task
            finally:
                self._cancel = None

        return asyncio.run(main())


# -- arl author ------------------------------------------------------------------------------


def cmd_author(args: argparse.Namespace) -> int:
    import asyncio

    from engine.agent import AgentError
    from engine.author import (
        AUTHOR_REQUEST_TIMEOUT,
        author_config,
        author_document,
        list_briefs,
        load_brief,
    )
    from engine.models import InputError

    if args.list_briefs:
        for b in list_briefs():
            print(f"{b.name:<20} {b.title}")
        return EXIT_OK
    missing = [
        f"--{n.replace('_', '-')}"
        for n in ("brief", "base_url", "model", "out")
        if not getattr(args, n)
    ]
    if missing:
        return _fail(f"author needs {', '.join(missing)}")
    if problem := _bad_url(args.base_url):
        return _fail(problem)
    try:
        brief = load_brief(args.brief)
    except InputError as exc:
        return _fail(str(exc))
    config = author_config(
        args.base_url,
        args.model,
        resolve_api_key(args.base_url).key,
        args.timeout or AUTHOR_REQUEST_TIMEOUT,
    )
    try:
        result = asyncio.run(author_document(config, brief))
    except AgentError as exc:
        return _fail(str(exc), EXIT_FAILED)
    except InputError as exc:
        return _fail(str(exc), EXIT_FAILED)
    except KeyboardInterrupt:
        return EXIT_CANCELLED
    out = Path(args.out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(result.html, encoding="utf-8")
    except OSError as exc:
        return _fail(f"{out}: cannot write ({exc.strerror or exc})")
    tokens = "not reported" if result.tokens is None else f"{result.tokens} tokens"
    print(f"Wrote {out} ({len(result.html)} characters) from the brief '{brief.title}'; {tokens}.")
    return EXIT_OK


# -- arl bundle ------------------------------------------------------------------------------


def _verify_lines(result: Any) -> list[str]:
    """stdout lines of a verification, one per finding."""
    lines = [f"TAMPERED {name}: {problem}" for name, problem in result.bad]
    lines += [f"PROBLEM {p}" for p in result.problems]
    red = result.rederivation
    if red is not None:
        word = "RESCORED" if red.engine_changed else "DIFFERENT"
        lines += [f"{word} {d.line()}" for d in red.differences]
        lines += [f"PROBLEM {p}" for p in red.problems]
        if red.differences:
            lines.append(red.headline())
    if result.signature is not None:
        # Always said, also beside other failures: a bad signature, an unknown signer and
        # an unsigned bundle are different facts.
        lines.append(
            ("BAD SIGNATURE " if result.signature.bad else "SIGNATURE ") + result.signature.line()
        )
    return lines


def cmd_bundle_verify(args: argparse.Namespace) -> int:
    from engine.bundle import OLD_FORMATS, BundleError, verify_bundle

    try:
        result = verify_bundle(args.path)
    except BundleError as exc:
        return _fail(str(exc))
    old = " (older format: its verdicts carry no evidence)" if result.format in OLD_FORMATS else ""
    sig = result.signature.line() if result.signature is not None else "signature not checked"
    if result.ok:
        print(
            f"OK: every file of {args.path} matches its manifest; every verdict and metric "
            f"re-derives from its own files; format {result.format}{old}; {sig}"
        )
        return EXIT_OK
    for line in _verify_lines(result):
        print(line)
    n_diff = len(result.rederivation.differences) if result.rederivation is not None else 0
    parts = []
    if result.bad:
        parts.append(f"{len(result.bad)} file(s) fail the manifest check")
    if result.problems:
        parts.append(f"{len(result.problems)} schema problem(s)")
    if n_diff:
        parts.append(f"{n_diff} verdict/metric difference(s)")
    if result.signature is not None and result.signature.bad:
        parts.append("a bad signature")
    if not parts:
        parts.append("it could not be re-derived")
    print(f"arl: {args.path}: {', '.join(parts)}", file=sys.stderr)
    return EXIT_TAMPERED


def cmd_bundle_export(args: argparse.Namespace) -> int:
    from engine.bundle import BundleError, export_zip, verify_bundle

    try:
        check = verify_bundle(args.folder)
        if not check.ok:
            for line in _verify_lines(check):
                print(line)
            print(f"arl: {args.folder}: fails verification; not exported", file=sys.stderr)
            return EXIT_TAMPERED
        dest = export_zip(args.folder, args.zip, overwrite=args.force)
    except BundleError as exc:
        return _fail(str(exc))
    print(f"Exported {args.folder} to {dest}")
    return EXIT_OK


def cmd_bundle_trust(args: argparse.Namespace) -> int:
    from engine import signing

    try:
        names = signing.set_trusted(args.fingerprint, args.name)
    except ValueError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{signing.trusted_keys_path()}: cannot write ({exc.strerror or exc})")
    fp = signing.normalise_fingerprint(args.fingerprint) or ""
    if args.name.strip():
        print(f"Trusted {fp} as {names[fp]!r}")
    else:
        print(f"{fp} is no longer trusted")
    return EXIT_OK


def cmd_bundle_show(args: argparse.Namespace) -> int:
    from engine import vocabulary as vocab
    from engine.bundle import BundleError, open_bundle
    from engine.safe_io import mask_url
    from engine.scorecard import agent_mode_of

    try:
        b = open_bundle(args.path)
    except BundleError as exc:
        return _fail(str(exc))
    from engine import signing

    if b.old_format:
        print(f"FORMAT {b.format}: an older bundle; its verdicts carry no evidence")
    print(f"SIGNATURE {signing.check_bundle(b).line()}")
    if b.tampered:
        print(f"TAMPERED: {', '.join(b.tampered)}")
    for p in b.problems:
        print(f"PROBLEM: {p}")
    if b.scripted:
        print("SCRIPTED DEMONSTRATION (not a real model)")
    print(f"{b.document_title}: run {b.status}" + (f" ({b.reason})" if b.reason else ""))
    print(
        f"model {b.model} at {mask_url(str(b.manifest.get('base_url')))}; {b.manifest.get('created_at')} "
        f"to {b.manifest.get('finished_at')}; {vocab.tokens_text(b.manifest.get('tokens'))}"
    )
    mode = agent_mode_of(b.manifest)
    if isinstance(mode.get("ran"), str):
        print(f"agent mode: {mode['ran']} ({mode.get('reason', '')})")
    forged = False
    if not b.tampered:
        from engine.rederive import rederive

        red = rederive(b)
        forged = red.forged
        if not red.ok:
            print(("FORGED: " if red.forged else "CHECK: ") + red.headline())
            if red.forged:
                print(
                    "The figures below are what the bundle states, not what its documents "
                    "show; arl bundle verify lists every difference."
                )
    for name, m in b.metrics.items():
        label = vocab.METRIC_TITLES.get(name, name)
        print(f"  {label}: {vocab.metric_text(name, m)}")
    return EXIT_TAMPERED if b.tampered or forged or b.problems else EXIT_OK


def cmd_bundle_publish(args: argparse.Namespace) -> int:
    """Publish to the publishing folder (``engine.published``); ``--to-workspace`` keeps
    the older behaviour: the scorecard as a document in the workspace."""
    from engine.bundle import BundleError, open_bundle, publish_scorecard
    from engine.workspace import Workspace, WorkspaceError

    if args.to_workspace:
        try:
            b = open_bundle(args.path)
            with Workspace(args.workspace) if args.workspace else Workspace() as ws:
                doc_id = publish_scorecard(ws, b)
        except (BundleError, WorkspaceError) as exc:
            return _fail(str(exc))
        print(
            f"Published the scorecard as document {doc_id}"
            + (" (the bundle is TAMPERED and is marked so)" if b.tampered else "")
        )
        return EXIT_OK
    from engine import published

    try:
        folder = published.set_published_folder(args.folder) if args.folder else None
        entry = published.publish(args.path, folder)
    except (BundleError, published.PublishError) as exc:
        return _fail(str(exc))
    where = folder or published.published_folder()
    print(f"Published {entry.document_title or entry.run_id} to {where}/{entry.scorecard}")
    print(f"Index: {where}/{published.INDEX_HTML}; signature: {entry.signature.get('line')}")
    if entry.tampered:
        print(f"TAMPERED: {entry.verification} (published marked so)")
    return EXIT_OK


def cmd_published_list(args: argparse.Namespace) -> int:
    from engine import published

    folder = args.folder or published.published_folder()
    if folder is None:
        return _fail("no publishing folder chosen yet (arl bundle publish B --folder DIR)")
    runs = published.entries(folder)
    if not runs:
        print(f"Nothing is published in {folder} yet")
        return EXIT_OK
    for i, e in enumerate(runs, 1):
        mark = "TAMPERED " if e.tampered else ""
        sig = e.signature.get("fingerprint") or e.signature.get("state", "")
        print(
            f"{i:>3}. {mark}{e.finished_at or e.created_at}  {e.model}  "
            f"{e.document_title!r}  {e.status}  [{sig}]  bundle: {e.bundle}"
        )
    return EXIT_OK


def _pick(args: argparse.Namespace) -> Any:
    from engine import published

    runs = published.entries(args.folder or published.published_folder())
    key = args.run
    if key.isdigit() and 1 <= int(key) <= len(runs):
        return runs[int(key) - 1]
    for e in runs:
        if e.run_id == key:
            return e
    return None


def cmd_published_open(args: argparse.Namespace) -> int:
    """Print (and with --browser open) a published run's scorecard, and its bundle."""
    from engine import published

    e = _pick(args)
    if e is None:
        return _fail(f"{args.run}: no such published run (arl published list numbers them)")
    folder = Path(args.folder or published.published_folder() or ".")
    page = folder / e.scorecard
    print(f"scorecard: {page}")
    print(f"bundle: {e.bundle}" + ("" if Path(e.bundle).exists() else " (no longer there)"))
    if args.browser:
        import webbrowser

        webbrowser.open(page.resolve().as_uri())
    return EXIT_OK


def cmd_published_export(args: argparse.Namespace) -> int:
    from engine import published

    try:
        out = published.export(args.dest, args.folder)
    except published.PublishError as exc:
        return _fail(str(exc))
    print(f"Copied the published scorecards and their index to {out}")
    return EXIT_OK


# -- arl doctor ------------------------------------------------------------------------------


def cmd_doctor(args: argparse.Namespace) -> int:
    import asyncio

    from engine.doctor import FAIL, run_checks

    if problem := _bad_url(args.base_url):
        return _fail(problem)
    key = resolve_api_key(args.base_url).key
    checks = asyncio.run(run_checks(args.base_url, args.model, key, qt=not args.no_qt))
    from engine.redact import redact

    for c in checks:
        print(redact(c.line()), flush=True)
    return EXIT_FAILED if any(c.status == FAIL and not c.handled for c in checks) else EXIT_OK


# -- arl comments ----------------------------------------------------------------------------


def _write_json(obj: Any, out: str | None, inputs: tuple[str, ...] = ()) -> int:
    """Write ``obj`` as JSON to ``out`` (atomically) or stdout. Refuses, writing nothing, an
    ``out`` that is one of the command's own ``inputs`` or is not a regular file."""
    text = json.dumps(obj, ensure_ascii=False, indent=1) + "\n"
    if not out:
        sys.stdout.write(text)
        return EXIT_OK
    target = Path(out)
    for src in inputs:
        try:
            if target.exists() and os.path.samefile(target, src):
                return _fail(f"{out}: is the command's own input {src}; choose another --out")
        except OSError:
            pass
    if target.exists() and not target.is_file():
        return _fail(f"{out}: not a regular file (a folder, a device or a FIFO)")
    tmp = target.with_name(target.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        return _fail(f"{out}: cannot write ({exc.strerror or exc})")
    return EXIT_OK


def cmd_comments_export(args: argparse.Namespace) -> int:
    """Native (or W3C) comments -> W3C AnnotationCollection (code-point positions)."""
    from engine.comments_io import comments_to_w3c
    from engine.documents import DocumentError
    from engine.models import InputError

    try:
        _, _, version, comments, unusable = _read_doc_and_comments(args.doc, args.comments)
    except (DocumentError, InputError) as exc:
        return _fail(str(exc))
    for cid, reason in unusable:
        print(
            f"arl: {os.path.basename(args.comments)}: comment {cid} skipped: {reason}",
            file=sys.stderr,
        )
    # Positions are written against --doc: a comment whose quote is not in it would be
    # exported with positions that point at other text.
    from engine.scoring import score

    missing = dict(score(version, version, comments).unusable)
    for cid, reason in missing.items():
        print(
            f"arl: {os.path.basename(args.comments)}: comment {cid} does not fit "
            f"{os.path.basename(args.doc)}: {reason}",
            file=sys.stderr,
        )
    if comments and len(missing) == len(comments):
        return _fail(
            f"{args.comments}: none of its comments fits {args.doc}; is it the "
            "document they were made on? Nothing written"
        )
    fitting = [c for c in comments if c.id not in missing]
    return _write_json(
        comments_to_w3c(fitting, version.text, args.source or ""),
        args.out,
        (args.doc, args.comments),
    )


def cmd_comments_import(args: argparse.Namespace) -> int:
    """W3C (or native) comments -> native shape (UTF-16 offsets)."""
    from engine.documents import DocumentError
    from engine.models import InputError

    try:
        _, _, version, comments, unusable = _read_doc_and_comments(args.doc, args.annotations)
    except (DocumentError, InputError) as exc:
        return _fail(str(exc))
    for cid, reason in unusable:
        print(
            f"arl: {os.path.basename(args.annotations)}: annotation {cid} skipped: {reason}",
            file=sys.stderr,
        )
    if not comments:
        return _fail(f"{args.annotations}: no annotation could be imported; nothing written")
    # As `comments export` does: say which quotes --doc does not hold (their positions were
    # converted against text they were not made on). They are still written: the file may
    # be meant for another version.
    from engine.scoring import score

    for cid, reason in score(version, version, comments).unusable:
        print(
            f"arl: {os.path.basename(args.annotations)}: annotation {cid} does not fit "
            f"{os.path.basename(args.doc)}: {reason}",
            file=sys.stderr,
        )
    return _write_json(
        {"comments": [c.to_json() for c in comments]}, args.out, (args.doc, args.annotations)
    )


# -- registration ----------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    """Add ``run``, ``author``, ``bundle``, ``doctor`` and ``comments`` to ``arl``."""
    r = subparsers.add_parser(
        "run",
        help="run the revision agent on a document and its comments; write an evidence bundle",
    )
    r.add_argument("--doc", required=True, metavar="DOC", help="the document (HTML or text)")
    r.add_argument(
        "--comments",
        required=True,
        metavar="FILE",
        help="comments: native JSON or W3C Web Annotation JSON",
    )
    r.add_argument(
        "--base-url",
        required=True,
        metavar="URL",
        help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8089/v1",
    )
    r.add_argument("--model", required=True, metavar="NAME")
    r.add_argument(
        "--rounds", type=_positive, default=3, metavar="N", help="round limit (default 3)"
    )
    r.add_argument(
        "--max-tokens",
        type=_positive,
        default=None,
        metavar="N",
        help="token limit of the whole run (default: none)",
    )
    r.add_argument(
        "--turns",
        type=_positive,
        default=16,
        metavar="N",
        help="model turns per round (default 16)",
    )
    r.add_argument(
        "--timeout",
        type=_seconds,
        default=120.0,
        metavar="S",
        help="request timeout in seconds (default 120)",
    )
    r.add_argument(
        "--retries",
        type=int,
        default=3,
        metavar="N",
        help="retries on 429, 5xx and timeouts (default 3)",
    )
    r.add_argument(
        "--max-output-tokens",
        type=_positive,
        default=None,
        metavar="N",
        help="completion-token cap of each work call (default: the server's)",
    )
    r.add_argument(
        "--mode",
        choices=("tools", "no-tools", "auto"),
        default="tools",
        help="tools: the model calls the five tools (default); no-tools: one plain request "
        "per round for the revised document and a disposition per comment, the program "
        "does the tool work (models without tool calling); auto: tools, switching to "
        "no-tools when the server refuses tools or the model calls none in two turns",
    )
    r.add_argument(
        "--echo-tool-results",
        action="store_true",
        help="also repeat tool results in a user message, for servers whose chat "
        "template drops tool messages (llama-cpp-python's "
        "chatml-function-calling)",
    )
    r.add_argument(
        "--out",
        metavar="DIR",
        help="parent folder of the evidence bundle (default: the workspace's bundles folder)",
    )
    r.add_argument(
        "--title", help="document title (default: the HTML <title> or the text's first line)"
    )
    r.add_argument("--workspace", metavar="FILE", help=argparse.SUPPRESS)
    r.add_argument(
        "--json", action="store_true", help='last stdout line: {"bundle", "status", "metrics"}'
    )
    r.add_argument(
        "--no-sign",
        action="store_true",
        help="do not sign the evidence bundle (runs sign with your key by default)",
    )
    r.set_defaults(func=cmd_run)

    a = subparsers.add_parser("author", help="write a v1 document from a brief")
    a.add_argument(
        "--brief", metavar="NAME|FILE", help="a shipped brief (see --list-briefs) or a brief file"
    )
    a.add_argument("--base-url", metavar="URL")
    a.add_argument("--model", metavar="NAME")
    a.add_argument("--out", metavar="FILE", help="where to write the HTML document")
    a.add_argument(
        "--timeout",
        type=_seconds,
        default=None,
        metavar="S",
        help="request timeout in seconds (default: engine.author.AUTHOR_REQUEST_TIMEOUT, "
        "5 minutes, the same as the desktop program's)",
    )
    a.add_argument("--list-briefs", action="store_true", help="list the shipped briefs")
    a.set_defaults(func=cmd_author)

    b = subparsers.add_parser("bundle", help="verify, export, show or publish evidence bundles")
    bsub = b.add_subparsers(dest="bundle_command", metavar="ACTION", required=True)
    v = bsub.add_parser(
        "verify",
        help="check hashes, schemas, re-derived verdicts and the signature (exit 3 if not)",
    )
    v.add_argument("path", metavar="PATH", help="bundle folder or .zip")
    v.set_defaults(func=cmd_bundle_verify)
    e = bsub.add_parser("export", help="write a bundle folder as one .zip")
    e.add_argument("folder", metavar="DIR")
    e.add_argument("zip", metavar="ZIP")
    e.add_argument("--force", action="store_true", help="replace ZIP if it exists")
    e.set_defaults(func=cmd_bundle_export)
    t = bsub.add_parser(
        "trust", help="name a signer's fingerprint as trusted (empty name: untrust)"
    )
    t.add_argument(
        "fingerprint", metavar="FINGERPRINT", help='16 hex digits, e.g. "3f2a 9c01 77be 0d42"'
    )
    t.add_argument("name", metavar="NAME", help='who it is, e.g. "the review team\'s laptop"')
    t.set_defaults(func=cmd_bundle_trust)
    s = bsub.add_parser("show", help="print a bundle's status and metrics")
    s.add_argument("path", metavar="PATH")
    s.set_defaults(func=cmd_bundle_show)
    p = bsub.add_parser(
        "publish", help="publish the scorecard to the publishing folder (index.html + page)"
    )
    p.add_argument("path", metavar="PATH")
    p.add_argument("--folder", metavar="DIR", help="choose (and remember) the publishing folder")
    p.add_argument("--to-workspace", action="store_true", help="store it in the workspace instead")
    p.add_argument("--workspace", metavar="FILE", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_bundle_publish)

    pub = subparsers.add_parser("published", help="list, open or export published scorecards")
    psub = pub.add_subparsers(dest="published_command", metavar="ACTION", required=True)
    pl = psub.add_parser("list", help="published runs, newest first, with their bundles")
    pl.add_argument("--folder", metavar="DIR")
    pl.set_defaults(func=cmd_published_list)
    po = psub.add_parser("open", help="a published run's scorecard and bundle")
    po.add_argument("run", metavar="N|RUN_ID", help="number from 'arl published list', or run id")
    po.add_argument("--folder", metavar="DIR")
    po.add_argument("--browser", action="store_true", help="open the scorecard in a browser")
    po.set_defaults(func=cmd_published_open)
    pe = psub.add_parser("export", help="copy every published scorecard and the index to DIR")
    pe.add_argument("dest", metavar="DIR")
    pe.add_argument("--folder", metavar="DIR")
    pe.set_defaults(func=cmd_published_export)

    d = subparsers.add_parser(
        "doctor", help="check Python, Qt, keyring, workspace and the model endpoint"
    )
    d.add_argument("--base-url", metavar="URL")
    d.add_argument("--model", metavar="NAME")
    d.add_argument("--no-qt", action="store_true", help=argparse.SUPPRESS)
    d.set_defaults(func=cmd_doctor)

    c = subparsers.add_parser("comments", help="W3C Web Annotation import and export")
    csub = c.add_subparsers(dest="comments_command", metavar="ACTION", required=True)
    ce = csub.add_parser("export", help="comments -> W3C AnnotationCollection")
    ce.add_argument(
        "--doc", required=True, metavar="DOC", help="the document the comments were made on"
    )
    ce.add_argument("--comments", required=True, metavar="FILE")
    ce.add_argument("--out", metavar="FILE", help="default: stdout")
    ce.add_argument("--source", metavar="IRI", help="target source IRI to record")
    ce.set_defaults(func=cmd_comments_export)
    ci = csub.add_parser("import", help="W3C Web Annotation JSON -> native comments")
    ci.add_argument(
        "--doc", required=True, metavar="DOC", help="the document the annotations were made on"
    )
    ci.add_argument("--annotations", "--w3c", required=True, metavar="FILE")
    ci.add_argument("--out", metavar="FILE", help="default: stdout")
    ci.set_defaults(func=cmd_comments_import)
