"""The verdict as the reader sees the page: hidden text and whitespace that renders
(docs/verdicts.md, "Hidden text" and "Whitespace that renders").

``reader_change(r1, span1, r2, span2, same) -> ReaderChange | None`` for a v1 span and its
v2 place in two HTML (or rendered Markdown) versions (``engine.text.rendering.Rendering``
of each), ``same`` being whether their texts are equal after normalisation. None when what
a reader sees leaves the verdict as the text comparison gives it; otherwise the kind:

- ``hidden_only``: the texts differ, but only in text hidden from the reader: untouched,
  flagged "only hidden text changed" (the integrity control reopens it);
- ``now_hidden``: the quote a reader saw in v1 is still in v2's text but hidden, or its
  text changed, what a reader sees of it changed, and a reader sees less than half as
  much of its v2 place as of the v1 quote, and less than half of that place (characters,
  normalised): deleted (a sentence rewritten where no reader sees it is no fix);
- ``shown_or_hidden``: the words are the same, but which of them a reader sees changed
  (hidden text shown, visible text hidden): edited;
- ``whitespace``: the words are the same, but whitespace that renders (``<pre>``,
  ``<textarea>``, ``white-space: pre*``) changed: edited, a token edit ("only the spacing
  changed").
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.models import Span, VerdictRecord
from engine.text.normalize import normalize

if TYPE_CHECKING:  # only pages have a rendering; plain text never imports it
    from engine.diff.diffing import TextDiff
    from engine.text.rendering import Rendering, Seen

HIDDEN_NOTE = (
    "only hidden text changed: the change is in text a reader cannot see (hidden by the "
    "page's markup or style); counted as unchanged"
)
NOW_HIDDEN_NOTE = (
    "the quoted text is still in the page but hidden from the reader in the new version; "
    "counted as deleted"
)
SHOWN_NOTE = (
    "the words are the same, but what a reader sees of them changed: text was hidden or "
    "shown; counted as edited"
)
WHITESPACE_NOTE = (
    "whitespace that renders changed (line breaks or spaces inside a preformatted block): "
    "a reader sees the change; counted as edited"
)
BESIDE_NOTE = (
    "the old words are still in the page, hidden beside their visible rewrite; "
    "the rewrite is what a reader sees"
)
PARTIAL_NOTE = (
    "the page's style sheet has rules this program does not apply, so what a reader sees may differ"
)
SPACING_KIND = "only the spacing changed"
"""The token-edit kind of a ``whitespace`` change (``engine.score.token_edits`` words)."""

_RUN = re.compile(r"\s+")


@dataclass(frozen=True)
class ReaderChange:
    """What a reader sees changes the verdict: ``kind`` (see the module docstring) and
    the note the verdict carries."""

    kind: str
    note: str


def reader_change(
    r1: Rendering, span1: Span, r2: Rendering, span2: Span, same: bool
) -> ReaderChange | None:
    """See the module docstring. Resolves styles only for the two spans' elements."""
    s1, s2 = r1.seen(span1.start, span1.end), r2.seen(span2.start, span2.end)
    partial = "; " + PARTIAL_NOTE if s1.partial or s2.partial else ""
    if not (s1.hidden or s2.hidden or _preserves(s1) or _preserves(s2)):
        return ReaderChange("partial", PARTIAL_NOTE) if partial else None
    seen1, seen2 = normalize(s1.visible), normalize(s2.visible)
    whole2 = normalize(span2.text)
    if (
        seen1
        and whole2
        and (
            not seen2
            or (not same and seen1 != seen2 and 2 * len(seen2) < min(len(seen1), len(whole2)))
        )
    ):
        return ReaderChange("now_hidden", NOW_HIDDEN_NOTE + partial)
    if seen1 != seen2:
        if same:
            return ReaderChange("shown_or_hidden", SHOWN_NOTE + partial)
    elif _layout(s1) != _layout(s2):
        return ReaderChange("whitespace", WHITESPACE_NOTE + partial)
    elif not same:
        return ReaderChange("hidden_only", HIDDEN_NOTE + partial)
    return ReaderChange("partial", PARTIAL_NOTE) if partial else None


def shown_or_hidden(rec: VerdictRecord, seen: ReaderChange | None, notes: list[str]) -> None:
    """Apply a change found for an ``untouched`` verdict whose words are the same: shown
    or hidden (or its whitespace rendered) by the markup or the style sheet alone, it is
    edited, or deleted when now hidden (its v2 span dropped). ``notes`` gets the note."""
    if seen is None:
        return
    notes.append(seen.note)
    if seen.kind == "partial":
        return
    rec.verdict = "deleted" if seen.kind == "now_hidden" else "edited"
    rec.rendered_spacing = seen.kind == "whitespace"
    if rec.verdict == "deleted":
        rec.v2, rec.method, rec.markup_changed = None, "none", False


def beside_hidden(diff: TextDiff, start: int, end: int) -> tuple[int, int] | None:
    """The v2 place ``[start, end)`` (code points) of a quote a reader no longer sees,
    widened over the text inserted right beside it (nothing but whitespace between): where
    the reader sees the rewrite when the old words are kept hidden next to the new ones
    (docs/verdicts.md, "Hidden text"). None when nothing was inserted there."""
    text2 = diff.b
    _a0s, _a1s, b0s, b1s = diff.change_bounds()
    lo, hi = start, end
    k = bisect_right(b1s, start) - 1  # the last change ending at or before the start
    if k >= 0 and b1s[k] > b0s[k] and not text2[b1s[k] : start].strip():
        lo = b0s[k]
    j = bisect_left(b1s, end + 1)  # the first change ending after the end
    if j < len(b0s) and b1s[j] > max(b0s[j], end) and not text2[end : max(end, b0s[j])].strip():
        hi = b1s[j]
    return None if (lo, hi) == (start, end) else (lo, hi)


def styles_differ(r1: Rendering, r2: Rendering) -> bool:
    """The two versions' own style sheets differ (so a quote whose text and markup are
    unchanged may still be shown or hidden differently)."""
    return r1.sheet_texts() != r2.sheet_texts()


def _preserves(seen: Seen) -> bool:
    from engine.text import css

    return any(mode != css.COLLAPSE for _, mode in seen.pieces)


def _layout(seen: Seen) -> tuple[tuple[int, str], ...]:
    """Where whitespace renders in what a reader sees: each run of whitespace inside a
    ``PRESERVE`` piece (spaces ``s``, tabs ``t``, line breaks ``n``, one letter each) or the
    line breaks of a run inside a ``BREAKS`` piece, with the number of characters before it
    in the visible text's comparison form (whitespace left out). Runs at either end of the
    span are left out: where a span starts and ends is the re-anchoring's, not the page's."""
    from engine.text import css

    out: list[tuple[int, str]] = []
    count = 0
    for piece, mode in seen.pieces:
        pos = 0
        for m in _RUN.finditer(piece):
            count += len(normalize(piece[pos : m.start()]))
            pos = m.end()
            run = m.group()
            if mode == css.PRESERVE:
                code = "".join("n" if c == "\n" else "t" if c == "\t" else "s" for c in run)
            elif mode == css.BREAKS:
                code = "n" * run.count("\n")
            else:
                continue
            if code and out and out[-1][0] == count:  # one run across two Text nodes
                out[-1] = (count, out[-1][1] + code)
            elif code:
                out.append((count, code))
        count += len(normalize(piece[pos:]))
    while out and out[0][0] == 0:
        out.pop(0)
    while out and out[-1][0] == count:
        out.pop()
    return tuple(out)
