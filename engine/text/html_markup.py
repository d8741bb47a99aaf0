"""The markup index of a parsed body: what :func:`engine.text.html_text.extract` returns.

An :class:`Extraction` holds ``document.body.textContent`` and a flat record of the body
subtree in tree order (element open and close tokens and Text nodes, each at its text
offset; per element its namespace, tag, parent and text span), so that
:meth:`Extraction.markup_signature` describes the markup covering any range of the text
in two bisections plus the tokens inside the range (docs/engine.md).

Two walks build the record from the two parsers' trees (docs/engine.md, "Text
extraction"): :func:`_reference_walk` over justhtml's (the reference) and :func:`_fast_walk`
over lexbor's (the fast path), which infers the element namespaces selectolax does not
expose. ``tests/engine/test_extraction_parity.py`` checks the two records are equal.

Offsets are code points. No Qt import here: this module belongs to ``engine/``.

Why this module is long: the record's layout (the parallel lists of ``_Record``) is one
contract between the two walks that write it and the queries that read it
(``markup_signature``, ``elements``); split across modules, a change to one side could
silently break the parity the test holds.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Node = Any
"""A parsed node of justhtml or of selectolax's lexbor tree (neither library is typed)."""

__all__ = ["Extraction"]

_HTML_NS = "html"

BLOCK_ELEMENTS = frozenset(
    {
        *("address", "article", "aside", "blockquote", "br", "caption", "dd", "details"),
        *("dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "li", "legend"),
        *("listing", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table"),
        *("tbody", "td", "tfoot", "th", "thead", "tr", "ul"),
    }
)
"""HTML elements whose edges are block boundaries: the elements the HTML standard's
rendering section gives ``display: block``, ``list-item``, ``table*`` (rows, cells,
captions), plus ``<br>``, a line break (docs/verdicts.md, "Blocks and words")."""

_TOK_TEXT = 0
_TOK_OPEN = 1
_TOK_CLOSE = 2


@dataclass(frozen=True, eq=False)
class Extraction:
    """The body text of one document and what is needed to describe its markup by range.

    Build it with :func:`extract`. ``text`` is ``document.body.textContent`` (code points);
    ``encoding`` is the encoding the bytes were decoded with (None when given a str).

    The rest is a flat record of the body subtree in tree order, precomputed once so that
    :meth:`markup_signature` costs two bisections plus the tokens inside the range: a token
    stream (element open, element close, Text node) with the text offset at which each
    token sits, and per element its node, namespace, tag name, parent and text span. The
    node is the parser's (justhtml's or lexbor's, see ``_lexbor``); only its attributes are
    read from it, when a signature first describes it.
    """

    text: str
    encoding: str | None
    _tok_kind: list[int] = field(repr=False)
    _tok_ref: list[int] = field(repr=False)
    _tok_off: list[int] = field(repr=False)
    _tok_parent: list[int] = field(repr=False)
    _el_nodes: list[Node] = field(repr=False)
    _el_ns: list[str] = field(repr=False)
    _el_names: list[str] = field(repr=False)
    _el_parent: list[int] = field(repr=False)
    _el_start: list[int] = field(repr=False)
    _el_end: list[int] = field(repr=False)
    _text_start: list[int] = field(repr=False)
    _text_end: list[int] = field(repr=False)
    _text_tok: list[int] = field(repr=False)
    _lexbor: bool = field(default=False, repr=False)
    _descriptors: dict[int, tuple] = field(default_factory=dict, repr=False)

    def _describe(self, index: int) -> tuple:
        descriptor = self._descriptors.get(index)
        if descriptor is None:
            node = self._el_nodes[index]
            attrs = (node.attributes if self._lexbor else node.attrs) or {}
            descriptor = (
                self._el_ns[index],
                self._el_names[index],
                tuple(sorted((k, "" if v is None else v) for k, v in attrs.items())),
            )
            self._descriptors[index] = descriptor
        return descriptor

    def elements(
        self, names: frozenset[str] | set[str]
    ) -> list[tuple[str, dict[str, str], int, int]]:
        """Every HTML-namespace element of the body whose tag is in ``names``, in tree
        order, as ``(tag, attributes, start, end)``: ``text[start:end]`` (code points) is
        the text its descendant Text nodes cover. SVG/MathML elements of the same name
        (an SVG ``<a>``) are not included. Used by the declared checks (links, headings)."""
        out = []
        for i, name in enumerate(self._el_names):
            if name in names and self._el_ns[i] == "html":
                attrs = dict(self._describe(i)[2])
                out.append((name, attrs, self._el_start[i], self._el_end[i]))
        return out

    def markup_signature(
        self, start: int, end: int, fold: Callable[[str], str] | None = None
    ) -> tuple:
        """A canonical, hashable description of the markup covering ``text[start:end]``.

        ``start`` and ``end`` are code point offsets into :attr:`text`,
        ``0 <= start <= end <= len(text)``; anything else raises ValueError.

        Each element's text span is the range of :attr:`text` its descendant Text nodes
        cover (an element with no text, like ``<br>``, has an empty span at the offset where
        it sits). Relative to the range, an element

        - *contains* it when its span includes the whole range
          (``span.start <= start`` and ``end <= span.end``): the body, a ``<p>`` around the
          quote, an ``<a>`` wrapping exactly the quote;
        - *intersects* it when it does not contain it and either its span overlaps the
          range in at least one character, or its span is empty and lies strictly inside
          (``start < offset < end``). An empty element at either edge of the range is
          outside it.

        Returns ``(containers, contents)``:

        - ``containers``: one ``(namespace, tag, attributes)`` tuple per containing element,
          outermost first (the body or frameset element first). Only the element's own tag
          and attributes count, not the text outside the range. ``attributes`` is a tuple of
          ``(name, value)`` pairs sorted by name.
        - ``contents``: the range's contents in tree order, like DOM ``Range.cloneContents``
          cut on text offsets: ``("<", namespace, tag, attributes)`` when an intersecting
          element starts, ``("/", tag)`` when it ends, and the text of the range between
          them as str (adjacent Text nodes merged). An intersecting element that starts
          before the range is opened at its beginning, one that ends after the range is
          closed at its end, so the tuple is always balanced.

        Comments, the contents of ``<template>`` and anything outside the body are not part
        of it. So two versions whose ``text[start:end]`` is equal get equal signatures iff
        the markup covering the range is the same: adding a link, changing ``<em>`` to
        ``<strong>``, changing an attribute value or inserting a ``<br>`` inside the range
        all change it; markup changes wholly outside the range, or empty elements at its
        very edges, do not. For an empty range (``start == end``) the contents are empty and
        every element whose span includes the offset (possibly two siblings meeting there)
        counts as a container.

        ``fold``, when given, is applied to each text piece of ``contents`` (after adjacent
        Text nodes are merged), and a piece it folds to ``""`` is left out. Pass the
        comparison's normalisation (``engine.text.normalize.normalize``) when asking whether
        the *markup* changed between two ranges whose texts are equal only after it: then
        a text difference the comparison ignores (CO2/CO₂ under a wider fold, NBSP for a
        space, a soft hyphen, a decomposed accent) does not read as a markup change, while
        an element that now covers different text still does.
        """
        n = len(self.text)
        if not (0 <= start <= end <= n):
            raise ValueError(f"range [{start}, {end}) is not within text of length {n}")
        lo, hi = self._window(start, end)
        containers, contents, open_stack = self._open_at(lo, start, end)
        self._scan(lo, hi, start, end, containers, contents, open_stack)
        el_names = self._el_names
        while open_stack:
            contents.append(("/", el_names[open_stack.pop()]))
        if fold is not None:
            contents = _folded(contents, fold)
        describe = self._describe
        return tuple(describe(e) for e in containers), tuple(contents)

    def block_breaks(self) -> list[int]:
        """Sorted text offsets (code points) where a block of the rendered page starts or
        ends: the edges of every HTML element that lays out as a block, a list item or a
        table cell or row (``BLOCK_ELEMENTS``), and every ``<br>`` (docs/verdicts.md,
        "Blocks and words"). ``textContent`` adds no character there ("To: All
        staffFrom:"), so this is the only record of where one block ends and the next
        begins."""
        out: set[int] = set()
        for k in range(1, len(self._el_names)):
            if self._el_names[k] in BLOCK_ELEMENTS and self._el_ns[k] == _HTML_NS:
                out.add(self._el_start[k])
                out.add(self._el_end[k])
        return sorted(out)

    def element(self, index: int) -> tuple[str, str, int, dict[str, str]]:
        """Element ``index`` of the record (0 is the body): ``(namespace, tag, parent
        index or -1, attributes)``. Raises IndexError past the last element."""
        attrs = dict(self._describe(index)[2])
        return self._el_ns[index], self._el_names[index], self._el_parent[index], attrs

    def tree(self) -> tuple[list[str], list[str], list[int]]:
        """Every element's namespace, tag and parent index (-1 for the body), by index
        (read-only views of the record; no attributes are read)."""
        return self._el_ns, self._el_names, self._el_parent

    def markup_of(self, index: int) -> str:
        """Element ``index`` serialised by its parser, a ``<template>``'s contents included
        (read to find a declarative shadow root's slots); "" when it cannot be."""
        node = self._el_nodes[index]
        try:
            return str(node.html if self._lexbor else node.to_html()) or ""
        except (AttributeError, RecursionError, ValueError, TypeError):
            return ""

    def text_pieces(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """The Text nodes covering ``text[start:end]``, cut to it, in tree order:
        ``(piece start, piece end, parent element index)`` (code points)."""
        out = []
        ts, te, tok, parent = self._text_start, self._text_end, self._text_tok, self._tok_parent
        k = bisect_right(te, start)
        while k < len(ts) and ts[k] < end:
            out.append((max(ts[k], start), min(te[k], end), parent[tok[k]]))
            k += 1
        return out

    def document_styles(self) -> tuple[list[tuple[str, dict[str, str]]], dict[str, str]]:
        """The document's own style sheets, ``(text, attributes)`` of every ``<style>``
        element and every ``<link rel=stylesheet>`` whose address is a ``data:`` URL (the
        viewer loads those and nothing else; ``engine.text.css.data_url_text``), in tree
        order (head and body; not those inside ``<template>``), and the ``<html>``
        element's attributes. Read from the parser's tree on each call."""
        if not self._el_nodes:
            return [], {}
        html = self._el_nodes[0].parent
        if html is None:
            return [], {}
        if self._lexbor:
            sheets = []
            for n in html.css("style, link"):
                attrs = {k: v or "" for k, v in n.attributes.items()}
                if n.tag == "style":
                    sheets.append((n.text(deep=True), attrs))
                else:
                    sheets += _linked_sheet(attrs)
            return sheets, dict(html.attributes)
        sheets = []
        stack = [iter(html.children)]
        while stack:
            for child in stack[-1]:
                if child.name == "style":
                    data = "".join(c.data or "" for c in child.children if c.name == "#text")
                    sheets.append((data, {k: v or "" for k, v in (child.attrs or {}).items()}))
                elif child.name == "link":
                    sheets += _linked_sheet({k: v or "" for k, v in (child.attrs or {}).items()})
                elif child.name[0] != "#" and child.children:
                    stack.append(iter(child.children))
                    break
            else:
                stack.pop()
        return sheets, {k: v or "" for k, v in (html.attrs or {}).items()}

    def _contains(self, e: int, start: int, end: int) -> bool:
        """Element ``e``'s span includes ``[start, end)``."""
        return self._el_start[e] <= start and end <= self._el_end[e]

    def _intersects(self, e: int, start: int, end: int) -> bool:
        """Element ``e`` overlaps ``[start, end)``, or is empty and strictly inside it."""
        s, t = self._el_start[e], self._el_end[e]
        if s == t:
            return start < s < end
        return s < end and t > start

    def _window(self, start: int, end: int) -> tuple[int, int]:
        """The tokens ``[lo, hi)`` that can touch the range: every token at an offset in
        ``[start, end]``, plus the Text node that straddles ``start``."""
        tok_off = self._tok_off
        lo = bisect_left(tok_off, start)
        k = bisect_right(self._text_start, start) - 1
        if k >= 0 and self._text_start[k] < start < self._text_end[k]:
            lo = self._text_tok[k]
        return lo, bisect_right(tok_off, end)

    def _open_at(self, lo: int, start: int, end: int) -> tuple[list[int], list, list[int]]:
        """(containers, contents, open elements) for the elements already open where the
        window begins, outermost first."""
        containers: list[int] = []
        contents: list = []
        open_stack: list[int] = []
        chain: list[int] = []
        e = self._tok_parent[lo] if lo < len(self._tok_kind) else -1
        while e >= 0:
            chain.append(e)
            e = self._el_parent[e]
        for e in reversed(chain):
            if self._contains(e, start, end):
                containers.append(e)
            elif self._intersects(e, start, end):
                contents.append(("<",) + self._describe(e))
                open_stack.append(e)
        return containers, contents, open_stack

    def _scan(
        self,
        lo: int,
        hi: int,
        start: int,
        end: int,
        containers: list[int],
        contents: list,
        open_stack: list[int],
    ) -> None:
        """Tokens ``[lo, hi)`` into ``containers`` and ``contents`` (see markup_signature)."""
        tok_kind, tok_ref = self._tok_kind, self._tok_ref
        text, text_start, text_end = self.text, self._text_start, self._text_end
        for i in range(lo, hi):
            kind = tok_kind[i]
            ref = tok_ref[i]
            if kind == _TOK_TEXT:
                a = max(text_start[ref], start)
                b = min(text_end[ref], end)
                if a < b:
                    if contents and type(contents[-1]) is str:
                        contents[-1] += text[a:b]
                    else:
                        contents.append(text[a:b])
            elif self._contains(ref, start, end):
                if kind == _TOK_OPEN:
                    containers.append(ref)
            elif self._intersects(ref, start, end):
                if kind == _TOK_OPEN:
                    contents.append(("<",) + self._describe(ref))
                    open_stack.append(ref)
                else:
                    contents.append(("/", self._el_names[ref]))
                    open_stack.pop()


def _linked_sheet(attrs: dict[str, str]) -> list[tuple[str, dict[str, str]]]:
    """A ``<link>``'s style sheet as ``document_styles`` lists it: one entry for
    ``rel=stylesheet`` (not ``alternate``) with a ``data:`` CSS address, else none."""
    from engine.text.css import data_url_text

    rel = attrs.get("rel", "").lower().split()
    if "stylesheet" not in rel or "alternate" in rel:
        return []
    text = data_url_text(attrs.get("href", ""))
    if text is None:
        return []
    return [(text, {"media": attrs.get("media", ""), "type": attrs.get("type", "")})]


def _folded(contents: list, fold: Callable[[str], str]) -> list:
    """``contents`` with each text piece folded, and pieces folded to "" left out."""
    out = []
    for item in contents:
        if type(item) is str:
            item = fold(item)
            if not item:
                continue
        out.append(item)
    return out


class _Record:
    """The flat record of a body subtree that an :class:`Extraction` keeps, filled by a
    walk in tree order (``_reference_walk``, ``_fast_walk``). The walks append to the
    lists through bound methods looked up once: they run once per node."""

    def __init__(self) -> None:
        self.tok_kind: list[int] = []
        self.tok_ref: list[int] = []
        self.tok_off: list[int] = []
        self.tok_parent: list[int] = []
        self.el_nodes: list[Node] = []
        self.el_ns: list[str] = []
        self.el_names: list[str] = []
        self.el_parent: list[int] = []
        self.el_start: list[int] = []
        self.el_end: list[int] = []
        self.text_start: list[int] = []
        self.text_end: list[int] = []
        self.text_tok: list[int] = []
        self.parts: list[str] = []

    def open_body(self, body: Node, namespace: str, name: str) -> None:
        """The body (or frameset) element: element 0, opened at offset 0."""
        self.el_nodes.append(body)
        self.el_ns.append(namespace)
        self.el_names.append(name)
        self.el_parent.append(-1)
        self.el_start.append(0)
        self.el_end.append(0)
        self.tok_kind.append(_TOK_OPEN)
        self.tok_ref.append(0)
        self.tok_off.append(0)
        self.tok_parent.append(-1)

    def extraction(self, encoding: str | None, lexbor: bool) -> Extraction:
        return Extraction(
            text="".join(self.parts),
            encoding=encoding,
            _tok_kind=self.tok_kind,
            _tok_ref=self.tok_ref,
            _tok_off=self.tok_off,
            _tok_parent=self.tok_parent,
            _el_nodes=self.el_nodes,
            _el_ns=self.el_ns,
            _el_names=self.el_names,
            _el_parent=self.el_parent,
            _el_start=self.el_start,
            _el_end=self.el_end,
            _text_start=self.text_start,
            _text_end=self.text_end,
            _text_tok=self.text_tok,
            _lexbor=lexbor,
        )


def _reference_walk(body: Node | None, encoding: str | None) -> Extraction:
    """The markup index of a justhtml body subtree (the reference)."""
    rec = _Record()
    if body is None:
        return rec.extraction(encoding, lexbor=False)
    rec.open_body(body, body.namespace, body.name)
    tok_kind, tok_ref, tok_off, tok_parent = rec.tok_kind, rec.tok_ref, rec.tok_off, rec.tok_parent
    el_nodes, el_ns, el_names, el_parent = rec.el_nodes, rec.el_ns, rec.el_names, rec.el_parent
    el_start, el_end, parts = rec.el_start, rec.el_end, rec.parts
    text_start, text_end, text_tok = rec.text_start, rec.text_end, rec.text_tok
    offset = 0
    stack = [(iter(body.children), 0)]
    while stack:
        iterator, parent = stack[-1]
        for child in iterator:
            name = child.name
            if name == "#text":
                data = child.data
                if data:
                    text_start.append(offset)
                    text_tok.append(len(tok_kind))
                    tok_kind.append(_TOK_TEXT)
                    tok_ref.append(len(parts))
                    tok_off.append(offset)
                    tok_parent.append(parent)
                    parts.append(data)
                    offset += len(data)
                    text_end.append(offset)
            elif name[0] != "#" and name != "!doctype":
                index = len(el_nodes)
                el_nodes.append(child)
                el_ns.append(child.namespace)
                el_names.append(name)
                el_parent.append(parent)
                el_start.append(offset)
                el_end.append(offset)
                tok_kind.append(_TOK_OPEN)
                tok_ref.append(index)
                tok_off.append(offset)
                tok_parent.append(parent)
                # Only children: template contents are not in the tree.
                stack.append((iter(child.children), index))
                break
        else:
            stack.pop()
            el_end[parent] = offset
            tok_kind.append(_TOK_CLOSE)
            tok_ref.append(parent)
            tok_off.append(offset)
            tok_parent.append(parent)
    return rec.extraction(encoding, lexbor=False)


# Where the tree builder switches namespace (HTML Standard, "tree construction" dispatcher
# and "in foreign content"): an SVG foreignObject, desc or title is an HTML integration
# point, a MathML mi, mo, mn, ms or mtext a text integration point (but mglyph and
# malignmark stay MathML there). A start tag processed by the "in body" rules makes an HTML
# element, except svg and math.
_SVG_HTML_INTEGRATION = frozenset({"foreignObject", "desc", "title"})
_MATH_TEXT_INTEGRATION = frozenset({"mi", "mo", "mn", "ms", "mtext"})
_MATH_IN_TEXT_INTEGRATION = frozenset({"mglyph", "malignmark"})
# Foreign elements the adoption agency algorithm can move under an HTML element (the
# "special" SVG and MathML elements, as the furthest block), plus mglyph and malignmark,
# which can sit under a text integration point that was moved: where the tree says HTML for
# one of these names, lexbor's own serialisation is asked.
_MOVABLE_FOREIGN = frozenset({"desc", "title", "mi", "mo", "mn", "ms", "mtext"}) | (
    _MATH_IN_TEXT_INTEGRATION
)


def _in_body_namespace(name: str) -> str:
    return "svg" if name == "svg" else "math" if name == "math" else "html"


def _child_namespace(parent_ns: str, parent_name: str, name: str) -> str:
    """The namespace the HTML parser gives an element created under ``parent``."""
    if parent_ns == "html":
        return _in_body_namespace(name)
    if parent_ns == "svg":
        return _in_body_namespace(name) if parent_name in _SVG_HTML_INTEGRATION else "svg"
    if parent_name in _MATH_TEXT_INTEGRATION and name not in _MATH_IN_TEXT_INTEGRATION:
        return _in_body_namespace(name)
    return "math"


def _lexbor_namespace(node: Node) -> str:
    """An element's namespace from lexbor's html5lib-test serialisation (``<svg title>``)."""
    head = node.html_pretty(html5test=True).lstrip("| ").split(">", 1)[0]
    prefix = head[1:].split(" ", 1)[0] if " " in head else ""
    return prefix if prefix in ("svg", "math") else "html"


def _lexbor_element_namespace(node: Node, name: str, parent_ns: str, parent_name: str) -> str:
    """The namespace of a lexbor element ``name`` under a ``parent_ns`` element
    ``parent_name``, in a document with foreign content (see :func:`_fast_walk`)."""
    ns = _child_namespace(parent_ns, parent_name, name)
    if ns == "html" and (name in _MOVABLE_FOREIGN or not name.islower()):
        ns = _lexbor_namespace(node)
    return ns


def _fast_walk(body: Node | None, encoding: str | None, foreign: bool) -> Extraction:
    """The markup index of a lexbor body subtree: the same record as :func:`_reference_walk`.

    Text nodes are read as they are; comments and processing instructions skipped; a
    template's children are not in the tree (lexbor keeps its contents in a separate
    fragment, as the DOM does). selectolax does not expose namespaces: without any
    ``<svg`` or ``<math`` start tag in the source (``foreign`` False) every element is
    HTML; otherwise :func:`_child_namespace` infers each from its parent, and an element
    the adoption agency may have moved (:data:`_MOVABLE_FOREIGN`, or a name with capitals,
    which only SVG's adjusted names have) is looked up in lexbor's serialisation.
    """
    rec = _Record()
    if body is not None:
        rec.open_body(body, "html", "body")
        _walk_lexbor(rec, body, foreign)
    return rec.extraction(encoding, lexbor=True)


def _walk_lexbor(rec: _Record, body: Node, foreign: bool) -> None:
    """Record the nodes under a lexbor ``body`` (element 0 of ``rec``) in tree order."""
    # Bound methods and lists, looked up once: the loop runs once per node of the body.
    kind_add, ref_add = rec.tok_kind.append, rec.tok_ref.append
    off_add, par_add = rec.tok_off.append, rec.tok_parent.append
    node_add, ns_add = rec.el_nodes.append, rec.el_ns.append
    name_add, elpar_add = rec.el_names.append, rec.el_parent.append
    start_add, end_add = rec.el_start.append, rec.el_end.append
    tok_kind, el_ns, el_names, el_end = rec.tok_kind, rec.el_ns, rec.el_names, rec.el_end
    text_start, text_end, text_tok, parts = rec.text_start, rec.text_end, rec.text_tok, rec.parts
    el_nodes = rec.el_nodes
    offset = 0
    stack: list[tuple[Node, int]] = []
    parent = 0
    parent_ns = "html"
    node = body.first_child
    while True:
        while node is None:
            el_end[parent] = offset
            kind_add(_TOK_CLOSE)
            ref_add(parent)
            off_add(offset)
            par_add(parent)
            if not stack:
                break
            node, parent = stack.pop()
            parent_ns = el_ns[parent]
            node = node.next
        if node is None:
            break
        # Nodes that are not elements have tags "-text", "-comment", ... or None (a
        # processing instruction's bogus comment); an element's tag starts with a letter.
        name = node.tag
        if name == "-text":
            data = node.text_content
            if data:
                text_start.append(offset)
                text_tok.append(len(tok_kind))
                kind_add(_TOK_TEXT)
                ref_add(len(parts))
                off_add(offset)
                par_add(parent)
                parts.append(data)
                offset += len(data)
                text_end.append(offset)
            node = node.next
        elif name is not None and name[0] != "-":
            ns = (
                _lexbor_element_namespace(node, name, parent_ns, el_names[parent])
                if foreign
                else "html"
            )
            index = len(el_nodes)
            node_add(node)
            ns_add(ns)
            name_add(name)
            elpar_add(parent)
            start_add(offset)
            end_add(offset)
            kind_add(_TOK_OPEN)
            ref_add(index)
            off_add(offset)
            par_add(parent)
            child = node.first_child
            if child is None:
                kind_add(_TOK_CLOSE)
                ref_add(index)
                off_add(offset)
                par_add(index)
                node = node.next
            else:
                stack.append((node, parent))
                parent = index
                parent_ns = ns
                node = child
        else:
            node = node.next
