"""``arl bundle adjudicate`` and ``arl bundle decisions``: the reviewer's decisions from the
command line (``engine.bundle.decisions``), and the lines ``verify`` and ``show`` print of
them.

``adjudicate BUNDLE COMMENT --decision D [--reason TEXT] [--reviewer NAME]`` (or
``adjudicate BUNDLE --check NAME --decision accept --reason TEXT``: accept a declared
check's FAIL, with a reason; it then no longer blocks) signs the decision with the user's own key (the one ``arl`` keeps in the keyring; a session key when
none is installed, said plainly). A ``.zip`` bundle is rewritten whole and renamed over
the original. A bundle shipped with the program or in a folder the user cannot write is
left as it is: the decision goes to the user's copy of it (``engine.bundle.own_copy``),
said in one line, and ``arl bundle decisions`` of that bundle lists the copy's. Exit codes: 0 written, 2 refused (one line), 3 the bundle fails verification.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_TAMPERED, fail, say, signing_provider
from engine.vocabulary import plural


def decision_lines(result: Any) -> list[str]:
    """``verify``/``show`` lines of a ``VerifyResult``'s decisions (print with ``say``):
    each signer, each decision, the figures, and every problem."""
    dec = result.decisions
    if dec is None or not dec.present:
        return ["DECISIONS none: no reviewer has decided on these verdicts yet"]
    out = [f"DECISION {line}" for line in dec.lines()]
    out += [f"DECISION CHECK {line}" for line in dec.engine_changes]
    out += [f"DECISION PROBLEM {p}" for p in dec.problems]
    return out


def figure_lines(bundle: Any, result: Any, final: list[Any]) -> list[str]:
    """The reviewed figures beside the machine's: reviewed attribution, agreement, and
    "awaiting review: N" (``final``: the verdict items shown)."""
    from engine import vocabulary as vocab
    from engine.bundle.review import review_figures

    dec = result.decisions
    decided = dec.latest() if dec is not None else {}
    fig = review_figures(final, bundle.comments_before, decided)
    out = [
        f"  Reviewed attribution: {fig.reviewed_text()}",
        "  Agreement with the machine: "
        + vocab.metric_text("attribution_rate", fig.agreement.to_json()),
    ]
    if fig.awaiting:
        out.insert(
            0, f"AWAITING REVIEW: {fig.awaiting} of {plural(fig.actionable, 'actionable comment')}"
        )
    return out


def _reviewer(args: argparse.Namespace) -> str:
    if args.reviewer:
        return str(args.reviewer)
    env = os.environ.get("ARL_REVIEWER", "").strip()
    if env:
        return env
    import getpass

    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return ""


def cmd_bundle_adjudicate(args: argparse.Namespace) -> int:
    from engine.bundle import signing
    from engine.bundle.adjudicate import adjudicate, adjudicate_check
    from engine.bundle.archive import BundleError
    from engine.bundle.decisions import DecisionError

    if signing_provider:
        key, where, note = signing_provider[0]()
    else:
        key, where = signing.new_private_key(), "session"
        note = (
            "no key store was installed (run through the arl command to use the keyring): "
            "signed with a key for this command only, which nobody can trust later"
        )
    reviewer = _reviewer(args)
    if bool(args.comment) == bool(args.check):
        return fail("give the comment's id or --check NAME (one subject per decision)")
    try:
        if args.check:
            done = adjudicate_check(
                args.path, args.check, args.decision, args.reason or "", reviewer, key
            )
        else:
            done = adjudicate(
                args.path, args.comment, args.decision, args.reason or "", reviewer, key
            )
    except DecisionError as exc:
        code = EXIT_TAMPERED if "fails verification" in str(exc) else 2
        return fail(str(exc), code)
    except BundleError as exc:
        return fail(str(exc))
    d = done.decision
    fp = signing.key_fingerprint(key)
    subject = (
        f"check {d.check} ({d.verdict.upper()})"
        if d.check
        else (f"comment {d.comment_id} ({d.verdict})")
    )
    say(
        f"Decided: {subject}: {d.decision}"
        + (f" ({d.reason})" if d.reason else "")
        + f", by {d.reviewer}, signed with key {fp} ({where})"
        + (f": {note}" if note else "")
    )
    if done.home.copied_from is not None:
        say(f"{done.home.words()} The copy: {done.home.bundle}")
    return EXIT_OK


def cmd_bundle_decisions(args: argparse.Namespace) -> int:
    """Print the decisions, or with ``--csv FILE`` write them per comment as CSV."""
    from engine.bundle.archive import BundleError
    from engine.bundle.own_copy import find_copy
    from engine.bundle.read import judge_bundle, open_bundle

    copy = find_copy(args.path)
    if copy is not None:  # a shipped or read-only bundle: its decisions are in the copy
        say(f"{copy.words()} The copy, listed here: {copy.bundle}")
    try:
        b = open_bundle(copy.bundle if copy is not None else args.path)
    except BundleError as exc:
        return fail(str(exc))
    result = judge_bundle(b)
    if args.csv:
        from engine.bundle.csv_export import write_csv
        from engine.bundle.shown import shown_figures

        shown = shown_figures(b, result.rederivation, result.signature)
        try:
            write_csv(args.csv, b, shown.final, result.decisions)
        except OSError as exc:
            return fail(f"{args.csv}: cannot write ({exc.strerror or exc})")
        say(f"Wrote {args.csv}: one row per comment (verdict, decision, reason, reviewer)")
        return EXIT_TAMPERED if result.tampered else EXIT_OK
    for line in decision_lines(result):
        say(line)
    return EXIT_TAMPERED if result.tampered else EXIT_OK


def cmd_bundle_trust_reviewer(args: argparse.Namespace) -> int:
    """Trust the key that signed a reviewer's decisions in a bundle."""
    from engine.bundle import signing
    from engine.bundle.archive import BundleError
    from engine.bundle.decisions import reviewer_key
    from engine.bundle.read import open_bundle

    try:
        pub = reviewer_key(open_bundle(args.path), args.reviewer)
        ident = signing.trust_key(pub, args.name or args.reviewer)
    except (BundleError, ValueError) as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"{signing.trusted_keys_path()}: cannot write ({exc.strerror or exc})")
    say(
        f"Trusted {signing.fingerprint(pub)} ({ident}), the key of {args.reviewer!r}'s "
        f"decisions, as {(args.name or args.reviewer).strip()!r}"
    )
    return EXIT_OK


def cmd_bundle_send_back(args: argparse.Namespace) -> int:
    """Write the next round (document, comments, brief) of a reviewed bundle into a folder."""
    from pathlib import Path

    from engine.bundle.archive import BundleError
    from engine.bundle.read import judge_bundle, open_bundle
    from engine.bundle.sendback import write_next_round
    from engine.threads import send_back_with_replies

    try:
        b = open_bundle(args.path)
    except BundleError as exc:
        return fail(str(exc))
    result = judge_bundle(b)
    if result.tampered:
        return fail(
            f"{args.path}: fails verification (arl bundle verify lists why); nothing sent back",
            EXIT_TAMPERED,
        )
    from engine.publish import published

    if published.require_complete_review():  # the setting (arl bundle publish --require-review)
        from engine.publish.check import judge

        review = judge(Path(args.path))[0].review
        gate = published.review_gate(
            int(review.get("awaiting") or 0), int(review.get("actionable") or 0), "sending back"
        )
        if gate:
            return fail(f"{args.path}: {gate}; nothing sent back")
    plan = send_back_with_replies(b, result.decisions.latest(), args.workspace)
    word = _send_back_word(args)
    if args.word and word is None:
        return fail(f"{args.word}: no such file")
    try:
        doc, *more = write_next_round(
            plan, Path(args.out), force=args.force, word=word[1] if word else None
        )
    except FileExistsError as exc:
        return fail(f"{exc} (--force replaces it)")
    except OSError as exc:
        return fail(f"{args.out}: cannot write ({exc.strerror or exc})")
    except ValueError as exc:  # PackageError too: the Word file is not the last version
        return fail(f"{word[0] if word else args.path}: {exc}; nothing was written")
    out = Path(args.out)
    say(
        f"{plural(len(plan.comments), 'comment')} {'goes' if len(plan.comments) == 1 else 'go'} "
        f"back ({len(plan.reasons)} with the reviewer's "
        f"reason), {len(plan.settled)} settled by the reviewer (carried resolved), "
        f"{len(plan.left)} not sent again; wrote "
        f"{', '.join(p.name for p in [doc, *more])} to {out}"
    )
    for words in (plan.unplaced_words(), plan.left_words(), plan.settled_words()):
        if words:
            say(words)
    say(f"next round: arl run --doc {doc} --comments {out / 'comments.json'} --model ...")
    return EXIT_OK


def _send_back_word(args: argparse.Namespace) -> tuple[str, bytes] | None:
    """(path, bytes) of the last version as a Word file: ``--word``, else the run's Word
    revision beside the bundle (``engine.word_revision.revision_path``); None: neither."""
    from pathlib import Path

    from engine.word_revision import revision_path

    path = Path(args.word) if args.word else revision_path(args.path)
    if not path.is_file():
        return None
    return str(path), path.read_bytes()


def take_from_bundle(args: argparse.Namespace) -> tuple[str, int] | None:
    """``arl run --from BUNDLE`` (the same review again: the bundle's v1 as given to its
    agent and its ``comments.before.json``) or ``arl run --continue BUNDLE`` (the next
    review: its last version and its open comments, ``engine.bundle.sendback.
    continue_review``, plus any new ones in ``--comments``): the document and comments go
    in a temporary folder and ``args.doc`` / ``args.comments`` / ``args.title`` point at
    them. Returns (problem, exit code) when it cannot; None when done (or when neither is
    given and ``--doc`` is)."""
    from engine.bundle.archive import BundleError
    from engine.bundle.read import judge_bundle, open_bundle

    source = getattr(args, "from_bundle", None) or getattr(args, "continue_bundle", None)
    if getattr(args, "from_bundle", None) and getattr(args, "continue_bundle", None):
        return "give --from or --continue, not both", 2
    if not source:
        return None if args.doc else ("give the document (--doc DOC) or a bundle (--from)", 2)
    if args.doc or (args.comments and not args.continue_bundle):
        return (
            "the bundle gives the document and the comments: leave out --doc"
            + ("" if args.continue_bundle else " and --comments"),
            2,
        )
    try:
        b = open_bundle(source)
    except BundleError as exc:
        return str(exc), 2
    if judge_bundle(b).tampered:
        return (
            f"{source}: fails verification (arl bundle verify lists why); its document "
            "and comments are not taken",
            EXIT_TAMPERED,
        )
    if args.continue_bundle:
        from engine.bundle.sendback import continue_review

        plan = continue_review(b)
        kind, raw, comments = plan.kind, plan.document, list(plan.comments)
        what = f"its last version and {plural(len(comments), 'open comment')}"
    else:
        v1 = b.version("v1")
        kind, raw, comments = v1.kind, v1.source, list(b.comments_before)
        what = f"its document and {plural(len(comments), 'comment')}"
    if args.comments:
        problem = _add_new_comments(args.comments, raw, kind, comments)
        if problem:
            return problem, 2
    _point_args_at(args, kind, raw, comments, b.document_title)
    say(f"{'Continuing' if args.continue_bundle else 'The same review as'} {source}: {what}")
    return None


def _add_new_comments(path: str, raw: str, kind: str, comments: list[Any]) -> str | None:
    """Append the comments of ``path`` (made on the continued version) to ``comments``;
    the problem in one line when they cannot be read or reuse an id."""
    from engine.comments_io import load_comments
    from engine.score.scoring import Version
    from engine.text.documents import DocumentError
    from engine.vocabulary import DOCUMENT_KINDS, one_of

    try:
        version = Version.from_source(raw, one_of(kind, DOCUMENT_KINDS) or "html")
        new, _unusable = load_comments(path, version.text)
    except (ValueError, OSError, DocumentError) as exc:  # InputError is a ValueError
        return str(exc)
    taken = {c.id for c in comments} & {c.id for c in new}
    if taken:
        ids = ", ".join(sorted(taken))
        if len(taken) == 1:
            return f"{path}: the comment id {ids} is already carried over"
        return f"{path}: the comment ids {ids} are already carried over"
    comments.extend(new)
    return None


def _point_args_at(
    args: argparse.Namespace, kind: str, raw: str, comments: list[Any], title: str
) -> None:
    import atexit
    import json
    import shutil
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="arl-from-"))
    atexit.register(shutil.rmtree, folder, True)
    doc = folder / ("document.txt" if kind == "text" else "document.html")
    doc.write_text(raw, encoding="utf-8")
    path = folder / "comments.json"
    data = {"comments": [c.to_json() for c in comments]}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    args.doc, args.comments = str(doc), str(path)
    args.title = args.title or title or None


def register_decisions(bsub: Any) -> None:
    """Add ``adjudicate``, ``decisions`` and ``trust-reviewer`` to ``arl bundle``."""
    from engine.bundle.decisions import DECISIONS

    a = bsub.add_parser(
        "adjudicate",
        help="accept or override a comment's verdict, or accept a declared check's FAIL "
        "with a reason, signed with your own key",
    )
    a.add_argument(
        "path",
        metavar="BUNDLE",
        help="bundle folder or .zip (rewritten whole; one shipped with the program or "
        "read-only is copied to your bundles folder first, and the copy takes the decision)",
    )
    a.add_argument("comment", metavar="COMMENT", nargs="?", help="the comment's id")
    a.add_argument(
        "--check",
        metavar="NAME",
        help="decide on the declared check NAME instead (placeholders, command:style ...): "
        "only --decision accept, with --reason",
    )
    a.add_argument("--decision", required=True, choices=DECISIONS)
    a.add_argument(
        "--reason",
        metavar="TEXT",
        help="one line; required to override (not for accept, nor for the decision the "
        "verdict means: addressed on edited, not-addressed on untouched or deleted)",
    )
    a.add_argument(
        "--reviewer",
        metavar="NAME",
        help="your name (default: $ARL_REVIEWER, else your login name)",
    )
    a.set_defaults(func=cmd_bundle_adjudicate)
    d = bsub.add_parser("decisions", help="print the reviewer decisions, or export them as CSV")
    d.add_argument("path", metavar="BUNDLE")
    d.add_argument("--csv", metavar="FILE", help="write one row per comment to FILE")
    d.set_defaults(func=cmd_bundle_decisions)
    t = bsub.add_parser(
        "trust-reviewer", help="trust the key that signed a reviewer's decisions in a bundle"
    )
    t.add_argument("path", metavar="BUNDLE")
    t.add_argument("reviewer", metavar="REVIEWER", help="the reviewer's name as decisions say it")
    t.add_argument("name", metavar="NAME", nargs="?", help="who the key is (default: REVIEWER)")
    t.set_defaults(func=cmd_bundle_trust_reviewer)
    sb = bsub.add_parser(
        "send-back",
        help="write the next round: the last version, the comments still to do (with the "
        "reviewer's reasons) and a brief for an agent that runs elsewhere",
    )
    sb.add_argument("path", metavar="BUNDLE")
    sb.add_argument("--out", metavar="DIR", required=True, help="folder to write into")
    sb.add_argument("--force", action="store_true", help="replace files already there")
    sb.add_argument(
        "--word",
        metavar="LAST.docx",
        help="the last version as a Word file: also write document.docx, a copy of it with "
        "the brief as a reply on each comment sent back (default: the run's Word revision "
        "beside the bundle, when there is one)",
    )
    sb.add_argument("--workspace", metavar="FILE", help=argparse.SUPPRESS)
    sb.set_defaults(func=cmd_bundle_send_back)
