"""Browser-exact text layer: HTML bytes in, ``document.body.textContent`` out.

This is the text every anchor offset indexes (DESIGN.md, "The anchor contract"). The rule is
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

Everything here counts Unicode code points, as Python strings do. Conversion to the UTF-16
units of the anchor contract happens at the boundary, elsewhere.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import codecs
import os
import stat
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

__all__ = [
    "TEXT_EXTENSIONS",
    "DocumentError",
    "Extraction",
    "body_text",
    "decode_html",
    "decode_text",
    "extract",
    "get_encoding",
    "read_document",
]

# --------------------------------------------------------------------------------------
# Encodings: labels and decoders (WHATWG Encoding Standard, 4.2 "Names and labels")
# --------------------------------------------------------------------------------------

# Encoding name (as the Encoding Standard spells it; what document.characterSet returns)
# -> every label that means it.
_ENCODING_LABELS: dict[str, tuple[str, ...]] = {
    "UTF-8": (
        "unicode-1-1-utf-8",
        "unicode11utf8",
        "unicode20utf8",
        "utf-8",
        "utf8",
        "x-unicode20utf8",
    ),
    "IBM866": ("866", "cp866", "csibm866", "ibm866"),
    "ISO-8859-2": (
        "csisolatin2",
        "iso-8859-2",
        "iso-ir-101",
        "iso8859-2",
        "iso88592",
        "iso_8859-2",
        "iso_8859-2:1987",
        "l2",
        "latin2",
    ),
    "ISO-8859-3": (
        "csisolatin3",
        "iso-8859-3",
        "iso-ir-109",
        "iso8859-3",
        "iso88593",
        "iso_8859-3",
        "iso_8859-3:1988",
        "l3",
        "latin3",
    ),
    "ISO-8859-4": (
        "csisolatin4",
        "iso-8859-4",
        "iso-ir-110",
        "iso8859-4",
        "iso88594",
        "iso_8859-4",
        "iso_8859-4:1988",
        "l4",
        "latin4",
    ),
    "ISO-8859-5": (
        "csisolatincyrillic",
        "cyrillic",
        "iso-8859-5",
        "iso-ir-144",
        "iso8859-5",
        "iso88595",
        "iso_8859-5",
        "iso_8859-5:1988",
    ),
    "ISO-8859-6": (
        "arabic",
        "asmo-708",
        "csiso88596e",
        "csiso88596i",
        "csisolatinarabic",
        "ecma-114",
        "iso-8859-6",
        "iso-8859-6-e",
        "iso-8859-6-i",
        "iso-ir-127",
        "iso8859-6",
        "iso88596",
        "iso_8859-6",
        "iso_8859-6:1987",
    ),
    "ISO-8859-7": (
        "csisolatingreek",
        "ecma-118",
        "elot_928",
        "greek",
        "greek8",
        "iso-8859-7",
        "iso-ir-126",
        "iso8859-7",
        "iso88597",
        "iso_8859-7",
        "iso_8859-7:1987",
        "sun_eu_greek",
    ),
    "ISO-8859-8": (
        "csiso88598e",
        "csisolatinhebrew",
        "hebrew",
        "iso-8859-8",
        "iso-8859-8-e",
        "iso-ir-138",
        "iso8859-8",
        "iso88598",
        "iso_8859-8",
        "iso_8859-8:1988",
        "visual",
    ),
    "ISO-8859-8-I": ("csiso88598i", "iso-8859-8-i", "logical"),
    "ISO-8859-10": (
        "csisolatin6",
        "iso-8859-10",
        "iso-ir-157",
        "iso8859-10",
        "iso885910",
        "l6",
        "latin6",
    ),
    "ISO-8859-13": ("iso-8859-13", "iso8859-13", "iso885913"),
    "ISO-8859-14": ("iso-8859-14", "iso8859-14", "iso885914"),
    "ISO-8859-15": ("csisolatin9", "iso-8859-15", "iso8859-15", "iso885915", "iso_8859-15", "l9"),
    "ISO-8859-16": ("iso-8859-16",),
    "KOI8-R": ("cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"),
    "KOI8-U": ("koi8-ru", "koi8-u"),
    "macintosh": ("csmacintosh", "mac", "macintosh", "x-mac-roman"),
    "windows-874": ("dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874"),
    "windows-1250": ("cp1250", "windows-1250", "x-cp1250"),
    "windows-1251": ("cp1251", "windows-1251", "x-cp1251"),
    "windows-1252": (
        "ansi_x3.4-1968",
        "ascii",
        "cp1252",
        "cp819",
        "csisolatin1",
        "ibm819",
        "iso-8859-1",
        "iso-ir-100",
        "iso8859-1",
        "iso88591",
        "iso_8859-1",
        "iso_8859-1:1987",
        "l1",
        "latin1",
        "us-ascii",
        "windows-1252",
        "x-cp1252",
    ),
    "windows-1253": ("cp1253", "windows-1253", "x-cp1253"),
    "windows-1254": (
        "cp1254",
        "csisolatin5",
        "iso-8859-9",
        "iso-ir-148",
        "iso8859-9",
        "iso88599",
        "iso_8859-9",
        "iso_8859-9:1989",
        "l5",
        "latin5",
        "windows-1254",
        "x-cp1254",
    ),
    "windows-1255": ("cp1255", "windows-1255", "x-cp1255"),
    "windows-1256": ("cp1256", "windows-1256", "x-cp1256"),
    "windows-1257": ("cp1257", "windows-1257", "x-cp1257"),
    "windows-1258": ("cp1258", "windows-1258", "x-cp1258"),
    "x-mac-cyrillic": ("x-mac-cyrillic", "x-mac-ukrainian"),
    "GBK": (
        "chinese",
        "csgb2312",
        "csiso58gb231280",
        "gb2312",
        "gb_2312",
        "gb_2312-80",
        "gbk",
        "iso-ir-58",
        "x-gbk",
    ),
    "gb18030": ("gb18030",),
    "Big5": ("big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"),
    "EUC-JP": ("cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"),
    "ISO-2022-JP": ("csiso2022jp", "iso-2022-jp"),
    "Shift_JIS": (
        "csshiftjis",
        "ms932",
        "ms_kanji",
        "shift-jis",
        "shift_jis",
        "sjis",
        "windows-31j",
        "x-sjis",
    ),
    "EUC-KR": (
        "cseuckr",
        "csksc56011987",
        "euc-kr",
        "iso-ir-149",
        "korean",
        "ks_c_5601-1987",
        "ks_c_5601-1989",
        "ksc5601",
        "ksc_5601",
        "windows-949",
    ),
    "replacement": (
        "csiso2022kr",
        "hz-gb-2312",
        "iso-2022-cn",
        "iso-2022-cn-ext",
        "iso-2022-kr",
        "replacement",
    ),
    "UTF-16BE": ("unicodefffe", "utf-16be"),
    "UTF-16LE": (
        "csunicode",
        "iso-10646-ucs-2",
        "ucs-2",
        "unicode",
        "unicodefeff",
        "utf-16",
        "utf-16le",
    ),
    "x-user-defined": ("x-user-defined",),
}

_LABEL_TO_ENCODING: dict[str, str] = {
    label: name for name, labels in _ENCODING_LABELS.items() for label in labels
}

# Python codec behind each encoding that is not decoded by hand. Single-byte ones are turned
# into 256-entry tables (see _single_byte_table); the rest decode with errors="replace".
_PYTHON_CODEC: dict[str, str] = {
    "IBM866": "cp866",
    "ISO-8859-2": "iso8859_2",
    "ISO-8859-3": "iso8859_3",
    "ISO-8859-4": "iso8859_4",
    "ISO-8859-5": "iso8859_5",
    "ISO-8859-6": "iso8859_6",
    "ISO-8859-7": "iso8859_7",
    "ISO-8859-8": "iso8859_8",
    "ISO-8859-8-I": "iso8859_8",
    "ISO-8859-10": "iso8859_10",
    "ISO-8859-13": "iso8859_13",
    "ISO-8859-14": "iso8859_14",
    "ISO-8859-15": "iso8859_15",
    "ISO-8859-16": "iso8859_16",
    "KOI8-R": "koi8_r",
    "KOI8-U": "koi8_u",
    "macintosh": "mac_roman",
    "windows-874": "cp874",
    "windows-1250": "cp1250",
    "windows-1251": "cp1251",
    "windows-1252": "cp1252",
    "windows-1253": "cp1253",
    "windows-1254": "cp1254",
    "windows-1255": "cp1255",
    "windows-1256": "cp1256",
    "windows-1257": "cp1257",
    "windows-1258": "cp1258",
    "x-mac-cyrillic": "mac_cyrillic",
    "GBK": "gb18030",
    "gb18030": "gb18030",
    "Big5": "big5hkscs",
    "EUC-JP": "euc_jp",
    "ISO-2022-JP": "iso2022_jp",
    "Shift_JIS": "cp932",
    "EUC-KR": "cp949",
}

_MULTI_BYTE = frozenset({"GBK", "gb18030", "Big5", "EUC-JP", "ISO-2022-JP", "Shift_JIS", "EUC-KR"})

# Bytes a Windows code page leaves undefined in 0x80-0x9F map to the C1 control of the same
# value in the Encoding Standard's indexes (index-windows-1252: 0x81 -> U+0081, ...).
# Outside that range, a few code points differ from Python's tables.
_INDEX_OVERRIDES: dict[str, dict[int, str]] = {
    "windows-1255": {0xCA: "\u05ba"},
}

_single_byte_tables: dict[str, str] = {}

_ASCII_WHITESPACE = "\t\n\x0c\r "
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def get_encoding(label: str) -> str | None:
    """The encoding a label names, or None (Encoding Standard, "get an encoding").

    Leading and trailing ASCII whitespace is ignored and matching is ASCII case-insensitive:
    ``get_encoding(" Latin1 ")`` is ``"windows-1252"``. The result is the encoding's name as
    the Encoding Standard spells it (the value of ``document.characterSet``).
    """
    return _LABEL_TO_ENCODING.get(label.strip(_ASCII_WHITESPACE).translate(_ASCII_LOWER))


def _single_byte_table(name: str) -> str:
    """A 256-character decoding table for codecs.charmap_decode (U+FFFE marks 'undefined')."""
    table = _single_byte_tables.get(name)
    if table is not None:
        return table
    if name == "x-user-defined":
        # Encoding Standard, 14.5 "x-user-defined": 0x80-0xFF -> U+F780-U+F7FF.
        chars = [chr(b) for b in range(0x80)] + [chr(0xF780 + b - 0x80) for b in range(0x80, 0x100)]
    else:
        codec = _PYTHON_CODEC[name]
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


def _decode(payload: bytes, name: str) -> str:
    """Decode bytes (BOM already removed) with an Encoding Standard encoding; never raises."""
    if name == "UTF-8":
        return payload.decode("utf-8", "replace")
    if name == "UTF-16LE":
        return payload.decode("utf-16-le", "replace")
    if name == "UTF-16BE":
        return payload.decode("utf-16-be", "replace")
    if name == "replacement":
        # Encoding Standard, 14.1 "replacement": any input is one U+FFFD.
        return "\ufffd" if payload else ""
    if name in _MULTI_BYTE:
        return payload.decode(_PYTHON_CODEC[name], "replace")
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


# --------------------------------------------------------------------------------------
# The prescan (HTML Standard, 13.2.3.2 "Prescan a byte stream to determine its encoding")
# --------------------------------------------------------------------------------------

_PRESCAN_LIMIT = 1024  # "User agents are encouraged to only prescan the first 1024 bytes."
_WS = frozenset(b"\t\n\x0c\r ")
_WS_SLASH = frozenset(b"\t\n\x0c\r /")
_WS_GT = frozenset(b"\t\n\x0c\r >")


class _OutOfBytes(Exception):
    """The prescan ran past its end condition: it ends without an answer."""


def _byte(b: bytes, pos: int) -> int:
    if pos >= len(b):
        raise _OutOfBytes
    return b[pos]


def _lower_byte(c: int) -> int:
    return c + 0x20 if 0x41 <= c <= 0x5A else c


def _get_attribute(b: bytes, pos: int) -> tuple[tuple[str, str] | None, int]:
    """HTML Standard, "get an attribute" (when sniffing): ((name, value) or None, position)."""
    while _byte(b, pos) in _WS_SLASH:
        pos += 1
    if b[pos] == 0x3E:  # ">"
        return None, pos
    name = bytearray()
    value = bytearray()
    while True:
        c = _byte(b, pos)
        if c == 0x3D and name:  # "=" after a non-empty name
            pos += 1
            break
        if c in _WS:
            # "Spaces": skip whitespace; anything but "=" ends a valueless attribute.
            while _byte(b, pos) in _WS:
                pos += 1
            if b[pos] != 0x3D:
                return (name.decode("latin-1"), ""), pos
            pos += 1
            break
        if c == 0x2F or c == 0x3E:  # "/" or ">"
            return (name.decode("latin-1"), ""), pos
        name.append(_lower_byte(c))
        pos += 1
    # "Value"
    while _byte(b, pos) in _WS:
        pos += 1
    c = b[pos]
    if c == 0x22 or c == 0x27:  # quoted
        quote = c
        while True:
            pos += 1
            c = _byte(b, pos)
            if c == quote:
                return (name.decode("latin-1"), value.decode("latin-1")), pos + 1
            value.append(_lower_byte(c))
    if c == 0x3E:
        return (name.decode("latin-1"), ""), pos
    value.append(_lower_byte(c))
    pos += 1
    while True:
        c = _byte(b, pos)
        if c in _WS_GT:
            return (name.decode("latin-1"), value.decode("latin-1")), pos
        value.append(_lower_byte(c))
        pos += 1


def _charset_from_content(s: str) -> str | None:
    """HTML Standard, "algorithm for extracting a character encoding from a meta element"."""
    lower = s.translate(_ASCII_LOWER)
    n = len(s)
    pos = 0
    while True:
        i = lower.find("charset", pos)
        if i < 0:
            return None
        j = i + 7
        while j < n and s[j] in _ASCII_WHITESPACE:
            j += 1
        if j < n and s[j] == "=":
            break
        pos = j
    j += 1
    while j < n and s[j] in _ASCII_WHITESPACE:
        j += 1
    if j >= n:
        return None
    c = s[j]
    if c in "\"'":
        k = s.find(c, j + 1)
        return None if k < 0 else get_encoding(s[j + 1 : k])
    k = j
    while k < n and s[k] not in _ASCII_WHITESPACE and s[k] != ";":
        k += 1
    return get_encoding(s[j:k])


def _is_ascii_alpha(c: int) -> bool:
    return 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A


_FAILURE = "failure"


def _meta_scan(b: bytes) -> str | None:
    """The prescan's loop over the bytes; None when it runs out of bytes."""
    if b.startswith(b"<\x00?\x00x\x00"):
        return "UTF-16LE"
    if b.startswith(b"\x00<\x00?\x00x"):
        return "UTF-16BE"
    n = len(b)
    pos = 0
    try:
        while pos < n:
            if b[pos] == 0x3C:  # "<"
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
                    while _byte(b, pos) not in _WS_GT:
                        pos += 1
                    while True:
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

    Order (HTML Standard, 13.2.3.2 "Determining the character encoding", with one
    deterministic guess where it allows autodetection): BOM; else the prescan of the first 1024 bytes
    (``<meta charset>``, ``<meta http-equiv=content-type content=...>``, a UTF-16
    ``<?x`` pattern, then an ``<?xml encoding=...?>`` declaration; a declared UTF-16 means
    UTF-8); else UTF-8 if the bytes are valid UTF-8; else windows-1252.

    Never raises: invalid sequences in a declared encoding become U+FFFD, and
    windows-1252 maps all 256 bytes.
    """
    data = bytes(data)
    name, bom_len = _bom_sniff(data)
    if name is not None:
        return _decode(data[bom_len:], name), name
    name = _prescan(data)
    if name is not None:
        return _decode(data, name), name
    try:
        return data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        return _decode(data, "windows-1252"), "windows-1252"


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode a plain-text document: BOM, else UTF-8 if valid, else windows-1252.

    Returns ``(text, encoding)`` like :func:`decode_html`; the text is otherwise as is
    (no newline normalisation). Never raises.
    """
    data = bytes(data)
    name, bom_len = _bom_sniff(data)
    if name is not None:
        return _decode(data[bom_len:], name), name
    try:
        return data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        return _decode(data, "windows-1252"), "windows-1252"


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


# --------------------------------------------------------------------------------------
# Reading documents from disk
# --------------------------------------------------------------------------------------

#: File extensions (lower case) read as plain text; every other file is HTML.
TEXT_EXTENSIONS = frozenset({".txt", ".md", ".markdown", ".text"})


class DocumentError(Exception):
    """A document file could not be read.

    ``path`` is the path as given, ``problem`` a short phrase; ``str()`` is one line,
    e.g. ``"v2.html: file not found"``, ``"v2.html: not a file"``,
    ``"v2.html: unreadable (permission denied)"``.
    """

    def __init__(self, path: str | os.PathLike, problem: str) -> None:
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


def _os_problem(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "file not found"
    if isinstance(exc, (IsADirectoryError, NotADirectoryError)):
        return "not a file" if isinstance(exc, IsADirectoryError) else "file not found"
    if isinstance(exc, PermissionError):
        return "unreadable (permission denied)"
    reason = (exc.strerror or type(exc).__name__).lower()
    return f"unreadable ({reason})"


def read_document(path: str | os.PathLike) -> tuple[str, str]:
    """Read a document file: ``(kind, content)``.

    ``kind`` is ``"text"`` for the extensions in :data:`TEXT_EXTENSIONS` (case-insensitive)
    and ``"html"`` for every other file. ``content`` is the decoded file: for ``"html"`` the
    HTML source as decoded by :func:`decode_html` (pass it to :func:`body_text` or
    :func:`extract`), for ``"text"`` the text itself as decoded by :func:`decode_text`.
    Decoding never fails.

    Raises :class:`DocumentError` when the path does not exist, is not a regular file (a
    directory, a FIFO, a device) or cannot be read.
    """
    text_path = os.fspath(path)
    try:
        info = os.stat(text_path)
    except OSError as exc:
        raise DocumentError(path, _os_problem(exc)) from exc
    if not stat.S_ISREG(info.st_mode):
        raise DocumentError(path, "not a file")
    try:
        with open(text_path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise DocumentError(path, _os_problem(exc)) from exc
    if os.path.splitext(text_path)[1].lower() in TEXT_EXTENSIONS:
        return "text", decode_text(data)[0]
    return "html", decode_html(data)[0]


def document_title(path: str | os.PathLike, kind: str, raw: str) -> str:
    """A document's title for people: its HTML ``<title>``, or a text's first non-empty
    line (a Markdown heading without its ``#``), at most 120 characters; else the file
    name. The CLI and the desktop wizard both use this one rule."""
    import html as html_mod
    import re

    if kind == "html":
        m = re.search(r"<title[^>]*>(.*?)</title>", raw[:20000], re.I | re.S)
        title = " ".join(html_mod.unescape(m.group(1)).split()) if m else ""
    else:
        title = next((ln.strip() for ln in raw.splitlines()[:50] if ln.strip()), "")
        title = title.lstrip("#").strip()
    if not title or len(title) > 120:
        return os.path.basename(os.fspath(path))
    return title
