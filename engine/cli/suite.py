"""``arl suite``: review suites from the command line (``docs/suites.md``).

Subcommands: ``new``, ``estimate``, ``run``, ``resume``, ``report`` here; ``history``,
``compare`` and ``merge`` in ``engine.cli.suite_results``. Exit codes: 0 done; 4 a gate
blocked (a ``--fail-under``/``--fail-over`` threshold is FAIL or UNVERIFIED, or with
``--gate`` a run's declared checks end with changes requested); 2 unusable input (one line naming the file and the problem); 130 interrupted
(the suite run is kept and resumable).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

# One whole-number rule for every arl option, and one error line (redacted) for every command.
from engine.cli.common import confirm, fail, whole_number
from engine.cli.parser import Registrar
from engine.cli.suite_results import EXIT_GATE, print_document, store_option, suite_store
from engine.vocabulary import plural

EXIT_OK, EXIT_INPUT, EXIT_INTERRUPTED = 0, 2, 130


def _positive_float(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(x) or x <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a number above 0")
    return x


def _key_for(spec: Any) -> str | None:
    if spec.api_key_env:
        return os.environ.get(spec.api_key_env) or None
    from engine.cli.loop import resolve_api_key

    return resolve_api_key(spec.base_url).key


def _load(args: argparse.Namespace) -> tuple[Any, list[Any], tuple[int, int] | None]:
    from engine.suite.suite import (
        allowed_key_variables,
        check_key_variables,
        expand_items,
        load_suite,
        parse_shard,
        shard_items,
    )

    suite = load_suite(
        args.suite, seed=args.seed, allow_outside=bool(getattr(args, "allow_outside_files", False))
    )
    check_key_variables(suite, allowed_key_variables(getattr(args, "key_env", None)))
    suite.allow_commands = bool(getattr(args, "allow_commands", False))
    shard = parse_shard(getattr(args, "shard", None))
    return suite, shard_items(expand_items(suite), shard), shard


# -- new ---------------------------------------------------------------------------------------


def cmd_new(args: argparse.Namespace) -> int:
    from engine.suite.suite import SuiteError, write_suite_template

    try:
        path = write_suite_template(
            args.file, args.base_url, args.model, args.name, force=args.force
        )
    except SuiteError as exc:
        return fail(str(exc))
    print(f"Wrote {path}. Edit the models, then: arl suite estimate {path}")
    return EXIT_OK


# -- estimate ------------------------------------------------------------------------------


def cmd_estimate(args: argparse.Namespace) -> int:
    from engine.suite.estimate import estimate_suite, render_estimate
    from engine.suite.suite import SuiteError

    try:
        suite, items, _ = _load(args)
        est = estimate_suite(suite, items)
    except SuiteError as exc:
        return fail(str(exc))
    if args.json:
        from engine.suite.suite import suite_disclosure

        print(json.dumps({**est.to_json(), "reads_and_sends": suite_disclosure(suite)}, indent=1))
    else:
        print(render_estimate(est, suite))
    return EXIT_OK


# -- run / resume --------------------------------------------------------------------------


def _limits(args: argparse.Namespace) -> Any:
    from engine.suite.runner import SuiteLimits

    return SuiteLimits(
        max_total_tokens=args.max_total_tokens,
        max_total_cost=args.max_total_cost,
        time_limit=args.time_limit * 60 if args.time_limit else None,
        concurrency=args.concurrency,
    )


def _execute(
    store: Any, suite: Any, suite_id: str, items: list[Any], args: argparse.Namespace
) -> int:
    import asyncio

    from engine.suite.runner import execute_suite
    from engine.suite.store import write_results
    from engine.suite.suite import SuiteError

    def on_event(ev: Any) -> None:
        print(ev.describe(), flush=True)

    # The same signal rule as arl run: the first Ctrl-C, SIGTERM or SIGHUP cancels the
    # suite's task (runs in flight end cancelled with their bundles); later ones never
    # interrupt the bookkeeping.
    from engine.cli.common import StopSignals

    try:
        with StopSignals() as stop:
            stop.run(
                execute_suite(
                    store,
                    suite,
                    suite_id,
                    items,
                    _limits(args),
                    key_for=_key_for,
                    on_event=on_event,
                )
            )
    except (asyncio.CancelledError, KeyboardInterrupt):
        store.set_run_status(
            suite_id, "interrupted", f"interrupted; resume it with arl suite resume {suite_id}"
        )
        print(
            f"arl: suite run {suite_id} interrupted; what finished is kept. Resume: "
            f"arl suite resume {suite_id}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    except SuiteError as exc:
        return fail(str(exc))
    write_results(store, suite_id)
    return _finish(store, suite_id, args)


def _finish(store: Any, suite_id: str, args: argparse.Namespace) -> int:
    from engine.suite.report import build_report, gate, parse_thresholds, render_report

    row = store.run_row(suite_id)
    from engine.suite.tamper import tampered_runs

    items = store.items(suite_id)
    tampered = tampered_runs(items)
    report = build_report(
        items, name=row.name, fingerprint=row.fingerprint, seed=row.seed, tampered=tampered
    )
    if getattr(args, "html", None):
        if (code := _write_html(row, items, tampered, Path(args.html))) != EXIT_OK:
            return code
    try:
        under = parse_thresholds(getattr(args, "fail_under", None))
        over = parse_thresholds(getattr(args, "fail_over", None))
    except ValueError as exc:
        return fail(f"--fail-under/--fail-over: {exc}")
    results = gate(report, under, over)
    if getattr(args, "json", False):
        print(
            json.dumps(
                {
                    "suite_id": suite_id,
                    "status": row.status,
                    "stop_reason": row.stop_reason,
                    "report": report,
                    "gate": [r.__dict__ for r in results],
                },
                indent=1,
            )
        )
    else:
        print()
        print(render_report(report))
        if row.status != "finished":
            print(
                f"\nSuite run {suite_id} {row.status}: {row.stop_reason}. Resume: "
                f"arl suite resume {suite_id}"
            )
        if results:
            print("\nGate:")
            for r in results:
                print("  " + r.line())
    if any(r.outcome != "PASS" for r in results):
        return EXIT_GATE
    if getattr(args, "gate", False) and (blocked := _checks_blocked(store.items(suite_id))):
        ends = "ends" if len(blocked) == 1 else "end"
        print(
            f"\nGate: {plural(len(blocked), 'run')} {ends} with changes requested "
            "(declared checks):"
        )
        for key in blocked:
            print(f"  {key}")
        return EXIT_GATE
    return EXIT_OK


def _write_html(row: Any, items: list[Any], tampered: dict[str, str], out: Path) -> int:
    """The self-contained HTML report (engine.suite.html_report) into ``out``."""
    from engine.suite.html_report import write_suite_page

    try:
        page = write_suite_page(
            items,
            out,
            name=row.name,
            fingerprint=row.fingerprint,
            seed=row.seed,
            tampered=tampered,
        )
    except OSError as exc:
        return fail(f"{out}: cannot write the report ({exc.strerror or exc})")
    print(f"Report page: {page}", file=sys.stderr)
    return EXIT_OK


def _checks_blocked(items: list[Any]) -> list[str]:
    """The runs whose bundle's declared checks block ("changes requested")."""
    out = []
    for it in items:
        if not it.bundle:
            continue
        p = Path(it.bundle) / "checks.json"
        try:
            data = json.loads(p.read_text(encoding="utf-8")) if p.is_file() else {}
        except (OSError, ValueError):
            data = {}
        if isinstance(data, dict) and data.get("outcome") == "changes requested":
            out.append(it.key)
    return out


def cmd_run(args: argparse.Namespace) -> int:
    from engine.suite.estimate import estimate_suite, render_estimate
    from engine.suite.runner import new_suite_run
    from engine.suite.store import SuiteStoreError
    from engine.suite.suite import SuiteError

    try:
        suite, items, shard = _load(args)
        est = estimate_suite(suite, items)
    except SuiteError as exc:
        return fail(str(exc))
    print(render_estimate(est, suite))
    from engine.cli.checks import announce_commands

    announce_commands(suite.checks, suite.allow_commands)
    if args.max_total_cost is not None and est.unpriced:
        return fail(
            f"--max-total-cost needs prices for every model; none for "
            f"{', '.join(est.unpriced)} (price_input and price_output in {args.suite})"
        )
    if not confirm(f"\nStart {plural(len(items), 'run')}?", args.yes):
        return EXIT_INPUT if not args.yes else EXIT_OK
    out = Path(args.out) if args.out else None
    try:
        with suite_store(args) as store:
            from engine.workspace import default_home

            base = out or default_home() / "suites"
            settings = {
                "concurrency": args.concurrency,
                "max_total_tokens": args.max_total_tokens,
                "max_total_cost": args.max_total_cost,
                "time_limit_min": args.time_limit,
            }
            suite_id = new_suite_run(store, suite, items, base, shard, settings)
            print(f"\nSuite run {suite_id}; bundles under {store.run_row(suite_id).out_dir}")
            return _execute(store, suite, suite_id, items, args)
    except SuiteStoreError as exc:
        return fail(str(exc))


def cmd_resume(args: argparse.Namespace) -> int:
    from engine.suite.store import SuiteStoreError
    from engine.suite.suite import SuiteError, expand_items, load_suite, parse_shard, shard_items

    try:
        with suite_store(args) as store:
            row = store.run_row(args.id)
            if row.status == "finished":
                print(f"Suite run {args.id} already finished; nothing to resume.")
                return _finish(store, args.id, args)
            if not row.suite_path:
                return fail(f"suite run {args.id} has no suite file to resume from")
            try:
                from engine.suite.suite import allowed_key_variables, check_key_variables

                suite = load_suite(
                    row.suite_path,
                    seed=row.seed,
                    allow_outside=bool(getattr(args, "allow_outside_files", False)),
                )
                check_key_variables(suite, allowed_key_variables(getattr(args, "key_env", None)))
            except SuiteError as exc:
                return fail(str(exc))
            suite.allow_commands = bool(getattr(args, "allow_commands", False))
            if suite.fingerprint() != row.fingerprint:
                return fail(
                    f"{row.suite_path}: the suite (documents, comments, models, "
                    f"variants or limits) changed since suite run {args.id} "
                    "started; start a new suite run instead"
                )
            items = shard_items(expand_items(suite), parse_shard(row.shard))
            return _execute(store, suite, args.id, items, args)
    except SuiteStoreError as exc:
        return fail(str(exc))


# -- report --------------------------------------------------------------------------------


def cmd_report(args: argparse.Namespace) -> int:
    from engine.suite.store import SuiteStoreError

    try:
        with suite_store(args) as store:
            store.run_row(args.id)
            if getattr(args, "document", None):
                return print_document(store.items(args.id), args)
            return _finish(store, args.id, args)
    except SuiteStoreError as exc:
        return fail(str(exc))


# -- registration --------------------------------------------------------------------------


def registrars() -> list[Registrar]:
    """The registrar of ``suite`` (``engine.cli.parser``)."""
    return [register]


def register(subparsers: Any) -> None:
    """Add ``suite`` and its subcommands (new, estimate, run, resume, report, history,
    compare, merge) to ``arl``."""
    from engine.cli import suite_results as cli_suite_results

    s = subparsers.add_parser("suite", help="run review suites across models and instructions")
    sub = s.add_subparsers(dest="suite_cmd", metavar="COMMAND")
    _register_new(sub)
    _register_estimate(sub)
    _register_run(sub)
    _register_resume(sub)
    _register_report(sub)
    cli_suite_results.register(sub)

    def no_sub(args: argparse.Namespace) -> int:
        s.print_help()
        return EXIT_INPUT

    s.set_defaults(func=no_sub)


def _register_new(sub: Any) -> None:
    n = sub.add_parser("new", help="write a commented suite file to start from")
    n.add_argument("file", help="the new suite file (.toml)")
    n.add_argument("--base-url", default="http://127.0.0.1:8089/v1")
    n.add_argument("--model", default="smollm2-135m")
    n.add_argument("--name", help="the suite's name (default: the file name)")
    n.add_argument("--force", action="store_true", help="replace an existing file")
    n.set_defaults(func=cmd_new)


def _input_options(p: argparse.ArgumentParser) -> None:
    """What a suite file may read and which key variables it may send."""
    p.add_argument(
        "--allow-outside-files",
        action="store_true",
        help="let the suite read files outside its own folder (documents, comments, "
        "instructions, checks)",
    )
    p.add_argument(
        "--key-env",
        action="append",
        metavar="NAME",
        help="an environment variable a model's api_key_env may name (repeatable; "
        "also ARL_KEY_ENVS)",
    )


def _register_estimate(sub: Any) -> None:
    e = sub.add_parser("estimate", help="price a suite without calling any model")
    e.add_argument("suite", help="suite file (.toml or .json)")
    _input_options(e)
    e.add_argument("--seed", type=int, help="seed for sample:N documents (default: the file's)")
    e.add_argument("--shard", metavar="I/N", help="only this shard's runs")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_estimate)


def _limit_options(p: argparse.ArgumentParser) -> None:
    """The limits and gate options of ``run`` and ``resume``."""
    p.add_argument("--max-total-tokens", type=whole_number, metavar="N")
    p.add_argument(
        "--max-total-cost",
        type=_positive_float,
        metavar="X",
        help="in the models' currency (needs their prices)",
    )
    p.add_argument(
        "--time-limit",
        type=_positive_float,
        metavar="MIN",
        help="minutes; runs still going then are cancelled and resumable",
    )
    p.add_argument(
        "--concurrency",
        type=whole_number,
        default=1,
        metavar="K",
        help="runs at once (default 1)",
    )
    p.add_argument(
        "--fail-under",
        metavar="M=X,...",
        help="CI gate: exit 4 unless each mean is at least X, e.g. "
        "attribution=0.6,claim_accuracy=0.8",
    )
    p.add_argument(
        "--fail-over",
        metavar="M=X,...",
        help="CI gate: exit 4 unless each mean is at most X, e.g. churn=0.2",
    )
    p.add_argument(
        "--allow-commands",
        action="store_true",
        help="let the suite's [[command]] checks run (without it they read UNVERIFIED)",
    )
    p.add_argument(
        "--gate",
        action="store_true",
        help="exit 4 when a run's declared checks end with changes requested",
    )
    p.add_argument("--json", action="store_true")
    _input_options(p)
    store_option(p)


def _register_run(sub: Any) -> None:
    r = sub.add_parser("run", help="run a suite (shows the estimate first)")
    r.add_argument("suite", help="suite file (.toml or .json)")
    r.add_argument("--yes", action="store_true", help="start without asking")
    r.add_argument("--seed", type=int, help="seed for sample:N documents (default: the file's)")
    r.add_argument("--shard", metavar="I/N", help="run only shard I of N (CI job matrices)")
    r.add_argument("--out", metavar="DIR", help="where suite runs go (default <home>/suites)")
    _limit_options(r)
    r.set_defaults(func=cmd_run)


def _register_resume(sub: Any) -> None:
    rs = sub.add_parser("resume", help="finish an interrupted or stopped suite run")
    rs.add_argument("id", help="suite run id (arl suite history)")
    _limit_options(rs)
    rs.set_defaults(func=cmd_resume)


def _register_report(sub: Any) -> None:
    rp = sub.add_parser("report", help="a suite run's report")
    rp.add_argument("id")
    rp.add_argument("--fail-under", metavar="M=X,...")
    rp.add_argument("--fail-over", metavar="M=X,...")
    rp.add_argument("--json", action="store_true")
    rp.add_argument("--html", metavar="DIR", help="also write a self-contained page into DIR")
    rp.add_argument(
        "--document",
        metavar="DOC",
        help="one document's verdicts, every combination and repeat side by side",
    )
    store_option(rp)
    rp.set_defaults(func=cmd_report)
