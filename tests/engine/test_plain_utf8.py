"""A document's own bytes stand for its text where decode_html reads them as UTF-8 with
nothing replaced (engine.text.encoding.plain_utf8): then the fast path parses them as they
are, without decoding the page first. It agrees with decode_html on every input."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from engine.text import html_text
from engine.text.encoding import decode_html, plain_utf8

_parts = st.one_of(
    st.text(max_size=20),
    st.sampled_from(
        [
            b"\xef\xbb\xbf",
            b"\xfe\xff",
            b"\xff\xfe",
            b'<meta charset="utf-8">',
            b'<meta charset="windows-1252">',
            b'<meta charset="utf-16">',
            b'<?xml version="1.0" encoding="iso-8859-2"?>',
            b"\xe9",  # windows-1252 e-acute: not UTF-8
            b"\xc3",  # a sequence cut short
            b"\xed\xa0\x80",  # a surrogate
            b"\xf4\x90\x80\x80",  # past U+10FFFF
            b"\xc0\xaf",  # overlong
            "ſK".encode(),
            b"\x00a\x00b",
        ]
    ),
).map(lambda p: p.encode("utf-8") if isinstance(p, str) else p)


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.lists(_parts, max_size=12), st.integers(0, 70_000))
def test_plain_utf8_agrees_with_decode_html(parts: list[bytes], pad: int) -> None:
    data = b"".join(parts) + b"a" * pad  # over 64 kB, the runs are found with numpy
    text, encoding = decode_html(data)
    plain = plain_utf8(data)
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    valid = True
    try:
        data[bom:].decode("utf-8")
    except UnicodeDecodeError:
        valid = False
    assert (plain is not None) == (encoding == "UTF-8" and valid)
    if plain is not None:
        assert plain.utf8 == data[bom:]
        assert plain.utf8.decode("utf-8") == text
        for c in html_text._FOLDS:
            assert (c.encode() in plain.non_ascii) == (c in text)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(_parts, max_size=12))
def test_text_from_bytes_equals_text_from_their_decoding(parts: list[bytes]) -> None:
    data = b"".join(parts) + b"<p>" + b"words " * 12_000 + b"</p>"
    text, _ = decode_html(data)
    assert html_text.body_text(data) == html_text.body_text(text)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(_parts, max_size=12), st.integers(0, 3), st.sampled_from([b"", b"\xc3", b"a"]))
def test_the_runs_of_a_large_page_are_those_of_the_pattern(parts, gap, last):
    # Over 64 kB the runs of bytes over 0x7F (each with the byte after it) are found by
    # numpy passes; they are the ones the pattern finds, a run at the very end included.
    from engine.text.encoding import _HIGH_RUN, _non_ascii_runs

    data = b"x" * (1 << 16) + (b"a" * gap).join(parts) + last
    assert _non_ascii_runs(data) == b"".join(_HIGH_RUN.findall(data))
