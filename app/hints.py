"""Neutralise resource hints in an untrusted HTML document before the viewer gets it.

``<link rel=preconnect>``, ``dns-prefetch``, ``prefetch``, ``preload``, ``prerender`` and the
like make Chromium resolve names and open TCP/TLS connections *before* any request exists,
so the request interceptor never sees them. Every ``<link>`` whose ``rel`` holds anything
but a known inert value gets its ``rel`` attribute renamed (``rel`` -> ``arl``, same length):
the element stays, it just is no hint any more. ``body.textContent`` is unchanged: the
scanner follows the HTML tokenizer's states closely enough to skip comments and the raw
text of ``script``, ``style``, ``textarea``, ``title``, ``xmp``, ``iframe``, ``noembed``,
``noframes``, ``noscript`` and ``plaintext`` (WHATWG HTML, 13.2.5 "Tokenization"), and the
caller checks the text with the engine's extraction anyway (``app.docview``).

    neutralise_hints(raw: str | bytes) -> same type    # bytes: an ASCII-compatible encoding
"""

from __future__ import annotations

import html
import re

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
RAW_TEXT = (
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "noscript",
)
_SPACE = "\t\n\f\r "


def _scan_tag(text: str, i: int) -> tuple[int, list[tuple[int, str]]]:
    """Attributes of the start tag whose name ends before ``i``: ``(index after '>',
    [(start of the attribute name, its value), ...])`` (lower-cased names only 'rel')."""
    n = len(text)
    rels: list[tuple[int, str]] = []
    while i < n:
        while i < n and (text[i] in _SPACE or text[i] == "/"):
            i += 1
        if i >= n:
            return n, rels
        if text[i] == ">":
            return i + 1, rels
        start = i
        i += 1  # the first character is part of the name whatever it is (even '=')
        while i < n and text[i] not in _SPACE and text[i] not in "/>=":
            i += 1
        name = text[start:i].lower()
        while i < n and text[i] in _SPACE:
            i += 1
        value = ""
        if i < n and text[i] == "=":
            i += 1
            while i < n and text[i] in _SPACE:
                i += 1
            if i < n and text[i] in "\"'":
                q = text[i]
                end = text.find(q, i + 1)
                end = n if end < 0 else end
                value = text[i + 1 : end]
                i = end + 1
            else:
                vs = i
                while i < n and text[i] not in _SPACE and text[i] != ">":
                    i += 1
                value = text[vs:i]
        if name == "rel":
            rels.append((start, value))
    return n, rels


def _is_hint(value: str) -> bool:
    tokens = html.unescape(value).lower().split()
    return any(t not in INERT_REL for t in tokens)


_INTERESTING = re.compile(
    r"<!--|<(link|plaintext|" + "|".join(RAW_TEXT) + r")(?=[\t\n\f\r />])", re.IGNORECASE
)
_HAS_LINK = re.compile(r"<link", re.IGNORECASE)


def _neutralise(text: str) -> str:
    if _HAS_LINK.search(text) is None:
        return text
    edits: list[int] = []
    i, n = 0, len(text)
    lower = text.lower()
    while i < n:
        m = _INTERESTING.search(text, i)
        if m is None:
            break
        if m.group(0) == "<!--":
            end = text.find("-->", m.start() + 4)
            i = n if end < 0 else end + 3
            continue
        name = m.group(1).lower()
        after, rels = _scan_tag(text, m.end())
        if name == "link":
            if rels and _is_hint(rels[0][1]):
                edits.extend(pos for pos, _ in rels)  # the first rel counts; rename all
        elif name == "plaintext":
            break
        else:
            end = lower.find("</" + name, after)
            after = n if end < 0 else end
        i = after
    if not edits:
        return text
    chars = list(text)
    for pos in edits:
        chars[pos : pos + 3] = list("arl")
    return "".join(chars)


def neutralise_hints(raw: str | bytes) -> str | bytes:
    """``raw`` with every resource-hint ``<link>``'s ``rel`` renamed (see the module doc).
    Bytes are read as Latin-1 (one character per byte), so any ASCII-compatible encoding
    comes back byte for byte except the renamed attributes."""
    if isinstance(raw, bytes):
        if b"<" not in raw:
            return raw
        return _neutralise(raw.decode("latin-1")).encode("latin-1")
    return _neutralise(raw)
