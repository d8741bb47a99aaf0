"""A Word review as the engine scores it: comments from the reviewed ``.docx``, claims from
the revised one.

:func:`word_comments` turns the threads :func:`engine.text.docx.read_docx` found into the
native :class:`~engine.models.Comment` shape (docs/anchor.md, "Word documents"): id the
comment's number (``"1"``, ``"2"``... in the order the ranges start), quote, prefix and
suffix from the rendered text, offsets in UTF-16 units, ``status`` "resolved" for a
thread already resolved in Word (not actionable: the metrics leave it out), the replies as
its thread. A comment whose range is unusable is returned with its reason instead.

:func:`word_claims` reads what the agent did to those comments in the revised ``.docx``:
a thread it resolved (``w15:done="1"`` where the reviewed file had it open) is a claim of
``addressed``, and every reply it added is in the thread. Comments are matched across the
two files by ``w16cid:durableId``, else the ``w14:paraId`` of their last paragraph, else
author, date and text together (Word renumbers ``w:id`` on every save). A revised file
with no comments part at all, or one where nothing was resolved, makes no claim (claim
accuracy is then N/A with its reason).

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.models import ANCHOR_CONTEXT, Anchor, ClaimItem, ClaimReport, Comment, Reply
from engine.text import utf16
from engine.text.docx import WordComment, WordDocument, WordReply
from engine.text.docx_changes import TrackedChange

__all__ = [
    "WordClaims",
    "claims_message",
    "match_comments",
    "tracked",
    "tracked_changes_json",
    "tracked_layer",
    "word_claims",
    "word_comments",
]


def _reply(r: WordReply) -> Reply:
    return Reply(author=r.author, body=r.text, created_at=r.date)


def word_comments(
    doc: WordDocument, version_id: str = "v1"
) -> tuple[list[Comment], list[tuple[str, str]]]:
    """(comments, unusable) of a reviewed Word document; ``unusable`` lists (number,
    reason) for each comment whose range cannot be scored. ``version_id`` is the version
    the comments were made on (``created_on_version_id``)."""
    omap = utf16.OffsetMap(doc.text)
    comments: list[Comment] = []
    unusable: list[tuple[str, str]] = []
    for c in doc.comments:
        cid = str(c.number)
        if c.start is None or c.end is None:
            unusable.append((cid, c.problem or "its range is unusable"))
            continue
        start, end = omap.to_codepoint(c.start), omap.to_codepoint(c.end)
        anchor = Anchor(
            quote=doc.text[start:end],
            prefix=doc.text[max(0, start - ANCHOR_CONTEXT) : start],
            suffix=doc.text[end : end + ANCHOR_CONTEXT],
            start_offset=c.start,
            end_offset=c.end,
        )
        comments.append(
            Comment(
                id=cid,
                body=c.text,
                anchor=anchor,
                author=c.author,
                created_on_version_id=version_id,
                status="resolved" if c.done else "open",
                thread=[_reply(r) for r in c.replies],
            )
        )
    return comments, unusable


@dataclass
class WordClaims:
    """What the revised file says about the reviewed file's comments.

    ``claims``: a report with one ``addressed`` item per comment the agent resolved (its
    ``change_summary`` the agent's last new reply, if any), or None when it resolved none.
    ``resolved``: those comments' ids. ``replies``: comment id -> the replies the revised
    file adds to its thread. ``found``: how many of the comments the revised file still
    holds (0 for a fresh copy without comments)."""

    claims: ClaimReport | None
    resolved: set[str] = field(default_factory=set)
    replies: dict[str, list[Reply]] = field(default_factory=dict)
    found: int = 0


_KEYS: tuple[Callable[[WordComment], object], ...] = (
    lambda c: c.durable_id,
    lambda c: c.para_id,
    lambda c: (c.author, c.date, c.text) if c.date or c.author else None,
)


def match_comments(
    reviewed: tuple[WordComment, ...], revised: tuple[WordComment, ...]
) -> dict[int, WordComment]:
    """The comment of the revised file that is each reviewed comment, by its number: the
    first key (durable id, paragraph id, author+date+text) that one and only one revised
    comment shares with it. Linear in the two counts (one index per key)."""
    indexes: list[dict[object, list[WordComment]]] = []
    for key in _KEYS:
        index: dict[object, list[WordComment]] = {}
        for c in revised:
            value = key(c)
            if value is not None:
                index.setdefault(value, []).append(c)
        indexes.append(index)
    out: dict[int, WordComment] = {}
    for c in reviewed:
        for key, index in zip(_KEYS, indexes, strict=True):
            value = key(c)
            hits = index.get(value, []) if value is not None else []
            if len(hits) == 1:
                out[c.number] = hits[0]
                break
    return out


def word_claims(reviewed: WordDocument, revised: WordDocument) -> WordClaims:
    """Claims and new replies of the revised Word file about the reviewed file's comments
    (ids as :func:`word_comments` gives them). Never raises."""
    out = WordClaims(claims=None)
    items = []
    twins = match_comments(reviewed.comments, revised.comments)
    for c in reviewed.comments:
        twin = twins.get(c.number)
        if twin is None:
            continue
        out.found += 1
        cid = str(c.number)
        known = {(r.author, r.date, r.text) for r in c.replies}
        new = [_reply(r) for r in twin.replies if (r.author, r.date, r.text) not in known]
        if new:
            out.replies[cid] = new
        if twin.done and not c.done:
            out.resolved.add(cid)
            summary = new[-1].body if new else ""
            items.append(ClaimItem(comment_id=cid, claim="addressed", change_summary=summary))
    if items:
        out.claims = ClaimReport(
            comments=items, notes="claims read from the comments resolved in the revised Word file"
        )
    return out


def claims_message(found: WordClaims) -> str:
    """The revised Word file's claims as an agent's report (the claims JSON, docs/agent.md,
    "The report"), for a bundle of a revision made elsewhere, which stores what the agent
    said and reads its claims from it again on verify (``engine.agent_message``): ``""``
    when the file makes no claim."""
    if found.claims is None:
        return ""
    return json.dumps(found.claims.to_json(), ensure_ascii=False, indent=2) + "\n"


def tracked(start: int, end: int, changes: tuple[TrackedChange, ...]) -> bool:
    """Whether the document's own tracked changes account for an edit the program's diff
    found at UTF-16 units ``[start, end)`` of the revised text (``start == end``: a
    deletion there): an insertion overlapping or touching it, or a deletion at a point
    within it or at one of its ends. False means the edit was made without tracking."""
    for c in changes:
        if c.kind in ("insertion", "move_to"):
            if c.start <= end and start <= c.end:
                return True
        elif start <= c.start <= end:
            return True
    return False


def tracked_changes_json(doc: WordDocument) -> list[dict[str, Any]] | None:
    """The revised Word file's own tracked changes as the bundle stores them
    (``tracked_changes.json`` items: kind, start, end, text, author, date; UTF-16 units
    into its text), or None when it has none."""
    if not doc.changes:
        return None
    return [
        {
            "kind": c.kind,
            "start": c.start,
            "end": c.end,
            "text": c.text,
            "author": c.author,
            "date": c.date,
        }
        for c in doc.changes
    ]


def tracked_layer(
    changes: list[dict[str, Any]], marks: Iterable[Any]
) -> tuple[list[dict[str, Any]], int]:
    """The last version's tracked-change layer, for a pane to toggle: (spans, untracked).

    ``changes``: the stored tracked changes (:func:`tracked_changes_json`); ``marks``: the
    program's own change marks of the pair (``engine.diff.marks.ChangeMark``: ``kind``
    ``"inserted"`` with ``start``/``end`` in the last version, ``"deleted"`` with ``at``
    there). Spans (UTF-16 units of the last version): each tracked insertion or move,
    ``{"kind": "tracked", "start", "end", "label": "tracked: inserted by <author>"}``, and
    each inserted piece of the program's diff that no tracked change accounts for
    (:func:`tracked`), ``{"kind": "untracked", ..., "label": "changed without
    tracking"}``. ``untracked``: how many of the program's change marks (insertions and deletions)
    no tracked change accounts for. The verdicts never read this layer."""
    tc = tuple(
        TrackedChange(
            str(c["kind"]),  # type: ignore[arg-type]
            int(c["start"]),
            int(c["end"]),
            str(c.get("text", "")),
            str(c.get("author", "")),
            str(c.get("date", "")),
        )
        for c in changes
    )
    spans: list[dict[str, Any]] = []
    for i, c in enumerate(tc):
        if c.end > c.start:
            who = f" by {c.author}" if c.author else ""
            verb = "moved here" if c.kind == "move_to" else "inserted"
            spans.append(
                {
                    "id": f"tracked-{i}",
                    "kind": "tracked",
                    "start": c.start,
                    "end": c.end,
                    "label": f"tracked: {verb}{who}",
                }
            )
    untracked = 0
    for i, m in enumerate(marks):
        if m.kind == "inserted":
            if not tracked(m.start, m.end, tc):
                untracked += 1
                spans.append(
                    {
                        "id": f"untracked-{i}",
                        "kind": "untracked",
                        "start": m.start,
                        "end": m.end,
                        "label": "changed without tracking",
                    }
                )
        elif not tracked(m.at, m.at, tc):
            untracked += 1
    return spans, untracked
