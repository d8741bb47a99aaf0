"""Neutralise resource hints in an untrusted HTML document before the viewer gets it.

``<link rel=preconnect>``, ``dns-prefetch``, ``prefetch``, ``preload``, ``prerender`` and the
like make Chromium resolve names and open TCP/TLS connections *before* any request exists,
so the request interceptor never sees them. Every ``<link>`` element whose ``rel`` holds
anything but a known inert value gets its ``rel`` attribute renamed to ``arl``: the element
stays, it just is no hint any more.

Which ``<link>`` is an element is decided by a real HTML5 parse, never by a scanner of our
own: the document is parsed by justhtml, the engine's reference parser
(``engine.text.html_text``; the HTML Standard's tokenizer and tree builder, scripting on as
in the viewer), and each ``link`` element's start tag, as the parser located it in the
source, is written again with ``rel`` renamed (the attribute values as the parser decoded
them, escaped). A hand-written scanner disagreed with the browser on comments and raw text
inside attribute values (``<p title="<!--">``), ``<!-->``, foreign content (``<svg><title>``)
and more (tests/app/test_app_viewer_hints.py). The result is parsed again by justhtml and by
lexbor (``selectolax``, the engine's fast parser): a hint left in either, or a body text that
changed, and the document is returned as it was (the Chromium switches of ``app.webflags``
then keep every connection but the document server's from leaving the page).

    neutralise_hints(raw: str | bytes) -> str | bytes   # bytes: an ASCII-compatible encoding
    live_hints(source: str) -> list[dict[str, str]]     # the hint links the parsers see
"""

from __future__ import annotations

import html
import re
from typing import Any

# rel values that make Chromium fetch or connect nothing on their own (stylesheets and
# icons are fetches, which the request interceptor blocks).
INERT_REL = frozenset(
    {
        "stylesheet",
        "alternate",
        "icon",
        "shortcut",
        "apple-touch-icon",
        "author",
        "license",
        "help",
        "canonical",
        "search",
        "me",
        "bookmark",
        "tag",
        "nofollow",
        "noopener",
        "noreferrer",
    }
)
# A link element can only come from a start tag named "link": "<" then those four letters
# in any case (no character reference or NUL can make a tag name "link"). Without one the
# document is returned as it is, unparsed.
_LINK_TAG = re.compile(r"<link", re.IGNORECASE)


def _is_hint(value: str | None) -> bool:
    tokens = (value or "").lower().split()
    return any(t not in INERT_REL for t in tokens)


def _reference_tree(source: str) -> Any:
    """The justhtml document of ``source`` with source positions, as the engine parses it
    (``engine.text.html_text._reference_body``: a leading U+FEFF kept by an empty comment
    first, so the offsets are then those of ``"<!---->" + source``)."""
    from justhtml import JustHTML

    return JustHTML(source, sanitize=False, scripting_enabled=True, track_node_locations=True)


def _elements(node: Any) -> list[Any]:
    out: list[Any] = []
    stack = [node]
    while stack:
        n = stack.pop()
        for c in getattr(n, "children", None) or []:
            if getattr(c, "name", None) == "link":
                out.append(c)
            stack.append(c)
        content = getattr(n, "template_content", None)
        if content is not None:
            stack.append(content)
    return out


def _start_tag(element: Any, rename: str = "rel") -> str:
    """The start tag of ``element`` written again from its parsed attributes, ``rename``
    renamed ``arl`` (values escaped, so the tag tokenizes as one tag in any context)."""
    parts = ["<link"]
    for name, value in element.attrs.items():
        shown = "arl" if name == rename else name
        if not re.fullmatch(r"[^\t\n\f\r />\"'=<]+", shown):
            continue  # an attribute name that cannot be written back: dropped (inert)
        parts.append(f' {shown}="{html.escape(value or "", quote=True)}"')
    return "".join(parts) + ">"


def live_hints(source: str) -> list[dict[str, str]]:
    """The attributes of every ``link`` element with a hint ``rel`` in ``source``, as the
    reference parser (justhtml) and the fast parser (lexbor) each see it; [] when none."""
    if _LINK_TAG.search(source) is None:
        return []
    found = [
        dict(e.attrs)
        for e in _elements(_reference_tree(source).root)
        if _is_hint(e.attrs.get("rel"))
    ]
    try:
        from selectolax.lexbor import LexborHTMLParser
    except ImportError:  # pragma: no cover - selectolax is a dependency
        return found
    try:
        tree = LexborHTMLParser(source.encode("utf-8"), scripting=True)
    except UnicodeEncodeError:
        return found
    for node in tree.css("link"):
        attrs = {k: v or "" for k, v in node.attributes.items()}
        if _is_hint(attrs.get("rel")):
            found.append(attrs)
    return found


def _edited(source: str) -> str | None:
    """``source`` with each hint link's start tag written again (``rel`` renamed), or None
    when the parser did not locate a tag it reports (then nothing is edited)."""
    shift = 0
    text = source
    if source.startswith("\ufeff"):
        text, shift = "<!---->" + source, 7
    edits: list[tuple[int, int, str]] = []
    for e in _elements(_reference_tree(text).root):
        if not _is_hint(e.attrs.get("rel")):
            continue
        start, end = getattr(e, "_start_tag_start", None), getattr(e, "_start_tag_end", None)
        if not isinstance(start, int) or not isinstance(end, int) or start < shift:
            return None
        if not text[start:end].lower().startswith("<link") or text[end - 1 : end] != ">":
            return None
        edits.append((start - shift, end - shift, _start_tag(e)))
    out = source
    for start, end, tag in sorted(edits, reverse=True):
        out = out[:start] + tag + out[end:]
    return out


def neutralise_hints(raw: str | bytes) -> str | bytes:
    """``raw`` with every resource-hint ``<link>``'s ``rel`` renamed (see the module doc);
    ``raw`` itself when it holds none, or when the result would still hold one for either
    parser, or would change the body text the engine extracts. Bytes are read as Latin-1
    (one character per byte: an ASCII-compatible encoding comes back byte for byte outside
    the rewritten tags, whose non-ASCII attribute values are then written as they were)."""
    from engine.text.html_text import body_text

    if isinstance(raw, bytes):
        if _LINK_TAG.search(raw.decode("latin-1")) is None:
            return raw
        out = neutralise_hints(raw.decode("latin-1"))
        assert isinstance(out, str)
        return out.encode("latin-1")
    if _LINK_TAG.search(raw) is None:
        return raw
    new = _edited(raw)
    if new is None or new == raw:
        return raw
    if live_hints(new) or body_text(new) != body_text(raw):
        return raw
    return new
