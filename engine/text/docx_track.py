"""Edits written into a copy of a Word document as tracked changes, over its own runs.

:func:`tracked_copy` takes a ``.docx``'s bytes, its reading
(:func:`engine.text.docx.read_docx`, whose :attr:`~engine.text.docx.WordDocument.pieces`
map the text to the XML) and edits of its text (:class:`TextEdit`: replace UTF-16 units
``[start, end)`` of :attr:`~engine.text.docx.WordDocument.text` by ``text``), and writes
each edit as Word writes a change made with Track Changes on (ECMA-376 Part 1, 17.13.5):

- deleted words: their runs (split where an edit starts or ends inside one, the formatting
  copied to both halves) wrapped in ``w:del``, their ``w:t`` become ``w:delText``;
- inserted words: a ``w:ins`` holding a run with the formatting of the run they are
  written beside (for a replacement, of the first run they replace), right after the
  deleted words or at the insertion point; a tab is a ``w:tab``;
- a paragraph break the edit adds (``"\\n"`` in its text) splits the paragraph: the part
  before it becomes a new paragraph with the same paragraph properties whose mark is
  inserted (``w:pPr/w:rPr/w:ins``), the original paragraph keeps the rest, so rejecting
  the change joins them again;
- a paragraph break the edit removes (the ``"\\n"`` between two paragraphs of one body,
  cell or footnote): the first paragraph's mark is deleted (``w:pPr/w:rPr/w:del``), so
  accepting joins them.

Accepting every change gives the edited text exactly, rejecting every change gives the
original, except where a :class:`RevisionNote` says why not: a character the text shows
but no ``w:t`` holds (a footnote mark, a tab, a symbol) that an edit removed is kept, a
paragraph break between a table cell or a footnote and what follows is kept, and words
written where no run is (between two paragraph breaks) go to the nearest run. A note also
says where a paragraph's formatting cannot be kept exactly (words replacing text of more
than one formatting take the first one's). Everything else in the package is copied byte
for byte. Raises :class:`engine.text.docx_package.PackageError` as reading does.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import bisect
import io
import re
import zipfile
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from engine.text import utf16
from engine.text.docx import WordDocument
from engine.text.docx_marks import W
from engine.text.docx_package import PackageError, parse_xml, read_package
from engine.text.docx_runs import (
    SPLITTABLE,
    containers,
    cut_before,
    el,
    mark_paragraph,
    outer_run,
    paragraph_of,
    rpr_key,
    run_alone,
    shows_text,
    split_run,
)

__all__ = ["RevisionNote", "TextEdit", "tracked_copy"]

_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
_W14 = "{http://schemas.microsoft.com/office/word/2010/wordml}"
#: Body-level elements that may stand between two paragraphs joined by deleting the
#: paragraph mark between them (they hold no text).
_BETWEEN = frozenset(
    W + t
    for t in (
        "bookmarkStart",
        "bookmarkEnd",
        "commentRangeStart",
        "commentRangeEnd",
        "proofErr",
        "permStart",
        "permEnd",
    )
)
#: Characters XML 1.0 cannot hold (tab, line feed and carriage return aside).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True)
class TextEdit:
    """Replace UTF-16 units ``[start, end)`` of the document's text by ``text`` (``start ==
    end``: an insertion; ``text == ""``: a deletion)."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class RevisionNote:
    """Where the tracked copy could not follow an edit exactly: ``paragraph`` the 1-based
    number of the block (paragraph, heading, list item, table cell, footnote) in the text,
    ``excerpt`` its first words, ``reason`` in plain words."""

    paragraph: int
    excerpt: str
    reason: str

    def words(self) -> str:
        """``Paragraph 4 ("The committee agreed…"): reason``."""
        return f"Paragraph {self.paragraph} (\u201c{self.excerpt}\u201d): {self.reason}"


def tracked_copy(
    data: bytes,
    doc: WordDocument,
    edits: list[TextEdit],
    *,
    author: str,
    date: str,
) -> tuple[bytes, list[RevisionNote]]:
    """The ``.docx`` ``data`` (read as ``doc``) with ``edits`` written as tracked changes
    by ``author`` at ``date`` (ISO 8601, ``w:date``), and the notes on what could not be
    followed exactly, in text order. ``edits``: in text order, not overlapping (UTF-16
    units into ``doc.text``). Raises PackageError (a damaged package, or text the reading
    placed that the XML no longer holds)."""
    t = _Tracker(data, doc, author, date)
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        t.apply(e)
    t.note_emptied()
    notes = sorted(t.notes, key=lambda n: n[0])
    out: list[RevisionNote] = []
    for at, reason in notes:
        para, excerpt = t.paragraph_at(at)
        note = RevisionNote(para, excerpt, reason)
        if note not in out:
            out.append(note)
    return t.to_bytes(), out


class _Tracker:
    def __init__(self, data: bytes, doc: WordDocument, author: str, date: str) -> None:
        self.package = read_package(data)
        self.doc = doc
        self.author, self.date = author, date
        self.roots: dict[str, Any] = {}
        self.omap = utf16.OffsetMap(doc.text)
        self.pieces = list(doc.pieces)
        self.starts = [p.start for p in self.pieces]
        self.notes: list[tuple[int, str]] = []  # (UTF-16 offset, reason)
        self._ours: set[Any] = set()  # paragraphs whose mark this copy inserted
        self._fragments: dict[int, list[tuple[int, Any]]] = {}
        elements = self._resolve()
        for i, p in enumerate(self.pieces):
            el = elements.get((p.part, p.paragraph, p.run, p.child))
            if el is None:
                raise PackageError("its text could not be found again in its XML")
            self._fragments[i] = [(0, el)]
        self._next_id = self._max_id() + 1

    # -- the package -------------------------------------------------------------------

    def root(self, part: str) -> Any:
        if part not in self.roots:
            self.roots[part] = parse_xml(self.package.files[part], part)
        return self.roots[part]

    def _resolve(self) -> dict[tuple[str, int, int, int], Any]:
        out: dict[tuple[str, int, int, int], Any] = {}
        wanted: dict[str, set[tuple[int, int, int]]] = {}
        for p in self.pieces:
            wanted.setdefault(p.part, set()).add((p.paragraph, p.run, p.child))
        for part, keys in wanted.items():
            by_para: dict[int, list[tuple[int, int]]] = {}
            for pi, ri, ci in keys:
                by_para.setdefault(pi, []).append((ri, ci))
            for p_index, p in enumerate(self.root(part).iter(W + "p")):
                if p_index not in by_para:
                    continue
                runs = [r for r in p.iter(W + "r") if next(r.iterancestors(W + "p"), None) is p]
                for ri, ci in by_para[p_index]:
                    if ri < len(runs):
                        children = list(runs[ri].iterchildren("{*}*"))
                        if ci < len(children):
                            out[(part, p_index, ri, ci)] = children[ci]
        return out

    def _max_id(self) -> int:
        top = 0
        for part in {self.package.main, *(p.part for p in self.pieces)}:
            for node in self.root(part).iter():
                v = node.get(W + "id") if isinstance(node.tag, str) else None
                if v is not None and v.lstrip("-").isdigit():
                    top = max(top, int(v))
        return top

    def _change(self, tag: str) -> Any:
        change = el(tag, {W + "id": str(self._next_id), W + "author": self.author})
        if self.date:
            change.set(W + "date", self.date)
        self._next_id += 1
        return change

    def to_bytes(self) -> bytes:
        from lxml import etree

        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            names = sorted(self.package.files, key=lambda n: n != "[Content_Types].xml")
            for name in names:
                if name in self.roots:
                    data = etree.tostring(
                        self.roots[name], xml_declaration=True, encoding="UTF-8", standalone=True
                    )
                else:
                    data = self.package.files[name]
                zf.writestr(name, data)
        return buf.getvalue()

    # -- where things are --------------------------------------------------------------

    def paragraph_at(self, offset: int) -> tuple[int, str]:
        """(1-based block number, its first words) of UTF-16 ``offset`` of the text."""
        text = self.doc.text
        at = min(self.omap.to_codepoint(min(offset, utf16.utf16_length(text))), len(text))
        start = text.rfind("\n", 0, at) + 1
        if at < len(text) and text[at] == "\n" and at == start and at > 0:
            start = text.rfind("\n", 0, at - 1) + 1
        line = text[start:].split("\n", 1)[0].strip()
        excerpt = " ".join(line.split()[:8])
        if len(excerpt) > 60:
            excerpt = excerpt[:57].rstrip()
        if excerpt != line:
            excerpt += "\u2026"
        return text.count("\n", 0, start) + 1, excerpt

    def note_emptied(self) -> None:
        """A note on each paragraph whose every word an edit deleted while its paragraph
        break stays: Word keeps it as an empty paragraph, which the text does not show."""
        first: dict[Any, int] = {}
        for k, frags in self._fragments.items():
            for _, t in frags:
                first.setdefault(t, self.pieces[k].start)
        seen = set()
        for t, at in first.items():
            if t.tag != W + "delText":
                continue
            p = paragraph_of(t)
            if p is None or p in seen:
                continue
            seen.add(p)
            mark = p.find(f"{W}pPr/{W}rPr/{W}del")
            if mark is None and not shows_text(p):
                self._note(
                    at,
                    "every word of it is deleted but not its paragraph break, so accepting "
                    "leaves an empty paragraph",
                )

    def _note(self, offset: int, reason: str) -> None:
        self.notes.append((offset, reason))

    def _gap(self, a: int, b: int) -> str:
        """The text of UTF-16 units [a, b)."""
        return self.doc.text[self.omap.to_codepoint(a) : self.omap.to_codepoint(b)]

    def _split(self, i: int, local: int) -> None:
        """A fragment boundary at UTF-16 ``local`` of piece ``i``."""
        frags = self._fragments[i]
        j = bisect.bisect_right([s for s, _ in frags], local) - 1
        begin, t = frags[j]
        length = utf16.utf16_length(t.text or "")
        if local <= begin or local >= begin + length:
            return
        right = split_run(t.getparent(), t, utf16.to_codepoint(t.text or "", local - begin))
        frags.insert(j + 1, (local, right.find(W + "t")))

    def _frags_in(self, i: int, lo: int, hi: int) -> list[Any]:
        """The ``w:t`` fragments of piece ``i`` covering UTF-16 [lo, hi) of it (split so)."""
        self._split(i, lo)
        self._split(i, hi)
        return [t for s, t in self._fragments[i] if lo <= s < hi]

    def _frag_ending(self, i: int, local: int) -> Any:
        self._split(i, local)
        frags = self._fragments[i]
        j = bisect.bisect_left([s for s, _ in frags], local) - 1
        return frags[max(j, 0)][1]

    def _frag_starting(self, i: int, local: int) -> Any:
        self._split(i, local)
        frags = self._fragments[i]
        j = bisect.bisect_right([s for s, _ in frags], local) - 1
        return frags[max(j, 0)][1]

    # -- one edit ----------------------------------------------------------------------

    def apply(self, e: TextEdit) -> None:
        text = e.text
        if _NOT_XML.search(text):
            text = _NOT_XML.sub("", text)
            self._note(e.start, "characters a Word document cannot hold were left out")
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        deleted: list[Any] = []
        if e.end > e.start:
            deleted = self._delete(e.start, e.end)
        if not text:
            return
        if deleted:
            last = deleted[-1]
            rpr = deleted[0].find(f"{W}r/{W}rPr")
            keys = {rpr_key(d.find(f"{W}r/{W}rPr")) for d in deleted}
            if len(keys) > 1:
                self._note(
                    e.start,
                    "the new words take the formatting of the first words they replace; "
                    "the words replaced had more than one formatting",
                )
            self._insert_lines(last, "after", rpr, text, e.start)
            return
        node, side = self._anchor(e.start)
        run = outer_run(node)
        self._insert_lines(run, side, run.find(W + "rPr"), text, e.start)

    def _anchor(self, x: int) -> tuple[Any, str]:
        """(a run, "after" | "before") where words inserted at UTF-16 ``x`` go."""
        pieces = self.pieces
        if not pieces:
            raise PackageError("the document has no text to revise")
        i = bisect.bisect_right(self.starts, x) - 1
        if i >= 0 and x <= pieces[i].end:
            if x == pieces[i].start and i > 0 and pieces[i - 1].end == x:
                return run_alone(self._frag_ending(i - 1, x - pieces[i - 1].start)), "after"
            if x == pieces[i].start and pieces[i].end > x:
                return run_alone(self._frag_starting(i, 0)), "before"
            return run_alone(self._frag_ending(i, x - pieces[i].start)), "after"
        if i < 0:
            if x < pieces[0].start:
                self._note(x, "the new words are written at the start of the first paragraph")
            return run_alone(self._frag_starting(0, 0)), "before"
        before = pieces[i]
        if i == len(pieces) - 1:
            self._note(x, "the new words are written after the last words of the document")
            return run_alone(self._frag_ending(i, before.end - before.start)), "after"
        after = pieces[i + 1]
        head, tail = self._gap(before.end, x), self._gap(x, after.start)
        if "\n" not in head:
            if head:
                self._note(x, "the new words are written before a mark the text shows there")
            return run_alone(self._frag_ending(i, before.end - before.start)), "after"
        if tail and "\n" in tail:
            self._note(
                x, "the new words are written at the start of the next paragraph (no run is there)"
            )
        elif tail:
            self._note(x, "the new words are written after a mark the text shows there")
        return run_alone(self._frag_starting(i + 1, 0)), "before"

    def _delete(self, a: int, b: int) -> list[Any]:
        """Wrap the text of UTF-16 [a, b) in ``w:del``; delete the paragraph marks of the
        paragraph breaks in it. Returns the ``w:del`` elements in text order."""
        pieces = self.pieces
        lo = max(bisect.bisect_right(self.starts, a) - 1, 0)
        if a < pieces[0].start and self._gap(a, min(b, pieces[0].start)):
            self._note(a, "marks the text shows before the first words were kept")
        covered: list[int] = []
        for k in range(lo, len(pieces)):
            p = pieces[k]
            if p.start >= b:
                break
            if p.end > a and p.end > p.start:
                covered.append(k)
            if k + 1 < len(pieces):
                g0, g1 = max(p.end, a), min(pieces[k + 1].start, b)
                if g0 < g1:
                    self._delete_gap(k, k + 1, self._gap(g0, g1), g0)
            elif b > p.end:
                g0 = max(p.end, a)
                if self._gap(g0, b).strip("\n"):
                    self._note(g0, "marks the text shows after the last words were kept")
        wrapped: list[Any] = []
        for k in covered:
            p = pieces[k]
            for t in self._frags_in(k, max(a, p.start) - p.start, min(b, p.end) - p.start):
                run = run_alone(t)
                wrapper = self._change(W + "del")
                run.addprevious(wrapper)
                wrapper.append(run)
                t.tag = W + "delText"
                t.set(_XML_SPACE, "preserve")
                wrapped.append(wrapper)
        return wrapped

    def _delete_gap(self, i0: int, i1: int, gap: str, at: int) -> None:
        """Delete ``gap``, text between pieces ``i0`` and ``i1`` that no ``w:t`` holds."""
        if gap.strip("\n"):
            self._note(
                at,
                "a mark the text shows that is not a word (a footnote mark, a tab, a symbol) "
                "was kept: remove it in Word if it should go",
            )
        if "\n" not in gap:
            return
        a, b = self.pieces[i0], self.pieces[i1]
        if a.part != b.part:
            self._note(at, "the break between the document and its notes was kept")
            return
        pa = paragraph_of(self._frag_ending(i0, a.end - a.start))
        pb = paragraph_of(self._frag_starting(i1, 0))
        if pa is pb:
            self._note(at, "a line break inside the paragraph was kept")
            return
        chain = [pa]
        node = pa.getnext()
        while node is not None and node is not pb:
            if node.tag == W + "p":
                chain.append(node)
            elif node.tag not in _BETWEEN:
                break
            node = node.getnext()
        if node is not pb:
            self._note(
                at,
                "the paragraph break before a table, a table cell or a list level was kept "
                "(Word joins only paragraphs that stand side by side)",
            )
            return
        for p in chain:
            if p not in self._ours:
                mark_paragraph(p, self._change(W + "del"))

    def _insert_lines(self, run: Any, side: str, rpr: Any, text: str, at: int) -> None:
        """Put ``text`` as tracked insertions beside ``run``; each ``"\\n"`` splits the
        paragraph there."""
        lines = text.split("\n")
        ins = [self._ins(line, rpr) if line else None for line in lines]
        point = el("{urn:arl}point")
        if side == "after":
            run.addnext(point)
        else:
            run.addprevious(point)
        if ins[0] is not None:
            point.addprevious(ins[0])
        if len(lines) == 1:
            point.getparent().remove(point)
            return
        if ins[-1] is not None:
            point.addnext(ins[-1])
        para = paragraph_of(point)
        if para is None:  # pragma: no cover - a run is always in a paragraph
            raise PackageError("its text could not be found again in its XML")
        if any(a.tag not in SPLITTABLE for a in containers(point, para)):
            self._note(at, "a paragraph break was added inside a field or content control")
        left = cut_before(para, point, self._fresh_paragraph(para))
        point.getparent().remove(point)
        for k in range(1, len(lines) - 1):
            mid = self._fresh_paragraph(para)
            if ins[k] is not None:
                mid.append(ins[k])
            para.addprevious(mid)
            if ins[k] is None:
                self._note(at, "an empty paragraph the agent added is not shown")
        if not shows_text(left):
            self._note(at, "an empty paragraph the agent added is not shown")
        if not lines[-1] and not shows_text(para):
            self._note(at, "an empty paragraph the agent added is not shown")

    def _ins(self, line: str, rpr: Any) -> Any:
        ins = self._change(W + "ins")
        run = el(W + "r")
        if rpr is not None:
            c = deepcopy(rpr)
            for ch in c.findall(W + "rPrChange"):
                c.remove(ch)
            run.append(c)
        for k, chunk in enumerate(line.split("\t")):
            if k:
                run.append(el(W + "tab"))
            if chunk:
                run.append(el(W + "t", {_XML_SPACE: "preserve"}, chunk))
        ins.append(run)
        return ins

    def _fresh_paragraph(self, like: Any) -> Any:
        """A new paragraph with ``like``'s properties (no section break, no ids) whose mark
        is inserted."""
        p = el(W + "p")
        ppr = like.find(W + "pPr")
        if ppr is not None:
            c = deepcopy(ppr)
            for tag in ("sectPr", "pPrChange"):
                for ch in c.findall(W + tag):
                    c.remove(ch)
            rpr = c.find(W + "rPr")
            if rpr is not None:
                for tag in ("ins", "del", "moveFrom", "moveTo"):
                    for ch in rpr.findall(W + tag):
                        rpr.remove(ch)
            p.append(c)
        mark_paragraph(p, self._change(W + "ins"))
        self._ours.add(p)
        return p
