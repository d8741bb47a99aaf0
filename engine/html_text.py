"""Browser-exact text layer: HTML bytes in, ``document.body.textContent`` out.

This is the text every anchor offset indexes (docs/anchor.md, "What offsets index"). The rule is
simple to state and easy to get subtly wrong: the text is exactly what a browser's DOM gives
for ``document.body.textContent`` after the HTML parsing algorithm has run. So this module
does not strip tags with regular expressions; it runs a WHATWG-conformant HTML parser
(scripting flag on) and concatenates the Text nodes under ``document.body`` in tree order
(DOM Standard, "descendant text content").

Two parsers build the tree. The reference is ``justhtml`` (pure Python). The fast path is
lexbor (C, through ``selectolax``), taken only where the html5lib conformance suite and the
parity tests prove it equal to the reference (``tests/engine/test_extraction_parity.py``:
same text, same elements, namespaces and attributes): a document containing a
``<frameset>`` start tag (lexbor's ``document.body`` and frameset text differ) or an
``annotation-xml`` element (whose namespaces lexbor does not expose and the walk cannot
infer) goes to the reference, and so does any input the fast path cannot take (a str
with lone surrogates) or would take far longer on (a page nesting 20,000 unclosed blocks,
a tag with over 1,000 attributes: see ``_lexbor_would_be_slow``). Element namespaces, which selectolax does not expose, are
inferred from the tree the way the tree builder assigns them (see :func:`_fast_walk`).

What follows from that, all of it tested:

- ``<script>`` and ``<style>`` text counts; comments, attribute values and ``<template>``
  contents (a separate DocumentFragment) do not.
- ``<noscript>`` content is raw text, because the scripting flag is on, as in a browser that
  runs scripts (HTML Standard, "parsing main inbody", "noscript").
- The input stream is preprocessed: CR LF and lone CR become LF (HTML Standard,
  "Preprocessing the input stream"). A newline right after ``<pre>``, ``<listing>`` or
  ``<textarea>`` is dropped (tree construction, "in body").
- Character references decode as the tokenizer says (HTML Standard, "Character reference
  state"): legacy names without ``;`` (``&amp``, ``&not``), ``&#128;``-``&#159;`` through the
  windows-1252 table, NUL, surrogates and code points above U+10FFFF to U+FFFD.
- Tree construction moves text: foster parenting out of tables, an implied ``<body>``, text
  after ``</body>`` or ``</html>`` lands in the body, misnested formatting elements are
  reconstructed (the adoption agency algorithm).
- ``document.body`` is "the first of the html element's children that is either a body
  element or a frameset element" (HTML Standard, "The body element" of a Document). For a
  frameset document it is therefore the ``<frameset>`` element, whose textContent is
  whatever whitespace text the parser kept inside it; a document with neither has no body
  and its text is the empty string.

Bytes are decoded by :mod:`engine.encoding` (the WHATWG encoding sniff: BOM, ``<meta>``
prescan, valid UTF-8, else windows-1252); reading files from disk is :mod:`engine.documents`.

Everything here counts Unicode code points, as Python strings do. Conversion to the UTF-16
units of the anchor contract happens at the boundary, elsewhere.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.encoding import decode_html

Node = Any
"""A parsed node of justhtml or of selectolax's lexbor tree (neither library is typed)."""

__all__ = ["Extraction", "body_text", "extract"]

# --------------------------------------------------------------------------------------
# Parsing and the body's text
# --------------------------------------------------------------------------------------


def _source(html: str | bytes) -> tuple[str, str | None]:
    """(decoded source, encoding) of a document given as bytes or str (encoding None)."""
    if isinstance(html, str):
        return html, None
    return decode_html(bytes(html))


def _parse_body(html: str | bytes) -> tuple[Node | None, str | None]:
    """The reference parse (justhtml): (``document.body`` node or None, encoding or None)."""
    source, encoding = _source(html)
    return _reference_body(source), encoding


def _reference_body(source: str) -> Node | None:
    """``document.body`` of a decoded source, parsed by justhtml (the reference)."""
    if source.startswith("\ufeff"):
        # justhtml drops a leading U+FEFF of its input as if it were a BOM. Here any BOM is
        # already gone (decode_html removed it), so a U+FEFF left is a character, which a
        # browser's tokenizer keeps. An empty comment first is inert (in the "initial"
        # insertion mode it becomes a child of the Document) and keeps the U+FEFF.
        source = "<!---->" + source
    from justhtml import JustHTML  # lazy: 0.16 s of start-up that plain text never needs

    root = JustHTML(source, sanitize=False, scripting_enabled=True).root
    return _document_body(root)


# Start tags after which the fast path is not taken (ASCII case-insensitive): lexbor's
# document.body of a frameset document, and the text it keeps there, differ from the
# standard's (html5lib cases tests2.dat#6, tests15.dat#12, webkit01.dat#30, ...); the
# namespace of what an annotation-xml element contains depends on its encoding attribute
# and on how the adoption agency moved it, which the walk cannot infer.
_FAST_PATH_DECLINES = re.compile(r"<(?:frameset|annotation-xml)", re.IGNORECASE)
_HAS_FOREIGN = re.compile(r"<(?:svg|math)", re.IGNORECASE)

_lexbor_parser: Any = None  # selectolax.lexbor.LexborHTMLParser, or False if absent

# Two inputs make lexbor's tree builder quadratic where justhtml stays near-linear, so a
# hostile page would take far longer on the fast path than on the reference (measured:
# 100,000 nested <div> 11 s vs 0.7 s; one tag with 100,000 attributes 15 s vs 0.07 s).
# Elements that "close a p element in button scope" (div, ul, section...) walk the whole
# stack of open elements on each start tag, and each attribute is checked against the
# tag's others. The fast path declines a document that may hold either:
# - more than _MAX_UNCLOSED start tags without end tags ("<" minus twice "</", less the
#   common void elements; at 20,000 deep lexbor needs about 0.4 s);
# - a start tag over 8,192 characters with more than _MAX_ATTRIBUTES separators.
# The first count is a heuristic: end tags hidden where they are not end tags (inside a
# comment or a script) can still lead a deep page onto the fast path; an exact bound needs
# the nesting depth, which only tokenizing gives.
_MAX_UNCLOSED = 20_000
_VOID_OPENS = (b"<br", b"<wbr", b"<img", b"<input", b"<meta", b"<link", b"<hr", b"<source")
_LONG_TAG = re.compile(r"<[A-Za-z][^>]{8192}")
_MAX_ATTRIBUTES = 1_000


def _lexbor_would_be_slow(source: str, utf8: bytes) -> bool:
    """True when ``source`` may drive lexbor's tree builder quadratic (see above)."""
    unclosed = utf8.count(b"<") - 2 * utf8.count(b"</")
    if unclosed > _MAX_UNCLOSED:
        unclosed -= sum(utf8.count(v) for v in _VOID_OPENS)
        if unclosed > _MAX_UNCLOSED:
            return True
    for m in _LONG_TAG.finditer(source):
        end = source.find(">", m.start())
        tag = source[m.start() : end if end >= 0 else len(source)]
        if len(tag.split()) + tag.count("/") > _MAX_ATTRIBUTES:
            return True
    return False


def _lexbor_body(source: str) -> Node | None:
    """``document.body`` of a decoded source parsed by lexbor, or None to decline.

    Declines (None) where the fast path is not proven equal to the reference (see
    :data:`_FAST_PATH_DECLINES`), when selectolax is not installed, or when lexbor cannot
    take the input (a str with lone surrogates cannot be encoded to UTF-8). A document
    without a body gives the body ``False``.
    """
    global _lexbor_parser
    if _lexbor_parser is None:
        try:
            from selectolax.lexbor import LexborHTMLParser
        except ImportError:  # pragma: no cover - selectolax is a dependency
            _lexbor_parser = False
        else:
            _lexbor_parser = LexborHTMLParser
    if _lexbor_parser is False or _FAST_PATH_DECLINES.search(source):
        return None
    try:
        utf8 = source.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: only a str given by a caller has them
        return None
    if _lexbor_would_be_slow(source, utf8):
        return None
    tree = _lexbor_parser(utf8, scripting=True)
    root = tree.root
    if root is None or root.tag != "html":
        return False
    node = root.first_child
    while node is not None:
        if node.tag == "body":
            return node
        node = node.next
    return False


def _document_body(root: Node) -> Node | None:
    """HTML Standard, "The body element" of a document: body or frameset child of html."""
    document_element = None
    for child in root.children:
        name = child.name
        if name[0] != "#" and name != "!doctype":
            document_element = child
            break
    if (
        document_element is None
        or document_element.name != "html"
        or document_element.namespace != "html"
    ):
        return None
    for child in document_element.children:
        if child.namespace == "html" and child.name in ("body", "frameset"):
            return child
    return None


def _text_content(node: Node) -> str:
    """DOM Standard, "descendant text content": Text node data in tree order."""
    parts: list[str] = []
    append = parts.append
    stack = [iter(node.children)]
    while stack:
        for child in stack[-1]:
            name = child.name
            if name == "#text":
                if child.data:
                    append(child.data)
            elif name[0] != "#" and name != "!doctype":
                children = child.children
                if children:
                    # Only children: a template's contents live in a separate fragment
                    # (template_content) that textContent never visits.
                    stack.append(iter(children))
                    break
        else:
            stack.pop()
    return "".join(parts)


def body_text(html: str | bytes) -> str:
    """``document.body.textContent`` of an HTML document.

    ``html`` is the document's bytes (decoded with :func:`decode_html`) or an already decoded
    str (fed to the tokenizer as is: CR LF still becomes LF, and a leading U+FEFF is a
    character, since a str has no BOM). Returns the concatenated data of every Text node
    under the body element (or frameset element) in tree order, after the HTML parsing
    algorithm with scripting on; ``""`` when the document has no body. Offsets into it are
    code points.
    """
    source, _ = _source(html)
    body = _lexbor_body(source)
    if body is not None:
        return "" if body is False else body.text(deep=True, separator="", strip=False)
    body = _reference_body(source)
    return "" if body is None else _text_content(body)


# --------------------------------------------------------------------------------------
# Extraction: the text plus the markup around any range of it
# --------------------------------------------------------------------------------------

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
        comparison's normalisation (``engine.normalize.normalize``) when asking whether
        the *markup* changed between two ranges whose texts are equal only after it: then
        a text difference the comparison ignores (CO2/CO₂ under a wider fold, NBSP for a
        space, a soft hyphen, a decomposed accent) does not read as a markup change, while
        an element that now covers different text still does.
        """
        n = len(self.text)
        if not (0 <= start <= end <= n):
            raise ValueError(f"range [{start}, {end}) is not within text of length {n}")
        tok_kind = self._tok_kind
        tok_ref = self._tok_ref
        tok_off = self._tok_off
        el_start = self._el_start
        el_end = self._el_end
        el_names = self._el_names
        describe = self._describe

        def contains(e: int) -> bool:
            return el_start[e] <= start and end <= el_end[e]

        def intersects(e: int) -> bool:
            s, t = el_start[e], el_end[e]
            if s == t:
                return start < s < end
            return s < end and t > start

        # The window of tokens that can touch the range: every token at an offset in
        # [start, end], plus the Text node that straddles ``start``.
        lo = bisect_left(tok_off, start)
        k = bisect_right(self._text_start, start) - 1
        if k >= 0 and self._text_start[k] < start < self._text_end[k]:
            lo = self._text_tok[k]
        hi = bisect_right(tok_off, end)

        containers: list[int] = []
        contents: list = []
        open_stack: list[int] = []

        # Elements already open where the window begins, outermost first.
        chain: list[int] = []
        e = self._tok_parent[lo] if lo < len(tok_kind) else -1
        while e >= 0:
            chain.append(e)
            e = self._el_parent[e]
        for e in reversed(chain):
            if contains(e):
                containers.append(e)
            elif intersects(e):
                contents.append(("<",) + describe(e))
                open_stack.append(e)

        text = self.text
        text_start = self._text_start
        text_end = self._text_end
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
            elif contains(ref):
                if kind == _TOK_OPEN:
                    containers.append(ref)
            elif intersects(ref):
                if kind == _TOK_OPEN:
                    contents.append(("<",) + describe(ref))
                    open_stack.append(ref)
                else:
                    contents.append(("/", el_names[ref]))
                    open_stack.pop()
        while open_stack:
            contents.append(("/", el_names[open_stack.pop()]))
        if fold is not None:
            folded = []
            for item in contents:
                if type(item) is str:
                    item = fold(item)
                    if not item:
                        continue
                folded.append(item)
            contents = folded
        return tuple(describe(e) for e in containers), tuple(contents)


def extract(html: str | bytes) -> Extraction:
    """Parse a document once: its body text and a markup index for :meth:`~Extraction.markup_signature`.

    ``html`` as for :func:`body_text`. ``extract(html).text == body_text(html)``. Cost: the
    parse plus one linear walk of the body subtree.
    """
    source, encoding = _source(html)
    body = _lexbor_body(source)
    if body is None:
        return _reference_walk(_reference_body(source), encoding)
    foreign = bool(_HAS_FOREIGN.search(source))
    # The walk allocates one wrapper per element and nothing cyclic: the cyclic garbage
    # collector, triggered every few hundred allocations, would scan them all again and
    # again (half the walk's time on an 8 MB page).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _fast_walk(None if body is False else body, encoding, foreign)
    finally:
        if gc_was_enabled:
            gc.enable()


def _reference_walk(body: Node | None, encoding: str | None) -> Extraction:
    """The markup index of a justhtml body subtree (the reference)."""
    tok_kind: list[int] = []
    tok_ref: list[int] = []
    tok_off: list[int] = []
    tok_parent: list[int] = []
    el_nodes: list[Node] = []
    el_ns: list[str] = []
    el_names: list[str] = []
    el_parent: list[int] = []
    el_start: list[int] = []
    el_end: list[int] = []
    text_start: list[int] = []
    text_end: list[int] = []
    text_tok: list[int] = []
    parts: list[str] = []
    offset = 0
    if body is not None:
        el_nodes.append(body)
        el_ns.append(body.namespace)
        el_names.append(body.name)
        el_parent.append(-1)
        el_start.append(0)
        el_end.append(0)
        tok_kind.append(_TOK_OPEN)
        tok_ref.append(0)
        tok_off.append(0)
        tok_parent.append(-1)
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
    return Extraction(
        text="".join(parts),
        encoding=encoding,
        _tok_kind=tok_kind,
        _tok_ref=tok_ref,
        _tok_off=tok_off,
        _tok_parent=tok_parent,
        _el_nodes=el_nodes,
        _el_ns=el_ns,
        _el_names=el_names,
        _el_parent=el_parent,
        _el_start=el_start,
        _el_end=el_end,
        _text_start=text_start,
        _text_end=text_end,
        _text_tok=text_tok,
    )


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
    tok_kind: list[int] = []
    tok_ref: list[int] = []
    tok_off: list[int] = []
    tok_parent: list[int] = []
    el_nodes: list[Node] = []
    el_ns: list[str] = []
    el_names: list[str] = []
    el_parent: list[int] = []
    el_start: list[int] = []
    el_end: list[int] = []
    text_start: list[int] = []
    text_end: list[int] = []
    text_tok: list[int] = []
    parts: list[str] = []
    offset = 0
    if body is not None:
        # Bound methods, looked up once: the loop runs once per node of the body.
        kind_add, ref_add, off_add, par_add = (
            tok_kind.append,
            tok_ref.append,
            tok_off.append,
            tok_parent.append,
        )
        node_add, ns_add, name_add, elpar_add = (
            el_nodes.append,
            el_ns.append,
            el_names.append,
            el_parent.append,
        )
        start_add, end_add = el_start.append, el_end.append
        node_add(body)
        ns_add("html")
        name_add("body")
        elpar_add(-1)
        start_add(0)
        end_add(0)
        kind_add(_TOK_OPEN)
        ref_add(0)
        off_add(0)
        par_add(-1)
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
                if not foreign:
                    ns = "html"
                else:
                    ns = _child_namespace(parent_ns, el_names[parent], name)
                    if ns == "html" and (name in _MOVABLE_FOREIGN or not name.islower()):
                        ns = _lexbor_namespace(node)
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
    return Extraction(
        text="".join(parts),
        encoding=encoding,
        _tok_kind=tok_kind,
        _tok_ref=tok_ref,
        _tok_off=tok_off,
        _tok_parent=tok_parent,
        _el_nodes=el_nodes,
        _el_ns=el_ns,
        _el_names=el_names,
        _el_parent=el_parent,
        _el_start=el_start,
        _el_end=el_end,
        _text_start=text_start,
        _text_end=text_end,
        _text_tok=text_tok,
        _lexbor=True,
    )
