"""``arl suite``: review suites from the command line (``docs/suites.md``).

Subcommands: ``estimate``, ``run``, ``resume``, ``report``, ``history``, ``compare``,
``merge``. Exit codes: 0 done; 1 a ``--fail-under``/``--fail-over`` threshold is FAIL or
UNVERIFIED; 2 unusable input (one line naming the file and the problem); 130 interrupted
(the suite run is kept and resumable).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

# One whole-number rule for every arl option, and one error line (redacted) for every command.
from engine.cli_common import fail as _fail, whole_number as _positive

EXIT_OK, EXIT_GATE, EXIT_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


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
    from engine.cli_loop import resolve_api_key

    return resolve_api_key(spec.base_url).key


def _store(args: argparse.Namespace) -> Any:
    from engine.suite_store import SuiteStore

    return SuiteStore(args.store) if getattr(args, "store", None) else SuiteStore()


def _load(args: argparse.Namespace) -> tuple[Any, list[Any], tuple[int, int] | None]:
    from engine.suite import expand_items, load_suite, parse_shard, shard_items

    suite = load_suite(args.suite, seed=args.seed)
    shard = parse_shard(getattr(args, "shard", None))
    return suite, shard_items(expand_items(suite), shard), shard


# -- new ---------------------------------------------------------------------------------------


def cmd_new(args: argparse.Namespace) -> int:
    from engine.suite import SuiteError, write_suite_template

    try:
        path = write_suite_template(
            args.file, args.base_url, args.model, args.name, force=args.force
        )
    except SuiteError as exc:
        return _fail(str(exc))
    print(f"Wrote {path}. Edit the models, then: arl suite estimate {path}")
    return EXIT_OK


# -- estimate ------------------------------------------------------------------------------


def cmd_estimate(args: argparse.Namespace) -> int:
    from engine.suite import SuiteError
    from engine.suite_estimate import estimate_suite, render_estimate

    try:
        suite, items, _ = _load(args)
        est = estimate_suite(suite, items)
    except SuiteError as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps(est.to_json(), indent=1))
    else:
        print(render_estimate(est, suite))
    return EXIT_OK


# -- run / resume --------------------------------------------------------------------------


def _limits(args: argparse.Namespace) -> Any:
    from engine.suite_runner import SuiteLimits

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

    from engine.suite import SuiteError
    from engine.suite_runner import execute_suite
    from engine.suite_store import write_results

    def on_event(ev: Any) -> None:
        print(ev.describe(), flush=True)

    # The same signal rule as arl run: the first Ctrl-C, SIGTERM or SIGHUP cancels the
    # suite's task (runs in flight end cancelled with their bundles); later ones never
    # interrupt the bookkeeping.
    from engine.cli_common import StopSignals

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
        return _fail(str(exc))
    write_results(store, suite_id)
    return _finish(store, suite_id, args)


def _finish(store: Any, suite_id: str, args: argparse.Namespace) -> int:
    from engine.suite_report import build_report, gate, parse_thresholds, render_report

    row = store.run_row(suite_id)
    report = build_report(store.items(suite_id), name=row.name, fingerprint=row.fingerprint)
    try:
        under = parse_thresholds(getattr(args, "fail_under", None))
        over = parse_thresholds(getattr(args, "fail_over", None))
    except ValueError as exc:
        return _fail(f"--fail-under/--fail-over: {exc}")
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
    return EXIT_OK


def _confirm(text: str, args: argparse.Namespace) -> bool:
    if args.yes:
        return True
    if not sys.stdin.isatty():
        print(
            "arl: not started: confirm the estimate with --yes when no one can answer "
            "the question (no terminal)",
            file=sys.stderr,
        )
        return False
    try:
        answer = input(f"{text} [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def cmd_run(args: argparse.Namespace) -> int:
    from engine.suite import SuiteError
    from engine.suite_estimate import estimate_suite, render_estimate
    from engine.suite_runner import new_suite_run
    from engine.suite_store import SuiteStoreError

    try:
        suite, items, shard = _load(args)
        est = estimate_suite(suite, items)
    except SuiteError as exc:
        return _fail(str(exc))
    print(render_estimate(est, suite))
    if args.max_total_cost is not None and est.unpriced:
        return _fail(
            f"--max-total-cost needs prices for every model; none for "
            f"{', '.join(est.unpriced)} (price_input and price_output in {args.suite})"
        )
    if not _confirm(f"\nStart {len(items)} run(s)?", args):
        return EXIT_INPUT if not args.yes else EXIT_OK
    out = Path(args.out) if args.out else None
    try:
        with _store(args) as store:
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
        return _fail(str(exc))


def cmd_resume(args: argparse.Namespace) -> int:
    from engine.suite import SuiteError, expand_items, load_suite, parse_shard, shard_items
    from engine.suite_store import SuiteStoreError

    try:
        with _store(args) as store:
            row = store.run_row(args.id)
            if row.status == "finished":
                print(f"Suite run {args.id} already finished; nothing to resume.")
                return _finish(store, args.id, args)
            if not row.suite_path:
                return _fail(f"suite run {args.id} has no suite file to resume from")
            try:
                suite = load_suite(row.suite_path, seed=row.seed)
            except SuiteError as exc:
                return _fail(str(exc))
            if suite.fingerprint() != row.fingerprint:
                return _fail(
                    f"{row.suite_path}: the suite (documents, comments, models, "
                    f"variants or limits) changed since suite run {args.id} "
                    "started; start a new suite run instead"
                )
            items = shard_items(expand_items(suite), parse_shard(row.shard))
            return _execute(store, suite, args.id, items, args)
    except SuiteStoreError as exc:
        return _fail(str(exc))


# -- report / history / compare / merge ----------------------------------------------------


def cmd_report(args: argparse.Namespace) -> int:
    from engine.suite_store import SuiteStoreError

    try:
        with _store(args) as store:
            store.run_row(args.id)
            return _finish(store, args.id, args)
    except SuiteStoreError as exc:
        return _fail(str(exc))


def _history_rows(store: Any, model: str | None) -> list[dict[str, Any]]:
    from engine.suite_report import METRICS, build_report

    rows = []
    for run in store.runs():
        report = build_report(store.items(run.id), name=run.name, fingerprint=run.fingerprint)
        for c in report["combinations"]:
            if model and model not in (c["model"], c["model_id"]):
                continue
            row = {
                "suite_id": run.id,
                "suite": run.name,
                "date": run.started_at,
                "status": run.status,
                "app_version": run.app_version,
                "model": c["model"],
                "model_id": c["model_id"],
                "endpoint": c["base_url"],
                "variant": c["variant"],
                "instructions_hash": ",".join(c["instructions_hash"]),
                "runs": c["runs"],
                "finished": c["finished"],
                "failed": c["failed"],
            }
            for m in METRICS:
                row[m] = c["metrics"][m]["mean"]
                row[m + "_spread"] = c["metrics"][m]["spread"]
            row["tokens_per_fix"] = c["tokens_per_fix"]["value"]
            rows.append(row)
    return rows


def cmd_history(args: argparse.Namespace) -> int:
    from engine.suite_report import LABELS, METRICS, _fmt
    from engine.suite_store import SuiteStoreError

    try:
        with _store(args) as store:
            rows = _history_rows(store, args.model)
    except SuiteStoreError as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps(rows, indent=1))
    elif args.csv:
        buf = io.StringIO()
        if rows:
            w = csv.DictWriter(buf, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        sys.stdout.write(buf.getvalue())
    elif not rows:
        print("No suite runs yet" + (f" for model {args.model}" if args.model else "") + ".")
    else:
        for r in rows:
            ms = ", ".join(f"{LABELS[m]} {_fmt(m, r[m])}" for m in METRICS)
            print(
                f"{r['date']} {r['suite_id']} v{r['app_version']} {r['model']} / "
                f"{r['variant']} [{r['instructions_hash']}] {r['finished']}/{r['runs']} "
                f"finished: {ms}"
            )
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from engine.suite_report import LABELS, _fmt, build_report, compare_reports
    from engine.suite_store import SuiteStoreError

    try:
        with _store(args) as store:
            reports = []
            for sid in (args.a, args.b):
                row = store.run_row(sid)
                reports.append(
                    build_report(store.items(sid), name=row.name, fingerprint=row.fingerprint)
                )
    except SuiteStoreError as exc:
        return _fail(str(exc))
    rows = compare_reports(*reports)
    if args.json:
        print(json.dumps(rows, indent=1))
        return EXIT_OK
    if not rows:
        print("The two suite runs share no model and variant.")
    for r in rows:
        m = r["metric"]
        delta = "" if r["delta"] is None else f" ({r['delta']:+.3g}: {r['verdict']})"
        print(f"{r['combination']}: {LABELS[m]} {_fmt(m, r['a'])} -> {_fmt(m, r['b'])}{delta}")
    return EXIT_OK


def cmd_merge(args: argparse.Namespace) -> int:
    from engine.suite import parse_shard
    from engine.suite_report import build_report, gate, parse_thresholds, render_report
    from engine.suite_store import SuiteStoreError, read_results, results_items

    try:
        parts = [read_results(f) for f in args.folders]
    except SuiteStoreError as exc:
        return _fail(str(exc))
    fps = {p["fingerprint"] for p in parts}
    if len(fps) != 1:
        return _fail(
            "the folders come from different suites (fingerprints "
            f"{', '.join(sorted(fps))}); merge shards of one suite only"
        )
    shards = [parse_shard(p["shard"]) if p.get("shard") else None for p in parts]
    if None not in shards:
        ns = {s[1] for s in shards if s}
        got = sorted(s[0] for s in shards if s)
        if len(ns) != 1 or got != list(range(1, next(iter(ns)) + 1)):
            return _fail(
                f"shards {', '.join(p['shard'] for p in parts)} do not make a whole "
                f"suite (need 1/N to N/N once each)"
            )
    items: dict[str, Any] = {}
    for p, folder in zip(parts, args.folders):
        try:
            rows = results_items(p, folder)
        except SuiteStoreError as exc:
            return _fail(str(exc))
        for it in rows:
            if it.key in items:
                return _fail(f"{folder}: run {it.key} appears in two shards")
            items[it.key] = it
    report = build_report(
        list(items.values()), name=parts[0]["suite"], fingerprint=parts[0]["fingerprint"]
    )
    try:
        results = gate(report, parse_thresholds(args.fail_under), parse_thresholds(args.fail_over))
    except ValueError as exc:
        return _fail(f"--fail-under/--fail-over: {exc}")
    if args.json:
        print(json.dumps({"report": report, "gate": [r.__dict__ for r in results]}, indent=1))
    else:
        print(render_report(report))
        if results:
            print("\nGate:")
            for r in results:
                print("  " + r.line())
    return EXIT_GATE if any(r.outcome != "PASS" for r in results) else EXIT_OK


# -- registration --------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    s = subparsers.add_parser("suite", help="run review suites across models and instructions")
    sub = s.add_subparsers(dest="suite_cmd", metavar="COMMAND")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--store", metavar="FILE", help=argparse.SUPPRESS)

    n = sub.add_parser("new", help="write a commented suite file to start from")
    n.add_argument("file", help="the new suite file (.toml)")
    n.add_argument("--base-url", default="http://127.0.0.1:8089/v1")
    n.add_argument("--model", default="smollm2-135m")
    n.add_argument("--name", help="the suite's name (default: the file name)")
    n.add_argument("--force", action="store_true", help="replace an existing file")
    n.set_defaults(func=cmd_new)

    e = sub.add_parser("estimate", help="price a suite without calling any model")
    e.add_argument("suite", help="suite file (.toml or .json)")
    e.add_argument("--seed", type=int, help="seed for sample:N documents (default: the file's)")
    e.add_argument("--shard", metavar="I/N", help="only this shard's runs")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_estimate)

    def limits(p: argparse.ArgumentParser) -> None:
        p.add_argument("--max-total-tokens", type=_positive, metavar="N")
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
            type=_positive,
            default=1,
            metavar="K",
            help="runs at once (default 1)",
        )
        p.add_argument(
            "--fail-under",
            metavar="M=X,...",
            help="CI gate: exit 1 unless each mean is at least X, e.g. "
            "attribution=0.6,claim_accuracy=0.8",
        )
        p.add_argument(
            "--fail-over",
            metavar="M=X,...",
            help="CI gate: exit 1 unless each mean is at most X, e.g. churn=0.2",
        )
        p.add_argument("--json", action="store_true")
        common(p)

    r = sub.add_parser("run", help="run a suite (shows the estimate first)")
    r.add_argument("suite", help="suite file (.toml or .json)")
    r.add_argument("--yes", action="store_true", help="start without asking")
    r.add_argument("--seed", type=int, help="seed for sample:N documents (default: the file's)")
    r.add_argument("--shard", metavar="I/N", help="run only shard I of N (CI job matrices)")
    r.add_argument("--out", metavar="DIR", help="where suite runs go (default <home>/suites)")
    limits(r)
    r.set_defaults(func=cmd_run)

    rs = sub.add_parser("resume", help="finish an interrupted or stopped suite run")
    rs.add_argument("id", help="suite run id (arl suite history)")
    limits(rs)
    rs.set_defaults(func=cmd_resume)

    rp = sub.add_parser("report", help="a suite run's report")
    rp.add_argument("id")
    rp.add_argument("--fail-under", metavar="M=X,...")
    rp.add_argument("--fail-over", metavar="M=X,...")
    rp.add_argument("--json", action="store_true")
    common(rp)
    rp.set_defaults(func=cmd_report)

    h = sub.add_parser("history", help="every suite run, per model and variant")
    h.add_argument("--model", metavar="M")
    fmt = h.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--csv", action="store_true")
    common(h)
    h.set_defaults(func=cmd_history)

    c = sub.add_parser("compare", help="two suite runs side by side")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--json", action="store_true")
    common(c)
    c.set_defaults(func=cmd_compare)

    m = sub.add_parser("merge", help="join shards' output folders into one report")
    m.add_argument("folders", nargs="+", metavar="FOLDER")
    m.add_argument("--fail-under", metavar="M=X,...")
    m.add_argument("--fail-over", metavar="M=X,...")
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=cmd_merge)

    def no_sub(args: argparse.Namespace) -> int:
        s.print_help()
        return EXIT_INPUT

    s.set_defaults(func=no_sub)
