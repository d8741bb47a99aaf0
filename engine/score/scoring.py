"""Verdicts and the five metrics for one pair of versions (docs/verdicts.md and
docs/metrics.md).

``score(v1, v2, comments)`` is the one entry point: the CLI, the review loop and the
evidence bundle all call it, and the GUI only shows what it returns.

The metrics themselves (what they count, their N/A reasons) and claim coverage are in
``engine.score.metrics``; this module decides the verdicts.

Which comments count (the denominators):

* every comment with a usable anchor gets a verdict; one whose anchor is unusable (empty
  quote, quote not in the version it was made on) is listed in ``ScoreResult.unusable``
  with its reason and left out of everything else;
* *actionable* comments are those marked actionable, open (not resolved) when scored, and
  not stale anchors. Attribution, churn anchors and claim accuracy use these only;
* a stale anchor gets its verdict and its claim agreement shown, and is excluded from
  every denominator (docs/metrics.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from engine.diff.churn import Changes
from engine.diff.diffing import TextDiff
from engine.models import ClaimItem, ClaimReport, Comment, Metric, Span, VerdictRecord
from engine.score.anchoring.changes import ChangeIndex
from engine.score.anchoring.index import TextIndex, split_or_joined
from engine.score.anchoring.locate import Located, locate, located_notes
from engine.score.anchoring.reanchor import reanchor
from engine.score.anchoring.records import Reanchored
from engine.score.anchoring.shared_places import settle_shared_places
from engine.score.metrics import ClaimCoverage, claim_coverage, compute_metrics
from engine.score.seen import (
    BESIDE_NOTE,
    ReaderChange,
    beside_hidden,
    reader_change,
    shown_or_hidden,
    styles_differ,
)
from engine.score.token_edits import mark_token_edits
from engine.score.unseen import INVISIBLE_NOTE, LOOKALIKE_NOTE, unseen_change
from engine.text import utf16
from engine.text.normalize import normalize
from engine.vocabulary import STALE_ANCHOR_MESSAGE, DocumentKind, note_stale

CLAIM_AGREES = {
    "addressed": ("edited", "deleted"),
    "not_addressed": ("untouched",),
    "stale_anchor": ("stale_anchor",),
}
"""Which verdicts each claim agrees with (docs/verdicts.md, "Claims beside verdicts")."""


@dataclass
class Version:
    """One version of a document as the engine sees it.

    ``raw`` is the decoded source (HTML markup, plain text, or Markdown); ``text`` is what
    offsets index: the body ``textContent`` for HTML, the text itself for plain text, the
    body ``textContent`` of the rendered page for Markdown
    (:func:`engine.text.markdown.markdown_page`).
    """

    raw: str
    kind: DocumentKind
    version_id: str
    text: str
    _extraction: Any = field(default=None, repr=False)
    _rendering: Any = field(default=None, repr=False)
    _breaks: list[int] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_source(
        cls, raw: str | bytes, kind: DocumentKind = "html", version_id: str = "v1"
    ) -> Version:
        """Build from markup, text or Markdown. ``kind`` is "html", "text" or "markdown" (the
        source rendered, then read as HTML, :meth:`from_markdown`). Raises ValueError on an
        unknown kind."""
        if kind not in ("html", "text", "markdown"):
            raise ValueError(f"unknown document kind {kind!r} (html, text or markdown)")
        if isinstance(raw, bytes):
            from engine.text import encoding

            raw = (encoding.decode_html if kind == "html" else encoding.decode_text)(raw)[0]
        if kind == "text":
            return cls(raw=raw, kind=kind, version_id=version_id, text=raw)
        if kind == "markdown":
            from engine.text.markdown import markdown_page

            return cls.from_markdown(raw, markdown_page(raw), version_id)
        from engine.text.html_text import extract  # lazy: plain text parses no HTML

        ext = extract(raw)
        return cls(raw=raw, kind=kind, version_id=version_id, text=ext.text, _extraction=ext)

    @classmethod
    def from_markdown(cls, source: str, page: str, version_id: str = "v1") -> Version:
        """A Markdown version from its ``source`` and the ``page`` it rendered to, the one
        the reader saw (a bundle is re-scored from its stored page, whichever renderer
        opens it later). ``text`` is the page's body ``textContent``."""
        from engine.text import html_text

        ext = html_text.extract(page)
        return cls(source, "markdown", version_id, ext.text, ext)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], version_id: str = "v1") -> Version:
        """Read a document file (kind from its extension). Raises documents.DocumentError."""
        from engine.text import documents

        kind, content = documents.read_document(path)
        return cls.from_source(content, kind, version_id)

    def block_breaks(self) -> list[int] | None:
        """Where the page's blocks start and end (code points, sorted; ``Extraction.block_breaks``);
        None for plain text, whose blocks are its lines (``index.plain_text_breaks``)."""
        if self._extraction is not None and self._breaks is None:
            self._breaks = self._extraction.block_breaks()  # a walk over every element: once
        return self._breaks

    def diff_to(self, other: Version) -> TextDiff:
        """The diff to ``other``'s text, no unit of it over either's block breaks."""
        return TextDiff(self.text, other.text, breaks=(self.block_breaks(), other.block_breaks()))

    def rendering(self) -> Any:
        """What a reader sees of the page (``engine.text.rendering.Rendering``, styles
        resolved as asked for); None for plain text."""
        if self._extraction is None:
            return None
        if self._rendering is None:
            from engine.text.rendering import Rendering

            self._rendering = Rendering(self._extraction)
        return self._rendering

    def markup_signature(
        self, start: int, end: int, fold: Callable[[str], str] | None = None
    ) -> tuple | None:
        """Markup structure over code points ``[start, end)``; None for plain text.
        ``fold`` as for ``html_text.Extraction.markup_signature``."""
        if self._extraction is None:
            return None
        return self._extraction.markup_signature(start, end, fold)


@dataclass
class ScoreResult:
    """Everything ``score`` found. Offsets in ``verdicts`` are code points; ``to_json``
    converts them to UTF-16 units."""

    v1: Version
    v2: Version
    verdicts: list[VerdictRecord]
    unusable: list[tuple[str, str]]
    metrics: dict[str, Metric]
    diff: TextDiff
    churn_inside: int
    churn_outside: int
    collateral: Changes
    claim_problems: list[str] = field(default_factory=list)
    actionable_ids: set[str] = field(default_factory=set)
    churn_moved: int = 0
    """Characters that only moved (``TextDiff.moved_total``): not churn, counted beside it."""
    claim_coverage: ClaimCoverage | None = None
    """How many actionable comments the agent's report makes a claim about; None when no
    usable report was given."""

    def to_json(self, *, extended: bool = False) -> dict[str, Any]:
        """The `arl score --json` object (README, "Scoring two versions"); ``extended`` adds per-verdict
        confidence/notes, the unusable comments and the collateral ranges (UTF-16)."""
        out: dict[str, Any] = {
            "verdicts": [
                v.to_json(self.v1_offsets, self.v2_offsets, extended=extended)
                for v in self.verdicts
            ],
            "metrics": {k: m.to_json() for k, m in self.metrics.items()},
            "claim_coverage": None
            if self.claim_coverage is None
            else self.claim_coverage.to_json(),
        }
        if extended:
            m2 = self.v2_offsets
            out["unusable"] = [{"comment_id": c, "reason": r} for c, r in self.unusable]
            out["collateral"] = [
                {
                    "v2_start": m2.to_utf16(c.b0),
                    "v2_end": m2.to_utf16(c.b1),
                    "deleted": c.deleted,
                    "inserted": c.inserted,
                }
                for c in self.collateral
            ]
        return out

    @cached_property
    def v1_offsets(self) -> utf16.OffsetMap:
        return utf16.OffsetMap(self.v1.text)

    @cached_property
    def v2_offsets(self) -> utf16.OffsetMap:
        return utf16.OffsetMap(self.v2.text)

    def counts(self) -> dict[str, int]:
        out = {"edited": 0, "untouched": 0, "deleted": 0, "stale_anchor": 0}
        for v in self.verdicts:
            out[v.verdict] += 1
        return out


def score(
    v1: Version,
    v2: Version,
    comments: list[Comment],
    *,
    claims: ClaimReport | None = None,
    given_version_id: str | None = None,
    tokens: int | None = None,
    tokens_reason: str = "",
    rounds_to_converge: int | None = None,
    rounds_reason: str = "",
    diff: TextDiff | None = None,
    never_reached: str = "",
) -> ScoreResult:
    """Verdicts for ``comments`` (made on ``v1`` unless they say otherwise) and the metrics.

    ``given_version_id``: the version the agent was given (default ``v1.version_id``), for
    the stale anchor rule. ``tokens``: real usage tokens of every call of the run, None when
    unknown (``tokens_reason`` says why). ``rounds_to_converge``: pushes until no unresolved
    actionable comment remained, None when unknown or not converged (``rounds_reason``).
    ``diff`` may be passed in when the caller already has it. ``never_reached``: for a
    run that failed before any model answer (``metrics.never_reached_reason``), every
    metric N/A with those words; the verdicts are still given.
    """
    if diff is None:
        diff = v1.diff_to(v2)
    judge = _Judge(v1, v2, diff, given_version_id or v1.version_id, claims)
    for c in comments:
        judge.add(c)
    judge.release()
    settle_shared_places(judge.verdicts, diff)
    mark_token_edits(judge.verdicts, v2.text)
    verdicts, actionable_ids = judge.verdicts, judge.actionable_ids
    inside, outside, collateral = diff.split_churn(judge.actionable_spans)
    metrics, problems = compute_metrics(
        verdicts,
        actionable_ids,
        comments,
        judge.unusable,
        claims,
        inside,
        outside,
        tokens,
        tokens_reason,
        rounds_to_converge,
        rounds_reason,
        moved=diff.moved_total(),
        never_reached=never_reached,
    )
    return ScoreResult(
        v1=v1,
        v2=v2,
        verdicts=verdicts,
        unusable=judge.unusable,
        metrics=metrics,
        diff=diff,
        churn_inside=inside,
        churn_outside=outside,
        churn_moved=diff.moved_total(),
        collateral=collateral,
        claim_problems=problems,
        actionable_ids=actionable_ids,
        claim_coverage=claim_coverage(verdicts, actionable_ids, claims),
    )


class _Judge:
    """The verdicts of one scoring, comment by comment: locate in v1, re-anchor in v2,
    decide (docs/verdicts.md). Indexes of both texts are built once and shared."""

    def __init__(
        self, v1: Version, v2: Version, diff: TextDiff, given: str, claims: ClaimReport | None
    ):
        self.v1, self.v2, self.diff, self.given = v1, v2, diff, given
        self.idx1, self.idx2 = (
            TextIndex(v1.text, v1.block_breaks()),
            TextIndex(v2.text, v2.block_breaks()),
        )
        self.omap1 = utf16.OffsetMap(v1.text)
        self.by_claim = claims.by_comment() if claims and claims.usable else {}
        self.changes: ChangeIndex | None = None
        self._sheets_differ: bool | None = None
        self.verdicts: list[VerdictRecord] = []
        self.unusable: list[tuple[str, str]] = []
        self.actionable_spans: list[tuple[int, int]] = []
        self.actionable_ids: set[str] = set()

    def release(self) -> None:
        """Let go of what only the re-anchoring reads, once every comment is judged: both
        texts' indexes and the memos of the pair (``ChangeIndex``), and the diff's index of
        its inserted text. The churn split that follows then reuses that memory instead of
        adding to it (at 20 MB rewritten, 50 MB of the peak)."""
        self.idx1 = self.idx2 = None  # type: ignore[assignment]
        self.omap1 = None  # type: ignore[assignment]
        self.changes = None
        self.diff.release_search_index()

    def add(self, c: Comment) -> None:
        """Judge comment ``c``: a verdict, or an entry in ``unusable``."""
        a = c.anchor
        quote = a.quote
        if quote is None or not quote.strip():
            self.unusable.append((c.id, "the anchor has no quote"))
            return
        s, e = utf16.codepoint_span(self.omap1, a.start_offset, a.end_offset)
        made_elsewhere = c.created_on_version_id not in (None, self.given)
        loc = locate(
            self.idx1,
            quote,
            a.prefix,
            a.suffix,
            None if made_elsewhere else s,
            None if made_elsewhere else e,
        )
        claim = self.by_claim.get(c.id)
        if loc is None:
            if made_elsewhere:
                self.verdicts.append(_with_claim(self._stale(c), claim))
            else:
                self.unusable.append(
                    (c.id, "the quote is not in the version the comment was made on")
                )
            return
        rec = self._placed(c, loc, made_elsewhere)
        self.verdicts.append(_with_claim(rec, claim))
        if c.actionable and c.status == "open":
            assert rec.v1 is not None
            self.actionable_spans.append((rec.v1.start, rec.v1.end))
            self.actionable_ids.add(c.id)

    def _stale(self, c: Comment) -> VerdictRecord:
        return VerdictRecord(
            comment_id=c.id,
            verdict="stale_anchor",
            v1=None,
            v2=None,
            method="none",
            message=STALE_ANCHOR_MESSAGE,
            note=note_stale(c.created_on_version_id, self.given),
        )

    def _placed(self, c: Comment, loc: Located, made_elsewhere: bool) -> VerdictRecord:
        """The verdict of a comment found in v1 at ``loc``."""
        v1, diff = self.v1, self.diff
        span1 = Span(loc.start, loc.end, v1.text[loc.start : loc.end])
        if self.changes is None:
            self.changes = ChangeIndex(diff)
        ra = reanchor(self.idx1, self.idx2, diff, loc.start, loc.end, self.changes)
        notes = located_notes(loc, c.created_on_version_id, made_elsewhere, self.given)
        if ra.note:
            notes.append(ra.note)
        # A count bound of the diff was hit around the span: its alignment there is coarser
        # than minimal, and the verdict says so (docs/engine.md, Diff).
        rough = diff.is_approximate(span1.start, span1.end)
        if rough:
            notes.append("the diff is approximate here: a work bound was reached")
        if ra.start is None or ra.end is None:
            rec = VerdictRecord(
                comment_id=c.id,
                verdict="deleted",
                v1=span1,
                v2=None,
                method="none",
                confidence=ra.confidence,
                approximate=rough,
                offsets_repaired=loc.repaired,
            )
        else:
            kept = [n for n in notes if n != ra.note]  # the hidden copy's place is not it
            rec = self._compared(c.id, span1, ra, loc, rough, notes)
            wider = beside_hidden(diff, ra.start, ra.end) if rec.verdict == "deleted" else None
            if wider is not None:  # the old words kept hidden beside their visible rewrite
                seen = replace(ra, start=wider[0], end=wider[1])
                alt = self._compared(c.id, span1, seen, loc, rough, kept)
                if alt.verdict != "deleted":
                    rec, notes = alt, [*kept, BESIDE_NOTE]
        rec.note = "; ".join(notes)
        return rec

    def _compared(
        self,
        cid: str,
        span1: Span,
        ra: Reanchored,
        loc: Located,
        rough: bool,
        notes: list[str],
    ) -> VerdictRecord:
        """Untouched or edited: the v1 and v2 texts compared after normalisation, with
        look-alike letters and markup-only changes noted (appended to ``notes``)."""
        v1, v2 = self.v1, self.v2
        assert ra.start is not None and ra.end is not None
        span2 = Span(ra.start, ra.end, v2.text[ra.start : ra.end])
        same = normalize(span2.text) == normalize(span1.text)
        regrouped = split_or_joined(self.idx1, span1.start, span1.end, self.idx2, ra.start, ra.end)
        if regrouped:  # a paragraph split or joined changes no word
            same = True
            notes.append(regrouped)
        seen = None
        if span1.text != span2.text:
            seen = self._seen(span1, span2, same)
        if seen is not None and seen.kind == "now_hidden":
            notes.append(seen.note)
            return VerdictRecord(
                comment_id=cid,
                verdict="deleted",
                v1=span1,
                v2=None,
                method="none",
                confidence=ra.confidence,
                approximate=ra.approximate or rough,
                offsets_repaired=loc.repaired,
            )
        hidden = seen is not None and seen.kind == "hidden_only"
        invisible, lookalike = unseen_change(v1.text, span1, span2.text, same or hidden)
        if invisible:
            notes.append(INVISIBLE_NOTE)
        if lookalike:
            notes.append(LOOKALIKE_NOTE)
        if seen is not None:
            notes.append(seen.note)
        edited = not (same or lookalike or invisible or hidden) or (
            seen is not None and seen.kind in ("whitespace", "shown_or_hidden")
        )
        rec = VerdictRecord(
            comment_id=cid,
            verdict="edited" if edited else "untouched",
            v1=span1,
            v2=span2,
            method=ra.method,
            confidence=ra.confidence,
            approximate=ra.approximate or rough,
            offsets_repaired=loc.repaired,
            similarity=None if same else ra.similarity,
            lookalike_only=lookalike,
            invisible_only=invisible,
            hidden_only=hidden,
            rendered_spacing=seen is not None and seen.kind == "whitespace",
        )
        if same and not edited and v1.kind != "text" and v2.kind != "text":
            # Text pieces compared as the verdict compares text (normalised), so a
            # change the verdict ignores is not reported as a markup change.
            markup = v1.markup_signature(
                span1.start, span1.end, _signature_fold
            ) != v2.markup_signature(span2.start, span2.end, _signature_fold)
            if markup and v1.kind == "html" and v2.kind == "html":
                rec.markup_changed = True
                notes.append("the text is the same but its markup changed")
            if span1.text == span2.text and (markup or self._styles_differ()):
                shown_or_hidden(rec, self._seen(span1, span2, same), notes)
        return rec

    def _seen(self, span1: Span, span2: Span, same: bool) -> ReaderChange | None:
        """What a reader sees of the two spans, where both versions are pages."""
        r1, r2 = self.v1.rendering(), self.v2.rendering()
        if r1 is None or r2 is None:
            return None
        return reader_change(r1, span1, r2, span2, same)

    def _styles_differ(self) -> bool:
        if self._sheets_differ is None:
            r1, r2 = self.v1.rendering(), self.v2.rendering()
            self._sheets_differ = r1 is not None and r2 is not None and styles_differ(r1, r2)
        return self._sheets_differ


def _signature_fold(piece: str) -> str:
    """``normalize`` for a text piece of a markup signature, edges kept: whitespace at a
    piece's edge is collapsed, not trimmed, so whitespace moved across a tag (into or out
    of an element) is still a markup change. U+FFFC is a starter that composes with
    nothing, so NFC leaves the sentinels alone."""
    return normalize("\ufffc" + piece + "\ufffc")[1:-1]


def _with_claim(rec: VerdictRecord, claim: ClaimItem | None) -> VerdictRecord:
    if claim is not None:
        rec.claim = claim.claim
        rec.claim_agrees = rec.verdict in CLAIM_AGREES.get(claim.claim, ())
    return rec
