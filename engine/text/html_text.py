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
from dataclasses import dataclass
from typing import Any

from engine.collector import paused
from engine.text.encoding import decode_html, plain_utf8
from engine.text.html_markup import Extraction, Node, _fast_walk, _reference_walk
from engine.text.nesting_bound import markup_signals

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
# The characters a case-insensitive str pattern matches for an ASCII letter ("s" matches
# U+017F, "k" U+212A, "i" U+0130 and U+0131): where a page holds none, the two patterns
# above find what their ASCII reading over the page's bytes finds
# (engine.text.nesting_bound.markup_signals).
_FOLDS = ("\u0130", "\u0131", "\u017f", "\u212a")
_FOLDS_UTF8 = tuple(c.encode("utf-8") for c in _FOLDS)

_lexbor_parser: Any = None  # selectolax.lexbor.LexborHTMLParser, or False if absent

# Two inputs make lexbor's tree builder quadratic where justhtml stays near-linear, so a
# hostile page would take far longer on the fast path than on the reference (measured:
# 50,000 nested <div> 3.7 s vs 0.5 s, 200,000 over 60 s; 50,000 nested <ul><li> 14.5 s vs
# 1.2 s; one tag with 100,000 attributes 15 s vs 0.07 s). Elements that "close a p element
# in button scope" (div, ul, section...) walk the stack of open elements on each start tag,
# closed or not, and each attribute is checked against the tag's others. The fast path
# declines a document that may hold either:
# - elements nested more than _MAX_DEPTH deep (:func:`_nesting_depth`; at 10,000 deep
#   lexbor needs about 0.1 s), on pages over _BOUND_FROM with more "<" than that,
#   asked first of a cheap upper bound;
# - a start tag over 8,192 characters with more than _MAX_ATTRIBUTES separators.
_MAX_DEPTH = 10_000
_DEPTH_SCAN_FROM = 64 * 1024  # bytes; a smaller page cannot nest deep enough to matter
_BOUND_FROM = _DEPTH_SCAN_FROM
"""Bytes over which the guard reads the page with numpy first
(:func:`engine.text.nesting_bound.markup_signals`: a cheap upper bound of the depth, and
where the page holds the start tags the patterns above and the long-tag check look for);
the exact scan runs only where the bound exceeds ``_MAX_DEPTH``, the patterns only where
the bytes show they may match."""
_LONG_TAG = re.compile(r"<[A-Za-z][^>]{8192}")
# Over a page's UTF-8 bytes, where it holds none of _FOLDS, these match where the ones above
# match over its text (ASCII folding alone; ">" is never part of a longer character).
_FAST_PATH_DECLINES_BYTES = re.compile(_FAST_PATH_DECLINES.pattern.encode(), re.IGNORECASE)
_HAS_FOREIGN_BYTES = re.compile(_HAS_FOREIGN.pattern.encode(), re.IGNORECASE)
_LONG_TAG_BYTES = re.compile(_LONG_TAG.pattern.encode())
# The three at once: a match where one of them matches, none where none does (one pass).
_ANY_SIGNAL = re.compile(r"<(?:(?i:frameset|annotation-xml|svg|math)|[A-Za-z][^>]{8192})")
_ANY_SIGNAL_BYTES = re.compile(_ANY_SIGNAL.pattern.encode())
_OVER_TEXT = (_ANY_SIGNAL, _FAST_PATH_DECLINES, _HAS_FOREIGN)
_OVER_BYTES = (_ANY_SIGNAL_BYTES, _FAST_PATH_DECLINES_BYTES, _HAS_FOREIGN_BYTES)
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


@dataclass(frozen=True)
class _Guard:
    """What the fast path's guard finds: ``declines``, where lexbor is not proven equal to
    the reference (:data:`_FAST_PATH_DECLINES`); ``slow``, where it may be quadratic;
    ``foreign``, where the page may hold ``<svg>`` or ``<math>`` (:data:`_HAS_FOREIGN`)."""

    declines: bool
    slow: bool
    foreign: bool


def _long_tag_slow(source: str) -> bool:
    """A start tag over 8,192 characters with more than ``_MAX_ATTRIBUTES`` separators.
    A tag found inside the one checked before it ("<a<a<a..." with no ">") ends where that
    one does, so it holds no more separators and is not read again: linear."""
    checked_to = -1
    for m in _LONG_TAG.finditer(source):
        if m.start() < checked_to:
            continue
        end = source.find(">", m.start())
        checked_to = end if end >= 0 else len(source)
        tag = source[m.start() : checked_to]
        if len(tag.split()) + tag.count("/") > _MAX_ATTRIBUTES:
            return True
    return False


def _guard(source: str | None, utf8: bytes, folds: bool | None = None) -> _Guard:
    """The fast path's guard over a page's UTF-8 bytes; ``source``: their text, or None to
    decode them only if a check needs it; ``folds``: whether the page holds one of
    :data:`_FOLDS` (None: look in ``source``). Over ``_BOUND_FROM`` bytes with more than
    ``_MAX_DEPTH`` "<", numpy signals first
    (:func:`engine.text.nesting_bound.markup_signals`), then only the checks they leave
    open; else the patterns alone (:func:`_guard_by_patterns`). The same findings as the
    patterns and the scan alone."""
    if len(utf8) <= _BOUND_FROM or _few_tags(utf8):
        return _guard_by_patterns(source, utf8, folds)
    signals = markup_signals(utf8, _NOT_NESTING)
    if folds is None:
        folds = source is None or any(c in source for c in _FOLDS)
    declines, foreign = signals.declines, signals.foreign
    if folds:
        text = utf8.decode("utf-8") if source is None else source
        declines = bool(_FAST_PATH_DECLINES.search(text))
        foreign = bool(_HAS_FOREIGN.search(text))
    slow = signals.bound > _MAX_DEPTH and _nesting_depth(utf8, _MAX_DEPTH) > _MAX_DEPTH
    if not slow and signals.long_tag:
        slow = _long_tag_slow(utf8.decode("utf-8") if source is None else source)
    return _Guard(declines, slow, foreign)


def _few_tags(utf8: bytes) -> bool:
    """Whether ``utf8`` holds at most ``_MAX_DEPTH`` "<", so the depth scan cannot pass it
    (each element it opens is a start tag, with its own "<"; tests/engine/test_nesting_bound.py).
    Counted 256 kB at a time, up to the limit (a large real page passes it in its first)."""
    import numpy as np  # lazy: only pages over 64 kB are counted

    page, step, count = np.frombuffer(utf8, np.uint8), 1 << 18, 0
    scratch = np.empty(min(len(page), step), bool)
    for start in range(0, len(page), step):
        piece = page[start : start + step]
        count += int(np.count_nonzero(np.equal(piece, 0x3C, out=scratch[: len(piece)])))
        if count > _MAX_DEPTH:
            return False
    return True


def _guard_by_patterns(source: str | None, utf8: bytes, folds: bool | None) -> _Guard:
    """The guard of a page too short or with too few tags to nest past ``_MAX_DEPTH``: the
    declining, foreign-content and long-tag patterns, first all at once (:data:`_ANY_SIGNAL`,
    one pass where a page holds none, as most do), over the bytes where the page holds none
    of :data:`_FOLDS` (else over the text); the long-tag check reads the text."""
    if folds is None:
        source = utf8.decode("utf-8") if source is None else source
        folds = any(c in source for c in _FOLDS)
    text: Any = (utf8.decode("utf-8") if source is None else source) if folds else utf8
    any_signal, declines, foreign = _OVER_TEXT if folds else _OVER_BYTES
    if any_signal.search(text) is None:
        return _Guard(False, False, False)
    hit = _LONG_TAG_BYTES.search(utf8)  # a tag of 8,192 characters is as many bytes or more
    slow = bool(hit) and _long_tag_slow(utf8.decode("utf-8") if source is None else source)
    return _Guard(bool(declines.search(text)), slow, bool(foreign.search(text)))


def _lexbor_would_be_slow(source: str, utf8: bytes) -> bool:
    """True when ``source`` may drive lexbor's tree builder quadratic (see above)."""
    return _guard(source, utf8).slow


#: The deepest element nesting of a document this program takes in (a file opened, a
#: version pushed): the fast path's own bound. No real page comes near it (Chromium's
#: parser stops nesting at 512 and puts deeper elements beside each other); past it only
#: the pure-Python reference parser could read the page (100,000 nested ``<div>``: 2.7 s
#: a version, 9 s of CPU for ``arl score``).
MAX_HTML_NESTING = _MAX_DEPTH


def too_deep(source: str) -> str | None:
    """Why an HTML ``source`` is refused for its depth (``"nests its elements about
    100,000 levels deep, past the 10,000 this program reads"``), or None. The depth is the
    fast path's scan (:func:`_nesting_depth`; over 64 kB asked first of the cheap bound),
    as the tree builder would nest them up to misnested markup it repairs. Linear; never
    raises."""
    utf8 = source.encode("utf-8", "replace")
    if len(utf8) < 3 * MAX_HTML_NESTING:
        return None  # too short to hold that many start tags ("<b>" is three bytes)
    if len(utf8) > _BOUND_FROM and markup_signals(utf8, _NOT_NESTING).bound <= MAX_HTML_NESTING:
        return None
    if _nesting_depth(utf8, MAX_HTML_NESTING) <= MAX_HTML_NESTING:
        return None
    depth = _nesting_depth(utf8, len(utf8))
    return (
        f"nests its elements about {depth:,} levels deep, past the {MAX_HTML_NESTING:,} "
        "this program reads"
    )


@dataclass
class _Page:
    """A document as the parsers take it: ``source``, its decoded text (None until a
    parser or check needs it, where ``utf8`` holds it); ``encoding`` (None for a str);
    ``utf8``, its UTF-8 bytes where at hand without encoding (None: encode ``source``);
    ``folds``, whether it holds one of :data:`_FOLDS` (None: not looked at)."""

    source: str | None
    encoding: str | None
    utf8: bytes | None
    folds: bool | None = None

    def text(self) -> str:
        """The decoded text (decoding ``utf8`` the first time)."""
        if self.source is None:
            assert self.utf8 is not None
            self.source = self.utf8.decode("utf-8")
        return self.source


def _page(html: str | bytes) -> _Page:
    """A document given as bytes or str, read as :func:`_source` reads it. Bytes that
    :func:`decode_html` reads as UTF-8 with nothing replaced are kept as they are, and over
    ``_BOUND_FROM`` not decoded (:func:`engine.text.encoding.plain_utf8`)."""
    if isinstance(html, str):
        return _Page(html, None, None)
    data = bytes(html)
    if len(data) <= _BOUND_FROM:  # the guard reads the text of a small page anyway
        source, encoding = decode_html(data)
        utf8 = None
        if encoding == "UTF-8" and "\ufffd" not in source:  # every byte was valid
            utf8 = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
        return _Page(source, encoding, utf8)
    plain = plain_utf8(data)
    if plain is None:
        source, encoding = decode_html(data)
        return _Page(source, encoding, None)
    folds = any(c in plain.non_ascii for c in _FOLDS_UTF8)
    return _Page(None, "UTF-8", plain.utf8, folds)


def _lexbor_body(source: str | bytes, utf8: bytes | None = None) -> Node | None:
    """``document.body`` of a decoded source (or of a document's bytes) parsed by lexbor,
    or None to decline. ``utf8``: ``source`` encoded, when the caller has it.

    Declines (None) where the fast path is not proven equal to the reference (see
    :data:`_FAST_PATH_DECLINES`), when selectolax is not installed, or when lexbor cannot
    take the input (a str with lone surrogates cannot be encoded to UTF-8). A document
    without a body gives the body ``False``.
    """
    page = _page(source) if utf8 is None else _Page(str(source), None, utf8)
    return _lexbor_page(page)[0]


def _lexbor_page(page: _Page) -> tuple[Node | None, bool]:
    """(``document.body`` parsed by lexbor, or None to decline as :func:`_lexbor_body`;
    whether the page may hold foreign content)."""
    global _lexbor_parser
    if _lexbor_parser is None:
        try:
            from selectolax.lexbor import LexborHTMLParser
        except ImportError:  # pragma: no cover - selectolax is a dependency
            _lexbor_parser = False
        else:
            _lexbor_parser = LexborHTMLParser
    if _lexbor_parser is False:
        return None, False
    utf8 = page.utf8
    if utf8 is None:
        assert page.source is not None
        try:
            utf8 = page.source.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: only a str given by a caller has them
            return None, False
    guard = _guard(page.source, utf8, page.folds)
    if guard.declines or guard.slow:
        return None, guard.foreign
    tree = _lexbor_parser(utf8, scripting=True)
    root = tree.root
    if root is None or root.tag != "html":
        return False, guard.foreign
    node = root.first_child
    while node is not None:
        if node.tag == "body":
            return node, guard.foreign
        node = node.next
    return False, guard.foreign


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
    page = _page(html)
    body, _ = _lexbor_page(page)
    if body is not None:
        return "" if body is False else body.text(deep=True, separator="", strip=False)
    body = _reference_body(page.text())
    return "" if body is None else _text_content(body)


def extract(html: str | bytes) -> Extraction:
    """Parse a document once: its body text and a markup index for :meth:`~Extraction.markup_signature`.

    ``html`` as for :func:`body_text`. ``extract(html).text == body_text(html)``. Cost: the
    parse plus one linear walk of the body subtree.
    """
    page = _page(html)
    body, foreign = _lexbor_page(page)
    if body is None:
        return _reference_walk(_reference_body(page.text()), page.encoding)
    encoding = page.encoding
    # The walk allocates one wrapper per element and nothing cyclic: the cyclic garbage
    # collector, triggered every few hundred allocations, would scan them all again and
    # again (half the walk's time on an 8 MB page).
    with paused():
        return _fast_walk(None if body is False else body, encoding, foreign)
