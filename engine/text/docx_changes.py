"""Tracked changes of a Word document, placed on its text (a layer the panes can show).

The text of a revised ``.docx`` is the document with every change accepted
(:mod:`engine.text.docx`); the changes themselves are kept beside it as
:class:`TrackedChange` items, placed by the same markers carried through the conversion
(:mod:`engine.text.docx_marks`): an insertion (``w:ins``, ``w:moveTo``) covers the text its
content became, a deletion (``w:del``, ``w:moveFrom``) is a point where its text stood,
with that text. Only changes to text are listed (paragraph-mark, table-row and formatting
changes are not). The program's own diff of the two versions stays the truth for verdicts;
this layer says which of those edits the document itself tracked.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from engine.text.docx_marks import (
    CHANGE_AT,
    CHANGE_END,
    CHANGE_START,
    MARKER,
    W,
    marker,
    marker_run,
)

__all__ = ["ChangeKind", "ChangeMarker", "TrackedChange"]

ChangeKind = Literal["insertion", "deletion", "move_to", "move_from"]
_KINDS: dict[str, ChangeKind] = {
    W + "ins": "insertion",
    W + "del": "deletion",
    W + "moveTo": "move_to",
    W + "moveFrom": "move_from",
}


@dataclass(frozen=True)
class TrackedChange:
    """One tracked change to text: ``kind``; ``start``/``end`` UTF-16 units into the
    accepted text (``start == end`` for a deletion: where its text stood); ``text`` the
    inserted or deleted text; ``author`` and ``date`` (``w:author``, ``w:date`` as written)."""

    kind: ChangeKind
    start: int
    end: int
    text: str
    author: str
    date: str


@dataclass
class ChangeMarker:
    """Marks the tracked changes of a part; ``changes`` holds (kind, text, author, date)
    by marker id."""

    next_id: int = 0
    changes: dict[int, tuple[ChangeKind, str, str, str]] = field(default_factory=dict)

    def mark(self, root: Any) -> None:
        """CHANGE_START/END inside each run-level insertion, CHANGE_AT before each run-level
        deletion (one inside another deleted element is not marked again)."""
        for el in list(root.iter(*_KINDS)):
            parent = el.getparent()
            if parent is None or parent.tag in (W + "rPr", W + "trPr", W + "pPr"):
                continue  # a paragraph mark, table row or formatting change
            kind = _KINDS[el.tag]
            deleted = kind in ("deletion", "move_from")
            if deleted and any(a.tag in (W + "del", W + "moveFrom") for a in el.iterancestors()):
                continue
            n = self.next_id
            self.next_id += 1
            # Text pieces are marked first (their markers are inside w:t): left out here.
            text = MARKER.sub("", "".join(t.text or "" for t in el.iter(W + "delText", W + "t")))
            self.changes[n] = (kind, text, el.get(W + "author") or "", el.get(W + "date") or "")
            if deleted:
                el.addprevious(marker_run(marker(CHANGE_AT, n)))
            else:
                el.insert(0, marker_run(marker(CHANGE_START, n)))
                el.append(marker_run(marker(CHANGE_END, n)))
