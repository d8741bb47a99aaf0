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
with lone surrogates) or would take far longer on (elements nested over 10,000 deep, a tag
with over 1,000 attributes: see ``_lexbor_would_be_slow``). Element namespaces, which selectolax does not expose, are
inferred from the tree the way the tree builder assigns them (see
:func:`engine.text.html_markup._fast_walk`).

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

The markup index that :func:`extract` returns with the text (:class:`Extraction`, built by
one walk of the parsed body) is :mod:`engine.text.html_markup`. Bytes are decoded by
:mod:`engine.text.encoding` (the WHATWG encoding sniff: BOM, ``<meta>`` prescan, valid UTF-8,
else windows-1252); reading files from disk is :mod:`engine.text.documents`.

Everything here counts Unicode code points, as Python strings do. Conversion to the UTF-16
units of the anchor contract happens at the boundary, elsewhere.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import re
from typing import Any

from engine.collector import paused
from engine.text.encoding import decode_html
from engine.text.html_markup import Extraction, Node, _fast_walk, _reference_walk
from engine.text.nesting_bound import nesting_bound

__all__ = ["MAX_HTML_NESTING", "Extraction", "body_text", "extract", "too_deep"]

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
# 50,000 nested <div> 3.7 s vs 0.5 s, 200,000 over 60 s; 50,000 nested <ul><li> 14.5 s vs
# 1.2 s; one tag with 100,000 attributes 15 s vs 0.07 s). Elements that "close a p element
# in button scope" (div, ul, section...) walk the stack of open elements on each start tag,
# closed or not, and each attribute is checked against the tag's others. The fast path
# declines a document that may hold either:
# - elements nested more than _MAX_DEPTH deep (:func:`_nesting_depth`; at 10,000 deep
#   lexbor needs about 0.1 s), asked first of a cheap upper bound on pages over
#   _BOUND_FROM;
# - a start tag over 8,192 characters with more than _MAX_ATTRIBUTES separators.
_MAX_DEPTH = 10_000
_DEPTH_SCAN_FROM = 64 * 1024  # bytes; a smaller page cannot nest deep enough to matter
_BOUND_FROM = 1024 * 1024
"""Bytes over which the scan first asks a cheap upper bound of the depth
(:func:`engine.text.nesting_bound.nesting_bound`, numpy vector passes) and runs only when
it exceeds ``_MAX_DEPTH``: on real pages the scan was most of the extraction's time."""
_LONG_TAG = re.compile(r"<[A-Za-z][^>]{8192}")
_MAX_ATTRIBUTES = 1_000

# One token of the depth scan, over the lower-cased UTF-8 bytes: a comment (to "-->", "--!>",
# or at once for "<!-->" and "<!--->"), a raw-text or RCDATA element with its content, a
# bogus comment or doctype, else a tag: (name with "/" for an end tag, "/" when it ends
# "/>"). Attribute values in quotes are consumed, so a "<!--" or "</div>" inside one is not
# taken for markup. The attributes are matched possessively (``*+``): where no ">" follows
# them (a page cut off inside ``<script src="...``, or ``<script src="..."/>``), a plain
# ``*`` tried every way of splitting each run of characters between its alternatives
# before failing, twice as long for each character more (42 kB ending in a 50-character
# ``<script src=...`` ran for minutes); possessively it fails at once.
_ATTRS = rb"""(?:[^>"'=/]+|=[\t\n\f\r ]*"[^"]*"|=[\t\n\f\r ]*'[^']*'|["'=]|/(?!>))*+"""
_RAW_TEXT = b"script style xmp iframe noembed noframes noscript textarea title plaintext".split()
_DEPTH_TOKEN = re.compile(
    rb"<!--(?:-?>|.*?(?:--!?>|\Z))|"
    + b"|".join(
        rb"<" + name + rb"(?=[\t\n\f\r />])" + _ATTRS + rb">.*?(?:</" + name + rb"|\Z)"
        for name in _RAW_TEXT
    )
    + rb"|<[!?][^>]*|</(?![a-z])[^>]*|<(/?[a-z][^\t\n\f\r />]*)"
    + _ATTRS
    + rb"(/?)",
    re.S,
)
# Elements that never stay open under one another: void elements, and those a start tag of
# their own kind (or of a block) closes implicitly (p, li, dt, dd, table parts, ruby parts).
_NOT_NESTING = frozenset(
    b"area base br col embed hr img input link meta param source track wbr keygen "
    b"p li dt dd option optgroup tr td th tbody thead tfoot colgroup caption "
    b"rb rt rp rtc html head body".split()
)


def _nesting_depth(utf8: bytes, limit: int) -> int:
    """An estimate of how deep ``utf8``'s elements nest; stops once it passes ``limit``.

    One regular-expression scan (:data:`_DEPTH_TOKEN`), then a count per element name: a
    start tag opens one (void and implicitly closed elements excepted, see
    :data:`_NOT_NESTING`; a self-closing tag inside ``<svg>`` or ``<math>`` closes at
    once), an end tag closes one of its own name if one is open and is ignored otherwise,
    as the tree builder ignores a stray end tag. Comments, raw text (``<script>``...) and
    quoted attribute values are skipped, so end tags hidden there close nothing. Linear in
    the input. An estimate: misnested markup the tree builder repairs can read deeper than
    it is (the reference parser then serves it: correct, slower).
    """
    depth = peak = foreign = 0
    open_count: dict[bytes, int] = {}
    get = open_count.get
    for name, self_closing in _DEPTH_TOKEN.findall(utf8.lower()):
        if not name:
            continue
        if name[0] == 0x2F:  # "/": an end tag
            name = name[1:]
            count = get(name, 0)
            if count:
                open_count[name] = count - 1
                depth -= 1
                if name in (b"svg", b"math"):
                    foreign -= 1
        elif (self_closing and foreign) or name in _NOT_NESTING:
            continue
        else:
            open_count[name] = get(name, 0) + 1
            depth += 1
            if name in (b"svg", b"math"):
                foreign += 1
            if depth > peak:
                peak = depth
                if peak > limit:
                    break
    return peak


def _lexbor_would_be_slow(source: str, utf8: bytes) -> bool:
    """True when ``source`` may drive lexbor's tree builder quadratic (see above)."""
    if len(utf8) > _DEPTH_SCAN_FROM and (
        len(utf8) <= _BOUND_FROM or nesting_bound(utf8, _NOT_NESTING) > _MAX_DEPTH
    ):
        # Over a megabyte, the exact scan runs only where the cheap bound allows depth.
        if _nesting_depth(utf8, _MAX_DEPTH) > _MAX_DEPTH:
            return True
    for m in _LONG_TAG.finditer(source):
        end = source.find(">", m.start())
        tag = source[m.start() : end if end >= 0 else len(source)]
        if len(tag.split()) + tag.count("/") > _MAX_ATTRIBUTES:
            return True
    return False


#: The deepest element nesting of a document this program takes in (a file opened, a
#: version pushed): the fast path's own bound. No real page comes near it (Chromium's
#: parser stops nesting at 512 and puts deeper elements beside each other); past it only
#: the pure-Python reference parser could read the page (100,000 nested ``<div>``: 2.7 s
#: a version, 9 s of CPU for ``arl score``).
MAX_HTML_NESTING = _MAX_DEPTH


def too_deep(source: str) -> str | None:
    """Why an HTML ``source`` is refused for its depth (``"nests its elements about
    100,000 levels deep, past the 10,000 this program reads"``), or None. The depth is the
    fast path's scan (:func:`_nesting_depth`; over a megabyte asked first of the cheap
    bound), as the tree builder would nest them up to misnested markup it repairs. Linear;
    never raises."""
    utf8 = source.encode("utf-8", "replace")
    if len(utf8) < 3 * MAX_HTML_NESTING:
        return None  # too short to hold that many start tags ("<b>" is three bytes)
    if len(utf8) > _BOUND_FROM and nesting_bound(utf8, _NOT_NESTING) <= MAX_HTML_NESTING:
        return None
    if _nesting_depth(utf8, MAX_HTML_NESTING) <= MAX_HTML_NESTING:
        return None
    depth = _nesting_depth(utf8, len(utf8))
    return (
        f"nests its elements about {depth:,} levels deep, past the {MAX_HTML_NESTING:,} "
        "this program reads"
    )


def _utf8_of(html: str | bytes, source: str, encoding: str | None) -> bytes | None:
    """The UTF-8 bytes of ``source`` without encoding it again, where the document's own
    bytes are them: decoded as UTF-8 with nothing replaced (no U+FFFD in the text, so
    every byte was valid), less a BOM. None otherwise (the caller encodes)."""
    if encoding != "UTF-8" or isinstance(html, str) or "\ufffd" in source:
        return None
    data = bytes(html)
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def _lexbor_body(source: str, utf8: bytes | None = None) -> Node | None:
    """``document.body`` of a decoded source parsed by lexbor, or None to decline.
    ``utf8``: ``source`` encoded, when the caller has it (:func:`_utf8_of`).

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
        utf8 = source.encode("utf-8") if utf8 is None else utf8
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
    source, encoding = _source(html)
    body = _lexbor_body(source, _utf8_of(html, source, encoding))
    if body is not None:
        return "" if body is False else body.text(deep=True, separator="", strip=False)
    body = _reference_body(source)
    return "" if body is None else _text_content(body)


def extract(html: str | bytes) -> Extraction:
    """Parse a document once: its body text and a markup index for :meth:`~Extraction.markup_signature`.

    ``html`` as for :func:`body_text`. ``extract(html).text == body_text(html)``. Cost: the
    parse plus one linear walk of the body subtree.
    """
    source, encoding = _source(html)
    body = _lexbor_body(source, _utf8_of(html, source, encoding))
    if body is None:
        return _reference_walk(_reference_body(source), encoding)
    foreign = bool(_HAS_FOREIGN.search(source))
    # The walk allocates one wrapper per element and nothing cyclic: the cyclic garbage
    # collector, triggered every few hundred allocations, would scan them all again and
    # again (half the walk's time on an 8 MB page).
    with paused():
        return _fast_walk(None if body is False else body, encoding, foreign)
