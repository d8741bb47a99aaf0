"""The engine's data: comments and their anchors, claims, verdicts and metrics.

Units: every offset stored on a model object that comes from outside (``Anchor.start_offset``,
``Anchor.end_offset``) counts UTF-16 code units, as docs/anchor.md says.
Every ``Span`` the engine computes counts Python code points into the version's text;
``Span.to_json(text)`` converts to UTF-16 units at the boundary.

These classes are plain dataclasses with ``to_json``/``from_json`` so the CLI, the
workspace, the evidence bundle and the GUI all share one shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from engine.text import utf16

# The values and exact messages live in engine.vocabulary (one vocabulary).
from engine.vocabulary import (
    COMMENT_STATUSES,
    REPLY_KINDS,
    Claim,
    CommentStatus,
    Method,
    ReplyKind,
    Verdict,
    one_of,
)

ANCHOR_CONTEXT = 32
"""Characters of prefix and suffix an anchor carries (docs/anchor.md)."""


class InputError(ValueError):
    """Unusable input. ``str()`` is one line naming the source and the problem."""

    def __init__(self, source: str, problem: str):
        self.source = source
        self.problem = problem
        super().__init__(f"{source}: {problem}" if source else problem)


def json_type(value: Any) -> str:
    """How a JSON value reads in an error: "a number", "a list", "an object", ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


@dataclass(frozen=True)
class Anchor:
    """W3C TextQuoteSelector + TextPositionSelector, native units.

    ``start_offset``/``end_offset`` count UTF-16 code units into the body textContent of
    the version the comment was made on; either may be None (missing). ``quote`` may be
    None or empty in bad input; the engine reports such a comment as unusable.
    """

    quote: str | None
    prefix: str = ""
    suffix: str = ""
    dom_path: str = "body"
    start_offset: int | None = None
    end_offset: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "quote": self.quote,
            "prefix": self.prefix,
            "suffix": self.suffix,
            "dom_path": self.dom_path,
            "start_offset": self.start_offset,
            "end_offset": self.end_offset,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Anchor:
        def _int(v: Any) -> int | None:
            if v is None:
                return None
            if isinstance(v, bool):  # an int to Python, never an offset
                raise ValueError(f"offset {'true' if v else 'false'} is not an integer")
            if isinstance(v, int):
                return v
            if isinstance(v, float) and v.is_integer():
                return int(v)
            raise ValueError(f"offset {v!r} is not an integer")

        def _text(name: str) -> str | None:
            v = obj.get(name)
            if v is not None and not isinstance(v, str):
                raise ValueError(f"anchor {name} is {json_type(v)}, not text")
            return v

        quote = _text("quote")
        start, end = _int(obj.get("start_offset")), _int(obj.get("end_offset"))
        for name, v in (("start_offset", start), ("end_offset", end)):
            if v is not None and v < 0:
                raise ValueError(f"anchor {name} {v} is negative")
        return cls(
            quote=quote,
            prefix=_text("prefix") or "",
            suffix=_text("suffix") or "",
            dom_path=_text("dom_path") or "body",
            start_offset=start,
            end_offset=end,
        )


@dataclass
class Reply:
    """One message on a comment's thread."""

    author: str
    body: str
    created_at: str = ""
    kind: ReplyKind = "reply"

    def to_json(self) -> dict[str, Any]:
        return {
            "author": self.author,
            "body": self.body,
            "created_at": self.created_at,
            "kind": self.kind,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Reply:
        return cls(
            author=str(obj.get("author", "")),
            body=str(obj.get("body", "")),
            created_at=str(obj.get("created_at", "")),
            kind=one_of(obj.get("kind"), REPLY_KINDS) or "reply",
        )


@dataclass
class Comment:
    """A review comment in the native shape (docs/anchor.md, "The comment")."""

    id: str
    body: str
    anchor: Anchor
    author: str = ""
    created_on_version_id: str | None = None
    status: CommentStatus = "open"
    actionable: bool = True
    thread: list[Reply] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "body": self.body,
            "author": self.author,
            "created_on_version_id": self.created_on_version_id,
            "status": self.status,
            "actionable": self.actionable,
            "anchor": self.anchor.to_json(),
            "thread": [r.to_json() for r in self.thread],
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Comment:
        """Build from the native shape. Raises ValueError naming the problem."""
        if not isinstance(obj, dict):
            raise ValueError("comment is not a JSON object")
        cid = obj.get("id")
        if cid is None or (isinstance(cid, str) and not cid.strip()):
            raise ValueError("comment has no id")
        if isinstance(cid, bool) or not isinstance(cid, (str, int)):
            raise ValueError(f"comment id is {json_type(cid)}, not text")
        for name in ("body", "author", "created_on_version_id"):
            v = obj.get(name)
            if v is not None and not isinstance(v, str):
                raise ValueError(f"comment {cid}: {name} is {json_type(v)}, not text")
        if "actionable" in obj and not isinstance(obj["actionable"], bool):
            raise ValueError(
                f"comment {cid}: actionable is {json_type(obj['actionable'])}, not true or false"
            )
        thread = obj.get("thread")
        if thread is not None and not isinstance(thread, list):
            raise ValueError(f"comment {cid}: thread is {json_type(thread)}, not a list")
        anchor = obj.get("anchor")
        if not isinstance(anchor, dict):
            raise ValueError(f"comment {cid}: no anchor object")
        raw_status = obj.get("status") or "open"
        status = one_of(raw_status, COMMENT_STATUSES)
        if status is None:
            raise ValueError(f"comment {cid}: status {raw_status!r} is not open or resolved")
        created = obj.get("created_on_version_id")
        return cls(
            id=str(cid),
            body=str(obj.get("body") or ""),
            anchor=Anchor.from_json(anchor),
            author=str(obj.get("author") or ""),
            created_on_version_id=None if created is None else str(created),
            status=status,
            actionable=bool(obj.get("actionable", True)),
            thread=[Reply.from_json(r) for r in obj.get("thread") or [] if isinstance(r, dict)],
        )


def comment_from_checked(obj: dict[str, Any]) -> Comment:
    """``Comment.from_json`` of a comment object that already fits the bundle's schema
    (``engine.bundle.schema.CommentJson``: every type checked there, once): only what the
    schema does not say is checked here, an id of nothing but spaces and a negative
    offset. The same Comment as ``from_json``; raises its ValueError for those two."""
    cid, anchor = obj["id"], obj["anchor"]
    if not cid.strip():
        raise ValueError("comment has no id")
    start, end = anchor.get("start_offset"), anchor.get("end_offset")
    for name, v in (("start_offset", start), ("end_offset", end)):
        if v is not None and v < 0:
            raise ValueError(f"anchor {name} {v} is negative")
    return Comment(
        id=cid,
        body=obj["body"],
        anchor=Anchor(
            anchor.get("quote"),
            anchor.get("prefix") or "",
            anchor.get("suffix") or "",
            anchor.get("dom_path") or "body",
            start,
            end,
        ),
        author=obj.get("author") or "",
        created_on_version_id=obj.get("created_on_version_id"),
        status=obj.get("status") or "open",
        actionable=obj.get("actionable", True),
        thread=[
            Reply(r["author"], r["body"], r.get("created_at", ""), r.get("kind", "reply"))
            for r in obj.get("thread") or []
        ],
    )


@dataclass(frozen=True)
class ClaimItem:
    """One entry of the agent's structured report (docs/agent.md, "The report")."""

    comment_id: str
    claim: Claim
    change_summary: str = ""
    rationale: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "comment_id": self.comment_id,
            "claim": self.claim,
            "change_summary": self.change_summary,
            "rationale": self.rationale,
        }


@dataclass
class ClaimReport:
    """The agent's report. ``usable`` False means claim accuracy is N/A with ``problem``."""

    comments: list[ClaimItem] = field(default_factory=list)
    notes: str = ""
    usable: bool = True
    problem: str = ""

    def by_comment(self) -> dict[str, ClaimItem]:
        return {c.comment_id: c for c in self.comments}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "comments": [c.to_json() for c in self.comments],
            "notes": self.notes,
        }
        if not self.usable:
            out["usable"] = False
            out["problem"] = self.problem
        return out

    @classmethod
    def unusable(cls, problem: str) -> ClaimReport:
        return cls(usable=False, problem=problem)


@dataclass(frozen=True)
class Span:
    """A region of one version's text, in code points: ``text[start:end]``."""

    start: int
    end: int
    text: str

    def to_json(self, full_text: str | utf16.OffsetMap) -> dict[str, Any]:
        """The contract's shape, offsets converted to UTF-16 code units of the full text
        (pass an ``OffsetMap`` of it when converting many spans)."""
        omap = full_text if isinstance(full_text, utf16.OffsetMap) else utf16.OffsetMap(full_text)
        return {
            "start": omap.to_utf16(self.start),
            "end": omap.to_utf16(self.end),
            "text": self.text,
        }


@dataclass
class VerdictRecord:
    """The verdict on one comment, and the evidence for it.

    ``confidence`` is in [0, 1]: how sure the v2 place is (1.0 when the diff itself shows
    it; the context agreement or the match score otherwise). It is not a similarity.
    ``similarity`` is the Indel similarity of the v1 and v2 texts in [0, 1], present only
    where one was measured (an edited span), else None. ``lookalike_only``: the v2 text
    differs only by look-alike letters of another script (UTS #39); the verdict is then
    ``untouched``. ``invisible_only``: the v2 text differs only by characters that cannot
    show where they stand (zero-width, formatting, bidi controls that display the same);
    the verdict is then ``untouched`` too (docs/verdicts.md). ``token_edit``: an ``edited``
    span whose only change is letter case, punctuation, spacing or at most two characters
    (``engine.score.token_edits``); ``token_edit_kind`` says which, in plain words ("only
    the letter case changed"), else None. ``hidden_only``: the v2 text differs only in
    text hidden from the reader (``hidden``, ``display: none``, ``visibility: hidden``,
    ``font-size: 0``); the verdict is then ``untouched`` (``engine.score.seen``).
    ``rendered_spacing``: the words are the same but whitespace that renders (``<pre>``,
    ``white-space: pre``) changed: ``edited``, and a token edit (not serialised: the
    token-edit fields say it).
    ``offsets_repaired`` says the stored v1 offsets did not match the quote and the span was
    found from the quote and its context instead. ``note`` is a plain sentence for people.
    """

    comment_id: str
    verdict: Verdict
    v1: Span | None
    v2: Span | None
    method: Method
    markup_changed: bool = False
    claim: Claim | None = None
    claim_agrees: bool | None = None
    message: str | None = None
    confidence: float = 1.0
    offsets_repaired: bool = False
    approximate: bool = False
    note: str = ""
    similarity: float | None = None
    lookalike_only: bool = False
    invisible_only: bool = False
    token_edit: bool = False
    token_edit_kind: str | None = None
    hidden_only: bool = False
    rendered_spacing: bool = False

    def to_json(
        self,
        v1_text: str | utf16.OffsetMap,
        v2_text: str | utf16.OffsetMap,
        *,
        extended: bool = False,
    ) -> dict[str, Any]:
        """The `arl score --json` item; ``extended`` adds confidence and repair notes.
        ``token_edit`` and ``token_edit_kind`` are in both, only on a token edit, and so is
        ``hidden_only``, only when true (items written before the rules lack them).

        ``v1_text``/``v2_text``: the versions' full texts, or OffsetMaps of them."""
        out: dict[str, Any] = {
            "comment_id": self.comment_id,
            "verdict": self.verdict,
            "v1": self.v1.to_json(v1_text) if self.v1 else None,
            "v2": self.v2.to_json(v2_text) if self.v2 else None,
            "method": self.method,
            "markup_changed": self.markup_changed,
            "claim": self.claim,
            "claim_agrees": self.claim_agrees,
            "message": self.message,
        }
        if self.token_edit:
            out.update(token_edit=True, token_edit_kind=self.token_edit_kind)
        if self.hidden_only:
            out["hidden_only"] = True
        if extended:
            out.update(
                confidence=round(self.confidence, 4),
                offsets_repaired=self.offsets_repaired,
                approximate=self.approximate,
                note=self.note,
                similarity=None if self.similarity is None else round(self.similarity, 4),
                lookalike_only=self.lookalike_only,
            )
            if self.invisible_only:  # only when set: bundles written before it lack it
                out["invisible_only"] = True
        return out


@dataclass(frozen=True)
class Metric:
    """A number with its numerator and denominator, or N/A with the reason.

    Never a zero standing in for "could not be measured": ``value`` is None exactly when
    the metric is N/A, and then ``reason`` says why in plain words.
    """

    value: float | None
    numerator: float | None = None
    denominator: float | None = None
    reason: str = ""

    @classmethod
    def ratio(cls, numerator: float, denominator: float) -> Metric:
        return cls(value=numerator / denominator, numerator=numerator, denominator=denominator)

    @classmethod
    def na(cls, reason: str) -> Metric:
        return cls(value=None, reason=reason)

    @property
    def is_na(self) -> bool:
        return self.value is None

    def to_json(self) -> dict[str, Any]:
        if self.value is None:
            return {"value": None, "reason": self.reason}
        return {
            "value": self.value,
            "numerator": _num(self.numerator),
            "denominator": _num(self.denominator),
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Metric:
        if obj.get("value") is None:
            return cls.na(str(obj.get("reason", "")))
        return cls(
            value=obj["value"], numerator=obj.get("numerator"), denominator=obj.get("denominator")
        )


def _num(x: float | None) -> float | int | None:
    """Whole numbers as JSON integers (counts stay counts), others unchanged."""
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return x


def claims_from_json(obj: Any) -> ClaimReport | None:
    """A ``ClaimReport`` from its ``to_json()`` shape (None stays None)."""
    if not isinstance(obj, dict):
        return None
    if obj.get("usable") is False:
        return ClaimReport.unusable(str(obj.get("problem", "")))
    items = [
        ClaimItem(
            str(c.get("comment_id")),
            cast(Claim, c.get("claim")),  # as stored; the bundle's schema checks the word
            str(c.get("change_summary", "")),
            str(c.get("rationale", "")),
        )
        for c in obj.get("comments", [])
        if isinstance(c, dict)
    ]
    return ClaimReport(comments=items, notes=str(obj.get("notes", "")))
