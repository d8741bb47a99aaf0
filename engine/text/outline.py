"""A document's outline: its headings, where each stands in the body text, and the
headings a place in the text is under.

A heading is an HTML ``<h1>``-``<h6>`` element of the body (a Markdown ``# Title`` as it
renders, a Word heading as its page has it) with some text; its level is the tag's number.
Offsets count UTF-16 units of ``document.body.textContent`` (the anchor contract's unit,
``engine.text.utf16``), so a viewer can compare them with the offset it reads at the top of
its view. A plain text (one ``<pre>``) has no headings. Used by the desktop program's
changes view to say where the reader is (``engine.diff.marks.merged_outline`` places both
versions' headings in the merged text).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.text.html_text import extract
from engine.text.utf16 import OffsetMap, utf16_length

HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


@dataclass(frozen=True, slots=True)
class Heading:
    """One heading: ``[start, end)`` in UTF-16 units of the text it is in, ``level`` 1-6,
    ``text`` its words with runs of white space made one space; ``removed``: a heading of
    the earlier version the revision deleted (only in a merged outline)."""

    start: int
    end: int
    level: int
    text: str
    removed: bool = False


@dataclass(frozen=True, slots=True)
class Structure:
    """What one parse of an HTML document gives a viewer: ``text``, its body
    ``textContent`` (code points, as ``engine.text.html_text.body_text``); ``headings`` in
    text order; ``breaks``, the block edges (code points, ``Extraction.block_breaks``)."""

    text: str
    headings: list[Heading]
    breaks: list[int]


def structure(html: str | bytes) -> Structure:
    """The body text, headings and block edges of an HTML document (``html`` as for
    ``body_text``), from one parse. Headings with no text but white space are left out."""
    ex = extract(html)
    offsets = OffsetMap(ex.text)
    out = []
    for tag, _attrs, s, e in ex.elements(HEADING_TAGS):
        words = " ".join(ex.text[s:e].split())
        if words:
            out.append(Heading(offsets.to_utf16(s), offsets.to_utf16(e), int(tag[1]), words))
    return Structure(ex.text, out, ex.block_breaks())


def headings(html: str | bytes) -> list[Heading]:
    """The headings of an HTML document, in text order (``structure``)."""
    return structure(html).headings


def under(heads: Sequence[Heading], offset: int, text: str | None = None) -> list[Heading]:
    """The headings the text at UTF-16 ``offset`` is under, outermost first: the last
    heading that starts at or before it, and for each level above that one the last
    heading of that level before it ("Policy", "2. Equipment", "Laptops"). ``heads`` in
    text order; empty before the first heading, unless ``text`` (the text the offsets
    count in) has nothing but white space there: a page's top is then its first heading's."""
    if heads and offset < heads[0].start and text is not None:
        before = text[: heads[0].start]  # code points: at least the UTF-16 units before it
        first = OffsetMap(before).to_codepoint(min(heads[0].start, utf16_length(before)), "floor")
        if not before[:first].strip():
            offset = heads[0].start
    path: list[Heading] = []
    for h in heads:
        if h.start > offset:
            break
        while path and path[-1].level >= h.level:
            path.pop()
        path.append(h)
    return path
