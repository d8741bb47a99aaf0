"""``arl bundle`` (verify, export, trust, show, publish) and ``arl published`` (list,
open, export): evidence bundles and their published scorecards from the command line.

Exit codes: 0 done, 2 unusable input (one line naming the file and the problem), 3 a
bundle that fails its manifest check, its re-derivation or its signature. The verdict on a
bundle is the engine's (``engine.bundle.judge_bundle``); every line that carries data from
a bundle goes through ``engine.cli.common.say`` (terminal controls escaped).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_TAMPERED, fail, say
from engine.cli.decisions import decision_lines, figure_lines, register_decisions
from engine.vocabulary import plural

# -- arl bundle ------------------------------------------------------------------------------


def _verify_lines(result: Any) -> list[str]:
    """stdout lines of a verification, one per finding (print them with ``say``)."""
    lines = [f"TAMPERED {name}: {problem}" for name, problem in result.bad]
    lines += [f"PROBLEM {p}" for p in result.problems]
    red = result.rederivation
    if red is not None:
        word = "RESCORED" if red.level == "rescored" else "DIFFERENT"
        lines += [f"{word} {d.line()}" for d in red.differences]
        # the bundle's own problems are listed above; these are the re-derivation's
        lines += [f"PROBLEM {p}" for p in red.problems if not p.startswith("cannot be checked: ")]
        if red.differences or red.problems:
            lines.append(red.headline())
    if result.signature is not None:
        # Always said, also beside other failures: a bad signature, an unknown signer and
        # an unsigned bundle are different facts.
        bad = result.signature.bad and not result.signature.uncovered
        lines.append(("BAD SIGNATURE " if bad else "SIGNATURE ") + result.signature.line())
    lines += decision_lines(result)
    return lines


def cmd_bundle_verify(args: argparse.Namespace) -> int:
    from engine.bundle.archive import BundleError
    from engine.bundle.read import OLD_FORMATS, verify_bundle

    try:
        result = verify_bundle(args.path)
    except BundleError as exc:
        return fail(str(exc))
    old = " (older format: its verdicts carry no evidence)" if result.format in OLD_FORMATS else ""
    sig = result.signature.line() if result.signature is not None else "signature not checked"
    unverified = list(getattr(result.rederivation, "unverified", None) or [])
    if result.ok and unverified:
        for line in unverified:
            say(f"UNVERIFIED {line}")
        say(
            f"OK: every file of {args.path} matches its manifest; every figure that could be "
            f"checked re-derives from its own files ({plural(len(unverified), 'member')} too large, "
            f"written as stubs); format {result.format}{old}; {sig}"
        )
        return EXIT_OK
    if result.ok:
        say(
            f"OK: every file of {args.path} matches its manifest; every verdict and metric "
            f"re-derives from its own files; format {result.format}{old}; {sig}"
        )
        for line in decision_lines(result):
            say(line)
        return EXIT_OK
    for line in _verify_lines(result):
        say(line)
    red = result.rederivation
    n_diff = len(red.differences) if red is not None else 0
    parts = []
    if result.bad:
        n_bad = len(result.bad)
        parts.append(
            f"{plural(n_bad, 'file')} {'fails' if n_bad == 1 else 'fail'} the manifest check"
        )
    if result.problems:
        parts.append(plural(len(result.problems), "schema or consistency problem"))
    if n_diff:
        if red.level == "rescored":
            parts.append(f"{plural(n_diff, 'engine change')} vouched for by a trusted signer")
        else:
            parts.append(plural(n_diff, "verdict or metric difference"))
    if result.signature is not None and result.signature.bad:
        parts.append(
            "a signature that does not cover these files"
            if result.signature.uncovered
            else "a bad signature"
        )
    dec = result.decisions
    if dec is not None and dec.problems:
        parts.append(f"{plural(len(dec.problems), 'problem')} with the reviewer decisions")
    elif dec is not None and dec.engine_changes:
        parts.append(
            f"{plural(len(dec.engine_changes), 'decision')} on a verdict the engine now derives "
            "differently"
        )
    if not parts:
        parts.append("it could not be re-derived")
    verdict = "TAMPERED" if result.tampered else "RESCORED (not tampered)"
    fail(f"{args.path}: {verdict}: {', '.join(parts)}")
    return EXIT_TAMPERED


def cmd_bundle_export(args: argparse.Namespace) -> int:
    from engine.bundle.archive import BundleError
    from engine.bundle.bundle import export_zip
    from engine.bundle.read import verify_bundle

    try:
        check = verify_bundle(args.folder)
        if not check.ok:
            for line in _verify_lines(check):
                say(line)
            return fail(f"{args.folder}: fails verification; not exported", EXIT_TAMPERED)
        dest = export_zip(args.folder, args.zip, overwrite=args.force)
    except BundleError as exc:
        return fail(str(exc))
    say(f"Exported {args.folder} to {dest}")
    return EXIT_OK


def cmd_bundle_trust(args: argparse.Namespace) -> int:
    """Trust a signer: by the full key of the bundle that ``FINGERPRINT`` names when it is
    a bundle's path (``engine.bundle.bundle.trust_signer``), else by the fingerprint (weaker)."""
    from engine.bundle import signing

    if Path(args.fingerprint).exists():
        from engine.bundle.archive import BundleError
        from engine.bundle.bundle import trust_signer
        from engine.bundle.read import open_bundle

        try:
            fp, ident = trust_signer(open_bundle(args.fingerprint), args.name)
        except (BundleError, ValueError) as exc:
            return fail(str(exc))
        except OSError as exc:
            return fail(f"{signing.trusted_keys_path()}: cannot write ({exc.strerror or exc})")
        say(f"Trusted {fp} ({ident}) as {args.name.strip()!r}")
        return EXIT_OK
    try:
        names = signing.set_trusted(args.fingerprint, args.name)
    except ValueError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"{signing.trusted_keys_path()}: cannot write ({exc.strerror or exc})")
    fp = signing.normalise_fingerprint(args.fingerprint) or ""
    if args.name.strip():
        say(f"Trusted {fp} as {names[fp]!r}")
    else:
        say(f"{fp} is no longer trusted")
    return EXIT_OK


def _show_verdict(result: Any) -> str:
    """The first line of ``arl bundle show``: the engine's verdict on the bundle."""
    red = result.rederivation
    if result.tampered:
        if result.bad:
            why = "files fail the manifest check: " + ", ".join(n for n, _ in result.bad)
        elif result.signature is not None and result.signature.bad:
            why = result.signature.line()
        elif red is not None and red.tampered:
            why = red.headline()
        elif result.decisions is not None and result.decisions.problems:
            why = "the reviewer decisions fail their checks: " + result.decisions.problems[0]
        else:
            why = "; ".join(result.problems[:3])
        return f"TAMPERED: {why.rstrip('.')}. arl bundle verify lists every finding."
    if result.level == "rescored":
        if red.level != "rescored":  # only a decision's verdict changed with the engine
            return "CHECK: " + result.decisions.engine_changes[0]
        return f"CHECK: {red.headline()}"
    return "OK: " + red.headline()


def cmd_bundle_show(args: argparse.Namespace) -> int:
    from engine import vocabulary as vocab
    from engine.bundle.archive import BundleError
    from engine.bundle.read import judge_bundle, open_bundle
    from engine.bundle.scorecard import agent_mode_of
    from engine.safe_io import mask_url

    try:
        b = open_bundle(args.path)
    except BundleError as exc:
        return fail(str(exc))
    from engine.bundle.shown import shown_figures

    result = judge_bundle(b)
    sig, red = result.signature, result.rederivation
    # The verdict first: a forged figure below must never be read before it.
    say(_show_verdict(result))
    from engine.cli.checks import bundle_check_lines

    accepted = result.decisions.accepted_checks() if result.decisions is not None else None
    check_lines = bundle_check_lines(b.checks, getattr(red, "checks", None), accepted)
    if check_lines and check_lines[0].startswith("CHANGES REQUESTED"):
        say(check_lines.pop(0))  # second only to TAMPERED (docs/checks.md, the gate)
    if b.old_format:
        say(f"FORMAT {b.format}: an older bundle; its verdicts carry no evidence")
    say(f"SIGNATURE {sig.line()}")
    if b.tampered:
        say(f"TAMPERED: {', '.join(b.tampered)}")
    for p in b.problems:
        say(f"PROBLEM: {p}")
    if b.scripted:
        say("SCRIPTED DEMONSTRATION (not a real model)")
    reason = vocab.plain_reason(b.reason)
    mode = agent_mode_of(b.manifest)
    if b.status == "completed" and vocab.is_external(b.manifest):  # no run took place here
        say(f"{b.document_title}: checked here ({vocab.EXTERNAL_NO_RUN})")
    else:
        say(f"{b.document_title}: run {b.status}" + (f" ({reason})" if reason else ""))
    if mode.get("ran") == "external":  # no model, no endpoint, no usage: said as such
        say(
            f"a revision made elsewhere, checked {b.manifest.get('finished_at')}; "
            f"tokens {vocab.EXTERNAL_FACT_WORDS['tokens']}"
        )
        from engine.bundle.typed_tokens import typed_tokens_words

        typed = typed_tokens_words(b.manifest, b.metrics)
        if typed:
            say(f"TYPED (not measured): {typed}")
    else:
        say(
            f"model {b.model} at {mask_url(str(b.manifest.get('base_url')))}; "
            f"{b.manifest.get('created_at')} to {b.manifest.get('finished_at')}; "
            f"{vocab.tokens_text(b.manifest.get('tokens'), vocab.never_reached_of(b.metrics))}"
        )
    if isinstance(mode.get("ran"), str):
        say(f"agent mode: {mode['ran']} ({mode.get('reason', '')})")
    for line in getattr(red, "unverified", None) or []:
        say(f"UNVERIFIED: {line}")
    shown = shown_figures(b, red, sig)
    if shown.headline:
        say(("RECOMPUTED: " if shown.source == "recomputed" else "UNVERIFIED: ") + shown.headline)
    for name, m in shown.metrics.items():
        label = vocab.METRIC_TITLES.get(name, name)
        note = f"  [{shown.metric_notes[name]}]" if name in shown.metric_notes else ""
        say(f"  {label}: {vocab.metric_text(name, m)}{note}")
    for line in figure_lines(b, result, shown.final):
        say(line)
    for cid, note in shown.row_notes.items():
        say(f"  comment {cid}: {note}")
    for line in decision_lines(result):
        say(line)
    for line in check_lines:
        say(line)
    return EXIT_TAMPERED if result.tampered else EXIT_OK


def cmd_bundle_publish(args: argparse.Namespace) -> int:
    """Publish to the publishing folder (``engine.publish.published``); ``--to-workspace`` keeps
    the older behaviour: the scorecard as a document in the workspace."""
    from engine.bundle.archive import BundleError
    from engine.bundle.bundle import publish_scorecard
    from engine.bundle.read import judge_bundle, open_bundle
    from engine.workspace import Workspace, WorkspaceError

    if args.to_workspace:
        try:
            b = open_bundle(args.path)
            judged = judge_bundle(b)  # files, shapes, signature and re-derivation, as show
            with Workspace(args.workspace) if args.workspace else Workspace() as ws:
                doc_id = publish_scorecard(ws, b, judged)
        except (BundleError, WorkspaceError) as exc:
            return fail(str(exc))
        say(
            f"Published the scorecard as document {doc_id}"
            + (" (the bundle is TAMPERED and is marked so)" if judged.tampered else "")
        )
        return EXIT_TAMPERED if judged.tampered else EXIT_OK
    from engine.publish import published

    try:
        folder = published.set_published_folder(args.folder) if args.folder else None
        if args.require_review is not None:
            published.set_require_complete_review(args.require_review)
        entry = published.publish(args.path, folder)
    except (BundleError, published.PublishError) as exc:
        return fail(str(exc))
    where = folder or published.published_folder()
    if entry.tampered:  # said first, as everywhere
        figures = (
            "; its metrics are recomputed from its documents"
            if entry.figures == "recomputed"
            else ""
        )
        say(f"{entry.verification} (published marked TAMPERED{figures})")
    say(f"Published {entry.document_title or entry.run_id} to {where}/{entry.scorecard}")
    say(f"Index: {where}/{published.INDEX_HTML}; signature: {entry.signature.get('line')}")
    say(f"Bundle copied to {where}/{entry.bundle_copy} (the index links it)")
    # Published, and marked so; the exit code says it failed verification, as `show` does.
    return EXIT_TAMPERED if entry.tampered else EXIT_OK


def cmd_published_list(args: argparse.Namespace) -> int:
    from engine.publish import published

    folder = args.folder or published.published_folder()
    if folder is None:
        return fail("no publishing folder chosen yet (arl bundle publish B --folder DIR)")
    runs = published.entries(folder)
    if not runs:
        say(f"Nothing is published in {folder} yet")
        return EXIT_OK
    for i, e in enumerate(runs, 1):
        if e.problem:
            say(f"{i:>3}. NOT CHECKED {e.run_id!r}: {e.problem}  (published {e.published_at})")
            continue
        mark = "TAMPERED " if e.tampered else ""
        sig = e.signature or {}
        if e.trusted_signer:
            who = f"signed {sig.get('fingerprint')}, trusted: {e.trusted_signer}"
        elif sig.get("state") == "signed":
            who = f"signed {sig.get('fingerprint')}, an unknown key: not trusted"
        else:
            who = str(sig.get("line") or sig.get("state") or "")
        say(
            f"{i:>3}. {mark}{e.finished_at or e.created_at}  {e.model}  "
            f"{e.document_title!r}  {e.status}  [{who}]  bundle: {e.bundle_copy or e.bundle}"
        )
    return EXIT_OK


def _pick(args: argparse.Namespace) -> Any:
    from engine.publish import published

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
    from engine.publish import published

    e = _pick(args)
    if e is None:
        return fail(f"{args.run}: no such published run (arl published list numbers them)")
    from engine.publish.check import LINK_WORDS, link_in

    folder = Path(args.folder or published.published_folder() or ".")
    page = folder / e.scorecard
    copy = folder / e.bundle_copy if e.bundle_copy else None
    for name in (e.scorecard, e.bundle_copy):
        linked = link_in(folder, name) if name else None
        if linked is not None:
            return fail(f"{folder}: {linked} {LINK_WORDS}")
    say(f"scorecard: {page}")
    if e.problem:
        say(f"NOT CHECKED: {e.problem}")
    if copy is not None and copy.is_file():
        say(f"bundle: {copy} (the copy in the published folder)")
    gone = "" if Path(e.bundle).exists() else " (no longer there)"
    say(f"published from: {e.bundle}{gone}")
    if args.browser:
        import webbrowser

        webbrowser.open(page.resolve().as_uri())
    return EXIT_OK


def cmd_published_export(args: argparse.Namespace) -> int:
    from engine.publish import published

    try:
        out = published.export(args.dest, args.folder)
    except published.PublishError as exc:
        return fail(str(exc))
    say(f"Copied the published scorecards and their index to {out}")
    return EXIT_OK


def register_bundle(subparsers: Any) -> None:
    """Add ``bundle`` and its actions to ``arl``."""
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
        "trust",
        help="trust the signer of a bundle (by its full key), or a fingerprint (empty name: "
        "untrust)",
    )
    t.add_argument(
        "fingerprint",
        metavar="BUNDLE|FINGERPRINT",
        help='a signed bundle (its full key is trusted), or 16 hex digits, e.g. "3f2a 9c01 '
        '77be 0d42" (weaker: matched on 64 bits)',
    )
    t.add_argument("name", metavar="NAME", help='who it is, e.g. "the review team\'s laptop"')
    t.set_defaults(func=cmd_bundle_trust)
    s = bsub.add_parser("show", help="print a bundle's status and metrics")
    s.add_argument("path", metavar="PATH")
    s.set_defaults(func=cmd_bundle_show)
    register_decisions(bsub)
    p = bsub.add_parser(
        "publish", help="publish the scorecard to the publishing folder (index.html + page)"
    )
    p.add_argument("path", metavar="PATH")
    p.add_argument("--folder", metavar="DIR", help="choose (and remember) the publishing folder")
    p.add_argument("--to-workspace", action="store_true", help="store it in the workspace instead")
    p.add_argument(
        "--require-review",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="publish only when every actionable comment has a reviewer decision (remembered)",
    )
    p.add_argument("--workspace", metavar="FILE", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_bundle_publish)


def register_published(subparsers: Any) -> None:
    """Add ``published`` and its actions to ``arl``."""
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
