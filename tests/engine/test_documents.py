"""Unit tests for engine.text.documents: reading document files (kinds, errors, decoding)."""

from __future__ import annotations

import os
import sys

import pytest

from engine.text.documents import DocumentError, read_document
from engine.text.html_text import body_text

# ----------------------------------------------------------------------------------------
# read_document
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("notes.txt", "text"),
        ("x.text", "text"),
        ("README.md", "markdown"),
        ("a.MARKDOWN", "markdown"),
    ],
)
def test_read_document_text_kinds(tmp_path, name: str, kind: str) -> None:
    # Markdown is decoded as text is (its source, rendered only when read as a version)
    path = tmp_path / name
    path.write_bytes(b"<b>not markup</b>\r\ncaf\xc3\xa9")
    assert read_document(path) == (kind, "<b>not markup</b>\r\ncafé")


@pytest.mark.parametrize("name", ["v1.html", "v1.xhtml", "v1.htm", "v1", "v1.txt.html"])
def test_read_document_html_kinds(tmp_path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf<p>caf\xc3\xa9</p>")
    kind, html = read_document(str(path))
    assert (kind, html) == ("html", "<p>café</p>")
    assert body_text(html) == "café"


def test_read_document_missing_file(tmp_path) -> None:
    with pytest.raises(DocumentError) as info:
        read_document(tmp_path / "v2.html")
    assert str(info.value) == f"{tmp_path / 'v2.html'}: file not found"
    assert info.value.problem == "file not found"


def test_read_document_relative_path_message(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DocumentError, match=r"^v2\.html: file not found$"):
        read_document("v2.html")


def test_read_document_directory(tmp_path) -> None:
    (tmp_path / "v2.html").mkdir()
    with pytest.raises(DocumentError) as info:
        read_document(tmp_path / "v2.html")
    assert info.value.problem == "is a folder, not a file"
    assert "\n" not in str(info.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_read_document_fifo_is_not_a_file(tmp_path) -> None:
    os.mkfifo(tmp_path / "pipe.html")
    with pytest.raises(DocumentError, match=r"pipe\.html: is a pipe \(FIFO\), not a regular file$"):
        read_document(tmp_path / "pipe.html")


def test_read_document_permission_denied(tmp_path, monkeypatch) -> None:
    """A file the user may not read is a one-line error naming it. Runs for every user:
    chmod 0 denies an ordinary user; root reads anything, so for root (as in many CI
    containers) the operating system's refusal is simulated at ``open``."""
    path = tmp_path / "v2.html"
    path.write_text("x")
    path.chmod(0)
    if sys.platform == "win32" or os.geteuid() == 0:

        def denied(*args, **kwargs):
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr("os.open", denied)
    try:
        with pytest.raises(DocumentError) as info:
            read_document(path)
    finally:
        path.chmod(0o644)
    assert str(info.value) == f"{path}: unreadable (permission denied)"


def test_read_document_decodes_or_refuses_in_one_line(tmp_path) -> None:
    path = tmp_path / "bytes.html"
    data = bytes(range(0x20, 256))  # no control bytes: text, but not valid UTF-8
    path.write_bytes(data)
    with pytest.raises(DocumentError) as info:  # undeclared: its text would be a guess
        read_document(path, on_notice=None)
    assert str(info.value).startswith(f"{path}: not valid UTF-8 (the first of 128 such bytes")
    path.write_bytes(b'<meta charset="windows-1252">' + data)  # declared: every byte decodes
    kind, html = read_document(path, on_notice=None)
    assert kind == "html" and len(html) == len(data) + 29


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_read_document_device_is_refused_at_once(device) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    with pytest.raises(DocumentError, match=r"is a device, not a regular file$"):
        read_document(device)


def test_read_document_over_the_size_cap(tmp_path, monkeypatch) -> None:
    from engine.text import documents

    path = tmp_path / "big.html"
    path.write_bytes(b"<p>" + b"x" * 5000)
    monkeypatch.setattr(documents, "MAX_DOCUMENT_BYTES", 1000)
    with pytest.raises(
        DocumentError, match=r"big\.html: too large \(5,003 bytes; the limit is 1,000 bytes\)$"
    ):
        read_document(path)


def test_read_document_through_a_symlink_to_a_device(tmp_path) -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    (tmp_path / "v2.html").symlink_to("/dev/zero")
    with pytest.raises(DocumentError, match="is a device"):
        read_document(tmp_path / "v2.html")
