"""Changes a reader cannot see (docs/verdicts.md, "Invisible characters only" and the
look-alike rule): ``unseen_change(text1, span1, t2, same) -> (invisible_only,
lookalike_only)`` for a v1 span and the v2 text now in its place, with the notes the
verdict carries for each."""

from __future__ import annotations

from engine.models import Span
from engine.text.invisible import invisible_only, seen_pair
from engine.text.normalize import lookalike_only

LOOKALIKE_NOTE = (
    "look-alike characters only: letters were swapped for look-alike letters of another "
    "script (Unicode confusables), which a reader cannot see; counted as unchanged"
)
INVISIBLE_NOTE = (
    "invisible characters only: the change is in characters that do not show where they "
    "stand (zero-width or formatting characters, bidi controls that leave the displayed "
    "text as it was), which a reader cannot see; counted as unchanged"
)


UNSEEN_CONTEXT = 200
"""Characters of v1 on each side of a span (within its line) that the invisible-character
check lays out with it: neighbours decide whether a joiner shows, and bidi controls
reorder across the span's edges."""


def unseen_change(text1: str, span1: Span, t2: str, same: bool) -> tuple[bool, bool]:
    """(invisible_only, lookalike_only) for a v1 span and the v2 text now in its place: a
    change a reader cannot see is no edit (docs/verdicts.md, "Invisible characters only"
    and the look-alike rule). Both are True when look-alike letters and invisible
    characters together make the whole change. ``text1``: all of v1 (for the context)."""
    t1 = span1.text
    if same:
        return False, False
    before = text1[max(0, span1.start - UNSEEN_CONTEXT) : span1.start]
    before = before[before.rfind("\n") + 1 :]
    after = text1[span1.end : span1.end + UNSEEN_CONTEXT].split("\n", 1)[0]
    if invisible_only(t1, t2, before, after):
        return True, False
    if lookalike_only(t1, t2):
        return False, True
    s1, s2 = seen_pair(t1, t2)
    if (s1, s2) != (t1, t2) and lookalike_only(s1, s2):
        return True, True
    return False, False
