"""The review-loop commands of ``arl``: ``run``, ``author`` and ``doctor`` here; ``bundle``
and ``published`` in ``engine.cli.bundle``, ``comments`` in ``engine.cli.comments``.

``engine.cli.loop_options`` holds their options and ``register(subparsers)``, which
``engine.cli.main`` calls; each subcommand sets ``func(args) -> int``. What they share (exit codes, the error line, option types, stop
signals) is in ``engine.cli.common``.

Exit codes: 0 done (for ``run``: completed, whatever the verdicts), 1 failed (model,
network), 2 unusable input (one line on stderr naming the file and the problem, never a
traceback), 3 a bundle that fails its manifest check, 4 a gate blocked (``run --gate`` and
a declared check that FAILs, docs/checks.md), 130 cancelled.

The API key for ``run``, ``author`` and ``doctor`` follows the one rule of
``engine.credentials``: ``OPENAI_API_KEY`` overrides the keyring, whose keys are stored per
endpoint host; else none (local servers). The engine never imports keyring: the ``arl``
entry point (``arl_keys.cli``) installs the keyring look-up with
``engine.cli.common.set_key_provider``;
without it only the environment is read. The key is never printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from engine.cli.checks import (
    EXIT_GATE,
    announce_commands,
    load_checks_option,
)
from engine.cli.common import (
    EXIT_CANCELLED,
    EXIT_FAILED,
    EXIT_OK,
    StopSignals,
    fail,
    key_provider,
    read_doc_and_comments,
    signing_provider,
)
from engine.cli.decisions import take_from_bundle
from engine.credentials import KeyChoice, choose_api_key
from engine.vocabulary import plural


def signing_key_for_run() -> tuple[bytes, str]:
    """(key material, one line saying which key signs and where it is kept)."""
    from engine.bundle import signing

    if signing_provider:
        material, where, note = signing_provider[0]()
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

    choice = key_provider[0](base_url) if key_provider else choose_api_key(base_url)
    remember(choice.key)  # redacted from everything printed or stored from now on
    return choice


def default_title(path: str, kind: str, raw: str) -> str:
    """A document's title (``engine.text.titles.document_title``)."""
    from engine.text.titles import document_title

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


def _estimate_first(args: argparse.Namespace, raw: str, comments: list[Any]) -> int | None:
    """The estimate and its confirmation, as a suite has (``engine.suite.estimate``, one
    model of a run's tokens; ``arl suite run``'s ``--yes``): printed before anything is
    sent. Returns an exit code when the run must not start, else None."""
    from engine.cli.common import confirm
    from engine.suite.estimate import estimate_run, render_run_estimate

    if (args.price_input is None) != (args.price_output is None):
        return fail("--price-input and --price-output: give both prices, or neither")
    est = estimate_run(
        raw,
        comments,
        mode=args.mode,
        rounds=args.rounds,
        turns=args.turns,
        price_input=args.price_input,
        price_output=args.price_output,
        currency=args.currency or "",
    )
    out = sys.stderr if args.json else sys.stdout  # --json: stdout holds the JSON alone
    print(render_run_estimate(est), file=out, flush=True)
    return None if confirm("Start the run?", args.yes) else 2


def cmd_run(args: argparse.Namespace) -> int:
    from engine.checks.runner import suffix_for
    from engine.credentials import sent_to_words
    from engine.events import RunEvent, RunFailed, RunFinished
    from engine.models import InputError
    from engine.run.records import RunHandle
    from engine.run.start import ReviewRequest, start_review
    from engine.text.documents import DocumentError

    if problem := _bad_url(args.base_url):
        return fail(problem)
    if args.out and Path(args.out).exists() and not Path(args.out).is_dir():
        # Said before any model call: the bundle goes into this folder at the end.
        return fail(f"{args.out}: not a folder (--out names the folder the bundle goes in)")
    if taken := take_from_bundle(args):  # --from BUNDLE: its document and comments
        return fail(*taken)
    try:
        checks = load_checks_option(args.checks)
        kind, raw, version, comments, unusable = read_doc_and_comments(args.doc, args.comments)
    except (DocumentError, InputError) as exc:
        return fail(str(exc))
    source = args.comments or args.doc
    if not comments:
        why = f" ({unusable[0][0]}: {unusable[0][1]})" if unusable else ""
        return fail(f"{source}: no usable comments in the file{why}")
    # Which comments fit the document is known before any model call: a run whose
    # comments all miss the document would "converge" at once and prove nothing.
    from engine.score.scoring import score as _score

    check = _score(version, version, comments)
    unusable = unusable + check.unusable
    name = os.path.basename(source)
    for cid, reason in unusable:
        print(f"arl: {name}: comment {cid} skipped: {reason}", file=sys.stderr)
    if not check.verdicts:
        return fail(
            f"{source}: none of its {plural(len(comments), 'comment')} fits "
            f"{os.path.basename(args.doc)} ({unusable[0][0]}: {unusable[0][1]})"
        )
    if not check.actionable_ids and not any(v.verdict == "stale_anchor" for v in check.verdicts):
        return fail(
            f"{source}: no comment is actionable and open, so there is "
            "nothing for the agent to address"
        )
    choice = resolve_api_key(args.base_url)
    request = ReviewRequest(
        config=_agent_config(args, choice),
        title=args.title or default_title(args.doc, kind, raw),
        raw=raw,
        kind=kind,
        comments=comments,
        rounds=args.rounds,
        out_dir=Path(args.out) if args.out else None,
        workspace_path=Path(args.workspace) if args.workspace else None,
        key_source=choice.describe(),
        checks=checks,
        allow_commands=args.allow_commands,
        doc_suffix=suffix_for(kind, args.doc),
    )
    announce_commands(checks, args.allow_commands)
    _word_revision_option(args, request)
    out = sys.stderr if args.json else sys.stdout  # --json: stdout holds the JSON alone
    if (code := _estimate_first(args, raw, comments)) is not None:
        return code
    print(sent_to_words(request.config.base_url), file=out, flush=True)
    if not args.no_sign:
        request.signing_key, sign_line = signing_key_for_run()
        print(sign_line, file=out, flush=True)
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


def _word_revision_option(args: argparse.Namespace, request: Any) -> None:
    """A run whose --doc is a Word file gets the agent's revision back as a copy of it with
    tracked changes (``engine.run.start.word_revision_of_run``): to --word-revision, else
    beside the bundle folder."""
    from engine.text.documents import WORD_EXTENSIONS

    if args.doc and Path(args.doc).suffix.lower() in WORD_EXTENSIONS:
        request.word_source = Path(args.doc).read_bytes()
        request.word_out = Path(args.word_revision) if args.word_revision else None


def _agent_config(args: argparse.Namespace, choice: KeyChoice) -> Any:
    """The ``AgentConfig`` of ``arl run``'s options and the chosen key."""
    from engine.agent.config import AgentConfig

    return AgentConfig(
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


def _run_and_report(
    stop: StopSignals, coro: Any, args: argparse.Namespace, finished: dict[str, Any]
) -> int:
    """Run under ``stop``; print the ``--json`` line; the exit code."""
    import asyncio

    from engine.workspace import WorkspaceError

    try:
        outcome = stop.run(coro)
    except WorkspaceError as exc:
        return fail(str(exc))
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
    if outcome.checks_blocked and not args.json:
        print("CHANGES REQUESTED: a declared check blocks approval (the bundle's checks.json)")
    if outcome.status == "completed":
        if getattr(args, "gate", False) and outcome.checks_blocked:
            return EXIT_GATE
        return EXIT_OK
    if outcome.status == "cancelled":
        return EXIT_CANCELLED
    return EXIT_FAILED


# -- arl author ------------------------------------------------------------------------------


def cmd_author(args: argparse.Namespace) -> int:
    import asyncio

    from engine.agent.config import AgentError
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
        return fail(f"author needs {', '.join(missing)}")
    if problem := _bad_url(args.base_url):
        return fail(problem)
    try:
        brief = load_brief(args.brief)
    except InputError as exc:
        return fail(str(exc))
    config = author_config(
        args.base_url,
        args.model,
        resolve_api_key(args.base_url).key,
        args.timeout or AUTHOR_REQUEST_TIMEOUT,
    )
    try:
        result = asyncio.run(author_document(config, brief))
    except AgentError as exc:
        return fail(str(exc), EXIT_FAILED)
    except InputError as exc:
        return fail(str(exc), EXIT_FAILED)
    except KeyboardInterrupt:
        return EXIT_CANCELLED
    out = Path(args.out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(result.html, encoding="utf-8")
    except OSError as exc:
        return fail(f"{out}: cannot write ({exc.strerror or exc})")
    tokens = "not reported" if result.tokens is None else f"{result.tokens} tokens"
    print(f"Wrote {out} ({len(result.html)} characters) from the brief '{brief.title}'; {tokens}.")
    return EXIT_OK


# -- arl doctor ------------------------------------------------------------------------------


def cmd_doctor(args: argparse.Namespace) -> int:
    import asyncio

    from engine.doctor import FAIL, run_checks

    if problem := _bad_url(args.base_url):
        return fail(problem)
    key = resolve_api_key(args.base_url).key
    checks = asyncio.run(run_checks(args.base_url, args.model, key, qt=not args.no_qt))
    from engine.redact import redact

    for c in checks:
        print(redact(c.line()), flush=True)
    return EXIT_FAILED if any(c.status == FAIL and not c.handled for c in checks) else EXIT_OK
