"""Browser-exact text layer: HTML bytes in, ``document.body.textContent`` out.

This is the text every anchor offset indexes (docs/anchor.md, "What offsets index"). The rule is
simple to state and easy to get subtly wrong: the text is exactly what a browser's DOM gives
for ``document.body.textContent`` after the HTML parsing algorithm has run. So this module
does not strip tags with regular expressions; it runs a WHATWG-conformant HTML parser
(``justhtml``, scripting flag on) and concatenates the Text nodes under ``document.body`` in
tree order (DOM Standard, "descendant text content").

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

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from engine.encoding import decode_html

__all__ = ["Extraction", "body_text", "extract"]

# --------------------------------------------------------------------------------------
# Parsing and the body's text
# --------------------------------------------------------------------------------------


def _parse_body(html: str | bytes) -> tuple[object | None, str | None]:
    """Parse a document; return (``document.body`` node or None, encoding or None for str)."""
    if isinstance(html, str):
        source, encoding = html, None
    else:
        source, encoding = decode_html(bytes(html))
    if source.startswith("\ufeff"):
        # justhtml drops a leading U+FEFF of its input as if it were a BOM. Here any BOM is
        # already gone (decode_html removed it), so a U+FEFF left is a character, which a
        # browser's tokenizer keeps. An empty comment first is inert (in the "initial"
        # insertion mode it becomes a child of the Document) and keeps the U+FEFF.
        source = "<!---->" + source
    from justhtml import JustHTML  # lazy: 0.16 s of start-up that plain text never needs

    root = JustHTML(source, sanitize=False, scripting_enabled=True).root
    return _document_body(root), encoding


def _document_body(root: object) -> object | None:
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


def _text_content(node: object) -> str:
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
    body, _ = _parse_body(html)
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
    token sits, and per element its node, parent and text span.
    """

    text: str
    encoding: str | None
    _tok_kind: list[int] = field(repr=False)
    _tok_ref: list[int] = field(repr=False)
    _tok_off: list[int] = field(repr=False)
    _tok_parent: list[int] = field(repr=False)
    _el_nodes: list[object] = field(repr=False)
    _el_parent: list[int] = field(repr=False)
    _el_start: list[int] = field(repr=False)
    _el_end: list[int] = field(repr=False)
    _text_start: list[int] = field(repr=False)
    _text_end: list[int] = field(repr=False)
    _text_tok: list[int] = field(repr=False)
    _descriptors: dict[int, tuple] = field(default_factory=dict, repr=False)

    def _describe(self, index: int) -> tuple:
        descriptor = self._descriptors.get(index)
        if descriptor is None:
            node = self._el_nodes[index]
            attrs = node.attrs or {}
            descriptor = (
                node.namespace,
                node.name,
                tuple(sorted((k, "" if v is None else v) for k, v in attrs.items())),
            )
            self._descriptors[index] = descriptor
        return descriptor

    def markup_signature(self, start: int, end: int) -> tuple:
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
        """
        n = len(self.text)
        if not (0 <= start <= end <= n):
            raise ValueError(f"range [{start}, {end}) is not within text of length {n}")
        tok_kind = self._tok_kind
        tok_ref = self._tok_ref
        tok_off = self._tok_off
        el_start = self._el_start
        el_end = self._el_end
        el_nodes = self._el_nodes
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
                    contents.append(("/", el_nodes[ref].name))
                    open_stack.pop()
        while open_stack:
            contents.append(("/", el_nodes[open_stack.pop()].name))
        return tuple(describe(e) for e in containers), tuple(contents)


def extract(html: str | bytes) -> Extraction:
    """Parse a document once: its body text and a markup index for :meth:`~Extraction.markup_signature`.

    ``html`` as for :func:`body_text`. ``extract(html).text == body_text(html)``. Cost: the
    parse plus one linear walk of the body subtree.
    """
    body, encoding = _parse_body(html)
    tok_kind: list[int] = []
    tok_ref: list[int] = []
    tok_off: list[int] = []
    tok_parent: list[int] = []
    el_nodes: list[object] = []
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
        _el_parent=el_parent,
        _el_start=el_start,
        _el_end=el_end,
        _text_start=text_start,
        _text_end=text_end,
        _text_tok=text_tok,
    )
