"""Markers carried through the Word-to-HTML conversion, and where they are put.

The reader (:mod:`engine.text.docx`) places comment ranges on the rendered text exactly by
writing markers into the Word XML before the converter (mammoth) runs and finding them in
the text of what it renders: nothing is searched for by its words. A marker is a run of
code points from Unicode's Supplementary Private Use Area-B (U+100000-U+10FFFD), which a
document cannot use here (:func:`uses_marker_plane` refuses one that does):

- one *kind* code point, ``U+10FF00 + kind`` (:data:`PIECE`, :data:`START`, :data:`END`,
  :data:`HIDE`, :data:`UNHIDE`, :data:`CHANGE_START`, :data:`CHANGE_END`, :data:`CHANGE_AT`),
- for every kind but HIDE and UNHIDE two *digit* code points, ``U+100000 + d`` with
  ``0 <= d < BASE`` (an id below ``BASE ** 2``, about 4.2 billion).

Where they go (:class:`Marker` places them on an lxml tree of a part):

- PIECE *n* opens the text of every non-empty ``w:t`` (the text positions a writer of
  verdicts needs, :class:`engine.text.docx.TextPiece`);
- START/END *n* stand for ``w:commentRangeStart``/``w:commentRangeEnd`` with ``w:id`` *n*,
  each as a run of its own at the range mark's place. A mark inside deleted content
  (``w:del``, ``w:moveFrom``: gone once every change is accepted) goes beside the
  outermost deleted element; a mark between paragraphs (a child of ``w:body``, ``w:tbl``,
  ``w:tr``, ``w:tc``, a block ``w:sdtContent``...) goes to the start of the next paragraph
  (START) or the end of the previous one (END), where Word's highlight begins and ends;
- HIDE/UNHIDE wrap the text of a run with ``w:vanish`` (Word's hidden text), which the
  reader turns into ``<span hidden>``, as hidden text is in an HTML page;
- CHANGE_START/CHANGE_END *n* open and close the content of tracked insertion *n*
  (``w:ins``, ``w:moveTo``), CHANGE_AT *n* stands where tracked deletion *n* (``w:del``,
  ``w:moveFrom``) was (:mod:`engine.text.docx_changes`).

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.text.docx_styles import HiddenStyles

__all__ = [
    "CHANGE_AT",
    "CHANGE_END",
    "CHANGE_START",
    "END",
    "HIDE",
    "MARKER",
    "PIECE",
    "START",
    "UNHIDE",
    "Marker",
    "W",
    "decode",
    "demote_field_codes",
    "marker",
    "marker_run",
    "resolve_alternate_content",
    "unwrap_unread",
    "uses_marker_plane",
]

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
PIECE, START, END, HIDE, UNHIDE, CHANGE_START, CHANGE_END, CHANGE_AT = range(8)
BASE = 0xFE00
_KIND0 = 0x10FF00
_DIGIT0 = 0x100000

#: One marker in rendered text: a kind code point, then (for PIECE/START/END) two digits.
MARKER = re.compile(
    "[\U0010ff00-\U0010ff02\U0010ff05-\U0010ff07][\U00100000-\U0010fdff]{2}|[\U0010ff03\U0010ff04]"
)
_PLANE_16_UTF8 = re.compile(rb"\xf4[\x80-\x8f]")
_CHAR_REF = re.compile(rb"&#(x[0-9a-fA-F]+|[0-9]+);")


def marker(kind: int, n: int = 0) -> str:
    """The marker of ``kind`` (PIECE/START/END with id ``n``; HIDE/UNHIDE)."""
    head = chr(_KIND0 + kind)
    if kind in (HIDE, UNHIDE):
        return head
    if not 0 <= n < BASE * BASE:
        raise ValueError(f"marker id {n} out of range")
    return head + chr(_DIGIT0 + n // BASE) + chr(_DIGIT0 + n % BASE)


def decode(found: str) -> tuple[int, int]:
    """(kind, id) of one marker matched by :data:`MARKER` (id 0 for HIDE/UNHIDE)."""
    kind = ord(found[0]) - _KIND0
    if len(found) == 1:
        return kind, 0
    return kind, (ord(found[1]) - _DIGIT0) * BASE + ord(found[2]) - _DIGIT0


def uses_marker_plane(xml: bytes) -> bool:
    """True when UTF-8 XML holds a code point of plane 16 (the markers' plane), as a
    character or as a numeric character reference."""
    if _PLANE_16_UTF8.search(xml):
        return True
    for m in _CHAR_REF.finditer(xml):
        ref = m.group(1)
        value = int(ref[1:], 16) if ref[:1] == b"x" else int(ref)
        if value >= _DIGIT0:
            return True
    return False


# Elements whose content is gone once every tracked change is accepted.
_DELETED = frozenset({W + "del", W + "moveFrom"})

_UNDERSTOOD = frozenset(
    {
        W[1:-1],
        "http://schemas.microsoft.com/office/word/2010/wordml",
        "http://schemas.microsoft.com/office/word/2012/wordml",
        "http://schemas.microsoft.com/office/word/2015/wordml/symex",
        "http://schemas.microsoft.com/office/word/2016/wordml/cid",
        "http://schemas.microsoft.com/office/word/2018/wordml",
        "http://schemas.microsoft.com/office/word/2018/wordml/cex",
        "http://schemas.microsoft.com/office/word/2023/wordml/word16du",
        "http://schemas.microsoft.com/office/word/2010/wordprocessingDrawing",
    }
)
"""Namespaces a ``mc:Choice`` may require and still be read here: WordprocessingML and
Word's own extensions of it, whose runs the converter reads as it reads any run. Shapes
(``wps``, ``wpg``, ``wpc``) are read from ``mc:Fallback``'s VML, which carries the text
Word draws in them."""
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"


def resolve_alternate_content(root: Any) -> None:
    """Replace each ``mc:AlternateContent`` by what is read of it: its first ``mc:Choice``
    whose ``Requires`` prefixes all name understood namespaces (``_UNDERSTOOD``: Word,
    which understands them, shows that choice), else its ``mc:Fallback``, else nothing
    (ECMA-376 Part 3, 10.2). Innermost first, so a nested one is resolved too."""
    for el in reversed(list(root.iter(_MC + "AlternateContent"))):
        chosen = None
        for choice in el.iterchildren(_MC + "Choice"):
            prefixes = (choice.get("Requires") or "").split()
            if prefixes and all(choice.nsmap.get(p) in _UNDERSTOOD for p in prefixes):
                chosen = choice
                break
        if chosen is None:
            chosen = el.find(_MC + "Fallback")
        _unwrap(el, [] if chosen is None else list(chosen))


def demote_field_codes(root: Any) -> None:
    """Turn every ``w:t`` inside a complex field's code (between its ``w:fldChar``
    ``begin`` and ``separate``, or ``end`` when it has no result) into ``w:instrText``:
    field results count, field codes do not, however the code is spelled. Fields nest
    and may span paragraphs; document order decides."""
    stack: list[bool] = []  # per open field: still in its code part
    for el in root.iter(W + "fldChar", W + "t"):
        if el.tag == W + "fldChar":
            kind = el.get(W + "fldCharType")
            if kind == "begin":
                stack.append(True)
            elif kind == "separate" and stack:
                stack[-1] = False
            elif kind == "end" and stack:
                stack.pop()
        elif any(stack):
            el.tag = W + "instrText"


def marker_run(text: str) -> Any:
    """A ``w:r`` holding ``text`` as its one ``w:t`` (space preserved)."""
    return _marker_run(text)


def _marker_run(text: str) -> Any:
    from lxml import etree

    run = etree.Element(W + "r")
    t = etree.SubElement(run, W + "t")
    t.text = text
    t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    return run


@dataclass
class Marker:
    """Places markers on one part's tree; ``pieces`` records each PIECE id's position as
    (part, paragraph index, run index, child index) in the tree as it was read (see
    :class:`engine.text.docx.TextPiece`), and ``texts`` its ``w:t`` text."""

    part: str
    styles: HiddenStyles | None = None
    """The document's hidden-text styles (:mod:`engine.text.docx_styles`); None: none."""
    next_piece: int = 0
    pieces: dict[int, tuple[str, int, int, int]] = field(default_factory=dict)
    texts: dict[int, str] = field(default_factory=dict)

    def mark_pieces(self, root: Any) -> None:
        """PIECE before the text of every non-empty ``w:t``; HIDE/UNHIDE around hidden
        runs' text. Positions are counted before any marker run is inserted."""
        for p_index, p in enumerate(root.iter(W + "p")):
            r_index = 0
            ppr = p.find(W + "pPr")  # once per paragraph: a find walks its children
            pstyle = ppr.find(W + "pStyle") if ppr is not None else None
            styles = self.styles or _no_styles()
            inherited = styles.paragraph_setting(pstyle, styles.table_style(p))
            for run in p.iter(W + "r"):
                if _nearest_paragraph(run) is not p:
                    continue
                hidden = styles.run_hidden(run, inherited)
                for c_index, child in enumerate(run.iterchildren("{*}*")):
                    if child.tag == W + "t" and child.text:
                        n = self.next_piece
                        self.next_piece += 1
                        self.pieces[n] = (self.part, p_index, r_index, c_index)
                        self.texts[n] = child.text
                        body = child.text
                        if hidden:
                            body = marker(HIDE) + body + marker(UNHIDE)
                        child.text = marker(PIECE, n) + body
                r_index += 1

    def mark_ranges(self, root: Any) -> None:
        """START/END runs for every comment range mark of the part."""
        for tag, kind in ((W + "commentRangeStart", START), (W + "commentRangeEnd", END)):
            for el in list(root.iter(tag)):
                try:
                    n = int(el.get(W + "id") or "")
                except ValueError:
                    continue
                if 0 <= n < BASE * BASE:
                    _place(el, _marker_run(marker(kind, n)), kind == START)


def _no_styles() -> HiddenStyles:
    from engine.text.docx_styles import HiddenStyles  # it imports W from here

    return HiddenStyles()


def _nearest_paragraph(el: Any) -> Any:
    for anc in el.iterancestors(W + "p"):
        return anc
    return None


def _place(mark: Any, run: Any, is_start: bool) -> None:
    """Put the marker ``run`` where Word's highlight of range mark ``mark`` begins/ends."""
    paragraph = _nearest_paragraph(mark)
    if paragraph is None:
        _place_between_paragraphs(mark, run, is_start)
        return
    anchor = mark
    for anc in mark.iterancestors():
        if anc is paragraph:
            break
        if anc.tag in _DELETED or anc.tag == W + "r":
            anchor = anc  # the outermost deleted element (or a run) holding the mark
    anchor.addprevious(run) if is_start else anchor.addnext(run)


def _place_between_paragraphs(mark: Any, run: Any, is_start: bool) -> None:
    """A mark outside every paragraph: START opens the next paragraph in document order,
    END closes the previous one. A mark with no such paragraph is dropped (its range then
    reads as missing)."""
    node = mark
    while node is not None:
        for sib in node.itersiblings(preceding=not is_start):
            target = _first_or_last_paragraph(sib, first=is_start)
            if target is not None:
                if is_start:
                    ppr = target.find(W + "pPr")
                    target.insert(0 if ppr is None else target.index(ppr) + 1, run)
                else:
                    target.append(run)
                return
        node = node.getparent()


def _first_or_last_paragraph(el: Any, first: bool) -> Any:
    if el.tag == W + "p":
        return el
    if not isinstance(el.tag, str):
        return None
    if first:
        return next(el.iter(W + "p"), None)
    paragraphs = list(el.iter(W + "p"))
    return paragraphs[-1] if paragraphs else None


def unwrap_unread(root: Any) -> None:
    """Unwrap containers the converter would drop with their text: ``w:fldSimple`` (its
    content is the field's result, which counts), ``w:dir`` and ``w:bdo`` (bidirectional
    embeddings), and ``w:ruby`` (its base text stays; the ruby annotation ``w:rt`` goes)."""
    for tag in ("fldSimple", "dir", "bdo"):
        for el in list(root.iter(W + tag)):
            _unwrap(el, list(el))
    for el in list(root.iter(W + "ruby")):
        base = el.find(W + "rubyBase")
        _unwrap(el, [] if base is None else list(base))


def _unwrap(el: Any, children: list[Any]) -> None:
    parent = el.getparent()
    if parent is None:
        return
    at = parent.index(el)
    for i, child in enumerate(children):
        parent.insert(at + i, child)
    parent.remove(el)
