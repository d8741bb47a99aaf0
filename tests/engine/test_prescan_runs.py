"""The prescan's runs (engine.text.encoding: "get an attribute", a tag's name, the skip to
the next "<") are read at once by regular expressions and ``find``; they find what the
HTML Standard's byte-at-a-time steps find (the former form, kept here as the reference) on
generated head bytes: the same encoding, or none, for every input."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from engine.text import encoding
from engine.text.encoding_labels import get_encoding

_BYTES_LOWER = encoding._BYTES_LOWER
_charset_from_content = encoding._charset_from_content
_is_ascii_alpha = encoding._is_ascii_alpha
_FAILURE = encoding._FAILURE

# The byte-at-a-time prescan as it was (HTML Standard, "Prescan a byte stream to determine
# its encoding"), verbatim.
_WS = frozenset(b"\t\n\x0c\r ")
_WS_SLASH = frozenset(b"\t\n\x0c\r /")
_WS_GT = frozenset(b"\t\n\x0c\r >")


class _OutOfBytes(Exception):
    pass


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


def reference_meta_scan(b: bytes) -> str | None:
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


_PIECES = st.one_of(
    st.sampled_from(
        [b"<meta", b"<META", b"<meta ", b"<meta/", b"<metax", b"<meta\t", b"<m", b"<", b"</"]
    ),
    st.sampled_from([b"charset", b"CHARSET", b"http-equiv", b"content", b"Content-Type"]),
    st.sampled_from([b"=", b" = ", b"==", b"'", b'"', b"/", b">", b" ", b"\t\n", b"\x0c\r"]),
    st.sampled_from([b"utf-8", b"KOI8-R", b"windows-1251", b"bogus", b"utf-16", b"x-user-defined"]),
    st.sampled_from([b"text/html; charset=koi8-r", b"charset='iso-8859-2'", b";", b"x"]),
    st.sampled_from([b"<!--", b"-->", b"<!", b"<?", b"<?xml", b"<p", b"<a b=c>", b"</p>"]),
    st.sampled_from(
        [
            b"<meta charset=koi8-r>",
            b"<meta charset='windows-1251'/>",
            b'<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-2">',
            b"<meta content='charset=shift_jis' http-equiv=content-type>",
            b"<meta name=x content=y>",
            b'<html lang="en" class=a\tb>',
            b'<link href="a.css" rel=stylesheet/>',
        ]
    ),
    st.binary(max_size=4),
)


@settings(max_examples=2000, deadline=None, derandomize=True)
@given(st.lists(_PIECES, max_size=40))
def test_the_prescan_finds_what_the_byte_steps_find(pieces):
    head = b"".join(pieces)
    assert encoding._meta_scan(head) == reference_meta_scan(head), head
    for cut in range(0, len(head), 7):  # the input ending anywhere: inside a tag, a value
        assert encoding._meta_scan(head[:cut]) == reference_meta_scan(head[:cut]), head[:cut]


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.binary(max_size=200))
def test_the_prescan_finds_what_the_byte_steps_find_on_any_bytes(head):
    assert encoding._meta_scan(head) == reference_meta_scan(head), head


@settings(max_examples=1000, deadline=None, derandomize=True)
@given(st.lists(_PIECES, max_size=12))
def test_an_attribute_is_read_as_the_byte_steps_read_it(pieces):
    b = b"".join(pieces)
    for pos in range(len(b)):
        try:
            want = _get_attribute(b, pos)
        except _OutOfBytes:
            want = None
        try:
            got = encoding._get_attribute(b, pos)
        except encoding._OutOfBytes:
            got = None
        assert got == want, (b, pos)


def test_the_prescan_on_real_heads():
    from pathlib import Path

    for page in sorted(Path("/work/shared/data/standardebooks").glob("*/*.xhtml")):
        head = page.read_bytes()[:1024]
        assert encoding._meta_scan(head) == reference_meta_scan(head)
    for head in (
        b'<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">',
        b"<meta content='text/html; charset=windows-1251' http-equiv=content-type>",
        b"<meta charset=bogus><meta charset=koi8-r>",
        b"<html lang=en><head><meta name=x content=y><meta charset=Shift_JIS>",
        b"<meta =charset=koi8-r charset=koi8-r>",
        b"<meta charset=koi8-r",
    ):
        assert encoding._meta_scan(head) == reference_meta_scan(head), head
