"""A sentence that moved AND was rewritten is edited, not deleted (docs/verdicts.md,
"The sentence a rewritten sentence became")."""

from __future__ import annotations

import pytest

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text.utf16 import to_utf16

A = "Alpha sentence one. "
B = "Bravo sentence two is commented. "
C = "Charlie sentence three. "


def _verdict(t1: str, t2: str, quote: str):
    i, n = t1.index(quote), len(quote)
    c = Comment(
        "c1",
        "fix",
        Anchor(
            quote,
            t1[max(0, i - 32) : i],
            t1[i + n : i + n + 32],
            start_offset=to_utf16(t1, i),
            end_offset=to_utf16(t1, i + n),
        ),
    )
    (v,) = score(
        Version.from_source(t1, "text"), Version.from_source(t2, "text", "v2"), [c]
    ).verdicts
    return v


@pytest.mark.parametrize(
    "t2,quote,now",
    [
        (A + C + "Bravo sentence two is revised. ", "commented", "revised"),
        (A + C + "Bravo sentence two is now fixed. ", "commented", "now fixed"),
        (C + A + "Bravo sentence two is revised. ", "commented", "revised"),
        (A + C + "Delta line. Bravo said two is updated. ", "Bravo sentence", "Bravo said"),
    ],
)
def test_a_moved_and_rewritten_sentence_is_edited(t2, quote, now):
    v = _verdict(A + B + C, t2, quote)
    assert v.verdict == "edited", (v.method, v.note)
    assert v.v2 is not None and v.v2.text == now, v.v2


def test_moved_unchanged_is_untouched_and_a_removed_sentence_is_deleted():
    t1 = A + B + C
    assert _verdict(t1, A + C + B, "commented").verdict == "untouched"
    assert _verdict(t1, A + C, "commented").verdict == "deleted"
    # a new sentence that shares none of its words is not what it became
    assert _verdict(t1, A + C + "Echo foxtrot golf hotel. ", "commented").verdict == "deleted"


_COLOPHON_V1 = (
    "This is the 3rd edition of this ebook.\n\nThe first edition was released on\n\n"
    "You can check for updates to this ebook, view its revision history, or download it "
    "for different ereading systems at\n\nThe volunteer-driven Standard Ebooks project relies "
    "on readers like you to submit typos, corrections, and other improvements. Anyone can "
    "contribute at standardebooks.org."
)
_COLOPHON_V2 = (
    "This is the 3rd edition of this ebook.\n\nThe first edition was released on Anyone can "
    "contribute at standardebooks.org.\n\nYou can check for updates to this ebook, view its "
    "revision history, or download it for different ereading systems at\n\ncopper "
    "copper-driven meadow copper harbour relies velvet readers river you river submit "
    "meadow, corrections, meadow other orchard."
)


@pytest.mark.parametrize("kind", ["text", "html"])
def test_a_sentence_moved_up_beside_its_rewritten_paragraph_is_untouched(kind):
    """The long property run on a Standard Ebooks colophon: the last sentence moved into
    the paragraph above, its own paragraph rewritten. The diff saw no move; the weak
    answer at its place ("orchard") is beaten by the verbatim copy nearby
    (docs/verdicts.md, "A moved copy beats a weak answer nearby")."""
    t1, t2 = _COLOPHON_V1, _COLOPHON_V2
    if kind == "html":
        t1, t2 = ("".join(f"<p>{p}</p>" for p in t.split("\n\n")) for t in (t1, t2))
    v1 = Version.from_source(t1, kind)
    quote = "at standardebooks.org"
    i, n = v1.text.index(quote), len(quote)
    c = Comment(
        "c1",
        "fix",
        Anchor(
            quote,
            v1.text[max(0, i - 32) : i],
            v1.text[i + n : i + n + 32],
            start_offset=to_utf16(v1.text, i),
            end_offset=to_utf16(v1.text, i + n),
        ),
    )
    (v,) = score(v1, Version.from_source(t2, kind, "v2"), [c]).verdicts
    assert (v.verdict, v.v2.text if v.v2 else None) == ("untouched", quote), v
