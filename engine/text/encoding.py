"""Decoding an HTML or plain-text document's bytes the way a browser does.

Why this module is long: :func:`plain_utf8` must take the sniff's steps in
:func:`decode_html`'s order (BOM, prescan, UTF-16 guess, validity), so it sits beside it.

Bytes are decoded the way a browser decodes a ``text/html`` resource that came with no
``charset`` in its Content-Type (HTML Standard, 13.2.3.2 "Determining the character
encoding"), with one deterministic choice where the standard lets browsers guess:

1. a byte order mark (Encoding Standard, "BOM sniff") wins;
2. else the encoding the prescan finds (HTML Standard, "Prescan a byte stream to determine
   its encoding", over the first 1024 bytes, then "Get an XML encoding"); a declared UTF-16
   means UTF-8 and x-user-defined means windows-1252, as the prescan says;
3. else UTF-8 when every byte is valid UTF-8 (the standard lets a user agent guess from the
   bytes at this point; this is the one guess made, and it is deterministic);
4. else windows-1252 (the Encoding Standard's table, in which 0x81, 0x8D, 0x8F, 0x90 and
   0x9D map to U+0081, U+008D, U+008F, U+0090 and U+009D; Python's ``cp1252`` codec leaves
   them undefined).

A browser can still switch encodings later, when the tree builder meets a ``<meta charset>``
after the first 1024 bytes; this module does not. Whoever serves a document to a browser
for display should therefore send ``Content-Type: text/html; charset=<encoding>`` with the
encoding :func:`decode_html` returns: a transport charset outranks every ``<meta>``, so the
browser then decodes exactly as this module did.

UTF-8, UTF-16LE/BE and windows-1252 (with every label that means it, ISO-8859-1 and ASCII
included) decode exactly as the Encoding Standard says. The other legacy encodings a
``<meta>`` can name decode through Python's nearest codec (``iso8859_*``, ``cp125x``,
``koi8_*``, ``cp932`` for Shift_JIS, ``cp949`` for EUC-KR, ``gb18030`` for GBK, ``big5hkscs``
for Big5...), which can differ from the Encoding Standard's index in a few code points and
in how many bytes an invalid multi-byte sequence turns into U+FFFD.

Plain-text documents (:func:`decode_text`) skip the prescan: BOM, else UTF-8, else
windows-1252.

One more guess, for both kinds, before the UTF-8 one: UTF-16 without a BOM, recognised by its
NUL pattern (:func:`utf16_without_bom`: at least a third of the odd-numbered bytes of the
first 4 KiB are NUL and almost none of the even-numbered ones, or the reverse for
big-endian). Such bytes are valid UTF-8, so the steps above would read every other
character as U+0000 (the markup itself would become the text). No charset detector guesses
anything else: undeclared Shift_JIS, GBK... fall to windows-1252 as the Encoding Standard's
default, and :func:`decoding_problem` says so in one line (docs/engine.md, "Text
extraction").

:func:`plain_utf8` says where a document's own bytes are the UTF-8 of what
:func:`decode_html` decodes, so the fast path parses them without decoding first.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import codecs
import functools
import re
from typing import NamedTuple

from engine.text.encoding_labels import (
    ASCII_LOWER,
    ASCII_WHITESPACE,
    MULTI_BYTE,
    PYTHON_CODEC,
    get_encoding,
)

__all__ = [
    "PlainUtf8",
    "decode_html",
    "decode_text",
    "decoding_problem",
    "get_encoding",
    "plain_utf8",
    "utf16_without_bom",
    "utf32_with_bom",
]

# --------------------------------------------------------------------------------------
# Decoders (the labels and the codecs behind them are engine.text.encoding_labels)
# --------------------------------------------------------------------------------------

# Bytes a Windows code page leaves undefined in 0x80-0x9F map to the C1 control of the same
# value in the Encoding Standard's indexes (index-windows-1252: 0x81 -> U+0081, ...).
# Outside that range, a few code points differ from Python's tables.
_INDEX_OVERRIDES: dict[str, dict[int, str]] = {
    "windows-1255": {0xCA: "\u05ba"},
}

_single_byte_tables: dict[str, str] = {}


def _single_byte_table(name: str) -> str:
    """A 256-character decoding table for codecs.charmap_decode (U+FFFE marks 'undefined')."""
    table = _single_byte_tables.get(name)
    if table is not None:
        return table
    if name == "x-user-defined":
        # Encoding Standard, 14.5 "x-user-defined": 0x80-0xFF -> U+F780-U+F7FF.
        chars = [chr(b) for b in range(0x80)] + [chr(0xF780 + b - 0x80) for b in range(0x80, 0x100)]
    else:
        codec = PYTHON_CODEC[name]
        fill_c1 = name.startswith("windows-")
        overrides = _INDEX_OVERRIDES.get(name, {})
        chars = []
        for b in range(256):
            if b in overrides:
                chars.append(overrides[b])
                continue
            try:
                chars.append(bytes((b,)).decode(codec))
            except UnicodeDecodeError:
                chars.append(chr(b) if fill_c1 and 0x80 <= b <= 0x9F else "\ufffe")
    table = "".join(chars)
    _single_byte_tables[name] = table
    return table


_UNICODE_CODECS = {"UTF-8": "utf-8", "UTF-16LE": "utf-16-le", "UTF-16BE": "utf-16-be"}


def _decode(payload: bytes, name: str) -> str:
    """Decode bytes (BOM already removed) with an Encoding Standard encoding; never raises."""
    if name in _UNICODE_CODECS:
        return payload.decode(_UNICODE_CODECS[name], "replace")
    if name == "replacement":
        # Encoding Standard, 14.1 "replacement": any input is one U+FFFD.
        return "\ufffd" if payload else ""
    if name in MULTI_BYTE:
        return payload.decode(PYTHON_CODEC[name], "replace")
    return codecs.charmap_decode(payload, "replace", _single_byte_table(name))[0]


def _bom_sniff(data: bytes) -> tuple[str | None, int]:
    """Encoding Standard, "BOM sniff": (encoding, BOM length) or (None, 0)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return "UTF-8", 3
    if data.startswith(b"\xfe\xff"):
        return "UTF-16BE", 2
    if data.startswith(b"\xff\xfe"):
        return "UTF-16LE", 2
    return None, 0


def utf32_with_bom(data: bytes) -> str | None:
    """``"UTF-32LE"`` or ``"UTF-32BE"`` when ``data`` starts with that byte order mark (FF
    FE 00 00, 00 00 FE FF) and the rest is valid UTF-32, else None. The Encoding Standard
    has no UTF-32 (a browser reads FF FE as UTF-16LE's mark, and the text as a NUL after
    each character), so such a file is refused by name, never read as a garbled text
    (the attacker's brief, stop 38: an unchanged v2 in UTF-32 read every quote as deleted)."""
    for bom, name, codec in (
        (b"\xff\xfe\x00\x00", "UTF-32LE", "utf-32-le"),
        (b"\x00\x00\xfe\xff", "UTF-32BE", "utf-32-be"),
    ):
        if data.startswith(bom) and len(data) % 4 == 0:
            try:
                data[4:].decode(codec)
            except UnicodeDecodeError:
                return None
            return name
    return None


# --------------------------------------------------------------------------------------
# The prescan (HTML Standard, 13.2.3.2 "Prescan a byte stream to determine its encoding")
# --------------------------------------------------------------------------------------

_PRESCAN_LIMIT = 1024  # "User agents are encouraged to only prescan the first 1024 bytes."
_WS = frozenset(b"\t\n\x0c\r ")
_WS_SLASH = frozenset(b"\t\n\x0c\r /")
_WS_GT = frozenset(b"\t\n\x0c\r >")


class _OutOfBytes(Exception):
    """The prescan ran past its end condition: it ends without an answer."""


# Runs the prescan steps read one byte at a time, matched at once (the same bytes: each
# step's loop ends at the first byte of its set, or at the end of the input).
_WS_SLASH_RUN = re.compile(rb"[\t\n\x0c\r /]*")
_WS_RUN = re.compile(rb"[\t\n\x0c\r ]*")
_NAME_REST = re.compile(rb"[^=\t\n\x0c\r />]*")  # an attribute name after its first byte
_NOT_WS_GT = re.compile(rb"[^\t\n\x0c\r >]*")  # a tag name; an unquoted value's rest


def _byte(b: bytes, pos: int) -> int:
    if pos >= len(b):
        raise _OutOfBytes
    return b[pos]


def _skip(run: re.Pattern[bytes], b: bytes, pos: int) -> int:
    """The position after ``run`` at ``pos``; :class:`_OutOfBytes` at the end of ``b``."""
    end = run.match(b, pos).end()  # type: ignore[union-attr]  # every run matches empty
    if end >= len(b):
        raise _OutOfBytes
    return end


# One attribute as "get an attribute" reads it, after the spaces and "/" before it (none
# left, and no ">" next): (name) then nothing, or "=" and a value in double quotes, in
# single quotes, none before ">", or unquoted up to a space or ">". Possessive, so each run
# is taken whole as the standard's steps take it; no match where the input ends first.
_ATTR_BODY = (
    rb"([^>][^=\t\n\x0c\r />]*+)(?:[\t\n\x0c\r ]*+(?=[^=\t\n\x0c\r ])|[\t\n\x0c\r ]*+="
    rb"""[\t\n\x0c\r ]*+(?:"([^"]*+)"|'([^']*+)'|(?=>)|([^\t\n\x0c\r >"'][^\t\n\x0c\r >]*+)"""
    rb"(?=[\t\n\x0c\r >])))"
)


@functools.cache
def _attribute_patterns() -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """(one attribute, every attribute of a tag up to its ">"), compiled on first use:
    only an HTML page's prescan needs them, and their compilation is 0.5 ms of the
    start-up of every command that reads a document (docs/engine.md, "Speed"). The
    second is how the prescan skips a tag other than <meta>."""
    attribute = re.compile(rb"[\t\n\x0c\r /]*+(?:(>)|" + _ATTR_BODY + rb")", re.S)
    to_gt = re.compile(
        rb"(?:[\t\n\x0c\r /]*+"
        + re.sub(rb"\((?!\?)", b"(?:", _ATTR_BODY)
        + rb")*+[\t\n\x0c\r /]*+>",
        re.S,
    )
    return attribute, to_gt


def _get_attribute(b: bytes, pos: int) -> tuple[tuple[str, str] | None, int]:
    """HTML Standard, "get an attribute" (when sniffing): ((name, value) or None, position).

    One match of the attribute pattern (:func:`_attribute_patterns`); where it does not
    match (the input ends inside the attribute), the steps one run at a time
    (:func:`_get_attribute_steps`), which raise :class:`_OutOfBytes` there.
    tests/engine/test_prescan_runs.py checks both against the standard's byte-at-a-time
    form."""
    m = _attribute_patterns()[0].match(b, pos)
    if m is None:
        return _get_attribute_steps(b, pos)
    if m.group(1):
        return None, m.start(1)
    name, dq, sq, uq = m.group(2, 3, 4, 5)
    value = dq if dq is not None else sq if sq is not None else uq or b""
    lower = _BYTES_LOWER
    return (
        name.translate(lower).decode("latin-1"),
        value.translate(lower).decode("latin-1"),
    ), m.end()


def _get_attribute_steps(b: bytes, pos: int) -> tuple[tuple[str, str] | None, int]:
    """:func:`_get_attribute` step by step, each run of bytes the standard appends or skips
    one byte at a time taken at once: the name is its first byte (which may be "=") and the
    bytes up to "=", a space, "/" or ">"; a quoted value runs to the same quote; an unquoted
    one to a space or ">"; ASCII upper case is lowered in both. :class:`_OutOfBytes` where
    the input ends first."""
    pos = _skip(_WS_SLASH_RUN, b, pos)
    if b[pos] == 0x3E:  # ">"
        return None, pos
    end = _skip(_NAME_REST, b, pos + 1)
    name = b[pos:end].translate(_BYTES_LOWER).decode("latin-1")
    pos = end
    c = b[pos]
    if c in _WS:
        # "Spaces": skip whitespace; anything but "=" ends a valueless attribute.
        pos = _skip(_WS_RUN, b, pos)
        if b[pos] != 0x3D:
            return (name, ""), pos
    elif c != 0x3D:  # "/" or ">"
        return (name, ""), pos
    # "Value"
    pos = _skip(_WS_RUN, b, pos + 1)
    c = b[pos]
    if c == 0x22 or c == 0x27:  # quoted
        end = b.find(b[pos : pos + 1], pos + 1)
        if end < 0:
            raise _OutOfBytes
        return (name, b[pos + 1 : end].translate(_BYTES_LOWER).decode("latin-1")), end + 1
    if c == 0x3E:
        return (name, ""), pos
    end = _skip(_NOT_WS_GT, b, pos + 1)
    return (name, b[pos:end].translate(_BYTES_LOWER).decode("latin-1")), end


def _charset_from_content(s: str) -> str | None:
    """HTML Standard, "algorithm for extracting a character encoding from a meta element"."""
    lower = s.translate(ASCII_LOWER)
    n = len(s)
    pos = 0
    while True:
        i = lower.find("charset", pos)
        if i < 0:
            return None
        j = i + 7
        while j < n and s[j] in ASCII_WHITESPACE:
            j += 1
        if j < n and s[j] == "=":
            break
        pos = j
    j += 1
    while j < n and s[j] in ASCII_WHITESPACE:
        j += 1
    if j >= n:
        return None
    c = s[j]
    if c in "\"'":
        k = s.find(c, j + 1)
        return None if k < 0 else get_encoding(s[j + 1 : k])
    k = j
    while k < n and s[k] not in ASCII_WHITESPACE and s[k] != ";":
        k += 1
    return get_encoding(s[j:k])


def _is_ascii_alpha(c: int) -> bool:
    return 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A


_FAILURE = "failure"


# Where the loop below takes the branch that can give an encoding: "<meta" and a space or "/".
_META_TAG = re.compile(rb"<[Mm][Ee][Tt][Aa][\t\n\x0c\r /]")


def _meta_scan(b: bytes) -> str | None:
    """The prescan's loop over the bytes; None when it runs out of bytes."""
    if b.startswith(b"<\x00?\x00x\x00"):
        return "UTF-16LE"
    if b.startswith(b"\x00<\x00?\x00x"):
        return "UTF-16BE"
    if _META_TAG.search(b) is None:  # only a <meta> can give an encoding below
        return None
    pos = 0
    try:
        while True:
            pos = b.find(b"<", pos)  # the steps below act on "<" alone: skip to the next
            if pos < 0:
                break
            if b.startswith(b"<!--", pos):
                # To the first ">" preceded by "--", counting the dashes of "<!--".
                end = b.find(b"-->", pos + 2)
                if end < 0:
                    raise _OutOfBytes
                pos = end + 2
            elif (
                b[pos + 1 : pos + 5].translate(_BYTES_LOWER) == b"meta"
                and _byte(b, pos + 5) in _WS_SLASH
            ):
                pos += 6
                seen: set[str] = set()
                got_pragma = False
                need_pragma: bool | None = None
                charset: str | None = None
                while True:
                    attr, pos = _get_attribute(b, pos)
                    if attr is None:
                        break
                    name, value = attr
                    if name in seen:
                        continue
                    seen.add(name)
                    if name == "http-equiv":
                        if value == "content-type":
                            got_pragma = True
                    elif name == "content":
                        found = _charset_from_content(value)
                        if found is not None and charset is None:
                            charset = found
                            need_pragma = True
                    elif name == "charset" and charset is None:
                        charset = get_encoding(value) or _FAILURE
                        need_pragma = False
                if (
                    need_pragma is not None
                    and not (need_pragma and not got_pragma)
                    and charset is not None
                    and charset != _FAILURE
                ):
                    if charset in ("UTF-16LE", "UTF-16BE"):
                        return "UTF-8"
                    if charset == "x-user-defined":
                        return "windows-1252"
                    return charset
            elif _is_ascii_alpha(_byte(b, pos + 1)) or (
                b[pos + 1] == 0x2F and _is_ascii_alpha(_byte(b, pos + 2))
            ):
                pos = _skip(_NOT_WS_GT, b, pos)
                m = _attribute_patterns()[1].match(b, pos)
                if m is not None:
                    pos = m.end() - 1
                while m is None:  # the input ends inside the tag: the steps say where
                    attr, pos = _get_attribute(b, pos)
                    if attr is None:
                        break
            elif b[pos + 1] in (0x21, 0x2F, 0x3F):  # "<!", "</", "<?"
                end = b.find(b">", pos + 1)
                if end < 0:
                    raise _OutOfBytes
                pos = end
            pos += 1  # "Next byte"
    except _OutOfBytes:
        pass
    return None


_BYTES_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")


def _xml_encoding(b: bytes) -> str | None:
    """HTML Standard, "get an XML encoding": the encoding of a leading ``<?xml ...?>``."""
    if not b.startswith(b"<?xml"):
        return None
    decl_end = b.find(b">")
    if decl_end < 0:
        return None
    decl = b[:decl_end]
    pos = decl.translate(_BYTES_LOWER).find(b"encoding", 5)
    if pos < 0:
        return None
    pos += 8
    n = len(decl)
    while pos < n and decl[pos] <= 0x20:
        pos += 1
    if pos >= n or decl[pos] != 0x3D:
        return None
    pos += 1
    while pos < n and decl[pos] <= 0x20:
        pos += 1
    if pos >= n or decl[pos] not in (0x22, 0x27):
        return None
    quote = decl[pos]
    end = decl.find(bytes((quote,)), pos + 1)
    if end < 0:
        return None
    potential = decl[pos + 1 : end]
    if any(c <= 0x20 for c in potential):
        return None
    found = get_encoding(potential.decode("latin-1"))
    if found in ("UTF-16LE", "UTF-16BE"):
        return "UTF-8"
    return found


def _prescan(data: bytes) -> str | None:
    """The encoding the first 1024 bytes declare (``<meta>`` or XML declaration), or None."""
    head = data[:_PRESCAN_LIMIT]
    return _meta_scan(head) or _xml_encoding(head)


def decode_html(data: bytes) -> tuple[str, str]:
    """Decode a ``text/html`` document's bytes as a browser does, without transport charset.

    Returns ``(text, encoding)``: the decoded text (the BOM, if any, removed; nothing else
    changed, CR LF included) and the Encoding Standard name of the encoding used, e.g.
    ``"UTF-8"``, ``"windows-1252"``, ``"UTF-16LE"``, ``"Shift_JIS"``.

    Order (HTML Standard, 13.2.3.2 "Determining the character encoding", with two
    deterministic guesses where it allows autodetection): BOM; else the prescan of the first 1024 bytes
    (``<meta charset>``, ``<meta http-equiv=content-type content=...>``, a UTF-16
    ``<?x`` pattern, then an ``<?xml encoding=...?>`` declaration; a declared UTF-16 means
    UTF-8); else UTF-16 by its NUL pattern (:func:`utf16_without_bom`); else UTF-8 if the
    bytes are valid UTF-8; else windows-1252.

    Never raises: invalid sequences in a declared encoding become U+FFFD, and
    windows-1252 maps all 256 bytes.
    """
    data = bytes(data)
    name, bom_len = _bom_sniff(data)
    if name is not None:
        return _decode(data[bom_len:], name), name
    name = _prescan(data) or utf16_without_bom(data)
    if name is not None:
        return _decode(data, name), name
    try:
        return data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        return _decode(data, "windows-1252"), "windows-1252"


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode a plain-text document: BOM, else UTF-16 by its NUL pattern
    (:func:`utf16_without_bom`), else UTF-8 if valid, else windows-1252.

    Returns ``(text, encoding)`` like :func:`decode_html`; the text is otherwise as is
    (no newline normalisation). Never raises.
    """
    data = bytes(data)
    name, bom_len = _bom_sniff(data)
    if name is not None:
        return _decode(data[bom_len:], name), name
    name = utf16_without_bom(data)
    if name is not None:
        return _decode(data, name), name
    try:
        return data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        return _decode(data, "windows-1252"), "windows-1252"


# --------------------------------------------------------------------------------------
# UTF-16 without a BOM, and saying what did not decode
# --------------------------------------------------------------------------------------

_UTF16_SAMPLE = 4096  # bytes looked at (an even number)


def utf16_without_bom(data: bytes) -> str | None:
    """``"UTF-16LE"`` or ``"UTF-16BE"`` when ``data`` (no BOM) looks like UTF-16, else None.

    The NUL pattern of text mostly in U+0001-U+00FF: over the first 4 KiB (at least 8 bytes,
    an even count looked at), at least a third of the high bytes of the 16-bit units are NUL
    and at most 1 in 50 of the low bytes are (UTF-16LE has the high byte second). Text in
    other scripts (no NUL bytes) is not recognised; a file whose NUL bytes fall anywhere
    else is not UTF-16 text (see :func:`engine.text.documents.binary_kind`). Deterministic; a
    heuristic, not a standard's step (WHATWG encodings are found by BOM or declaration).
    """
    sample = data[: min(len(data), _UTF16_SAMPLE) & ~1]
    units = len(sample) // 2
    if units < 4 or b"\x00" not in sample:
        return None
    even_nuls = sample[0::2].count(0)
    odd_nuls = sample[1::2].count(0)
    if odd_nuls * 3 >= units and even_nuls * 50 <= units:
        return "UTF-16LE"
    if even_nuls * 3 >= units and odd_nuls * 50 <= units:
        return "UTF-16BE"
    return None


def _invalid_bytes(payload: bytes, name: str) -> int:
    """How many bytes of ``payload`` are not valid in encoding ``name`` (0 when all are)."""
    count = 0

    def counting(exc: UnicodeError) -> tuple[str, int]:
        nonlocal count
        assert isinstance(exc, UnicodeDecodeError)
        count += exc.end - exc.start
        return "\ufffd", exc.end

    codecs.register_error("arl-count-invalid", counting)
    if name in ("UTF-8", "UTF-16LE", "UTF-16BE"):
        payload.decode(_UNICODE_CODECS[name], "arl-count-invalid")
    elif name in MULTI_BYTE:
        payload.decode(PYTHON_CODEC[name], "arl-count-invalid")
    elif name != "replacement":
        codecs.charmap_decode(payload, "arl-count-invalid", _single_byte_table(name))
    return count


def decoding_problem(data: bytes, kind: str = "html", decoded: tuple | None = None) -> str | None:
    """One plain sentence when ``data`` did not decode cleanly, else None.

    ``kind`` is ``"html"`` (:func:`decode_html`) or ``"text"`` (:func:`decode_text`);
    ``decoded`` is that function's result when the caller has it. Two cases, both still opened as a browser would open them:

    - bytes invalid in the encoding used (declared, or by BOM) became U+FFFD:
      ``"12 bytes are not valid Shift_JIS and were replaced by U+FFFD"``;
    - undeclared bytes that are not valid UTF-8 were read as windows-1252 (so undeclared
      Shift_JIS or GBK reads as mojibake): ``"not valid UTF-8 (3 bytes) and no encoding is
      declared: read as windows-1252; ..."`` with what to do.
    """
    data = bytes(data)
    if decoded is None:
        decoded = decode_html(data) if kind == "html" else decode_text(data)
    text, name = decoded
    _, bom_len = _bom_sniff(data)
    if name == "windows-1252" and bom_len == 0 and (kind == "text" or _prescan(data) is None):
        bad = _invalid_bytes(data, "UTF-8")
        if bad:
            fix = (
                "save it as UTF-8"
                if kind == "text"
                else "declare it with <meta charset=...> or save it as UTF-8"
            )
            return (
                f"not valid UTF-8 ({bad:,} byte{'s' if bad != 1 else ''}) and no encoding is "
                f"declared: read as windows-1252, as a browser may; if the text looks wrong, {fix}"
            )
        return None
    if "\ufffd" not in text:
        return None
    bad = _invalid_bytes(data[bom_len:], name)
    if not bad:
        return None
    return (
        f"{bad:,} byte{'s are' if bad != 1 else ' is'} not valid {name} and "
        f"{'were' if bad != 1 else 'was'} replaced by U+FFFD, as a browser shows them"
    )


# --------------------------------------------------------------------------------------
# A document's own bytes, where they are the UTF-8 of its decoded text
# --------------------------------------------------------------------------------------


class PlainUtf8(NamedTuple):
    """``utf8``: a document's bytes (less a UTF-8 BOM) that :func:`decode_html` decodes
    as UTF-8 with nothing replaced, so ``utf8.decode() == decode_html(data)[0]``.
    ``non_ascii``: every run of its bytes over 0x7F, each with the byte after it (so a
    search for a character's UTF-8 there finds it exactly where the text holds it)."""

    utf8: bytes
    non_ascii: bytes


def plain_utf8(data: bytes) -> PlainUtf8 | None:
    """:class:`PlainUtf8` of an HTML document's bytes, or None where :func:`decode_html`
    reads them otherwise (another encoding, or UTF-8 with a sequence it replaces). The
    same order as :func:`decode_html`; checks validity without decoding: a byte string is
    valid UTF-8 exactly when each run of its bytes over 0x7F is (an ASCII byte ends any
    sequence), so only those runs are decoded. Linear; never raises."""
    name, bom_len = _bom_sniff(data)
    if name is None:
        name = _prescan(data) or utf16_without_bom(data) or "UTF-8"
    if name != "UTF-8":
        return None
    body = data[bom_len:] if bom_len else data
    if body.isascii():
        return PlainUtf8(body, b"")
    runs = _non_ascii_runs(body)
    try:
        runs.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return PlainUtf8(body, runs)


def _non_ascii_runs(data: bytes) -> bytes:
    """Every run of bytes over 0x7F in ``data``, each followed by the byte after it."""
    if len(data) < 1 << 16:
        return b"".join(_HIGH_RUN.findall(data))
    import numpy as np  # lazy: a large page only

    # The positions of the high bytes, and after each run's last one the byte after it,
    # gathered by index: numpy's boolean indexing, and masks of the page's size, cost
    # several times more (10 -> 2 ms on the Node.js API, mostly page faults).
    a = np.frombuffer(data, np.uint8)
    high = np.flatnonzero(a >= 0x80)
    if not len(high):
        return b""
    ends = np.append(np.flatnonzero(np.diff(high) != 1), len(high) - 1)  # each run's last
    after = high[ends] + 1
    inside = after < len(a)
    return a[np.insert(high, ends[inside] + 1, after[inside])].tobytes()


_HIGH_RUN = re.compile(rb"[\x80-\xff]+[\x00-\x7f]?")
