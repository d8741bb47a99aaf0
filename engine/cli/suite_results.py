"""``arl suite history``, ``compare`` and ``merge``: reading suite runs that are done.

``history`` lists every suite run per model and variant (text, ``--json`` or ``--csv``);
``compare`` puts two suite runs side by side; ``merge`` joins the output folders of a
suite's shards into one report and gate. Exit codes as ``arl suite`` (``engine.cli.suite``).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from typing import Any

from engine.cli.checks import EXIT_GATE as _EXIT_GATE
from engine.cli.common import EXIT_OK, fail, say

#: A --fail-under/--fail-over threshold is FAIL or UNVERIFIED, or (--gate) a run's declared
#: checks block: "a gate blocked", 4 in every command (engine.cli.checks).
EXIT_GATE = _EXIT_GATE


def suite_store(args: argparse.Namespace) -> Any:
    """The suite store ``--store`` names (a hidden option), else the default one."""
    from engine.suite.store import SuiteStore

    return SuiteStore(args.store) if getattr(args, "store", None) else SuiteStore()


def store_option(p: argparse.ArgumentParser) -> None:
    """The hidden ``--store FILE`` option (tests point it at a temporary store)."""
    p.add_argument("--store", metavar="FILE", help=argparse.SUPPRESS)


def _history_rows(store: Any, model: str | None) -> list[dict[str, Any]]:
    from engine.suite.report import METRICS, build_report

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
    from engine.suite.report import LABELS, METRICS, _fmt
    from engine.suite.store import SuiteStoreError

    try:
        with suite_store(args) as store:
            rows = _history_rows(store, args.model)
    except SuiteStoreError as exc:
        return fail(str(exc))
    if args.json:
        print(json.dumps(rows, indent=1))
    elif args.csv:
        import csv

        from engine.bundle.csv_export import safe_cell

        buf = io.StringIO()
        if rows:
            w = csv.DictWriter(buf, fieldnames=list(rows[0]))
            w.writeheader()
            # text from suite files (names, models, variants) is never a formula; numbers
            # stay numbers (engine.bundle.csv_export.safe_cell, OWASP "CSV Injection")
            w.writerows(
                {k: safe_cell(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows
            )
        sys.stdout.write(buf.getvalue())
    elif not rows:
        print("No suite runs yet" + (f" for model {args.model}" if args.model else "") + ".")
    else:
        for r in rows:
            ms = ", ".join(f"{LABELS[m]} {_fmt(m, r[m])}" for m in METRICS)
            say(
                f"{r['date']} {r['suite_id']} v{r['app_version']} {r['model']} / "
                f"{r['variant']} [{r['instructions_hash']}] {r['finished']}/{r['runs']} "
                f"finished: {ms}"
            )
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from engine.suite.report import compare_line, compare_runs, mark_tampered
    from engine.suite.store import SuiteStoreError
    from engine.suite.tamper import tampered_runs

    try:
        with suite_store(args) as store:
            runs = []
            for sid in (args.a, args.b):
                items = store.items(sid)
                runs.append(mark_tampered(items, tampered_runs(items)))
            seed = store.run_row(args.b).seed
    except SuiteStoreError as exc:
        return fail(str(exc))
    rows = compare_runs(runs[0], runs[1], seed)
    if args.json:
        print(json.dumps(rows, indent=1))
        return EXIT_OK
    if not rows:
        print("The two suite runs share no model and variant.")
    else:
        print(
            "Differences (second minus first) paired by document, 95% intervals "
            f"Holm-adjusted over the combinations compared; bootstrap seed {seed}:"
        )
    for r in rows:
        say(compare_line(r))  # model and variant names come from the suite's files
    return EXIT_OK


def cmd_merge(args: argparse.Namespace) -> int:
    from engine.suite.report import build_report, gate, parse_thresholds, render_report
    from engine.suite.store import SuiteStoreError, read_results, results_items
    from engine.suite.suite import parse_shard

    try:
        parts = [read_results(f) for f in args.folders]
    except SuiteStoreError as exc:
        return fail(str(exc))
    fps = {p["fingerprint"] for p in parts}
    if len(fps) != 1:
        return fail(
            "the folders come from different suites (fingerprints "
            f"{', '.join(sorted(fps))}); merge shards of one suite only"
        )
    shards = [parse_shard(p["shard"]) if p.get("shard") else None for p in parts]
    if None not in shards:
        ns = {s[1] for s in shards if s}
        got = sorted(s[0] for s in shards if s)
        if len(ns) != 1 or got != list(range(1, next(iter(ns)) + 1)):
            return fail(
                f"shards {', '.join(p['shard'] for p in parts)} do not make a whole "
                f"suite (need 1/N to N/N once each)"
            )
    items: dict[str, Any] = {}
    for p, folder in zip(parts, args.folders):
        try:
            rows = results_items(p, folder)
        except SuiteStoreError as exc:
            return fail(str(exc))
        for it in rows:
            if it.key in items:
                return fail(f"{folder}: run {it.key} appears in two shards")
            items[it.key] = it
    from engine.suite.tamper import tampered_runs

    report = build_report(
        list(items.values()),
        tampered=tampered_runs(list(items.values())),
        name=parts[0]["suite"],
        fingerprint=parts[0]["fingerprint"],
        seed=int(parts[0].get("seed") or 0),
    )
    try:
        results = gate(report, parse_thresholds(args.fail_under), parse_thresholds(args.fail_over))
    except ValueError as exc:
        return fail(f"--fail-under/--fail-over: {exc}")
    if args.json:
        print(json.dumps({"report": report, "gate": [r.__dict__ for r in results]}, indent=1))
    else:
        for line in render_report(report).splitlines():
            say(line)  # model and variant names come from the suite's files
        if results:
            print("\nGate:")
            for r in results:
                say("  " + r.line())
    return EXIT_GATE if any(r.outcome != "PASS" for r in results) else EXIT_OK


def print_document(items: list[Any], args: argparse.Namespace) -> int:
    """``--document DOC``: every combination's verdicts on one document side by side."""
    from engine.suite.drilldown import document_verdicts, render_document
    from engine.suite.tamper import tampered_runs

    try:
        table = document_verdicts(items, args.document, tampered_runs(items))
    except KeyError as exc:
        return fail(f"suite run {args.id}: {exc.args[0]}")
    if args.json:
        print(json.dumps(table, indent=1))
    else:
        for line in render_document(table).splitlines():
            say(line)  # quotes and names come from the suite's files
    return EXIT_OK


def register(sub: Any) -> None:
    """Add ``history``, ``compare`` and ``merge`` to ``arl suite``'s subcommands."""
    h = sub.add_parser("history", help="every suite run, per model and variant")
    h.add_argument("--model", metavar="M")
    fmt = h.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--csv", action="store_true")
    store_option(h)
    h.set_defaults(func=cmd_history)

    c = sub.add_parser("compare", help="two suite runs side by side")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--json", action="store_true")
    store_option(c)
    c.set_defaults(func=cmd_compare)

    m = sub.add_parser("merge", help="join shards' output folders into one report")
    m.add_argument("folders", nargs="+", metavar="FOLDER")
    m.add_argument("--fail-under", metavar="M=X,...")
    m.add_argument("--fail-over", metavar="M=X,...")
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=cmd_merge)
