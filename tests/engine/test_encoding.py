"""Unit tests for engine.text.encoding: the WHATWG byte decoding of documents (BOM, prescan,
UTF-8, windows-1252)."""

from __future__ import annotations

from engine.text.encoding import decode_html, decode_text
from engine.text.encoding_labels import get_encoding
from engine.text.html_text import body_text, extract

# ----------------------------------------------------------------------------------------
# Byte decoding
# ----------------------------------------------------------------------------------------


def test_bom_utf8() -> None:
    assert decode_html(b"\xef\xbb\xbf<p>caf\xc3\xa9") == ("<p>café", "UTF-8")


def test_bom_utf16le_and_be() -> None:
    html = "<p>café \U0001f600</p>"
    assert decode_html(b"\xff\xfe" + html.encode("utf-16-le")) == (html, "UTF-16LE")
    assert decode_html(b"\xfe\xff" + html.encode("utf-16-be")) == (html, "UTF-16BE")
    assert body_text(b"\xff\xfe" + html.encode("utf-16-le")) == "café \U0001f600"


def test_bom_beats_meta() -> None:
    assert decode_html(b"\xef\xbb\xbf<meta charset=windows-1252>\xc3\xa9")[1] == "UTF-8"


def test_meta_charset() -> None:
    assert decode_html(b'<meta charset="windows-1251"><p>\xcf\xf0') == (
        '<meta charset="windows-1251"><p>Пр',
        "windows-1251",
    )
    assert decode_html(b"<META CharSet = ' KOI8-R '>\xc1")[1] == "KOI8-R"
    assert decode_html(b"<meta charset=iso-8859-1>\xe9")[1] == "windows-1252"


def test_meta_http_equiv_content_type() -> None:
    data = b'<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">\xcf'
    assert decode_html(data) == (data[:-1].decode("ascii") + "П", "windows-1251")
    # content without http-equiv=content-type does not count.
    assert decode_html(b'<meta name=x content="charset=koi8-r">\xc3\xa9')[1] == "UTF-8"


def test_meta_declaring_utf16_means_utf8() -> None:
    data = '<meta charset="utf-16"><p>café'.encode()
    assert decode_html(data) == ('<meta charset="utf-16"><p>café', "UTF-8")
    assert decode_html(b'<meta charset="UTF-16BE">\xc3\xa9')[1] == "UTF-8"


def test_meta_charset_wins_over_valid_utf8() -> None:
    # Declared windows-1252 decodes as windows-1252 even when the bytes are valid UTF-8.
    assert decode_html(b"<meta charset=windows-1252>\xc3\xa9") == (
        "<meta charset=windows-1252>Ã©",
        "windows-1252",
    )


def test_prescan_details() -> None:
    # Comments and attribute values that look like a meta are skipped.
    assert decode_html(b"<!-- <meta charset=koi8-r> -->\xc3\xa9")[1] == "UTF-8"
    assert decode_html(b'<p title="<meta charset=koi8-r>">\xc3\xa9')[1] == "UTF-8"
    # The first meta with an encoding wins; an unknown label does not stop the scan.
    assert decode_html(b"<meta charset=bogus><meta charset=koi8-r>")[1] == "KOI8-R"
    assert decode_html(b"<meta charset=koi8-r><meta charset=windows-1251>")[1] == "KOI8-R"
    # Only the first 1024 bytes are scanned.
    late = b"<!DOCTYPE html>" + b" " * 1009 + b"<meta charset=koi8-r>"
    assert decode_html(late)[1] == "UTF-8"
    assert decode_html(late[15 + 50 :])[1] == "KOI8-R"
    # An XML declaration counts when no meta does.
    assert decode_html(b'<?xml version="1.0" encoding="windows-1251"?><p>\xcf')[1] == (
        "windows-1251"
    )
    assert decode_html(b"<\x00?\x00x\x00m\x00l\x00")[1] == "UTF-16LE"
    assert decode_html(b"<meta charset=x-user-defined>\x80") == (
        "<meta charset=x-user-defined>€",
        "windows-1252",
    )


def test_valid_utf8_without_declaration_is_utf8() -> None:
    assert decode_html("naïve \U0001f600 café".encode()) == ("naïve \U0001f600 café", "UTF-8")
    assert decode_html(b"plain ascii") == ("plain ascii", "UTF-8")


def test_invalid_utf8_falls_back_to_windows_1252() -> None:
    assert decode_html(b"caf\xe9 \x93quoted\x94 \x80") == ("café “quoted” €", "windows-1252")


def test_windows_1252_undefined_bytes_map_to_c1_controls() -> None:
    # Python's cp1252 codec leaves these five undefined; the Encoding Standard does not.
    text, encoding = decode_html(b"\xe9\x81\x8d\x8f\x90\x9d")
    assert encoding == "windows-1252"
    assert text == "é\x81\x8d\x8f\x90\x9d"


def test_every_byte_decodes_in_windows_1252() -> None:
    text, encoding = decode_html(bytes(range(256)))
    assert encoding == "windows-1252"
    assert len(text) == 256 and "\ufffd" not in text


def test_declared_utf8_with_invalid_bytes_uses_replacement() -> None:
    assert decode_html(b"<meta charset=utf-8>a\xffb") == ("<meta charset=utf-8>a\ufffdb", "UTF-8")


def test_emoji_counts_one_code_point() -> None:
    html = "<p>\U0001f600 <b>anchor</b></p>".encode()
    x = extract(html)
    assert x.text == "\U0001f600 anchor"
    assert x.text.index("anchor") == 2  # code points (UTF-16 would say 3)
    assert x.encoding == "UTF-8"


def test_get_encoding_labels() -> None:
    assert get_encoding(" Latin1\t") == "windows-1252"
    assert get_encoding("utf8") == "UTF-8"
    assert get_encoding("sjis") == "Shift_JIS"
    assert get_encoding("\u212aoi8-r") is None  # KELVIN SIGN is not an ASCII K
    assert get_encoding("nonsense") is None


def test_replacement_encoding() -> None:
    assert decode_html(b"<meta charset=iso-2022-kr>abc") == ("\ufffd", "replacement")


def test_decode_text() -> None:
    assert decode_text(b"a\r\nb\xc3\xa9") == ("a\r\nbé", "UTF-8")  # as is, CR LF kept
    assert decode_text(b"<meta charset=koi8-r>\xe9") == ("<meta charset=koi8-r>é", "windows-1252")
    assert decode_text(b"\xff\xfea\x00") == ("a", "UTF-16LE")
