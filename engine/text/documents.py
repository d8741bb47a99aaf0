"""Reading document files from disk: kind by extension, bytes decoded, titles for people.

A path names an HTML document (decoded by :func:`engine.text.encoding.decode_html`) unless its
extension is in :data:`TEXT_EXTENSIONS` (plain text) or :data:`MARKDOWN_EXTENSIONS`
(Markdown, rendered by :mod:`engine.text.markdown`), both decoded by
:func:`engine.text.encoding.decode_text`, or in :data:`WORD_EXTENSIONS` (or is ``.doc``), in
which case it is a Word document rendered to HTML by :func:`engine.text.docx.read_docx`
(its comments come with it, :attr:`Document.word`). Only regular files are read; every failure is a
:class:`DocumentError` whose ``str()`` is one line naming the file and the problem.

A file that is not text at all is refused (:func:`binary_kind`): a known file signature
("magic number": PNG, JPEG, PDF, ZIP/DOCX/ODT/EPUB, gzip, ELF, SQLite...) is named, and
other bytes are binary when more than 10 % of them are control bytes (NUL among them;
UTF-16, which :func:`engine.text.encoding.utf16_without_bom` recognises, by its
characters). A stray NUL byte is text, as a browser renders it: in HTML the parser drops it
from body text or shows U+FFFD (HTML Standard, tokenization and "in body"); in plain text
and Markdown it reads as U+FFFD, as a browser's text/plain page shows it (the PLAINTEXT
state) and as CommonMark requires (:func:`nul_as_browser_shows`).
Bytes that decode only with replacements or by the windows-1252 fallback are still opened,
as a browser opens them, with one line saying so (:attr:`Document.notice`).

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from engine.safe_io import BoundedInputError, read_regular_file
from engine.text.encoding import (
    _decode,
    _prescan,
    decode_html,
    decode_text,
    decoding_problem,
    utf16_without_bom,
    utf32_with_bom,
)
from engine.vocabulary import DocumentKind

if TYPE_CHECKING:
    from engine.text.docx import WordDocument

__all__ = [
    "MARKDOWN_EXTENSIONS",
    "READ_FORMATS",
    "TEXT_EXTENSIONS",
    "WORD_EXTENSIONS",
    "Document",
    "DocumentError",
    "binary_kind",
    "file_dialog_filter",
    "kind_of",
    "not_read_yet",
    "nul_as_browser_shows",
    "open_document",
    "read_document",
]

#: Size cap of a document file: 100 MB (the largest pages measured are 10-20 MB).
MAX_DOCUMENT_BYTES = 100 * 1024 * 1024

#: File extensions (lower case) read as plain text.
TEXT_EXTENSIONS = frozenset({".txt", ".text"})
#: File extensions (lower case) read as Markdown (rendered: engine.text.markdown). Every
#: file whose extension is in neither set is HTML.
MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown"})

#: The formats this program reads, for people and file dialogs: (name, extensions), the
#: extensions lower case with their dot. A file of any other extension is read as HTML.
READ_FORMATS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("HTML", (".html", ".htm", ".xhtml", ".xht")),
    ("Markdown", (".md", ".markdown")),
    ("Plain text", (".txt", ".text")),
    ("Word", (".docx", ".docm", ".dotx", ".dotm")),
)

# Formats people hold their drafts in that this program does not read yet: what each is
# and the next step, in words. Keyed by extension, and by what the file signature says
# (:func:`binary_kind`), so a PDF renamed .txt gets the same next step.
_SAVE_AS_DOCX = "save it as .docx (Word) from your editor, then open that file"
_NOT_READ_YET: dict[str, tuple[str, str]] = {
    ".pdf": (
        "a PDF document",
        "open the document it was made from and save it as .docx (Word), "
        "HTML or plain text from your editor",
    ),
    ".odt": ("an OpenDocument text (.odt)", _SAVE_AS_DOCX),
    ".ott": ("an OpenDocument template (.ott)", _SAVE_AS_DOCX),
    ".doc": ("an old Word document (.doc)", _SAVE_AS_DOCX),
    ".dot": ("an old Word template (.dot)", _SAVE_AS_DOCX),
    ".rtf": ("a Rich Text document (.rtf)", _SAVE_AS_DOCX),
    ".pages": ("a Pages document", "export it as Word (.docx) from Pages: File > Export To"),
}
_NEXT_STEP_BY_SIGNATURE = {
    "a PDF document": _NOT_READ_YET[".pdf"][1],
    "an OpenDocument file (.odt, .ods...; a zip archive)": _SAVE_AS_DOCX,
    "an old Microsoft Office document (.doc, .xls, .ppt)": _SAVE_AS_DOCX,
}


def not_read_yet(path: str | os.PathLike) -> str | None:
    """Why a file of this extension is refused, with the next step, in words (``"is a PDF
    document, which this program cannot read yet: open the document it was made from
    and save it as .docx ..."``), or None for a format it reads. Never raises."""
    found = _NOT_READ_YET.get(os.path.splitext(os.fspath(path))[1].lower())
    if found is None:
        return None
    what, step = found
    return f"is {what}, which this program cannot read yet: {step}"


def file_dialog_filter() -> str:
    """A Qt file dialog's name filter listing every format read (:data:`READ_FORMATS`):
    ``"Documents (*.html ... *.txt *.text);;HTML (*.html ...);;...;;All files (*)"``."""

    def patterns(exts: tuple[str, ...]) -> str:
        return " ".join(f"*{e}" for e in exts)

    every = tuple(e for _name, exts in READ_FORMATS for e in exts)
    parts = [f"Documents ({patterns(every)})"]
    parts += [f"{name} ({patterns(exts)})" for name, exts in READ_FORMATS]
    return ";;".join([*parts, "All files (*)"])


#: File extensions (lower case) read as Word documents (Office Open XML word processing).
WORD_EXTENSIONS = frozenset({".docx", ".docm", ".dotx", ".dotm"})


class DocumentError(Exception):
    """A document file could not be read.

    ``path`` is the path as given, ``problem`` a short phrase; ``str()`` is one line,
    e.g. ``"v2.html: file not found"``, ``"v2.html: is a folder, not a file"``,
    ``"v2.html: is a pipe (FIFO), not a regular file"``,
    ``"v2.html: unreadable (permission denied)"``.
    """

    def __init__(self, path: str | os.PathLike, problem: str) -> None:
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


# File signatures ("magic numbers") of formats people pick by mistake: (offset, bytes, what
# it is). Sources: each format's specification (PNG 5.2, JFIF/EXIF SOI marker, GIF89a,
# RIFF/WebP container, PDF 7.5.2, APPNOTE.TXT 4.3.7 for ZIP, RFC 1952 for gzip, the ELF
# header, the SQLite file format 1.3, the OLE2/CFB header, ISO/IEC 14496-12 for MP4).
_SIGNATURES: tuple[tuple[int, bytes, str], ...] = (
    (0, b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (0, b"\xff\xd8\xff", "a JPEG image"),
    (0, b"GIF87a", "a GIF image"),
    (0, b"GIF89a", "a GIF image"),
    (0, b"%PDF-", "a PDF document"),
    (0, b"\x1f\x8b", "a gzip archive"),
    (0, b"\xfd7zXZ\x00", "an xz archive"),
    (0, b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (0, b"Rar!\x1a\x07", "a RAR archive"),
    (0, b"\x7fELF", "an ELF program or library"),
    (0, b"SQLite format 3\x00", "an SQLite database"),
    (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office document (.doc, .xls, .ppt)"),
    (0, b"OggS", "an Ogg audio or video file"),
    (0, b"\x00asm", "a WebAssembly module"),
    (0, b"\xca\xfe\xba\xbe", "a Java class or Mach-O program"),
    (0, b"\xcf\xfa\xed\xfe", "a Mach-O program"),
    (4, b"ftyp", "an MP4/QuickTime video or HEIC image"),
    (257, b"ustar\x00", "a tar archive"),
    (257, b"ustar  \x00", "a tar archive"),
)
# Signatures short enough to open a sentence are checked with the byte after them: bzip2
# ("BZh" + block size digit + block magic), MP3 with an ID3v2 tag ("ID3" + major version).
_CHECKED_SIGNATURES = (
    (re.compile(rb"BZh[1-9]1AY&SY"), "a bzip2 archive"),
    (re.compile(rb"ID3[\x02-\x04]\x00"), "an MP3 audio file"),
)

_BINARY_SAMPLE = 65536  # bytes looked at for NUL and control bytes
_CONTROL_BYTES = bytes(b for b in range(32) if b not in b"\t\n\x0b\x0c\r\x1b")


def _zip_kind(data: bytes) -> str:
    head = data[:4096]
    if b"mimetypeapplication/epub+zip" in head:
        return "an EPUB e-book (a zip archive)"
    if b"mimetypeapplication/vnd.oasis.opendocument" in head:
        return "an OpenDocument file (.odt, .ods...; a zip archive)"
    if b"word/" in head:
        return "a Word document (.docx; a zip archive)"
    if b"xl/" in head:
        return "an Excel workbook (.xlsx; a zip archive)"
    if b"ppt/" in head:
        return "a PowerPoint file (.pptx; a zip archive)"
    return "a ZIP archive"


def signature_kind(data: bytes) -> str | None:
    """The format a file signature at the start of ``data`` names (``"a PNG image"``, "a PDF
    document", ...; the tables above, RIFF containers too), else None. Zip archives are left
    to the caller (:func:`binary_kind` names their kind). Never raises."""
    if data.startswith(b"RIFF") and data[8:12] in (b"WEBP", b"WAVE", b"AVI "):
        return {b"WEBP": "a WebP image", b"WAVE": "a WAV audio file"}.get(
            data[8:12], "an AVI video"
        )
    for offset, magic, what in _SIGNATURES:
        if data.startswith(magic, offset):
            return what
    for pattern, what in _CHECKED_SIGNATURES:
        if pattern.match(data):
            return what
    return None


def binary_kind(data: bytes) -> str | None:
    """What ``data`` looks like when it is not a text or HTML document, else None.

    A phrase such as ``"a PNG image"``, ``"a Word document (.docx; a zip archive)"`` (from
    the file signatures above) or ``"binary data (23 % control bytes)"`` (over the first 64
    KiB, NUL counted among them: a stray NUL alone does not make a file binary, as a
    browser renders it). Text with a byte order mark, and UTF-16 without one
    (:func:`engine.text.encoding.utf16_without_bom`), is text. Never raises.
    """
    if data.startswith((b"\xef\xbb\xbf", b"\xfe\xff", b"\xff\xfe")):
        return None
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        return _zip_kind(data)
    kind = signature_kind(data)
    if kind is not None:
        return kind
    sample = data[:_BINARY_SAMPLE]
    utf16 = utf16_without_bom(data)
    if utf16 is not None:
        # 16-bit binary data can show the same NUL pattern: it is text only if the
        # characters it decodes to are not mostly controls.
        chars = sample[: len(sample) & ~1].decode(utf16.lower(), "replace")
        controls = sum(1 for c in chars if c < " " and c not in "\t\n\x0b\x0c\r\x1b")
        if controls * 10 > len(chars):
            return f"binary data ({controls * 100 // len(chars)} % control characters)"
        return None
    # A stray NUL is no sign of binary data: a browser renders the page (the HTML parser
    # drops it from body text or shows U+FFFD, a text/plain page shows U+FFFD). NUL counts
    # with the other control bytes.
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    if sample and controls * 10 > len(sample):
        return f"binary data ({controls * 100 // len(sample)} % control bytes)"
    return None


class Document(NamedTuple):
    """A document file read and decoded.

    ``kind`` "html", "text" or "markdown"; ``content`` the decoded text (the HTML source
    for "html", the Markdown source for "markdown");
    ``encoding`` the Encoding Standard name used (``"UTF-8"``, ``"windows-1252"``...);
    ``notice`` one line (without the file name) when some bytes did not decode cleanly
    (:func:`engine.text.encoding.decoding_problem`), else None. ``word``: for a Word document,
    everything its reading found (comments, text positions; ``content`` is then its
    rendered page, kind "html"), else None.
    """

    kind: DocumentKind
    content: str
    encoding: str
    notice: str | None = None
    word: WordDocument | None = None


def _refuse_what_is_no_text(path: str | os.PathLike, data: bytes) -> None:
    """Raise DocumentError (naming ``path``) when ``data`` is UTF-32 (by its byte order
    mark: no browser reads it), UTF-16 without a byte order mark that only a guess would
    read, or not text at all (:func:`binary_kind`)."""
    utf32 = utf32_with_bom(data)
    if utf32 is not None:
        raise DocumentError(
            path,
            f"is {utf32} text (its byte order mark says so), which browsers do not read, nor "
            "does this program; save it as UTF-8",
        )
    what = binary_kind(data)
    if what is not None and what.startswith("binary data") and (utf16 := _utf16_text(data)):
        raise DocumentError(
            path,
            f"has no byte order mark and reads as {utf16} text, so which text it holds would "
            "be a guess; save it as UTF-8, or as UTF-16 with a byte order mark",
        )
    if what is not None:
        step = _NEXT_STEP_BY_SIGNATURE.get(what)
        raise DocumentError(
            path,
            f"looks like {what}, not a text or HTML document"
            + (f"; this program cannot read it yet: {step}" if step else ""),
        )


def open_document(path: str | os.PathLike) -> Document:
    """Read and decode a document file: a :class:`Document`.

    ``kind`` is :func:`kind_of` the path: ``"text"``, ``"markdown"`` or ``"html"``;
    ``content`` is decoded by :func:`decode_text` (plain text and Markdown: the Markdown
    source, rendered later by :func:`engine.text.markdown.markdown_page`) or
    :func:`decode_html` (pass an HTML source to :func:`engine.text.html_text.extract`).

    Raises :class:`DocumentError` when the path does not exist, is not a regular file (a
    directory, a FIFO, a device), cannot be read, is over :data:`MAX_DOCUMENT_BYTES`, is of
    a format not read yet (:func:`not_read_yet`: ``"memo.pdf: is a PDF document, which
    this program cannot read yet: open the document it was made from and save it as
    .docx ..."``), or is not text (:func:`binary_kind`: ``"photo.png: looks like a PNG
    image, not a text or HTML document"``, with the next step when it names a format
    people write in).
    A Word extension (:data:`WORD_EXTENSIONS`) is read as Word (``kind`` "html", ``word``
    set); its problems, such as ``"memo.docx: is password-protected (encrypted); ..."``,
    are DocumentErrors too.
    """
    text_path = os.fspath(path)
    try:
        data = read_regular_file(text_path, max_bytes=MAX_DOCUMENT_BYTES)
    except BoundedInputError as exc:
        raise DocumentError(path, exc.problem) from None
    ext = os.path.splitext(text_path)[1].lower()
    if ext in WORD_EXTENSIONS:
        return _open_word(path, data)
    refused = not_read_yet(text_path)
    if refused is not None:
        raise DocumentError(path, refused)
    _refuse_what_is_no_text(path, data)
    kind = kind_of(text_path)
    # Markdown is text until it is rendered: decoded as plain text is.
    read_as = "html" if kind == "html" else "text"
    decoded = decode_text(data) if read_as == "text" else decode_html(data)
    guessed = encoding_refusal(data, read_as, decoded)
    if guessed is not None:
        raise DocumentError(path, guessed)
    nul_notice = None
    if read_as == "text" and "\x00" in decoded[0]:
        decoded, nul_notice = nul_as_browser_shows(decoded)
    if kind == "markdown":
        from engine.text.markdown import too_large

        big = too_large(decoded[0])
        if big is not None:
            raise DocumentError(path, f"{big}; shorten or flatten it, or save it as HTML")
    if kind in ("html", "markdown"):  # Markdown passes its raw HTML through to its page
        from engine.text.html_text import too_deep

        deep = too_deep(decoded[0])
        if deep is not None:
            raise DocumentError(path, f"{deep}; flatten it")
    notice = "; ".join(
        filter(
            None,
            (
                declared_mismatch(data, read_as, decoded),
                decoding_problem(data, read_as, decoded),
                nul_notice,
            ),
        )
    )
    return Document(kind, *decoded, notice or None)


def _utf16_text(data: bytes) -> str | None:
    """``"UTF-16LE"``/``"UTF-16BE"`` when ``data``'s first 64 KiB decode strictly in it to
    98 % letters, marks, digits, punctuation, spaces (CJK without a BOM...), else None."""
    import unicodedata

    sample = data[: min(len(data), _BINARY_SAMPLE) & ~1]
    for name in ("UTF-16LE", "UTF-16BE"):
        try:
            chars = sample.decode(name.lower())
        except UnicodeDecodeError:
            continue
        ok = "\t\n\r\u200c\u200d\u200e\u200f"
        texty = sum(1 for c in chars if unicodedata.category(c)[0] in "LMNPZ" or c in ok)
        if chars and texty * 100 >= 98 * len(chars):
            return name
    return None


def encoding_refusal(data: bytes, read_as: str, decoded: tuple[str, str]) -> str | None:
    """Why a file's bytes are no one text (no BOM, no declared encoding, not UTF-8: the
    windows-1252 default is a guess browsers do not share, and a wrong guess reads as a
    changed or missing quote; docs/engine.md), ``"not valid UTF-8 (the first of 12 such
    bytes at byte offset 3) and no encoding is declared, so which text it holds would be a
    guess; save it as UTF-8"``, or None. ``decoded``: what :func:`decode_html`
    (``read_as`` "html") or :func:`decode_text` gave. Never raises."""
    if decoded[1] != "windows-1252" or data.startswith((b"\xef\xbb\xbf", b"\xfe\xff", b"\xff\xfe")):
        return None
    if read_as == "html" and _prescan(data) is not None:
        return None  # declared: read as declared, as every browser does
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        first = exc.start
    else:
        return None
    bad = len(data) - len(data.decode("utf-8", "ignore").encode("utf-8"))
    such = f"the first of {bad:,} such bytes" if bad != 1 else "one byte"
    fix = "save it as UTF-8"
    if b"\x00" in data[:4096] and _utf16_text(data):  # no NUL: Shift_JIS reads as UTF-16 too
        fix = "it reads as UTF-16 text without a byte order mark: save it as UTF-8"
    elif read_as == "html":
        fix += ", or declare its encoding (<meta charset=...>)"
    return (
        f"not valid UTF-8 ({such} at byte offset {first:,}) and no encoding is declared, so "
        f"which text it holds would be a guess; {fix}"
    )


def declared_mismatch(data: bytes, read_as: str, decoded: tuple[str, str]) -> str | None:
    """The notice for an HTML page declaring a legacy encoding over UTF-8 bytes beyond
    ASCII, read as declared as every browser reads it (``"declares windows-1252 but its
    bytes are UTF-8: ... “é” shows as “Ã©” ..."``), else None. Never raises."""
    name = decoded[1]
    if read_as != "html" or name in ("UTF-8", "UTF-16LE", "UTF-16BE") or data.isascii():
        return None
    try:
        as_utf8 = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if _prescan(data) is None:
        return None
    wide = [c for c in as_utf8 if ord(c) > 127]
    mis = _decode(wide[0].encode("utf-8"), name)
    return (
        f"declares {name} but its bytes are UTF-8: read as declared, as a browser does, so "
        f"“{wide[0]}” shows as “{mis}” ({len(wide):,} characters beyond ASCII); if that looks "
        'wrong, declare <meta charset="utf-8">'
    )


def nul_as_browser_shows(decoded: tuple[str, str]) -> tuple[tuple[str, str], str]:
    """A plain-text or Markdown document's ``(text, encoding)`` with every NUL (U+0000) as
    U+FFFD, as a browser's text/plain page shows it, one character for one (offsets keep
    their place), and the notice that says so."""
    text, name = decoded
    n = text.count("\x00")
    return (text.replace("\x00", "\ufffd"), name), (
        f"{n:,} NUL byte{'s' if n != 1 else ''} (U+0000) read as U+FFFD, as a browser shows "
        f"{'them' if n != 1 else 'it'}"
    )


def kind_of(path: str | os.PathLike) -> DocumentKind:
    """A document's kind by its extension (case-insensitive): ``"text"`` for
    :data:`TEXT_EXTENSIONS`, ``"markdown"`` for :data:`MARKDOWN_EXTENSIONS`, else
    ``"html"``. Never raises."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext in TEXT_EXTENSIONS:
        return "text"
    if ext in MARKDOWN_EXTENSIONS:
        return "markdown"
    return "html"


def _open_word(path: str | os.PathLike, data: bytes) -> Document:
    """A Word file read by :func:`engine.text.docx.read_docx`. Raises DocumentError."""
    from engine.text.docx import read_docx
    from engine.text.docx_package import PackageError

    try:
        word = read_docx(data)
    except PackageError as exc:
        raise DocumentError(path, str(exc)) from None
    return Document("html", word.html, "UTF-8", word.notice, word)


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)


def read_document(
    path: str | os.PathLike, on_notice: Callable[[str], None] | None = _to_stderr
) -> tuple[DocumentKind, str]:
    """Read a document file: ``(kind, content)`` as :func:`open_document` gives them.

    When the bytes did not decode cleanly, ``on_notice`` gets one line naming the file and
    the problem (``"v2.txt: not valid UTF-8 (21 bytes) ... read as windows-1252 ..."``); by
    default it is printed on stderr, so every command that reads a document says it once.
    Raises :class:`DocumentError` as :func:`open_document` does.
    """
    doc = open_document(path)
    if doc.notice is not None and on_notice is not None:
        on_notice(f"{os.fspath(path)}: {doc.notice}")
    return doc.kind, doc.content
