"""Property: a comment range between any two run boundaries of a Word document lands on
exactly the text between them with every tracked change accepted (engine.text.docx's
markers), whatever the script: CJK,
Arabic, Persian, Thai, emoji sequences, combining marks, markup characters; ranges inside
one run's paragraph or across paragraphs, empty ones refused. Every text piece maps back
to its w:t. Profiles in tests/conftest.py (fixed seed in CI)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from engine.text import utf16
from engine.text.docx import read_docx
from tests.helpers.word_files import Note, deleted, end, ins, make_docx, run, start

ALPHABET = st.sampled_from(
    list("abc XYZ 09.,;<&>\"'")
    + ["東", "京", "中", "文", "ق", "ا", "ه", "ر", "ة", "پ", "ژ"]
    + ["ก", "ข", "\u0e48", "😀", "👩\u200d💻", "e\u0301", "\u200f", "\u00a0", "\t"]
)
RUN_TEXT = st.lists(ALPHABET, min_size=1, max_size=6).map("".join).filter(lambda t: t.strip())
# A run is kept, a tracked insertion (in the text) or a tracked deletion (not in it).
RUN = st.tuples(RUN_TEXT, st.sampled_from(["kept", "kept", "ins", "del"]))
PARAGRAPHS = st.lists(
    st.lists(RUN, min_size=1, max_size=4).filter(lambda runs: any(k != "del" for _, k in runs)),
    min_size=1,
    max_size=4,
)


@st.composite
def reviews(draw: st.DrawFn) -> tuple[list[list[str]], list[tuple[int, int]]]:
    paragraphs = draw(PARAGRAPHS)
    # Boundaries: (paragraph, position before run i); i == len(runs) is the paragraph's end.
    bounds = [(p, i) for p, runs in enumerate(paragraphs) for i in range(len(runs) + 1)]
    ranges = []
    for _ in range(draw(st.integers(1, 4))):
        a = draw(st.integers(0, len(bounds) - 1))
        b = draw(st.integers(a, len(bounds) - 1))
        ranges.append((a, b))
    return paragraphs, ranges


def shown(runs: list[tuple[str, str]]) -> str:
    return "".join(t for t, kind in runs if kind != "del")


def expected(
    paragraphs: list[list[tuple[str, str]]], a: tuple[int, int], b: tuple[int, int]
) -> str:
    """The text between two run boundaries, every change accepted, paragraph breaks as
    newlines, trimmed of the breaks at its ends (the reader's rule)."""
    lines = []
    for p in range(a[0], b[0] + 1):
        lo = a[1] if p == a[0] else 0
        hi = b[1] if p == b[0] else len(paragraphs[p])
        lines.append(shown(paragraphs[p][lo:hi]))
    return "\n".join(lines).strip("\n")


@settings(max_examples=60)
@given(reviews())
def test_ranges_land_on_exactly_the_text_between_their_marks(case) -> None:
    paragraphs, ranges = case
    bounds = [(p, i) for p, runs in enumerate(paragraphs) for i in range(len(runs) + 1)]
    marks: dict[tuple[int, int], list[str]] = {}
    for n, (a, b) in enumerate(ranges):
        marks.setdefault(bounds[a], []).append(start(n))
        marks.setdefault(bounds[b], []).insert(0, end(n))
    body = ""
    for p, runs in enumerate(paragraphs):
        parts = []
        for i, (text, kind) in enumerate(runs):
            parts += marks.get((p, i), [])
            r = run(text, "<w:rPr><w:b/></w:rPr>" if i % 2 else "")
            parts.append(
                ins(r, 900 + i) if kind == "ins" else deleted(text, 950 + i) if kind == "del" else r
            )
        parts += marks.get((p, len(runs)), [])
        body += "<w:p>" + "".join(parts) + "</w:p>"
    notes = [Note(n, f"c{n}", para_id=f"{n + 1:08X}") for n in range(len(ranges))]
    doc = read_docx(make_docx(body, notes))
    assert doc.text == "\n".join(shown(runs) for runs in paragraphs)
    got = {}
    for c in doc.comments:
        if c.start is None:
            got[c.text] = None
        else:
            lo, hi = utf16.to_codepoint(doc.text, c.start), utf16.to_codepoint(doc.text, c.end)
            got[c.text] = doc.text[lo:hi]
    for n, (a, b) in enumerate(ranges):
        want = expected(paragraphs, bounds[a], bounds[b])
        assert got[f"c{n}"] == (want or None), (n, bounds[a], bounds[b])
    flat = [t for runs in paragraphs for t, kind in runs if kind != "del"]
    assert len(doc.pieces) == len(flat)
    for piece, text in zip(doc.pieces, flat, strict=True):
        lo, hi = utf16.to_codepoint(doc.text, piece.start), utf16.to_codepoint(doc.text, piece.end)
        assert doc.text[lo:hi] == text
