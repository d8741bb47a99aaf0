"""Two comments never share one new place (docs/verdicts.md, "What may never be a span's new
place"): the last gate, over all of a scoring's verdicts at once, since a stage sees one
comment at a time.
"""

from __future__ import annotations

from engine.diff.diffing import TextDiff
from engine.models import Span, VerdictRecord


def settle_shared_places(verdicts: list[VerdictRecord], diff: TextDiff) -> None:
    """Two comments whose v1 spans do not overlap never share one v2 span
    (docs/verdicts.md, "What may never be a span's new place"). Where their v2 spans
    overlap, the text belongs to the comment whose own place the diff put it in (the
    diff's image of its v1 span holds it). When it lies in both images, the revision
    replaced the two places with one text. When it lies in one, the other comment's
    verdict becomes ``deleted``: nothing of its own stands there. When it lies in both or
    neither, the comment whose v2 span keeps words of its own v1 span owns it where only
    one does (the other reads ``deleted``); else both keep it and each note names the
    other. Quadratic only in the comments whose v2 spans overlap (sorted sweep)."""
    placed = sorted(
        (v for v in verdicts if v.v2 is not None and v.v1 is not None),
        key=lambda v: (v.v2.start, v.v2.end),  # type: ignore[union-attr]
    )
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            if a.v2 is None or a.v1 is None:
                break  # ``a`` lost its place to an earlier comment
            if b.v2 is None or b.v1 is None:
                continue
            if b.v2.start >= a.v2.end:
                break
            if a.v1.start < b.v1.end and b.v1.start < a.v1.end:
                continue  # the reviewers marked overlapping text: one place is right
            in_a = _in_image(diff, a.v1, a.v2)
            in_b = _in_image(diff, b.v1, b.v2)
            if in_a == in_b:
                # in both images (or neither): the text belongs to the comment whose own
                # words it keeps, where only one does
                in_a, in_b = _keeps_own_words(diff, a), _keeps_own_words(diff, b)
            if in_a and not in_b:
                _lose_place(b, a.comment_id)
            elif in_b and not in_a:
                _lose_place(a, b.comment_id)
            else:
                how = (
                    "the revision replaced both places with one text"
                    if in_a
                    else "the place is shared"
                )
                _add_note(a, f"shares its new place with comment {b.comment_id}: {how}")
                _add_note(b, f"shares its new place with comment {a.comment_id}: {how}")


def _keeps_own_words(diff: TextDiff, v: VerdictRecord) -> bool:
    """The comment's v2 span holds text the diff kept from its own v1 span, a letter or a
    digit among it (a kept space, full stop or emoji between two changes is no word of
    the quote's: "May 😀 Please read the handbook before Monday 📘" replaced by "June 😀"
    keeps only the emoji of the first sentence's)."""
    assert v.v1 is not None and v.v2 is not None
    s1, e1 = v.v1.start, v.v1.end
    _inserted, runs = diff.v2_origin(v.v2.start, v.v2.end)
    old = diff.a
    return any(
        any(c.isalnum() for c in old[max(a, s1) : min(b, e1)]) for a, b in runs if a < e1 and s1 < b
    )


def _in_image(diff: TextDiff, v1: Span, v2: Span) -> bool:
    """v2 span lies in the diff's image of the v1 span (insertions at its edges included)."""
    ms, me = diff.image(v1.start, v1.end)
    return ms <= v2.start and v2.end <= me and ms < me


def _lose_place(v: VerdictRecord, owner: str) -> None:
    v.verdict, v.v2, v.method, v.similarity = "deleted", None, "none", None
    v.approximate = v.lookalike_only = v.invisible_only = v.markup_changed = False
    v.hidden_only = v.rendered_spacing = False
    _add_note(
        v,
        f"the text near its old place is where comment {owner}'s text went; nothing of this "
        "quote stands there",
    )


def _add_note(v: VerdictRecord, note: str) -> None:
    v.note = f"{v.note}; {note}" if v.note else note
