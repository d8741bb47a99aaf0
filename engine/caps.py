"""The size caps of an evidence bundle, where data comes in: what the bundle reader
(``engine.bundle.archive``) refuses and what the revision agent's push tool
(``engine.agent.tools``) refuses before a version would take a bundle over them. Below both,
so the agent never imports the bundle package. Sizes in bytes (UTF-8 for text).
"""

from __future__ import annotations

from engine.safe_zip import MAX_FILE_BYTES, MAX_TOTAL_BYTES
from engine.text.text_page import text_as_html

# The zip limits the writer (``engine.bundle.write_bundle``) and the readers share (entries,
# bytes per file and in all, the inflation ratio) live in ``engine.safe_zip``.
#: A JSON file of a bundle: at most this many bytes, and at most ``MAX_JSON_NODES`` arrays,
#: objects and commas (an upper bound of the values json.loads would build, counted on the
#: bytes before parsing: 99 MB of ``[],[],`` is refused in milliseconds, not parsed).
MAX_JSON_BYTES = 64 * 1024 * 1024
MAX_JSON_NODES = 5_000_000
#: The document versions of one bundle (v1, every push, v2; a text document counts its
#: ``.txt`` and its ``.html`` wrapper) may take at most half of ``MAX_TOTAL_BYTES``; the
#: revision agent's push tool refuses a push that would go over (``push_refusal``).
MAX_DOCUMENTS_BYTES = MAX_TOTAL_BYTES // 2


def stored_size(raw: str, kind: str) -> int:
    """Bytes a document version takes in a bundle: its UTF-8 bytes, and for a text document
    also those of its ``<pre>`` wrapper (``engine.bundle.text_as_html``), for a Markdown
    document those of its rendered page (``engine.text.markdown.markdown_page``)."""
    size = len(raw.encode("utf-8"))
    if kind == "text":
        size += len(text_as_html(raw).encode("utf-8"))
    elif kind == "markdown":
        from engine.text.markdown import markdown_page

        size += len(markdown_page(raw).encode("utf-8"))
    return size


def push_refusal(raw: str, kind: str, stored_so_far: int) -> str | None:
    """Why a pushed version cannot go into the run's bundle, or None when it fits.

    ``stored_so_far``: ``stored_size`` of v1 plus every earlier push of the run. A push is
    stored twice at most (its round file and v2), so it fits when ``stored_so_far`` plus
    twice its size stays within ``MAX_DOCUMENTS_BYTES`` and one copy within
    ``MAX_FILE_BYTES``. The sentence names the limit, for the model."""
    if kind == "markdown":
        from engine.text.markdown import too_large

        big = too_large(raw)
        if big is not None:
            return f"the document {big}; push a shorter or flatter document"
    if kind in ("html", "markdown"):  # Markdown passes its raw HTML through to its page
        from engine.text.html_text import too_deep

        deep = too_deep(raw)
        if deep is not None:
            return f"the document {deep}; push a flatter document"
    size = stored_size(raw, kind)
    if size > MAX_FILE_BYTES:
        return (
            f"the document is {size:,} bytes as stored in the evidence bundle, over the "
            f"limit of {MAX_FILE_BYTES:,} bytes per version; push a shorter document"
        )
    if stored_so_far + 2 * size > MAX_DOCUMENTS_BYTES:
        return (
            f"this push would take the run's document versions to "
            f"{stored_so_far + 2 * size:,} bytes in the evidence bundle, over the limit of "
            f"{MAX_DOCUMENTS_BYTES:,} bytes for all versions of a run; push fewer, smaller versions"
        )
    return None
