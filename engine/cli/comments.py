"""``arl comments`` (export, import): comments as W3C Web Annotations and back.

Exit codes: 0 done, 2 unusable input (one line naming the file and the problem; nothing
written).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from engine.cli.common import EXIT_OK, fail, read_doc_and_comments

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
                return fail(f"{out}: is the command's own input {src}; choose another --out")
        except OSError:
            pass
    try:
        if target.exists() and not target.is_file():
            return fail(f"{out}: not a regular file (a folder, a device or a FIFO)")
    except OSError as exc:  # its folder cannot be searched
        return fail(f"{out}: cannot write ({exc.strerror or exc})")
    from engine.atomic import write_atomic

    try:
        write_atomic(target, text)
    except OSError as exc:
        return fail(f"{out}: cannot write ({exc.strerror or exc})")
    return EXIT_OK


def cmd_comments_export(args: argparse.Namespace) -> int:
    """Native (or W3C) comments -> W3C AnnotationCollection (code-point positions)."""
    from engine.comments_io import comments_to_w3c, document_iri
    from engine.models import InputError
    from engine.text.documents import DocumentError

    try:
        _, _, version, comments, unusable = read_doc_and_comments(args.doc, args.comments)
    except (DocumentError, InputError) as exc:
        return fail(str(exc))
    for cid, reason in unusable:
        print(
            f"arl: {os.path.basename(args.comments)}: comment {cid} skipped: {reason}",
            file=sys.stderr,
        )
    # Positions are written against --doc: a comment whose quote is not in it would be
    # exported with positions that point at other text.
    from engine.score.scoring import score

    missing = dict(score(version, version, comments).unusable)
    for cid, reason in missing.items():
        print(
            f"arl: {os.path.basename(args.comments)}: comment {cid} does not fit "
            f"{os.path.basename(args.doc)}: {reason}",
            file=sys.stderr,
        )
    if comments and len(missing) == len(comments):
        return fail(
            f"{args.comments}: none of its comments fits {args.doc}; is it the "
            "document they were made on? Nothing written"
        )
    fitting = [c for c in comments if c.id not in missing]
    return _write_json(
        comments_to_w3c(fitting, version.text, args.source or document_iri(args.doc)),
        args.out,
        (args.doc, args.comments),
    )


def cmd_comments_import(args: argparse.Namespace) -> int:
    """W3C (or native) comments -> native shape (UTF-16 offsets)."""
    from engine.models import InputError
    from engine.text.documents import DocumentError

    try:
        _, _, version, comments, unusable = read_doc_and_comments(args.doc, args.annotations)
    except (DocumentError, InputError) as exc:
        return fail(str(exc))
    for cid, reason in unusable:
        print(
            f"arl: {os.path.basename(args.annotations)}: annotation {cid} skipped: {reason}",
            file=sys.stderr,
        )
    if not comments:
        return fail(f"{args.annotations}: no annotation could be imported; nothing written")
    # As `comments export` does: say which quotes --doc does not hold (their positions were
    # converted against text they were not made on). They are still written: the file may
    # be meant for another version.
    from engine.score.scoring import score

    for cid, reason in score(version, version, comments).unusable:
        print(
            f"arl: {os.path.basename(args.annotations)}: annotation {cid} does not fit "
            f"{os.path.basename(args.doc)}: {reason}",
            file=sys.stderr,
        )
    return _write_json(
        {"comments": [c.to_json() for c in comments]}, args.out, (args.doc, args.annotations)
    )


def register(subparsers: Any) -> None:
    """Add ``comments`` and its actions to ``arl``."""
    c = subparsers.add_parser("comments", help="W3C Web Annotation import and export")
    csub = c.add_subparsers(dest="comments_command", metavar="ACTION", required=True)
    ce = csub.add_parser("export", help="comments -> W3C AnnotationCollection")
    ce.add_argument(
        "--doc", required=True, metavar="DOC", help="the document the comments were made on"
    )
    ce.add_argument("--comments", required=True, metavar="FILE")
    ce.add_argument("--out", metavar="FILE", help="default: stdout")
    ce.add_argument(
        "--source",
        metavar="IRI",
        help="the IRI each target names the document by (default: the --doc file's file: URI)",
    )
    ce.set_defaults(func=cmd_comments_export)
    ci = csub.add_parser("import", help="W3C Web Annotation JSON -> native comments")
    ci.add_argument(
        "--doc", required=True, metavar="DOC", help="the document the annotations were made on"
    )
    ci.add_argument("--annotations", "--w3c", required=True, metavar="FILE")
    ci.add_argument("--out", metavar="FILE", help="default: stdout")
    ci.set_defaults(func=cmd_comments_import)
