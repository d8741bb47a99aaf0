"""The verdicts back into Word: a copy of the revised ``.docx`` the reviewer continues in.

:func:`verdicts_into_word` writes, into a copy of the agent's revised file
(:class:`engine.text.docx_write.WordCopy`):

- one reply per comment stating its verdict in plain words (and what the agent claimed, and
  whether the text agrees), on the comment's own thread;
- every comment the agent resolved while the words it points at are unchanged reopened
  (``w15:done="0"``), the reply giving the VERIFICATION reason;
- when the revised file has lost a comment (an agent often returns a fresh file without
  comments), the comment re-created with its author, date, text and replies on its
  re-anchored words, a deleted one on the place its text stood;
- each change outside every comment (the collateral changes of the scoring) marked by a
  comment of its own, "changed, though no comment asked for it" (at most
  :data:`MAX_CHANGE_COMMENTS`), saying too when the file tracks changes but not this one
  (an edit made without tracking, ``engine.word_review.tracked``).

The verdict rules are the engine's (``engine.scoring``); this module only writes them.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass, field

from engine.models import VerdictRecord
from engine.score.scoring import ScoreResult
from engine.text import utf16
from engine.text.docx import WordComment, WordDocument
from engine.text.docx_package import PackageError
from engine.text.docx_write import WordCopy
from engine.vocabulary import (
    VERDICT_LABELS,
    VERDICT_MEANINGS,
    VERIFICATION_MESSAGE,
    claim_words,
    plural,
)
from engine.word_review import match_comments, tracked

__all__ = [
    "AUTHOR",
    "MAX_CHANGE_COMMENTS",
    "WordCopyReport",
    "comment_name",
    "report_words",
    "save_copy",
    "verdicts_into_word",
    "write_word_copy",
]

AUTHOR = "Agent Review Loop"
#: At most this many "changed, though no comment asked for it" comments (the first ones in
#: the text); the report says how many more there were.
MAX_CHANGE_COMMENTS = 200


@dataclass
class WordCopyReport:
    """What was written: ``replies`` (verdict replies on the file's own comments),
    ``reopened`` and ``recreated`` (comment ids), ``changes`` (comments on changes outside
    every comment), ``changes_left_out`` (beyond :data:`MAX_CHANGE_COMMENTS`) and
    ``untracked`` (those of the changes the document's tracked changes do not account for,
    in a file that tracks changes)."""

    replies: int = 0
    reopened: list[str] = field(default_factory=list)
    recreated: list[str] = field(default_factory=list)
    changes: int = 0
    changes_left_out: int = 0
    untracked: int = 0


def verdict_words(v: VerdictRecord, reopened: bool) -> str:
    """The reply stating a verdict, in plain words (a line per point)."""
    label = VERDICT_LABELS.get(v.verdict, v.verdict)
    lines = [f"{AUTHOR}: {label}. {VERDICT_MEANINGS.get(v.verdict, '').capitalize()}."]
    if v.claim is not None:
        agrees = "the text agrees" if v.claim_agrees else "the text does not agree"
        lines.append(f"The agent claimed {claim_words(v.claim)}; {agrees}.")
    if reopened:
        lines.append(
            f"Reopened: {VERIFICATION_MESSAGE}. The agent resolved this comment, but the "
            "words it points at are unchanged."
        )
    elif v.message:
        lines.append(v.message)
    return "\n".join(lines)


def _unchanged(v: VerdictRecord) -> bool:
    return v.verdict == "untouched"


def verdicts_into_word(
    revised_bytes: bytes,
    reviewed: WordDocument,
    revised: WordDocument,
    result: ScoreResult,
    when: str,
) -> tuple[bytes, WordCopyReport]:
    """The copy of ``revised_bytes`` (read as ``revised``) with the verdicts of ``result``
    (scored from ``reviewed``'s comments, ids their numbers) written in; ``when`` is the
    date of the new comments (ISO 8601). Raises PackageError when the file cannot be
    edited."""
    copy = WordCopy(revised_bytes, revised)
    report = WordCopyReport()
    omap = utf16.OffsetMap(revised.text)
    by_number = {str(c.number): c for c in reviewed.comments}
    twins = match_comments(reviewed.comments, revised.comments)
    for v in result.verdicts:
        c1 = by_number.get(v.comment_id)
        if c1 is None:
            continue
        try:
            _write_one(copy, v, c1, twins.get(c1.number), result, omap, when, report)
        except PackageError as exc:
            raise PackageError(f"{comment_name(c1)}: {exc}") from None
    _mark_changes(copy, result, omap, when, report, revised)
    return copy.to_bytes(), report


def comment_name(c: WordComment) -> str:
    """A Word comment as the program names it: its number (the one the Verdicts view
    shows, never Word's ``w:id``), its author and first words: ``comment 2 (Ana:
    “Tighten this…”)``."""
    words = " ".join(c.text.split())
    if len(words) > 40:
        words = words[:40].rstrip() + "\u2026"
    author = " ".join(c.author.split())[:40]
    who = f"{author}: " if author else ""
    return f"comment {c.number} ({who}\u201c{words}\u201d)" if words else f"comment {c.number}"


def _write_one(
    copy: WordCopy,
    v: VerdictRecord,
    c1: WordComment,
    twin: WordComment | None,
    result: ScoreResult,
    omap: utf16.OffsetMap,
    when: str,
    report: WordCopyReport,
) -> None:
    """The verdict ``v`` of reviewed comment ``c1`` into the copy: a reply on its ``twin``
    in the revised file; the twin put back on the place of its words first when its words
    were deleted with its marks (:meth:`WordCopy.has_place`); the comment re-created with
    its replies when the revised file lost it."""
    reopen = twin is not None and twin.done and not c1.done and _unchanged(v)
    words = verdict_words(v, reopen)
    if twin is not None:
        if not copy.has_place(twin):
            start, end = _place(v, result)
            copy.place(twin, omap.to_utf16(start), omap.to_utf16(end))
            report.recreated.append(v.comment_id)
        copy.add_reply(twin, AUTHOR, when, words)
        report.replies += 1
        if reopen:
            copy.reopen(twin)
            report.reopened.append(v.comment_id)
        return
    start, end = _place(v, result)
    pid = copy.add_comment(
        omap.to_utf16(start), omap.to_utf16(end), c1.author, c1.date, c1.text, c1.initials
    )
    for r in c1.replies:
        copy.add_reply(pid, r.author, r.date, r.text)
    copy.add_reply(pid, AUTHOR, when, words)
    report.replies += 1  # counted as written: a re-created comment carries its verdict too
    report.recreated.append(v.comment_id)


def _place(v: VerdictRecord, result: ScoreResult) -> tuple[int, int]:
    """Code points of the revised text a re-created comment goes on: its re-anchored span,
    or, for a deleted one, the point where its text stood."""
    if v.v2 is not None:
        return v.v2.start, v.v2.end
    if v.v1 is not None:
        at = result.diff.place_in_b(v.v1.start, v.v1.end)  # the one rule, for every view
        return at, at
    return 0, 0


def _edits(result: ScoreResult) -> list[tuple[int, int, str]]:
    """The collateral changes as edits of the revised text: (start, end, deleted text) in
    code points, a deletion and the insertion beside it (one replacement) joined."""
    out: list[tuple[int, int, str]] = []
    for c in sorted(result.collateral, key=lambda c: (c.b0, c.b1)):
        if out and c.b0 <= out[-1][1]:
            b0, b1, deleted = out[-1]
            out[-1] = (b0, max(b1, c.b1), deleted + c.deleted)
        else:
            out.append((c.b0, c.b1, c.deleted))
    return out


def _mark_changes(
    copy: WordCopy,
    result: ScoreResult,
    omap: utf16.OffsetMap,
    when: str,
    report: WordCopyReport,
    revised: WordDocument,
) -> None:
    """A comment on each change outside every comment; one the document did not track
    (no tracked change accounts for it, while the file tracks others) says so."""
    text = result.v2.text
    for b0, b1, deleted in _edits(result):
        if not (text[b0:b1].strip() or deleted.strip()):
            continue
        if report.changes >= MAX_CHANGE_COMMENTS:
            report.changes_left_out += 1
            continue
        what = "changed" if b1 > b0 else "deleted"
        start, end = omap.to_utf16(b0), omap.to_utf16(b1)
        note = f"{AUTHOR}: {what}, though no comment asked for it."
        if revised.changes and not tracked(start, end, revised.changes):
            note += " This edit was made without tracking changes."
            report.untracked += 1
        copy.add_comment(start, end, AUTHOR, when, note)
        report.changes += 1


def write_word_copy(
    reviewed: str | os.PathLike[str],
    revised: str | os.PathLike[str],
    out: str | os.PathLike[str],
    when: str | None = None,
) -> WordCopyReport:
    """Score a Word review against the agent's revised Word file and write the copy with
    the verdicts to ``out``, whole or not at all (a temporary file beside it, then
    renamed). The comments come from ``reviewed``, the claims from ``revised``'s resolved
    marks. ``when``: the new comments' date (default: now, UTC). Raises
    ``engine.text.documents.DocumentError`` or ``engine.models.InputError`` (one line
    naming the file) when a file cannot be used."""
    from engine.models import InputError
    from engine.safe_io import BoundedInputError, read_regular_file
    from engine.score.scoring import Version, score
    from engine.text.documents import MAX_DOCUMENT_BYTES, open_document
    from engine.word_review import word_claims, word_comments

    d1, d2 = open_document(reviewed), open_document(revised)
    for path, doc in ((reviewed, d1), (revised, d2)):
        if doc.word is None:
            raise InputError(os.fspath(path), "is not a Word document (.docx)")
    assert d1.word is not None and d2.word is not None
    comments, _unusable = word_comments(d1.word)
    if not comments:
        raise InputError(os.fspath(reviewed), "has no comment on words to score")
    found = word_claims(d1.word, d2.word)
    for c in comments:
        c.thread.extend(found.replies.get(c.id, []))
    result = score(
        Version.from_source(d1.content, "html", "v1"),
        Version.from_source(d2.content, "html", "v2"),
        comments,
        claims=found.claims,
    )
    stamp = when or datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        data = read_regular_file(revised, max_bytes=MAX_DOCUMENT_BYTES)
        copy, report = verdicts_into_word(data, d1.word, d2.word, result, stamp)
    except BoundedInputError as exc:
        raise InputError(os.fspath(revised), exc.problem) from None
    except PackageError as exc:
        raise InputError(os.fspath(revised), str(exc)) from None
    save_copy(out, copy)
    return report


def save_copy(out: str | os.PathLike[str], data: bytes) -> None:
    """``data`` to ``out`` through a temporary file in its folder. Raises InputError."""
    from engine.atomic import write_atomic
    from engine.models import InputError

    try:
        write_atomic(os.path.abspath(out), data)
    except OSError as exc:
        raise InputError(os.fspath(out), f"cannot be written ({exc.strerror or exc})") from None


def report_words(report: WordCopyReport) -> str:
    """What a copy holds, counted as it was written, in one sentence for people: "3 verdict
    replies written, 3 of them on comments the revised file had lost, put back in place;
    1 comment reopened; 2 changes no comment asked for marked, 1 of them made without
    tracking" (no brackets, no "(s)")."""
    head = (
        f"{plural(report.replies, 'verdict reply', 'verdict replies')} written"
        if report.replies
        else "no verdict reply written"
    )
    if report.recreated:
        n = len(report.recreated)
        which = ("it" if n == 1 else f"all {n}") if n == report.replies else f"{n} of them"
        where = "a comment" if n == 1 else "comments"
        head += f", {which} on {where} the revised file had lost, put back in place"
    parts = [head]
    if report.reopened:
        parts.append(f"{plural(len(report.reopened), 'comment')} reopened")
    if report.changes:
        marked = f"{plural(report.changes, 'change')} no comment asked for marked"
        if report.untracked:
            marked += f", {report.untracked} of them made without tracking"
        parts.append(marked)
    if report.changes_left_out:
        parts.append(f"{plural(report.changes_left_out, 'more change')} not marked")
    return "; ".join(parts)
