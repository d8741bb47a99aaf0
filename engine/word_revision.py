"""The agent's revision of a Word review, back as a Word file whose edits are tracked changes.

When a run starts from a ``.docx`` (the wizard's, or ``arl run --doc review.docx``), the
agent revises the page the panes show; :func:`word_revision` turns its final text back into
a copy of the reviewed file: the program's own diff of the two texts
(:func:`engine.diff.diffing.diff_texts`, the diff the verdicts are computed from) written as
tracked changes by "Revision agent" over the original's runs and formatting
(:func:`engine.text.docx_track.tracked_copy`), so the reviewer accepts or rejects each one
in Word. Accepting every change gives the agent's text and rejecting every change gives the
reviewed file's, except where a note says which paragraph and why not.

:func:`write_word_revision` does it for a run's evidence bundle (its first version must be
the reviewed file's text) and saves the copy whole or not at all.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass
from pathlib import Path

from engine.diff.align import DELETE, EQUAL
from engine.diff.diffing import diff_texts
from engine.text import utf16
from engine.text.docx import WordDocument
from engine.text.docx_track import RevisionNote, TextEdit, tracked_copy

__all__ = [
    "REVISION_AUTHOR",
    "WordRevision",
    "revision_edits",
    "revision_path",
    "revision_words",
    "word_revision",
    "write_word_revision",
]

#: The author of the tracked changes (``w:author``), as Word shows it beside each change.
REVISION_AUTHOR = "Revision agent"


def revision_path(bundle: str | os.PathLike[str]) -> Path:
    """Where a run's Word revision is written by default: beside its bundle folder,
    ``<bundle folder>-revision.docx`` (never inside the bundle, whose manifest lists every
    file; a ``.zip`` bundle: beside it, named by its stem)."""
    b = Path(bundle)
    name = b.stem if b.suffix.lower() == ".zip" else b.name
    return b.parent / f"{name}-revision.docx"


@dataclass(frozen=True)
class WordRevision:
    """The tracked copy: ``data`` the ``.docx`` bytes; ``insertions``/``deletions`` how
    many edits inserted or deleted text (a replacement counts in both); ``notes`` where a
    paragraph could not be followed exactly (:class:`~engine.text.docx_track.RevisionNote`)."""

    data: bytes
    insertions: int
    deletions: int
    notes: tuple[RevisionNote, ...]


def revision_edits(old: str, new: str) -> list[TextEdit]:
    """The edits turning ``old`` into ``new`` (code-point strings), from the program's diff:
    each run of deleted and inserted pieces between two equal ones is one
    :class:`TextEdit`, in UTF-16 units of ``old``, less the characters a replacement
    keeps at its two ends (so "Introduction" -> "Introductions" inserts one "s" and keeps
    the runs of the rest)."""
    omap = utf16.OffsetMap(old)
    edits: list[TextEdit] = []
    i = 0
    start: int | None = None
    inserted: list[str] = []

    def close() -> None:
        nonlocal start, inserted
        if start is not None:
            a, b, new_words = start, i, "".join(inserted)
            # the words kept at either end of a replacement stay the original's runs
            k = 0
            while a + k < b and k < len(new_words) and old[a + k] == new_words[k]:
                k += 1
            a, new_words = a + k, new_words[k:]
            k = 0
            while b - k > a and k < len(new_words) and old[b - k - 1] == new_words[-k - 1]:
                k += 1
            b, new_words = b - k, new_words[: len(new_words) - k]
            if a < b or new_words:
                edits.append(TextEdit(omap.to_utf16(a), omap.to_utf16(b), new_words))
        start, inserted = None, []

    for op, text in diff_texts(old, new):
        if op == EQUAL:
            close()
            i += len(text)
        elif op == DELETE:
            start = i if start is None else start
            i += len(text)
        else:
            start = i if start is None else start
            inserted.append(text)
    close()
    return edits


def word_revision(
    reviewed: bytes, doc: WordDocument, new_text: str, when: str | None = None
) -> WordRevision:
    """The reviewed ``.docx`` (bytes, read as ``doc``) with the edits from ``doc.text`` to
    ``new_text`` as tracked changes by :data:`REVISION_AUTHOR` dated ``when`` (ISO 8601;
    default now, UTC). Raises ``engine.text.docx_package.PackageError``."""
    stamp = when or datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    edits = revision_edits(doc.text, new_text)
    data, notes = tracked_copy(reviewed, doc, edits, author=REVISION_AUTHOR, date=stamp)
    return WordRevision(
        data,
        sum(1 for e in edits if e.text),
        sum(1 for e in edits if e.end > e.start),
        tuple(notes),
    )


def write_word_revision(
    reviewed: bytes,
    first: str,
    final: str,
    out: str | os.PathLike[str],
    when: str | None = None,
) -> WordRevision:
    """Write ``final`` (the text of a run's last version) as tracked changes over
    ``reviewed`` (the ``.docx`` bytes the run started from; ``first`` the text of the run's
    first version, which must be that file's text) to ``out``, whole or not at all. Raises
    ``engine.models.InputError`` (one line naming the file): not a Word file, not the file
    the run reviewed, ``out`` cannot be written."""
    from engine.models import InputError
    from engine.text.docx import read_docx
    from engine.text.docx_package import PackageError
    from engine.word_verdicts import save_copy

    try:
        doc = read_docx(reviewed)
    except PackageError as exc:
        raise InputError("the reviewed Word file", str(exc)) from None
    if doc.text != first:
        raise InputError(
            "the reviewed Word file",
            "is not the file this run reviewed (its text differs from the run's first version)",
        )
    try:
        rev = word_revision(reviewed, doc, final, when)
    except PackageError as exc:
        raise InputError("the reviewed Word file", str(exc)) from None
    save_copy(out, rev.data)
    return rev


def revision_words(rev: WordRevision, notes: bool = True) -> str:
    """What the tracked copy holds, in plain words, for people (``notes``: with the
    paragraph notes)."""
    from engine.vocabulary import plural

    if not rev.insertions and not rev.deletions:
        return "the agent changed nothing, so the copy has no tracked change"
    parts = [
        f"{plural(rev.insertions, 'insertion')} and {plural(rev.deletions, 'deletion')} "
        f"by \u201c{REVISION_AUTHOR}\u201d to accept or reject in Word"
    ]
    if rev.notes and notes:
        parts.append(
            f"{plural(len(rev.notes), 'paragraph note')}: "
            + "; ".join(n.words() for n in rev.notes)
        )
    return ". ".join(parts)
