"""Numbered repeats: offsets on a neighbouring copy lose to a prefix/suffix that names the
intended copy exactly (docs/verdicts.md, "1. Locate in the version the comment was made on")."""

from __future__ import annotations

import pytest

from engine.models import Anchor, Comment
from engine.score.anchoring.index import TextIndex
from engine.score.anchoring.locate import locate
from engine.score.scoring import Version, score
from engine.text.utf16 import to_utf16

QUOTE = "see the appendix"
ITEMS = [f"Item {i}: see the appendix. " for i in range(3000)]
T1 = "".join(ITEMS)


def _at(n: int) -> int:
    """Code-point start of the quote in item ``n``."""
    return T1.index(f"Item {n}: ") + len(f"Item {n}: ")


def _comment(target: int, offsets_at: int | None) -> Comment:
    i, n = _at(target), len(QUOTE)
    s = None if offsets_at is None else to_utf16(T1, _at(offsets_at))
    return Comment(
        "c1",
        "fix",
        Anchor(
            QUOTE,
            T1[i - 32 : i],
            T1[i + n : i + n + 32],
            start_offset=s,
            end_offset=None if s is None else s + n,
        ),
    )


def _edit(n: int) -> str:
    items = list(ITEMS)
    items[n] = f"Item {n}: see the annex. "
    return "".join(items)


@pytest.mark.parametrize("offsets_at", [1499, 1501, 1495, 1450, 1000, 10, None])
def test_exact_context_beats_offsets_on_another_copy(offsets_at):
    c = _comment(1500, offsets_at)
    a = c.anchor
    s = None if a.start_offset is None else _at(offsets_at)
    loc = locate(TextIndex(T1), QUOTE, a.prefix, a.suffix, s, None if s is None else s + len(QUOTE))
    assert loc is not None and loc.start == _at(1500)
    assert loc.repaired
    v1 = Version.from_source(T1, "text")
    # The intended copy edited: edited; another copy edited: untouched.
    (v,) = score(v1, Version.from_source(_edit(1500), "text", "v2"), [c]).verdicts
    assert v.verdict == "edited" and v.offsets_repaired, (v.v1, v.note)
    (v,) = score(v1, Version.from_source(_edit(offsets_at or 10), "text", "v2"), [c]).verdicts
    assert v.verdict == "untouched", (v.v1, v.note)
    if offsets_at is not None:
        assert "another copy" in v.note


def test_offsets_on_the_named_copy_are_kept():
    c = _comment(1500, 1500)
    (v,) = score(
        Version.from_source(T1, "text"), Version.from_source(_edit(1500), "text", "v2"), [c]
    ).verdicts
    assert v.verdict == "edited" and not v.offsets_repaired


def test_a_tie_in_context_keeps_the_offsets():
    # Two copies with the same context: the stored offsets decide, nothing is repaired.
    t = "Intro. The deadline is March first. Middle. The deadline is March first. End."
    q = "March first"
    k1, k2 = t.index(q), t.rindex(q)
    prefix, suffix = "The deadline is ", ". "
    for k in (k1, k2):
        loc = locate(TextIndex(t), q, prefix, suffix, k, k + len(q))
        assert loc is not None and (loc.start, loc.repaired) == (k, False)
