"""Bad document inputs: binary files refused, UTF-16 without a BOM recognised, bytes that
did not decode said once (engine.text.documents, engine.text.encoding; docs/engine.md, "Text
extraction")."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engine.text.documents import DocumentError, binary_kind, open_document, read_document
from engine.text.encoding import decode_html, decode_text, decoding_problem, utf16_without_bom

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4

SIGNED = [
    (PNG, "a PNG image"),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "a JPEG image"),
    (b"GIF89a\x01\x00\x01\x00", "a GIF image"),
    (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "a WebP image"),
    (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "a PDF document"),
    (b"PK\x03\x04\x14\x00\x00\x00\x08\x00word/document.xml", "a Word document"),
    (b"PK\x03\x04\x14\x00\x00\x00mimetypeapplication/epub+zip", "an EPUB e-book"),
    (b"PK\x03\x04\x14\x00\x00\x00mimetypeapplication/vnd.oasis.opendocument.text", "OpenDocument"),
    (b"PK\x03\x04\x0a\x00\x00\x00other.bin", "a ZIP archive"),
    (b"\x1f\x8b\x08\x00\x00\x00\x00\x00", "a gzip archive"),
    (b"\x7fELF\x02\x01\x01\x00", "an ELF program"),
    (b"SQLite format 3\x00\x10\x00", "an SQLite database"),
]


@pytest.mark.parametrize(("data", "what"), SIGNED)
def test_known_signatures_are_named(tmp_path, data: bytes, what: str) -> None:
    assert what in (binary_kind(data) or "")
    path = tmp_path / "v2.html"
    path.write_bytes(data)
    with pytest.raises(DocumentError) as info:
        read_document(path)
    message = str(info.value)
    assert message.startswith(f"{path}: looks like ")
    head, _, step = message.partition(", not a text or HTML document")
    # formats people write in get the next step; the rest end there
    if what in ("a PDF document", "OpenDocument"):
        assert step.startswith("; this program cannot read it yet: ") and ".docx" in step
    else:
        assert step == ""
    assert "\n" not in message


@pytest.mark.parametrize(
    ("name", "data", "what", "step"),
    [
        ("memo.pdf", b"%PDF-1.7\n1 0 obj", "a PDF document", "save it as .docx (Word), HTML"),
        ("memo.odt", SIGNED[7][0], "an OpenDocument text (.odt)", "save it as .docx (Word)"),
        ("memo.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(500), "an old Word", ".docx"),
        ("Memo.PDF", b"plain words in a file named .PDF", "a PDF document", ".docx"),
        ("memo.rtf", b"{\\rtf1\\ansi hello}", "a Rich Text document", ".docx"),
    ],
)
def test_formats_not_read_yet_are_refused_with_the_next_step(tmp_path, name, data, what, step):
    from engine.text.documents import not_read_yet

    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(DocumentError) as info:
        open_document(path)
    message = str(info.value)
    assert message.startswith(f"{path}: is {what}")
    assert "cannot read yet: " in message and step in message.partition("cannot read yet: ")[2]
    assert "\n" not in message and not_read_yet(path) == info.value.problem
    # a missing file is still said as missing, not as a format
    with pytest.raises(DocumentError, match="not found"):
        open_document(tmp_path / ("gone-" + name))


def test_a_pdf_renamed_txt_gets_the_same_next_step(tmp_path) -> None:
    path = tmp_path / "memo.txt"
    path.write_bytes(b"%PDF-1.7\n1 0 obj")
    with pytest.raises(DocumentError, match=r"looks like a PDF document.*save it as \.docx"):
        open_document(path)


def test_the_file_dialog_lists_every_format_read() -> None:
    from engine.text.documents import READ_FORMATS, file_dialog_filter, not_read_yet

    parts = file_dialog_filter().split(";;")
    assert parts[0].startswith("Documents (") and parts[-1] == "All files (*)"
    every = parts[0].removeprefix("Documents (").removesuffix(")").split()
    for name, exts in READ_FORMATS:
        assert f"{name} ({' '.join('*' + e for e in exts)})" in parts
        for ext in exts:
            assert f"*{ext}" in every
            assert not_read_yet(f"memo{ext}") is None
    listed = {e for _n, exts in READ_FORMATS for e in exts}
    assert {".html", ".md", ".txt"} <= listed
    assert not listed & {".pdf", ".odt", ".doc"}


def test_a_stray_nul_is_text_and_control_bytes_are_binary(tmp_path) -> None:
    # A browser renders a page with a stray NUL (docs/engine.md): not binary.
    assert binary_kind(b"<html><body>a\x00b budget</body></html>") is None
    assert binary_kind(b"plain words\x00 and more words " * 20) is None
    # Mostly NUL (a binary record format without a signature) is binary by the share.
    assert "control bytes" in (binary_kind(b"\x00\x00\x00\x01ab" * 200) or "")
    assert "control bytes" in (binary_kind(b"abc\x01\x02\x03\x04\x05def" * 100) or "")
    # Ordinary text, tabs and ESC (ANSI colours in a log) are text.
    assert binary_kind(b"line\tone\r\nline two\x0c\x1b[1m bold\n" * 50) is None
    path = tmp_path / "notes.txt"
    path.write_bytes(bytes(range(256)) * 10)
    with pytest.raises(DocumentError, match=r"notes\.txt: looks like binary data"):
        open_document(path)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_is_text(tmp_path, codec: str) -> None:
    source = "<html><body><p>Hello wörld, budget €10</p></body></html>"
    data = source.encode(codec)
    name = "UTF-16LE" if codec.endswith("le") else "UTF-16BE"
    assert binary_kind(data) is None
    assert utf16_without_bom(data) == name
    assert decode_html(data) == (source, name)
    assert decode_text(data) == (source, name)
    path = tmp_path / "v2.html"
    path.write_bytes(data)
    doc = open_document(path)
    assert (doc.kind, doc.content, doc.encoding, doc.notice) == ("html", source, name, None)


def test_text_that_starts_like_a_short_signature_is_text() -> None:
    assert binary_kind(b"ID3 tags are metadata in MP3 files.\n") is None
    assert binary_kind(b"BZh is how a bzip2 file starts.\n") is None
    assert binary_kind(b"ID3\x03\x00\x00\x00\x00\x0f") == "an MP3 audio file"
    # 16-bit little-endian numbers have the NUL pattern of UTF-16 but decode to controls.
    words = b"".join(n.to_bytes(2, "little") for n in range(1, 20)) * 50
    assert "binary data" in (binary_kind(words) or "")


def test_ascii_and_utf8_are_not_taken_for_utf16() -> None:
    assert utf16_without_bom(b"<p>plain ASCII</p>" * 10) is None
    assert utf16_without_bom("日本語のテキスト".encode()) is None
    assert decode_html(b"<p>plain</p>") == ("<p>plain</p>", "UTF-8")


def test_undeclared_shift_jis_text_decodes_as_windows_1252_and_is_refused(tmp_path) -> None:
    data = "予算は一千万円です。".encode("shift_jis")
    text, name = decode_text(data)
    assert name == "windows-1252" and text.startswith(
        "\u2014\\\u017dZ"
    )  # mojibake, as Firefox shows
    problem = decoding_problem(data, "text")
    assert problem is not None and problem.startswith("not valid UTF-8 (")
    assert "read as windows-1252" in problem and "save it as UTF-8" in problem
    # At intake the guess is refused (tests/engine/test_intake_encoding.py): mojibake would
    # read as a changed or missing quote.
    path = tmp_path / "ja.txt"
    path.write_bytes(data)
    with pytest.raises(DocumentError, match=r"^.*ja\.txt: not valid UTF-8 \(the first of"):
        read_document(path, on_notice=None)


def test_invalid_bytes_in_a_declared_encoding_are_counted() -> None:
    data = b'<meta charset="utf-8"><p>abc \xff\xfe def \xe2\x82\xac</p>'
    assert decoding_problem(data, "html") == (
        "2 bytes are not valid UTF-8 and were replaced by U+FFFD, as a browser shows them"
    )
    assert decoding_problem(b"<meta charset=shift_jis><p>abc\x82</p>", "html") == (
        "1 byte is not valid Shift_JIS and was replaced by U+FFFD, as a browser shows them"
    )
    # A U+FFFD that is in the file itself is not a decoding problem.
    assert decoding_problem("<p>a \ufffd b</p>".encode(), "html") is None
    assert decoding_problem(b"<p>caf\xc3\xa9</p>", "html") is None
    assert decoding_problem(b'<meta charset="windows-1252"><p>caf\xe9</p>', "html") is None


def _arl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "engine.cli.main", *args], capture_output=True, timeout=120
    )


def test_cli_text_refuses_a_png_with_one_line(tmp_path) -> None:
    path = tmp_path / "some.png"
    path.write_bytes(PNG)
    result = _arl("text", str(path))
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr.decode() == (
        f"arl: {path}: looks like a PNG image, not a text or HTML document\n"
    )


def test_cli_text_says_once_what_did_not_decode(tmp_path) -> None:
    path = tmp_path / "bad.html"
    path.write_bytes(b"<html><body><p>abc \xff\xfe\xc3( def</p></body></html>")
    result = _arl("text", str(path))
    assert result.returncode == 2 and result.stdout == b""  # undeclared: refused
    assert result.stderr.decode() == (
        f"arl: {path}: not valid UTF-8 (the first of 3 such bytes at byte offset 19) and no "
        "encoding is declared, so which text it holds would be a guess; save it as UTF-8, or "
        "declare its encoding (<meta charset=...>)\n"
    )
    path.write_bytes(b'<meta charset="utf-8"><p>abc \xff\xfe\xc3( def</p>')
    result = _arl("text", str(path))
    assert result.returncode == 0
    assert result.stdout.decode("utf-8") == "abc \ufffd\ufffd\ufffd( def"
    lines = result.stderr.decode().splitlines()
    assert lines == [
        f"{path}: 3 bytes are not valid UTF-8 and were replaced by U+FFFD, as a browser shows them"
    ]


def test_nul_in_plain_text_and_markdown_reads_as_a_browser_shows_it(tmp_path) -> None:
    """A browser's text/plain page shows U+FFFD for a NUL (HTML Standard, PLAINTEXT state;
    CommonMark too): one character for one, so offsets keep their place, and a notice."""
    for name in ("notes.txt", "notes.md"):
        path = tmp_path / name
        path.write_bytes("Budget \u20ac10\x00 for the trip.\x00\n".encode())
        doc = open_document(path)
        assert doc.content == "Budget \u20ac10\ufffd for the trip.\ufffd\n"
        assert doc.notice == "2 NUL bytes (U+0000) read as U+FFFD, as a browser shows them"


def test_nul_in_html_is_left_to_the_parser(tmp_path) -> None:
    from engine.text.html_text import extract

    path = tmp_path / "page.html"
    path.write_bytes(b"<p>Budget\x00 ten</p><textarea>a\x00b</textarea>")
    doc = open_document(path)
    assert doc.notice is None and "\x00" in doc.content
    # In body text the parser drops it; in RCDATA it is U+FFFD (HTML Standard).
    assert extract(doc.content).text == "Budget tena\ufffdb"
