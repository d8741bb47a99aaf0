"""The headless ``arl`` command: the same engine the desktop program uses.

``arl text DOC`` and ``arl score`` are a contract other tools call (docs: README, "Scoring two versions"):
their arguments, output and exit codes stay stable. Exit codes: 0 done, 2 unusable input
(one line on stderr naming the file and the problem, never a traceback), 4 a gate blocked
(``--gate`` with a declared check that FAILs, docs/checks.md). The review-loop
commands (``run``, ``author``, ``bundle``, ``published``, ``doctor``, ``comments``) are
registered by ``engine.cli.loop_options``, ``suite`` by ``engine.cli.suite``.

Imports are kept lazy so ``arl text`` and ``arl score`` start quickly.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from engine import vocabulary as vocab
from engine.collector import paused, settled

if TYPE_CHECKING:  # the import stays lazy: arl text need not load the scorer
    from engine.checks.config import ChecksConfig
    from engine.checks.results import CheckSet
    from engine.score.scoring import ScoreResult

EXIT_OK, EXIT_FAILED, EXIT_INPUT = 0, 1, 2


def _fail(message: str) -> int:
    from engine.cli.common import fail

    return fail(message)  # terminal controls escaped, secrets redacted


def cmd_text(args: argparse.Namespace) -> int:
    from engine.score.scoring import Version
    from engine.text.documents import DocumentError

    try:
        v = Version.from_file(args.doc)
    except DocumentError as e:
        return _fail(str(e))
    if not v.text.strip():  # said, not an empty output a script takes for text
        return _fail(f"{args.doc}: the document has no text (nothing a comment could point at)")
    out = sys.stdout.buffer
    out.write(v.text.encode("utf-8", errors="surrogatepass"))
    out.flush()
    return EXIT_OK


def render_summary(
    result: ScoreResult, unusable_notes: list[str], quotes: dict[str, str] | None = None
) -> str:
    """The short, plain-words summary ``arl score`` prints without ``--json``.

    ``quotes``: comment id -> the comment's own quote, shown where no v1 span exists
    (a stale anchor). Every line carries data from the files (comment ids, quotes,
    reasons), so each is made ``printable`` (terminal controls, newlines and bidi controls
    escaped) before the lines are joined: a comment id cannot start a forged line."""
    from engine.cli.common import printable

    lines = []
    counts = result.counts()
    kinds = [str(v.token_edit_kind) for v in result.verdicts if v.token_edit]
    lines.append(
        f"{vocab.plural(len(result.verdicts), 'comment')} scored: {counts['edited']} edited"
        + (f" ({vocab.token_edits_words(kinds)})" if kinds else "")
        + ", "
        f"{counts['untouched']} untouched, {counts['deleted']} deleted, "
        f"{vocab.plural(counts['stale_anchor'], 'stale anchor')}; "
        f"{len(result.actionable_ids)} actionable and open (the metrics count these)."
    )
    for v in result.verdicts:
        q = v.v1.text if v.v1 else (quotes or {}).get(v.comment_id, "")
        q = (q[:60] + "…") if len(q) > 61 else q
        label = vocab.VERDICT_LABELS.get(v.verdict, v.verdict).upper()
        extra = []
        if v.method in vocab.APPROXIMATE_METHODS:
            extra.append(f"re-anchored approximately ({v.method})")
        elif v.method == "moved":
            extra.append("moved, text unchanged")
        elif v.method == "context":
            extra.append("found by its context")
        if v.lookalike_only:
            extra.append("look-alike characters only")
        if v.invisible_only:
            extra.append("invisible characters only")
        if v.hidden_only:
            extra.append("only hidden text changed")
        if v.token_edit:
            extra.append(f"token edit: {v.token_edit_kind}")
        if v.markup_changed:
            extra.append("markup changed")
        if v.offsets_repaired:
            extra.append("offsets repaired")
        if v.claim is not None:
            extra.append(
                f"agent claimed {vocab.claim_words(v.claim)}: "
                + ("agrees" if v.claim_agrees else "DISAGREES")
            )
        tail = f" [{'; '.join(extra)}]" if extra else ""
        lines.append(f'  {v.comment_id}: {label} "{q}"{tail}')
        if v.message:
            lines.append(f"    {v.message}")
    for note in unusable_notes:
        lines.append(f"  {note}")
    m = result.metrics
    lines.append("Metrics:")
    for name in vocab.METRIC_NAMES:
        title = vocab.METRIC_TITLES[name].lower() + ":"
        text = vocab.metric_text(name, m[name])
        if name == "claim_accuracy" and result.claim_coverage is not None:
            text += f"; {result.claim_coverage.text()}"
        lines.append(f"  {title:<25}{text}")
    return "\n".join(printable(line) for line in lines)


def _open_version(path: str, version_id: str) -> tuple[Any, Any]:
    """(Version, Document) of a document file; its decoding notice, if any, on stderr.
    Raises DocumentError."""
    from engine.score.scoring import Version
    from engine.text.documents import open_document

    doc = open_document(path)
    if doc.notice is not None:
        print(f"{os.fspath(path)}: {doc.notice}", file=sys.stderr)
    return Version.from_source(doc.content, doc.kind, version_id), doc


def _say_unchanged_claims(
    result: Any, comments: list[Any], claims: Any, word_resolved: set[str] | None
) -> None:
    """The integrity check of a scored pair, on stderr: a VERIFICATION line for each claim
    of "addressed" (in the report, or a comment already resolved) on text that is unchanged
    (docs/verdicts.md). Claims read from Word's resolved marks are the resolutions
    themselves: said once."""
    resolved = (
        word_resolved
        if word_resolved is not None
        else {c.id for c in comments if c.status == "resolved"}
    )
    reported = None if word_resolved is not None else claims
    if not resolved and (reported is None or not reported.usable):
        return  # nothing claimed: no line to say (nor engine.score.integrity to import)
    from engine.cli.common import say
    from engine.score.integrity import unchanged_claims
    from engine.vocabulary import VERIFICATION_MESSAGE

    how = {"resolved": "resolved", "report": "claimed addressed in the report"}
    how["resolved+report"] = how["resolved"] + " and " + how["report"]
    for u in unchanged_claims(result.verdicts, reported, resolved):
        say(f"{VERIFICATION_MESSAGE} (comment {u.comment_id}: {how[u.by]})", err=True)


def cmd_score(args: argparse.Namespace) -> int:
    with paused():  # the scoring modules' imports make no garbage (engine.collector)
        from engine.cli.checks import load_checks_option
        from engine.cli.score_files import claims_option
        from engine.comments_io import load_comments
        from engine.models import InputError
        from engine.score.scoring import score
        from engine.text.documents import DocumentError
    settled()  # what was imported lives to the end: frozen for a process's one command

    word_resolved: set[str] | None = None  # the comments the agent resolved in Word
    problem = _files_problem(args)
    if problem:
        return _fail(problem)
    try:
        checks_config = load_checks_option(args.checks)
        v1, v1doc = _open_version(args.v1, "v1")
        v2, v2doc = _open_version(args.v2, "v2")
        given = args.given_version or "v1"
        v1.version_id = given
        source = args.comments or args.v1
        if args.comments:
            comments, bad = load_comments(args.comments, v1.text)
        elif v1doc.word is not None:
            from engine.word_review import word_comments

            comments, bad = word_comments(v1doc.word, given)
        else:
            return _fail(
                f"{args.v1}: give --comments FILE (the comments come from the file itself "
                "only when --v1 is a Word document)"
            )
        claims, message = (
            claims_option(args.claims, [c.id for c in comments]) if args.claims else (None, "")
        )
        if not args.claims and not args.comments and v2doc.word is not None:
            from engine.word_review import claims_message, word_claims

            found = word_claims(v1doc.word, v2doc.word)
            claims, word_resolved = found.claims, found.resolved
            message = claims_message(found)  # what a --bundle stores and re-derives from
            for c in comments:
                c.thread.extend(found.replies.get(c.id, []))
    except (DocumentError, InputError) as e:
        return _fail(str(e))
    if not comments and not bad:
        return _fail(f"{source}: no comments in the file")
    from engine.cli.common import say

    if claims is not None and not claims.usable:
        say(
            f"arl: {args.claims}: the agent's report is unusable ({claims.problem}); "
            "claim accuracy is N/A",
            err=True,
        )
    result = score(v1, v2, comments, claims=claims, given_version_id=given)
    _say_unchanged_claims(result, comments, claims, word_resolved)
    bad = bad + result.unusable
    name = os.path.basename(os.fspath(source))
    notes = [f"{name}: comment {cid} skipped: {reason}" for cid, reason in bad]
    if not result.verdicts:
        for n in notes[:20]:
            say(f"arl: {n}", err=True)
        first = f" ({bad[0][0]}: {bad[0][1]})" if bad else ""
        return _fail(
            f"{source}: none of its comments could be scored against "
            f"{os.path.basename(os.fspath(args.v1))}{first}"
        )
    if args.word_copy:
        code = _write_word_copy(args, v1doc, v2doc, result)
        if code:
            return code
    checks = _checks_of(checks_config, args, result)
    quotes = {c.id: c.anchor.quote or "" for c in comments}
    if args.bundle:
        problem = _write_external_bundle(args, v1doc, v2doc, comments, message, given)
        if problem:
            return _fail(problem)
    return _print_score(args, result, notes, quotes, checks)


def _files_problem(args: argparse.Namespace) -> str | None:
    """The first problem with the files ``arl score`` is given (``engine.cli.score_files``)."""
    from engine.cli.score_files import (
        bundle_target_problem,
        document_problem,
        word_copy_target_problem,
    )

    return (
        document_problem(args.v1, "v1")
        or document_problem(args.v2, "v2")
        or (word_copy_target_problem(args) if args.word_copy else None)
        or (bundle_target_problem(args.bundle) if args.bundle else None)
    )


def _tracked_of(document: Any) -> list | None:
    """A revised Word file's own tracked changes as the bundle keeps them, else None."""
    from engine.word_review import tracked_changes_json

    return tracked_changes_json(document.word) if document.word is not None else None


def _write_external_bundle(
    args: argparse.Namespace, v1doc: Any, v2doc: Any, comments: list, message: str, given: str
) -> str | None:
    """``--bundle DIR``: the scored pair written as an evidence bundle of a revision made
    elsewhere (``engine.run.external``), signed as a run's; the problem, or None."""
    from engine.bundle.archive import BundleError
    from engine.cli.loop import signing_key_for_run
    from engine.run.external import ExternalRevision, check_revision, word_versions_of
    from engine.text.titles import document_title

    if v1doc.kind != v2doc.kind:
        return f"{args.v2}: is {v2doc.kind}, but {args.v1} is {v1doc.kind}; give two of one kind"
    from pathlib import Path

    folder = Path(args.bundle)
    key, sign_line = signing_key_for_run()
    rev = ExternalRevision(
        document_title(args.v1, v1doc.kind, v1doc.content),
        v1doc.kind,
        v1doc.content,
        v2doc.content,
        comments,
        message,
        given,
        typed_tokens=getattr(args, "tokens", None),
        tracked_changes=_tracked_of(v2doc),
        word_versions=word_versions_of(v1doc, v2doc),
    )
    try:
        path, _ = check_revision(rev, folder=folder, signing_key=key)
    except (BundleError, OSError) as exc:  # BundleError is a ValueError: caught first
        return f"--bundle {args.bundle}: the evidence bundle could not be written ({exc})"
    except ValueError as exc:  # a typed token figure out of range
        return f"--tokens: {exc}"
    print(sign_line, file=sys.stderr)
    print(f"Evidence bundle: {path}", file=sys.stderr)
    return None


def _print_score(
    args: argparse.Namespace,
    result: ScoreResult,
    notes: list[str],
    quotes: dict[str, str],
    checks: CheckSet | None,
) -> int:
    """Print the scoring (JSON or the summary) and the declared checks; the exit code (4
    when ``--gate`` and a check blocks)."""
    from engine.cli.common import say

    blocked = checks is not None and checks.gate().blocked
    if args.json:
        for n in notes:
            say(f"arl: {n}", err=True)
        out = result.to_json()
        if checks is not None:
            out["checks"] = checks.to_json()
            out["outcome"] = vocab.CHANGES_REQUESTED if blocked else None
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    else:
        if checks is not None and blocked:  # the first line says it (docs/checks.md)
            say(f"CHANGES REQUESTED: {checks.gate().reason()}")
        print(render_summary(result, notes, quotes))  # each line printable already
        if checks is not None:
            from engine.cli.checks import check_lines

            for line in check_lines(checks):  # document text: terminal controls escaped
                say(line)
    if blocked and args.gate:
        from engine.cli.checks import EXIT_GATE

        return EXIT_GATE
    return EXIT_OK


def _checks_of(
    config: ChecksConfig | None, args: argparse.Namespace, result: ScoreResult
) -> CheckSet | None:
    """The declared checks on the scored pair (None without ``--checks``); the commands
    they will run are listed first."""
    if config is None:
        return None
    from engine.checks.runner import run_checks, suffix_for
    from engine.cli.checks import announce_commands

    announce_commands(config, args.allow_commands)
    return run_checks(
        config,
        result.v1,
        result.v2,
        verdicts=result.verdicts,
        diff=result.diff,
        allow_commands=args.allow_commands,
        suffix=suffix_for(result.v2.kind, os.fspath(args.v2)),
    )


def _write_word_copy(args: argparse.Namespace, v1doc: Any, v2doc: Any, result: Any) -> int:
    """``--word-copy OUT.docx``: the revised Word file with the verdicts written in
    (``engine.word_verdicts``), written whole or not at all. 0, or the exit code."""
    import datetime

    from engine.models import InputError
    from engine.safe_io import BoundedInputError, read_regular_file
    from engine.text.docx_package import PackageError
    from engine.word_verdicts import report_words, save_copy, verdicts_into_word

    if v1doc.word is None or v2doc.word is None or args.comments:
        return _fail(
            f"{args.word_copy}: --word-copy needs --v1 and --v2 Word files, the comments "
            "taken from the first (no --comments)"
        )
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        data = read_regular_file(args.v2, max_bytes=100 * 1024 * 1024)
        out, report = verdicts_into_word(data, v1doc.word, v2doc.word, result, when)
    except (BoundedInputError, PackageError) as e:
        return _fail(f"{args.v2}: {getattr(e, 'problem', e)}")
    try:
        save_copy(args.word_copy, out)
    except InputError as e:
        return _fail(str(e))
    # the words the desktop program says too ("3 verdict replies written; 1 comment reopened ...")
    print(f"arl: wrote {args.word_copy}: {report_words(report)}", file=sys.stderr)
    return 0


def build_parser(command: str | None = None, *, listed: bool = True) -> argparse.ArgumentParser:
    """``arl``'s parser. ``command``: the command being run, the only one whose options are
    built (``engine.cli.parser``: the others keep their help line); None: every command in
    full. ``listed=False`` (``command`` is the first argument, ``named_first``): once
    ``command`` is built the other commands are not added at all, nor their modules
    imported (nothing reachable lists them)."""
    from engine import __version__
    from engine.cli.parser import ArlParser, register_each, registrars_from

    p = ArlParser(
        prog="arl",
        description="Agent Review Loop, headless: measure from the text whether "
        "an agent addressed the review comments it says it addressed.",
    )
    p.add_argument("--version", action="version", version=f"arl {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    modules = ("engine.cli.loop_options", "engine.cli.suite")  # imported as their turn comes
    register_each(
        sub, registrars_from((_register_text, _register_score), modules), command, listed=listed
    )
    return p


def _register_text(sub: Any) -> None:
    t = sub.add_parser("text", help="print a document's body textContent (what offsets index)")
    t.add_argument("doc", metavar="DOC", help="an HTML, XHTML, Markdown, text or Word (.docx) file")
    t.set_defaults(func=cmd_text)


def _register_score(sub: Any) -> None:
    s = sub.add_parser("score", help="verdicts and metrics for two versions and their comments")
    s.add_argument("--v1", required=True, metavar="DOC", help="the version the agent was given")
    s.add_argument("--v2", required=True, metavar="DOC", help="the revised version")
    s.add_argument(
        "--comments",
        metavar="FILE",
        help="comments: native JSON, W3C Web Annotation JSON or a Hypothesis export "
        "(default: the comments of the --v1 Word file)",
    )
    s.add_argument(
        "--claims",
        metavar="FILE",
        help="the agent's report (claims JSON), an evidence bundle's claims.json, or a text "
        "file with what the agent said (a sentence, or one '<id or number>: <what changed>' "
        "line per comment) (default for two Word files: the comments resolved in --v2 claim "
        "'addressed')",
    )
    s.add_argument(
        "--bundle",
        metavar="DIR",
        help="also write an evidence bundle of this revision made elsewhere into DIR "
        "(signed, verifiable with arl bundle verify)",
    )
    s.add_argument(
        "--tokens",
        metavar="N",
        type=int,
        help="with --bundle: the tokens the agent used, as you know them (kept and shown as "
        "'typed, not measured')",
    )
    s.add_argument(
        "--given-version",
        metavar="ID",
        help="id of the version the agent was given, for the stale anchor rule (default: v1)",
    )
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.add_argument(
        "--word-copy",
        metavar="OUT.docx",
        help="write a copy of the --v2 Word file with the verdicts in it: a reply per "
        "comment, comments resolved on unchanged text reopened, lost comments re-created "
        "(never over an input file; over an existing file only with --force)",
    )
    s.add_argument(
        "--force", action="store_true", help="with --word-copy: replace OUT if it exists"
    )
    from engine.cli.checks import add_check_options

    add_check_options(s)
    s.set_defaults(func=cmd_score)


def main(argv: list[str] | None = None) -> int:
    from engine.cli.parser import command_word, named_first

    words = sys.argv[1:] if argv is None else argv
    with paused():  # imports the command's modules: no garbage (engine.collector)
        parser = build_parser(command_word(words), listed=not named_first(words))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_INPUT
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("arl: cancelled", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:
        # The file system refused something no command foresaw (a folder that cannot be
        # searched, a read-only home, an unreadable configuration file): one line naming
        # it, exit 2, never a traceback.
        from engine.cli.common import fail

        where = exc.filename if exc.filename is not None else "arl"
        return fail(f"{where}: {exc.strerror or exc}")


if __name__ == "__main__":
    sys.exit(main())
