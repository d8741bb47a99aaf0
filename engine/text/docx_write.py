"""Writing comments into a copy of a Word document: new threads on ranges of its text,
replies on its comments, resolved marks reopened.

:class:`WordCopy` takes a ``.docx``'s bytes and its reading (:func:`engine.text.docx.read_docx`,
whose :attr:`~engine.text.docx.WordDocument.pieces` map the text to the XML) and edits the
package as Word writes comments (ECMA-376 Part 1, 17.13.4; MS-DOCX 2.5.1):

- a new thread is a ``w:comment`` in ``word/comments.xml`` (its first run a
  ``w:annotationRef``, its last paragraph carrying a fresh ``w14:paraId``), a
  ``w15:commentEx`` in ``word/commentsExtended.xml``, and in the document a
  ``w:commentRangeStart``/``w:commentRangeEnd`` pair at two text offsets (a run split
  where an offset falls inside it, its formatting copied to both halves) followed by a
  run holding its ``w:commentReference``; a range of no length is a comment on a point;
- a reply is a comment whose ``w15:commentEx`` names its parent's ``w14:paraId``
  (``w15:paraIdParent``), with range marks beside its parent's, as Word writes them;
- reopening sets the parent's ``w15:done`` to ``"0"``.

The parts and their relationships and content types are created when the file has none.
Everything else in the package is copied byte for byte. Raises
:class:`engine.text.docx_package.PackageError` as reading does.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import bisect
import io
import posixpath
import zipfile
from typing import Any

from engine.text import utf16
from engine.text.docx import TextPiece, WordComment, WordDocument, WordReply
from engine.text.docx_comments import W14, W15
from engine.text.docx_marks import W
from engine.text.docx_package import PackageError, parse_xml, read_package

__all__ = ["WordCopy"]

_NS = {
    "w": W[1:-1],
    "w14": W14[1:-1],
    "w15": W15[1:-1],
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
}
_MC_IGNORABLE = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Ignorable"
_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_CT_NS = "http://schemas.openxmlformats.org/package/2006/content-types"
_PARTS = {
    "comments": (
        "http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml",
        "comments",
    ),
    "commentsExtended": (
        "http://schemas.microsoft.com/office/2011/relationships/commentsExtended",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.commentsExtended+xml",
        "commentsEx",
    ),
}


def _el(tag: str, attrs: dict[str, str] | None = None, text: str | None = None) -> Any:
    from lxml import etree

    el = etree.Element(tag, attrs or {})
    if text is not None:
        el.text = text
    return el


class WordCopy:
    """An editable copy of a ``.docx`` (``data``) read as ``doc``."""

    def __init__(self, data: bytes, doc: WordDocument) -> None:
        self.package = read_package(data)
        self.doc = doc
        self.roots: dict[str, Any] = {}
        self.comments_name, self.comments = self._part("comments")
        self.ext_name, self.ext = self._part("commentsExtended")
        self._next_id = self._max_id() + 1
        self._para_ids = self._used_para_ids()
        self._serial = 0x1000_0000
        # Each text piece's w:t, found before anything is split (a split adds a run and
        # shifts the run indices of the pieces after it), and the fragments of the ones
        # split so far: key -> [(UTF-16 start in the piece, w:t)].
        self._elements = self._resolve_pieces()
        self._fragments: dict[tuple[str, int, int, int], list[tuple[int, Any]]] = {}
        self._starts: dict[str, list[int]] = {}

    # -- parts ---------------------------------------------------------------------------

    def root(self, part: str) -> Any:
        """The parsed, editable tree of a package member (parsed once)."""
        if part not in self.roots:
            self.roots[part] = parse_xml(self.package.files[part], part)
        return self.roots[part]

    def _part(self, kind: str) -> tuple[str, Any]:
        name = self.package.related(self.package.main, kind)
        if name is not None and name in self.package.files:
            return name, self.root(name)
        rel_type, content_type, local = _PARTS[kind]
        folder = posixpath.dirname(self.package.main)
        name = posixpath.join(folder, f"{kind}.xml")
        from lxml import etree

        ns = "w" if kind == "comments" else "w15"
        root = etree.Element(f"{{{_NS[ns]}}}{local}", {_MC_IGNORABLE: "w14 w15"}, nsmap=_NS)
        self.roots[name] = root
        self._add_relationship(rel_type, posixpath.basename(name))
        self._add_content_type("/" + name, content_type)
        return name, root

    def _add_relationship(self, rel_type: str, target: str) -> None:
        folder, base = posixpath.split(self.package.main)
        rels_name = posixpath.join(folder, "_rels", base + ".rels")
        if rels_name in self.package.files:
            rels = self.root(rels_name)
        else:
            from lxml import etree

            rels = etree.Element(f"{{{_REL_NS}}}Relationships", nsmap={None: _REL_NS})
            self.roots[rels_name] = rels
        used = {r.get("Id") for r in rels}
        n = 1
        while f"rIdArl{n}" in used:
            n += 1
        rels.append(
            _el(
                f"{{{_REL_NS}}}Relationship",
                {"Id": f"rIdArl{n}", "Type": rel_type, "Target": target},
            )
        )

    def _add_content_type(self, part_name: str, content_type: str) -> None:
        types = self.root("[Content_Types].xml")
        if not any(o.get("PartName") == part_name for o in types):
            types.append(
                _el(f"{{{_CT_NS}}}Override", {"PartName": part_name, "ContentType": content_type})
            )

    def _max_id(self) -> int:
        ids = [-1]
        for part in {self.package.main, *(p.part for p in self.doc.pieces)}:
            for el in self.root(part).iter(W + "commentRangeStart", W + "commentReference"):
                ids.append(_int(el.get(W + "id")))
        for c in self.comments.iter(W + "comment"):
            ids.append(_int(c.get(W + "id")))
        return max(ids)

    def _used_para_ids(self) -> set[str]:
        used = set()
        for root in (self.comments, self.root(self.package.main)):
            for el in root.iter(W + "p"):
                if el.get(W14 + "paraId"):
                    used.add(el.get(W14 + "paraId").upper())
        return used

    def _para_id(self) -> str:
        """A fresh ``w14:paraId``: 8 hex digits below 0x80000000 (MS-DOCX 2.6.1.3)."""
        while True:
            self._serial += 1
            pid = f"{self._serial:08X}"
            if pid not in self._para_ids:
                self._para_ids.add(pid)
                return pid

    # -- comments ------------------------------------------------------------------------

    def _comment(self, author: str, date: str, text: str, initials: str) -> tuple[str, str]:
        """A new ``w:comment`` in the comments part: (its w:id, its last paragraph's paraId)."""
        cid = str(self._next_id)
        self._next_id += 1
        c = _el(W + "comment", {W + "id": cid, W + "author": author, W + "date": date})
        if initials:
            c.set(W + "initials", initials)
        lines = text.split("\n") or [""]
        pid = ""
        for i, line in enumerate(lines):
            pid = self._para_id()
            p = _el(W + "p", {W14 + "paraId": pid, W14 + "textId": "77777777"})
            if i == 0:
                r = _el(W + "r")
                r.append(_el(W + "annotationRef"))
                p.append(r)
            r = _el(W + "r")
            r.append(
                _el(W + "t", {"{http://www.w3.org/XML/1998/namespace}space": "preserve"}, line)
            )
            p.append(r)
            c.append(p)
        self.comments.append(c)
        return cid, pid

    def _comment_ex(self, pid: str, parent: str | None = None, done: bool = False) -> Any:
        attrs = {W15 + "paraId": pid}
        if parent:
            attrs[W15 + "paraIdParent"] = parent
        attrs[W15 + "done"] = "1" if done else "0"
        ex = _el(W15 + "commentEx", attrs)
        self.ext.append(ex)
        return ex

    def add_comment(
        self, start: int, end: int, author: str, date: str, text: str, initials: str = ""
    ) -> str:
        """A new thread on UTF-16 units ``[start, end)`` of the document's text; returns its
        paraId (for replies). ``start == end`` comments on a point."""
        cid, pid = self._comment(author, date, text, initials)
        self._comment_ex(pid)
        self._mark(cid, start, end)
        return pid

    def _mark(self, cid: str, start: int, end: int) -> None:
        """Range marks and the reference run of comment ``cid`` on UTF-16 ``[start, end)``."""
        pieces = self._part_pieces(start)
        if end <= start:  # a point: start mark, end mark, reference, in that order
            begins = self._insert_at(
                start, _el(W + "commentRangeStart", {W + "id": cid}), start=True, pieces=pieces
            )
            begins.addnext(_el(W + "commentRangeEnd", {W + "id": cid}))
            begins.getnext().addnext(_reference_run(cid))
            return
        ends = self._insert_at(
            end, _el(W + "commentRangeEnd", {W + "id": cid}), start=False, pieces=pieces
        )
        ends.addnext(_reference_run(cid))
        self._insert_at(
            start, _el(W + "commentRangeStart", {W + "id": cid}), start=True, pieces=pieces
        )

    def _parts(self) -> list[str]:
        parts = [self.package.main]
        parts += sorted({p.part for p in self.doc.pieces} - {self.package.main})
        return parts

    def has_place(self, comment: WordComment | WordReply) -> bool:
        """Whether the document still holds a range mark or the reference of ``comment``
        (a comment whose commented text was deleted with its marks has none: its
        ``w:comment`` stands in the comments part alone)."""
        tags = (W + "commentRangeStart", W + "commentRangeEnd", W + "commentReference")
        return any(
            el.get(W + "id") == comment.word_id
            for part in self._parts()
            for el in self.root(part).iter(*tags)
        )

    def place(self, comment: WordComment, start: int, end: int) -> None:
        """Put ``comment`` of the file, which has no place in the document
        (:meth:`has_place` false), back on UTF-16 ``[start, end)`` of the text: its own
        range marks and reference there, its replies' marks beside them. Its ``w:comment``
        and replies are kept as they are. Raises PackageError when the document has no text
        to put it on."""
        self._mark(comment.word_id, start, end)
        for reply in comment.replies:
            if not self.has_place(reply):
                self._beside(comment.word_id, reply.word_id)

    def _part_pieces(self, offset: int) -> list[TextPiece]:
        """The text pieces of the part (body, footnotes, endnotes) ``offset`` is in: the
        part of the piece holding it or the next one, else of the last piece."""
        if not self.doc.pieces:
            raise PackageError("the document has no text to put a comment on")
        at = next((p for p in self.doc.pieces if p.end > offset), self.doc.pieces[-1])
        return [p for p in self.doc.pieces if p.part == at.part]

    def _parent_para_id(self, parent: WordComment | str) -> str:
        """The paraId of a comment of the file (given as read, or as the paraId returned by
        :meth:`add_comment`), given one when its last paragraph has none."""
        if isinstance(parent, str):
            return parent
        if parent.para_id:
            return parent.para_id
        for c in self.comments.iter(W + "comment"):
            if c.get(W + "id") == parent.word_id:
                paras = list(c.iter(W + "p"))
                if not paras:
                    paras = [_el(W + "p")]
                    c.append(paras[0])
                pid = self._para_id()
                paras[-1].set(W14 + "paraId", pid)
                self._comment_ex(pid, done=parent.done)
                return pid
        raise PackageError("its comment is not in the comments part")

    def add_reply(self, parent: WordComment | str, author: str, date: str, text: str) -> None:
        """A reply on ``parent``'s thread, its range marks beside the parent's."""
        parent_pid = self._parent_para_id(parent)
        cid, pid = self._comment(author, date, text, "")
        self._comment_ex(pid, parent=parent_pid)
        parent_id = parent.word_id if isinstance(parent, WordComment) else self._id_of(parent_pid)
        if not self._beside(parent_id, cid):
            raise PackageError(
                "its comment has no place in the document to reply at (the words it was on "
                "are gone)"
            )

    def _beside(self, parent_id: str, cid: str) -> bool:
        """Range marks and reference of comment ``cid`` beside those of ``parent_id``;
        False when the document holds none of the parent's."""
        placed = False
        for part in self._parts():
            root = self.root(part)
            for tag in ("commentRangeStart", "commentRangeEnd"):
                for el in list(root.iter(W + tag)):
                    if el.get(W + "id") == parent_id:
                        el.addnext(_el(W + tag, {W + "id": cid}))
                        placed = True
            for ref in list(root.iter(W + "commentReference")):
                if ref.get(W + "id") == parent_id:
                    run = ref.getparent()
                    (run if run is not None and run.tag == W + "r" else ref).addnext(
                        _reference_run(cid)
                    )
                    placed = True
        return placed

    def _id_of(self, para_id: str) -> str:
        for c in self.comments.iter(W + "comment"):
            if any(p.get(W14 + "paraId") == para_id for p in c.iter(W + "p")):
                return c.get(W + "id") or ""
        raise PackageError("the comment replied to is not in the comments part")

    def reopen(self, comment: WordComment | str, done: bool = False) -> None:
        """Mark ``comment``'s thread open again (``w15:done="0"``), or resolved with
        ``done`` (``"1"``); ``comment`` as read, or the paraId :meth:`add_comment` returned."""
        pid = self._parent_para_id(comment)
        for ex in self.ext.iter(W15 + "commentEx"):
            if ex.get(W15 + "paraId") == pid:
                ex.set(W15 + "done", "1" if done else "0")
                return
        self._comment_ex(pid, done=done)

    # -- placing marks at text offsets -----------------------------------------------------

    def _resolve_pieces(self) -> dict[tuple[str, int, int, int], Any]:
        """key (part, paragraph, run, child) -> the piece's ``w:t``, in one pass per part
        over the tree as read."""
        out: dict[tuple[str, int, int, int], Any] = {}
        wanted: dict[str, set[tuple[int, int, int]]] = {}
        for piece in self.doc.pieces:
            wanted.setdefault(piece.part, set()).add((piece.paragraph, piece.run, piece.child))
        for part, keys in wanted.items():
            paragraphs = {k[0] for k in keys}
            for p_index, p in enumerate(self.root(part).iter(W + "p")):
                if p_index not in paragraphs:
                    continue
                runs = [r for r in p.iter(W + "r") if next(r.iterancestors(W + "p"), None) is p]
                for pi, ri, ci in keys:
                    if pi == p_index and ri < len(runs):
                        children = list(runs[ri].iterchildren("{*}*"))
                        if ci < len(children):
                            out[(part, pi, ri, ci)] = children[ci]
        return out

    def _element(self, piece: TextPiece) -> Any:
        key = (piece.part, piece.paragraph, piece.run, piece.child)
        if key not in self._elements:
            raise PackageError("its text could not be found again in its XML")
        return self._elements[key]

    def _insert_at(self, offset: int, mark: Any, start: bool, pieces: list[TextPiece]) -> Any:
        """Put ``mark`` at UTF-16 ``offset`` of the text: in the text piece holding it,
        before or after a run whose text starts or ends there, else between the two halves
        of the run split there. An offset between pieces lies in text no ``w:t`` holds (a
        paragraph break, a footnote mark, a tab): inside one paragraph the mark goes beside
        the run next to it on the side that keeps that text in the range; across a
        paragraph break it goes to the end of the paragraph before (an END, or a START
        still in that paragraph's tail) or the start of the paragraph after (a START in its
        head), so marks such as a trailing footnote reference stay in the range. Returns
        ``mark``."""
        piece, where = self._piece_for(offset, start, pieces)
        if where != "in":
            p = next(self._element(piece).iterancestors(W + "p"))
            if where == "paragraph end":
                p.append(mark)
            else:
                ppr = p.find(W + "pPr")
                p.insert(0 if ppr is None else p.index(ppr) + 1, mark)
            return mark
        key = (piece.part, piece.paragraph, piece.run, piece.child)
        fragments = self._fragments.setdefault(key, [(0, self._element(piece))])
        local = min(max(offset - piece.start, 0), piece.end - piece.start)
        i = bisect.bisect_right([s for s, _ in fragments], local) - 1
        begin, t = fragments[i]
        length = utf16.utf16_length(t.text or "")
        if local == begin:
            t.getparent().addprevious(mark)
        elif local >= begin + length:
            t.getparent().addnext(mark)
        else:
            right = _split_run(t.getparent(), t, utf16.to_codepoint(t.text or "", local - begin))
            fragments.insert(i + 1, (local, right.find(W + "t")))
            right.addprevious(mark)
        return mark

    def _piece_for(
        self, offset: int, start: bool, pieces: list[TextPiece]
    ) -> tuple[TextPiece, str]:
        """(piece, "in" | "paragraph end" | "paragraph start") for a mark at ``offset``
        (see :meth:`_insert_at`)."""
        starts = self._starts.get(pieces[0].part)
        if starts is None or len(starts) != len(pieces):
            starts = self._starts[pieces[0].part] = [p.start for p in pieces]
        i = bisect.bisect_right(starts, offset) - 1
        if i < 0:
            return pieces[0], "in"  # before the first piece
        if offset <= pieces[i].end:
            return pieces[i], "in"
        omap = self._omap
        if i == len(pieces) - 1:  # after the last piece of the part
            return pieces[i], "paragraph end" if not start else "in"
        before, after = pieces[i], pieces[i + 1]  # offset lies in the gap between them
        at = omap.to_codepoint(offset)
        head = self.doc.text[omap.to_codepoint(before.end) : at]
        tail = self.doc.text[at : omap.to_codepoint(after.start)]
        if "\n" not in head + tail:
            return (before, "in") if start else (after, "in")
        if start:
            return (after, "paragraph start") if "\n" in head else (before, "in")
        return before, "paragraph end"

    @property
    def _omap(self) -> utf16.OffsetMap:
        if not hasattr(self, "_offset_map"):
            self._offset_map = utf16.OffsetMap(self.doc.text)
        return self._offset_map

    def to_bytes(self) -> bytes:
        """The copy as a ``.docx``: every member, the edited ones re-serialized."""
        from lxml import etree

        names = list(self.package.files)
        names += [n for n in self.roots if n not in self.package.files]
        names.sort(key=lambda n: n != "[Content_Types].xml")
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for name in names:
                if name in self.roots:
                    data = etree.tostring(
                        self.roots[name], xml_declaration=True, encoding="UTF-8", standalone=True
                    )
                else:
                    data = self.package.files[name]
                zf.writestr(name, data)
        return buf.getvalue()


def _int(value: str | None) -> int:
    try:
        return int(value or "")
    except ValueError:
        return -1


def _reference_run(cid: str) -> Any:
    run = _el(W + "r")
    run.append(_el(W + "commentReference", {W + "id": cid}))
    return run


def _split_run(run: Any, t: Any, k: int) -> Any:
    """Split ``run`` at code point ``k`` of its ``w:t`` ``t``: the run keeps what comes
    before (and every child before ``t``), a copy of it with the same ``w:rPr`` takes the
    rest (and every child after ``t``). Returns the new right-hand run."""
    from copy import deepcopy

    right = _el(W + "r", dict(run.attrib))
    rpr = run.find(W + "rPr")
    if rpr is not None:
        right.append(deepcopy(rpr))
    tail = _el(W + "t", {"{http://www.w3.org/XML/1998/namespace}space": "preserve"})
    tail.text = (t.text or "")[k:]
    t.text = (t.text or "")[:k]
    t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    right.append(tail)
    after = False
    for child in list(run):
        if child is t:
            after = True
        elif after:
            right.append(child)
    run.addnext(right)
    return right
