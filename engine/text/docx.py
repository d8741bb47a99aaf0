"""Reading a reviewed or revised Word ``.docx``: the page the panes show, its text, its comments.

:func:`read_docx` renders the document with mammoth (the well-kept Word-to-HTML converter)
and reads the rendered page with the program's HTML text layer (:mod:`engine.text.html_text`),
so the text every offset indexes is ``document.body.textContent`` of exactly the HTML the
panes show, in UTF-16 code units as everywhere else (docs/anchor.md, "Word documents").

What the text is:

- every tracked change accepted: ``w:ins`` and ``w:moveTo`` content is in, ``w:del`` and
  ``w:moveFrom`` content is out, a paragraph whose mark was deleted joins the next, a
  deleted table row is gone (mammoth's reading, ECMA-376 Part 1, 17.13.5);
- field results count, field codes (``w:instrText``, and any ``w:t`` between a
  ``w:fldChar`` ``begin`` and its ``separate``) do not; a simple field
  (``w:fldSimple``) counts by its result;
- hidden text (``w:vanish`` or ``w:specVanish`` resolved through Word's style hierarchy:
  document defaults, table style, paragraph style or the default one, character style,
  the run's own, each style through its ``basedOn`` chain; :mod:`engine.text.docx_styles`)
  is in the text and is drawn hidden (``<span hidden>``), as CSS-hidden text is in an HTML page;
- ``mc:AlternateContent`` reads as its first ``mc:Choice`` in namespaces understood here
  (what Word shows), else its ``mc:Fallback``;
- each block (paragraph, heading, list item, table cell...) starts on a new line and a
  line break is followed by one (a ``"\\n"`` in the rendered source), so words of two
  paragraphs never run together; list numbers and bullets are drawn by the page, not text;
- footnotes and endnotes follow the body, as mammoth renders them; headers, footers and
  comments' own text are not in it.

Comment ranges are placed by markers carried through the conversion
(:mod:`engine.text.docx_marks`), never by searching for the quote: a comment's range is
the text between its ``w:commentRangeStart`` and ``w:commentRangeEnd``, the paragraph
breaks at its two ends left out. A comment whose range is missing, lies where nothing is
shown (a header), is empty or ends before it starts keeps :attr:`WordComment.problem`.

Errors: :class:`engine.text.docx_package.PackageError` (one phrase, the caller names the
file) for an old ``.doc``, an encrypted file, a zip that is not a Word package, a zip bomb,
malformed XML or a DTD, and a document that uses the markers' code points.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import html as html_mod
import io
import re
import zipfile
from dataclasses import dataclass
from typing import Any

from engine.text import utf16
from engine.text.docx_changes import ChangeMarker, TrackedChange
from engine.text.docx_comments import CommentRecord, read_comment_parts
from engine.text.docx_marks import (
    CHANGE_AT,
    CHANGE_END,
    CHANGE_START,
    END,
    HIDE,
    MARKER,
    PIECE,
    START,
    UNHIDE,
    Marker,
    W,
    decode,
    demote_field_codes,
    resolve_alternate_content,
    unwrap_unread,
    uses_marker_plane,
)
from engine.text.docx_package import (
    NOT_READABLE,
    Package,
    PackageError,
    parse_xml,
    read_package,
)
from engine.text.docx_ranges import comment_range, orphan_notice, words_at
from engine.text.docx_styles import hidden_styles

__all__ = [
    "MAX_WORD_NOTES",
    "TextPiece",
    "TrackedChange",
    "WordComment",
    "WordDocument",
    "WordReply",
    "page_text",
    "read_docx",
]

_COMMENT_PARTS = ("comments", "commentsExtended", "commentsIds", "commentsExtensible")
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_TRACKED = tuple(W + t for t in ("ins", "del", "moveFrom", "moveTo"))

#: The most footnotes and endnotes (together) a Word file may have: mammoth renders about
#: 1,800 a second on one core (0.55 ms each, with its paragraph, run and mark), so 10,000
#: take about 6 s; 50,000 took 59 s. A long thesis or treatise has a few thousand.
MAX_WORD_NOTES = 10_000
_NOTES = (W + "footnote", W + "endnote")
_DOCTYPES = tuple("<!DOCTYPE".encode(c) for c in ("utf-8", "utf-16-le", "utf-16-be"))


@dataclass(frozen=True)
class WordReply:
    """A reply on a comment's thread: ``word_id`` (``w:id``), ``author``, ``date`` (``w:date``
    as written, ISO 8601, ``""`` when absent), ``text``, ``done`` (its own ``w15:done``)."""

    word_id: str
    author: str
    date: str
    text: str
    done: bool


@dataclass(frozen=True)
class WordComment:
    """A comment that opens a thread, with its range on :attr:`WordDocument.text`.

    ``number``: 1, 2, ... in the order the ranges start in the text (comments without a
    usable range last, in ``comments.xml`` order). ``start``/``end``: UTF-16 units into the
    text, None exactly when ``problem`` says why the range is unusable ("its range is
    missing in the document", "its range is empty", ...). ``done``: resolved in Word
    (``w15:done="1"``). ``para_id``/``durable_id``: ``w14:paraId`` of its last paragraph and
    ``w16cid:durableId``, which identify it across saves (None when the file has none).
    """

    word_id: str
    number: int
    author: str
    initials: str
    date: str
    text: str
    start: int | None
    end: int | None
    problem: str | None
    done: bool
    replies: tuple[WordReply, ...]
    para_id: str | None
    durable_id: str | None


@dataclass(frozen=True)
class TextPiece:
    """Where the text of one ``w:t`` stands in :attr:`WordDocument.text` and in the XML.

    ``start``/``end``: UTF-16 units into the text (``end - start`` is the UTF-16 length of
    the ``w:t``'s text, which the text holds verbatim). ``part``: the package member
    (``"word/document.xml"``, ``"word/footnotes.xml"``...). ``paragraph``: the index of the
    ``w:p`` among all ``w:p`` elements of the part in document order (``root.iter(w:p)``,
    tables, text boxes and deleted paragraphs included). ``run``: the index of the ``w:r``
    among that paragraph's own runs in document order (those whose nearest ``w:p`` ancestor
    is it; runs inside ``w:ins``/``w:del``/hyperlinks count). ``child``: the index of the
    ``w:t`` among the run's element children. A character at text offset ``o`` with
    ``start <= o < end`` is UTF-16 unit ``o - start`` of that ``w:t``. All indices are of
    the part as read, so a writer can find the element again in the original XML.
    Characters between pieces (tabs, symbols, footnote marks, line breaks, the block
    newlines) have no piece.
    """

    start: int
    end: int
    part: str
    paragraph: int
    run: int
    child: int


@dataclass(frozen=True)
class WordDocument:
    """A ``.docx`` read: ``html`` the page the panes show (a complete HTML document, body
    from mammoth); ``text`` its ``document.body.textContent`` (what offsets index);
    ``title`` ``dc:title`` of ``docProps/core.xml`` (``""`` when none); ``comments`` the
    threads in ``number`` order; ``has_comments`` False when the file has no comments part
    at all (a fresh copy, not "no comment resolved"); ``pieces`` the text positions of the
    document's ``w:t`` elements in text order (:class:`TextPiece`); ``tracked_changes`` the
    ``w:ins``/``w:del``/``w:moveFrom``/``w:moveTo`` elements of the main part; ``changes``
    the tracked changes to text placed on the text, in text order
    (:class:`~engine.text.docx_changes.TrackedChange`); ``notice`` one line (no file name)
    on what was left out, such as comment ranges with no comment
    (:func:`engine.text.docx_ranges.orphan_notice`), else None."""

    html: str
    text: str
    title: str
    comments: tuple[WordComment, ...]
    has_comments: bool
    pieces: tuple[TextPiece, ...]
    tracked_changes: int
    changes: tuple[TrackedChange, ...] = ()
    notice: str | None = None


def read_docx(data: bytes) -> WordDocument:
    """Read a ``.docx`` given as bytes (see the module docstring). Raises PackageError."""
    package = read_package(data)
    for name, member in package.files.items():
        if name.endswith((".xml", ".rels")) and any(d in member for d in _DOCTYPES):
            raise PackageError(f"its part {name} declares a DTD, which a Word document never has")
    markers: list[Marker] = []
    change_marker = ChangeMarker()
    changed: dict[str, bytes] = {}
    tracked = 0
    hidden = hidden_styles(package)
    parts = [package.main] + [
        p for kind in ("footnotes", "endnotes") if (p := package.related(package.main, kind))
    ]
    notes = 0
    for part in parts:
        if part not in package.files:
            continue
        xml = package.files[part]
        if uses_marker_plane(xml):
            raise PackageError(
                "it uses characters of Unicode's Supplementary Private Use Area-B "
                "(U+100000 and above), which this reader reserves for its own marks"
            )
        root = parse_xml(xml, part)
        if part != package.main:
            notes += sum(1 for n in root.iter(*_NOTES) if n.get(W + "type") in (None, "normal"))
            if notes > MAX_WORD_NOTES:
                raise PackageError(
                    f"it has {notes:,} footnotes and endnotes or more, past the "
                    f"{MAX_WORD_NOTES:,} this program reads"
                )
        if part == package.main:
            tracked = sum(1 for _ in root.iter(*_TRACKED))
        resolve_alternate_content(root)
        demote_field_codes(root)
        unwrap_unread(root)
        mk = Marker(part, hidden, next_piece=sum(len(m.pieces) for m in markers))
        mk.mark_pieces(root)
        change_marker.mark(root)
        mk.mark_ranges(root)
        markers.append(mk)
        changed[part] = _serialize(root)
    marked = _page(_convert(package, changed), _title(package))
    records = read_comment_parts(package)
    return _read_marked(marked, markers, change_marker, records, _title(package), tracked)


def _serialize(root: Any) -> bytes:
    from lxml import etree

    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True))


def _title(package: Package) -> str:
    core = next((t for k, t in package.relationships("") if k.endswith("/core-properties")), None)
    if core is None or core not in package.files:
        return ""
    try:
        el = parse_xml(package.files[core], "document properties").find(".//" + _DC_TITLE)
    except PackageError:
        return ""
    return " ".join((el.text or "").split()) if el is not None else ""


def _convert(package: Package, changed: dict[str, bytes]) -> str:
    """mammoth's HTML of the package with the marked parts in place of the originals."""
    import mammoth

    from engine.text.docx_fastxml import install

    install()
    # The comment parts are read here (engine.text.docx_comments), not by mammoth, which
    # would convert every comment's body to HTML that is never shown.
    skip = {package.related(package.main, kind) for kind in _COMMENT_PARTS}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for name, member in package.files.items():
            if name not in skip:
                zf.writestr(name, changed.get(name, member))
    buf.seek(0)
    try:
        result = mammoth.convert_to_html(buf)
    except RecursionError:
        raise PackageError("its XML is nested too deeply to be read") from None
    except Exception as exc:  # mammoth raises KeyError, ValueError... on damaged parts
        raise PackageError(
            f"{NOT_READABLE} (a part of it is damaged: {type(exc).__name__}: {exc})"
        ) from None
    return str(result.value)


# A block starts on a new line in the rendered source, and so does what follows a line
# break: the text of two paragraphs (or cells, or list items) is then never one word. A
# block opening right inside another's opening tag (<ul><li>, <tr><td>) needs none.
# mammoth escapes every "<" of the document's text, so this pattern sees only its tags.
_BLOCK_TAG = re.compile(r"<(/?)(?:p|h[1-6]|li|ul|ol|table|thead|tbody|tr|td|th)\b[^>]*>|<br />")


def _lines(body: str) -> str:
    out: list[str] = []
    last = 0
    after_open = True  # at the start, as right after an opening tag
    for m in _BLOCK_TAG.finditer(body):
        adjacent = m.start() == last
        out.append(body[last : m.start()])
        tag = m.group()
        if tag == "<br />":
            out.append("<br />\n")
            after_open = False
        else:
            opening = not m.group(1)
            if opening and not (adjacent and after_open):
                out.append("\n")
            out.append(tag)
            after_open = opening
        last = m.end()
    out.append(body[last:])
    return "".join(out)


def _page(body: str, title: str) -> str:
    body = _lines(body)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>'
        + html_mod.escape(title)
        + "</title></head><body>"
        + body
        + "</body></html>"
    )


# Whitespace with a line break between a tag and a block's tag that a page written by hand
# or by a model holds for layout: "<ul>\n  <li>", "</p>\n\n<p>" (a space alone is text).
_LAYOUT_SPACE = re.compile(
    r">[ \t\f\r]*\n\s*(?=</?(?:p|h[1-6]|li|ul|ol|table|thead|tbody|tr|td|th)\b|<br\s*/?>)",
    re.IGNORECASE,
)
_BODY = re.compile(r"<body\b[^>]*>(.*)</body\s*>", re.IGNORECASE | re.DOTALL)


def page_text(page: str) -> str:
    """The text of an HTML page read in the block convention of :func:`read_docx`'s page:
    whitespace with a line break that only lays out the source between a tag and a block
    tag dropped (and at the body's two ends), then one
    ``"\n"`` starting each block and following each line break, so a page the agent
    re-indented or wrote on one line reads with the same paragraph breaks as the Word
    page it came from. ``page_text(read_docx(data).html) == read_docx(data).text``. Code
    points."""
    from engine.text.html_text import body_text

    m = _BODY.search(page)
    body = m.group(1) if m else page
    body = _LAYOUT_SPACE.sub(">", body.strip())
    body = re.sub(r"<br\s*/?>", "<br />", body, flags=re.IGNORECASE)
    return body_text(_page(body.replace("<br />\n", "<br />"), ""))


_UNMARK = {HIDE: "<span hidden>", UNHIDE: "</span>"}


def _read_marked(
    marked: str,
    markers: list[Marker],
    change_marker: ChangeMarker,
    records: list[CommentRecord] | None,
    title: str,
    tracked: int,
) -> WordDocument:
    """The markers found in the marked page's text, then the page without them."""
    from engine.text.html_text import body_text

    marked_text = body_text(marked)
    events: list[tuple[int, int, int]] = []  # (kind, id, code point offset in clean text)
    removed = 0
    for m in MARKER.finditer(marked_text):
        kind, n = decode(m.group())
        events.append((kind, n, m.start() - removed))
        removed += m.end() - m.start()
    text = MARKER.sub("", marked_text)
    page = MARKER.sub(lambda m: _UNMARK.get(decode(m.group())[0], ""), marked)
    if body_text(page) != text:
        raise PackageError("its rendered text could not be placed exactly")  # pragma: no cover
    omap = utf16.OffsetMap(text)
    pieces = []
    where = {n: (mk, pos) for mk in markers for n, pos in mk.pieces.items()}
    marks: dict[str, list[tuple[int, int]]] = {}
    for kind, n, at in events:
        if kind == PIECE and n in where:
            mk, (part, p, r, c) = where[n]
            length = len(mk.texts[n])
            pieces.append(TextPiece(omap.to_utf16(at), omap.to_utf16(at + length), part, p, r, c))
        elif kind in (START, END):
            marks.setdefault(str(n), []).append((kind, at))
    comments = _threads(records or [], marks, text, omap)
    ids = {str(int(r.word_id)) if r.word_id.strip().isdigit() else r.word_id for r in records or []}
    changes = _changes(events, change_marker, omap)
    return WordDocument(
        html=page,
        text=text,
        title=title,
        comments=comments,
        has_comments=records is not None,
        pieces=tuple(pieces),
        tracked_changes=tracked,
        changes=changes,
        notice=orphan_notice(marks, ids, text),
    )


def _changes(
    events: list[tuple[int, int, int]], change_marker: ChangeMarker, omap: utf16.OffsetMap
) -> tuple[TrackedChange, ...]:
    """The tracked changes whose markers the page's text holds, in text order."""
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    for kind, n, at in events:
        if kind in (CHANGE_START, CHANGE_AT):
            starts.setdefault(n, at)
        elif kind == CHANGE_END:
            ends[n] = at
    out = []
    for n, (change, text, author, date) in change_marker.changes.items():
        if n in starts:  # else in a part or element the page does not show
            start, end = omap.to_utf16(starts[n]), omap.to_utf16(ends.get(n, starts[n]))
            out.append(TrackedChange(change, start, end, text, author, date))
    return tuple(sorted(out, key=lambda c: (c.start, c.end)))


def _threads(
    records: list[CommentRecord],
    marks: dict[str, list[tuple[int, int]]],
    text: str,
    omap: utf16.OffsetMap,
) -> tuple[WordComment, ...]:
    by_id: dict[str, CommentRecord] = {}
    for r in records:  # the first of one id (LibreOffice merges them; a later one skipped)
        by_id.setdefault(r.word_id, r)

    def root_of(r: CommentRecord) -> CommentRecord:
        seen = {r.word_id}
        while r.parent is not None and r.parent in by_id and r.parent not in seen:
            r = by_id[r.parent]
            seen.add(r.word_id)
        return r

    replies: dict[str, list[WordReply]] = {}
    roots = []
    for r in records:
        top = root_of(r)
        if top is r:
            roots.append(r)
        else:
            replies.setdefault(top.word_id, []).append(
                WordReply(r.word_id, r.author, r.date, r.text, r.done)
            )
    placed = []
    for order, r in enumerate(roots):
        key = str(int(r.word_id)) if r.word_id.strip().isdigit() else r.word_id
        start, end, problem = comment_range(marks.get(key), text)
        first = by_id[r.word_id]
        if first is not r:
            start = end = None
            problem = (
                f"it has the Word id of another comment ({first.author}: "
                f"{words_at(first.text, 0, len(first.text))}), so which range is its own "
                "cannot be told"
            )
        placed.append((start is None, start or 0, order, r, start, end, problem))
    placed.sort(key=lambda item: item[:3])
    return tuple(
        WordComment(
            word_id=r.word_id,
            number=i + 1,
            author=r.author,
            initials=r.initials,
            date=r.date,
            text=r.text,
            start=None if start is None else omap.to_utf16(start),
            end=None if end is None else omap.to_utf16(end),
            problem=problem,
            done=r.done,
            replies=tuple(replies.get(r.word_id, ())),
            para_id=r.para_id,
            durable_id=r.durable_id,
        )
        for i, (_, _, _, r, start, end, problem) in enumerate(placed)
    )
