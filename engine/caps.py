"""The size caps of an evidence bundle, where data comes in: what the bundle reader
(``engine.bundle.archive``) refuses and what the revision agent's push tool
(``engine.agent.tools``) refuses before a version would take a bundle over them. Below both,
so the agent never imports the bundle package. Sizes in bytes (UTF-8 for text).
"""

from __future__ import annotations

from engine.text.text_page import text_as_html

#: Limits that the writer (``engine.bundle.write_bundle``) and the reader share: a bundle
#: the program writes always opens. Chosen so a bundle opens in well under a second per
#: 10 MB and a few hundred MB of memory at most.
MAX_ENTRIES = 2000
MAX_FILE_BYTES = 100 * 1024 * 1024
MAX_TOTAL_BYTES = 300 * 1024 * 1024
#: A JSON file of a bundle: at most this many bytes, and at most ``MAX_JSON_NODES`` arrays,
#: objects and commas (an upper bound of the values json.loads would build, counted on the
#: bytes before parsing: 99 MB of ``[],[],`` is refused in milliseconds, not parsed).
MAX_JSON_BYTES = 64 * 1024 * 1024
MAX_JSON_NODES = 5_000_000
#: The document versions of one bundle (v1, every push, v2; a text document counts its
#: ``.txt`` and its ``.html`` wrapper) may take at most half of ``MAX_TOTAL_BYTES``; the
#: revision agent's push tool refuses a push that would go over (``push_refusal``).
MAX_DOCUMENTS_BYTES = MAX_TOTAL_BYTES // 2
#: A zip member over ``RATIO_FLOOR`` bytes may declare at most ``MAX_RATIO`` times its
#: compressed size. Deflate reaches about 1,000:1 on repeated bytes (a zip bomb); the
#: program's own bundles stay under 20:1, and ``engine.bundle.export_zip`` stores a member
#: uncompressed rather than pass this, so a bundle the program exports always opens.
MAX_RATIO = 200
RATIO_FLOOR = 1024 * 1024


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
