"""Reading document files from disk: kind by extension, bytes decoded, titles for people.

A path names an HTML document (decoded by :func:`engine.encoding.decode_html`) unless its
extension is in :data:`TEXT_EXTENSIONS`, in which case it is plain text (decoded by
:func:`engine.encoding.decode_text`). Only regular files are read; every failure is a
:class:`DocumentError` whose ``str()`` is one line naming the file and the problem.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import os

from engine.encoding import decode_html, decode_text
from engine.safe_io import BoundedInputError, read_regular_file
from engine.vocabulary import DocumentKind

__all__ = ["TEXT_EXTENSIONS", "DocumentError", "document_title", "read_document"]

#: Size cap of a document file: 100 MB (the largest pages measured are 10-20 MB).
MAX_DOCUMENT_BYTES = 100 * 1024 * 1024

#: File extensions (lower case) read as plain text; every other file is HTML.
TEXT_EXTENSIONS = frozenset({".txt", ".md", ".markdown", ".text"})


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


def read_document(path: str | os.PathLike) -> tuple[DocumentKind, str]:
    """Read a document file: ``(kind, content)``.

    ``kind`` is ``"text"`` for the extensions in :data:`TEXT_EXTENSIONS` (case-insensitive)
    and ``"html"`` for every other file. ``content`` is the decoded file: for ``"html"`` the
    HTML source as decoded by :func:`decode_html` (pass it to :func:`engine.html_text.body_text` or
    :func:`engine.html_text.extract`), for ``"text"`` the text itself as decoded by :func:`decode_text`.
    Decoding never fails.

    Raises :class:`DocumentError` when the path does not exist, is not a regular file (a
    directory, a FIFO, a device), cannot be read, or is over :data:`MAX_DOCUMENT_BYTES`.
    """
    text_path = os.fspath(path)
    try:
        data = read_regular_file(text_path, max_bytes=MAX_DOCUMENT_BYTES)
    except BoundedInputError as exc:
        raise DocumentError(path, exc.problem) from None
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
