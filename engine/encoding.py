"""Decoding an HTML or plain-text document's bytes the way a browser does.

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

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import codecs

__all__ = ["decode_html", "decode_text", "get_encoding"]

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
