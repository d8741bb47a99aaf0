"""The files ``arl score`` reads and writes, checked before anything is scored: a
document that is really a comments file, a ``--word-copy`` that would write over an input
or an existing file, a ``--bundle`` that names a file (docs/verdicts.md, "arl score").

Each check gives one line naming the file and the option, or None."""

from __future__ import annotations

import argparse
import os
from typing import Any

__all__ = [
    "bundle_target_problem",
    "claims_option",
    "document_problem",
    "word_copy_target_problem",
]

#: The options of ``arl score`` that name a file it reads.
_INPUT_OPTIONS = ("v1", "v2", "comments", "claims", "checks")
#: Extensions of JSON files: never a document, whatever they hold.
_JSON_EXTENSIONS = frozenset({".json", ".jsonld", ".jsonl"})


def document_problem(path: str, option: str) -> str | None:
    """Why the file given as ``--v1``/``--v2`` (``option``, without dashes) is no document
    to score: a JSON file (by its extension), or one whose text is a comments file in any
    shape ``engine.comments_io.parse_comments`` reads; None otherwise, also when the file
    cannot be read (opening it as a document says why). Never raises."""
    from engine.comments_io import parse_comments
    from engine.models import InputError
    from engine.safe_io import BoundedInputError, load_json, read_regular_file

    try:
        data = read_regular_file(path, max_bytes=50 * 1024 * 1024)
    except BoundedInputError:
        return None
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    is_json_name = os.path.splitext(path)[1].lower() in _JSON_EXTENSIONS
    if not (is_json_name or head[:1] in (b"{", b"[")):
        return None
    try:
        comments, _ = parse_comments(load_json(data, path), path)
    except (BoundedInputError, InputError, ValueError):
        comments = []
    if comments:
        return (
            f"{path}: given as --{option}, but this looks like a comments file; pass it with "
            "--comments and give the document as --v1"
        )
    if is_json_name:
        return (
            f"{path}: given as --{option}, but it is a JSON file, not a document; give an "
            "HTML, Markdown, text or Word file (a comments file goes with --comments)"
        )
    return None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def word_copy_target_problem(args: argparse.Namespace) -> str | None:
    """Why ``--word-copy OUT`` may not be written: OUT is one of the files this command
    reads (never written over, even with ``--force``), or OUT exists and ``--force`` was
    not given; None when it may be. Never raises."""
    out = args.word_copy
    for name in _INPUT_OPTIONS:
        given = getattr(args, name, None)
        if isinstance(given, str) and given and _same_file(out, given):
            return (
                f"{out}: --word-copy would write over the --{name.replace('_', '-')} file "
                "this command reads; choose another file"
            )
    if os.path.isdir(out):
        return f"{out}: --word-copy names a folder; give a file name ending in .docx"
    if os.path.lexists(out) and not getattr(args, "force", False):
        return f"{out}: already exists; --word-copy will not replace it (--force replaces it)"
    return None


def bundle_target_problem(folder: str) -> str | None:
    """Why ``--bundle DIR`` cannot take a bundle: DIR is a file, or already holds one;
    None when it can. Never raises."""
    if os.path.lexists(folder) and not os.path.isdir(folder):
        return f"--bundle {folder}: is a file, not a folder; give a folder for the bundle"
    if os.path.exists(os.path.join(folder, "manifest.json")):
        return f"--bundle {folder}: already holds a bundle; choose another folder"
    return None


def claims_option(path: str, comment_ids: list[str]) -> tuple[Any, str]:
    """``--claims FILE``: (claims, the file's text as the agent's message). JSON is the
    agent's report or a bundle's claims.json (``engine.comments_io.load_claims``); any
    other text is what the agent said (``engine.agent_message.claims_from_message``).
    Raises InputError naming the file."""
    from engine.agent_message import MAX_MESSAGE_CHARS, claims_from_message
    from engine.comments_io import load_claims
    from engine.models import ClaimReport, InputError
    from engine.safe_io import BoundedInputError, read_regular_file

    try:
        data = read_regular_file(path, max_bytes=4 * MAX_MESSAGE_CHARS)
    except BoundedInputError as exc:
        raise InputError(path, exc.problem) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(path, "not UTF-8 text") from None
    claims: ClaimReport | None
    if text.lstrip().startswith(("{", "[")):
        claims = load_claims(path)
    else:
        claims = claims_from_message(text, comment_ids)
    unknown = sorted({c.comment_id for c in claims.comments} - set(comment_ids)) if claims else []
    if unknown and claims is not None and claims.usable:
        from engine.cli.common import say

        # the same for the claims JSON and for lines of text (docs/agent.md)
        say(
            f"arl: {path}: the agent's report names comments that do not exist: "
            f"{', '.join(unknown[:5])}{'…' if len(unknown) > 5 else ''}; claim accuracy is N/A",
            err=True,
        )
    return claims, text
