"""A document's outline (engine.text.outline) and its place in the merged text of two
versions (engine.diff.marks.merged_outline): what the changes view says the reader is
under."""

from __future__ import annotations

import html

from hypothesis import given, settings, strategies as st

from engine.diff.marks import change_view, merged_outline
from engine.text.outline import Heading, structure, under


def at(text: str, h: Heading) -> str:
    """``text[h.start:h.end]`` in UTF-16 units."""
    return text.encode("utf-16-le")[2 * h.start : 2 * h.end].decode("utf-16-le")


def side_text(cv, h: Heading) -> str:
    """The text of ``h``'s own version (a for a removed heading, else b) in the merged
    range of ``h``: the equal pieces and that side's changed pieces."""
    own = "deleted" if h.removed else "inserted"
    out, m = [], 0
    for kind, text in cv.pieces:
        units = text.encode("utf-16-le")
        n = len(units) // 2
        lo, hi = max(h.start, m), min(h.end, m + n)
        if lo < hi and kind in ("equal", own):
            out.append(units[2 * (lo - m) : 2 * (hi - m)].decode("utf-16-le"))
        m += n
    return "".join(out)


PAGE = (
    "<h1>Travel \U0001f30d policy</h1><p>Intro.</p><h2>Who</h2><p>Staff.</p>"
    "<h3>Contractors</h3><p>Some.</p><h2>  Ø  Trains  </h2><p>Only trains.</p><h2> </h2>"
)


def test_headings_with_levels_and_utf16_places():
    s = structure(PAGE)
    assert [(h.level, h.text) for h in s.headings] == [
        (1, "Travel \U0001f30d policy"),
        (2, "Who"),
        (3, "Contractors"),
        (2, "Ø Trains"),  # spaces collapsed; the empty <h2> is left out
    ]
    for h in s.headings:
        assert " ".join(at(s.text, h).split()) == h.text
    # After the emoji (two UTF-16 units) every offset is one more than in code points.
    assert s.headings[1].start == s.text.index("Who") + 1


def test_under_gives_the_path_of_headings_above_a_place():
    s = structure(PAGE)
    heads = s.headings
    in_contractors = heads[2].end + 2
    assert [h.text for h in under(heads, in_contractors)] == [
        "Travel \U0001f30d policy",
        "Who",
        "Contractors",
    ]
    # A heading of the same level closes the one before it, and its subsections.
    assert [h.text for h in under(heads, heads[3].start)] == [
        "Travel \U0001f30d policy",
        "Ø Trains",
    ]
    assert under(heads, 0) == [heads[0]]
    assert under(heads[1:], 0) == []  # before the first heading


def test_plain_text_has_no_headings():
    from engine.text.text_page import text_as_html

    assert structure(text_as_html("# Not a heading\nText.")).headings == []


def test_merged_outline_keeps_edited_headings_and_names_deleted_ones():
    a = "<h1>Policy</h1><p>Intro.</p><h2>Equipment</h2><p>Laptops.</p><h2>Travel</h2><p>Trains.</p><h2>Old</h2><p>Gone.</p>"
    b = "<h1>Policy</h1><p>Intro.</p><h2>Equipment and tools</h2><p>Laptops.</p><p>Trains.</p><p>Old</p><p>Gone.</p><h2>Food</h2><p>Lunch.</p>"
    sa, sb = structure(a), structure(b)
    cv = change_view(sa.text, sb.text, breaks=(sa.breaks, sb.breaks))
    merged = merged_outline(cv, sa.headings, sb.headings)
    assert [(h.text, h.removed) for h in merged] == [
        ("Policy", False),
        ("Equipment and tools", False),  # edited: the revision's heading stands
        ("Travel", True),  # deleted: shown struck through, said so
        ("Food", False),
    ]  # "Old" became ordinary text in b: no heading there
    for h in merged:
        assert at(cv.merged, h) == h.text
    assert [h.start for h in merged] == sorted(h.start for h in merged)


def test_the_changes_views_diff_keeps_block_edges():
    """Without the block edges a heading glued to the next paragraph ("TravelTrains") is
    one word to the diff, and the deleted heading came out as "Tra" kept, "vel" deleted."""
    a = "<h2>Travel</h2><p>Trains only.</p>"
    b = "<p>Trains only.</p>"
    sa, sb = structure(a), structure(b)
    cv = change_view(sa.text, sb.text, breaks=(sa.breaks, sb.breaks))
    assert cv.pieces == [("deleted", "Travel"), ("equal", "Trains only.")]


WORDS = st.sampled_from(
    ["policy", "Ünïcode", "\u9810\u7b97", "\u0645\u0631\u0627\u062c\u0639\u0629", "\U0001f4c4", "x"]
)
TEXT = st.lists(WORDS, min_size=1, max_size=4).map(" ".join)
BLOCK = st.tuples(st.sampled_from(["p", "h1", "h2", "h3", "div"]), TEXT)


@settings(max_examples=60, deadline=None)
@given(st.lists(BLOCK, min_size=1, max_size=8), st.lists(BLOCK, min_size=1, max_size=8))
def test_every_heading_is_where_its_text_is_in_both_texts(blocks_a, blocks_b):
    def page(blocks):
        return "".join(f"<{t}>{html.escape(w)}</{t}>" for t, w in blocks)

    sa, sb = structure(page(blocks_a)), structure(page(blocks_b))
    assert [h.text for h in sa.headings] == [w for t, w in blocks_a if t[0] == "h"]
    for h in sa.headings:
        assert at(sa.text, h) == h.text
    cv = change_view(sa.text, sb.text, breaks=(sa.breaks, sb.breaks))
    merged = merged_outline(cv, sa.headings, sb.headings)
    for h in merged:  # its version's text in the merged range (the other's may be inside)
        assert side_text(cv, h) == h.text
    assert [h for h in merged if not h.removed] == [
        Heading(*cv.merged_span("b", h.start, h.end), h.level, h.text) for h in sb.headings
    ]
    for h in merged:
        path = under(merged, h.start)
        assert path[-1] == h and [p.level for p in path] == sorted({p.level for p in path})


def test_white_space_before_the_first_heading_is_under_it():
    s = structure("<body>\n  <h1>Policy</h1><p>Text.</p></body>")
    assert s.text.startswith("\n") and s.headings[0].start > 0
    assert under(s.headings, 0) == []
    assert under(s.headings, 0, s.text) == [s.headings[0]]
    s = structure("<body><p>Intro.</p><h1>Policy</h1></body>")
    assert under(s.headings, 0, s.text) == []  # text before it: not under it
