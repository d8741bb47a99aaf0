"""A document's title for people, one rule for every kind and every view (the CLI, the
desktop wizard, Check a revision made elsewhere, the suite runner)."""

from __future__ import annotations

import os

#: How much of an HTML page :func:`document_title` reads for its title (characters).
TITLE_SCAN_CHARS = 200_000


def _html_title(page: str) -> str:
    """The ``<title>`` text of an HTML page, else its first heading's, spaces collapsed."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(page)
    for selector in ("title", "h1, h2, h3, h4, h5, h6"):
        node = tree.css_first(selector)
        text = " ".join(node.text(separator=" ").split()) if node is not None else ""
        if text:
            return text
    return ""


def document_title(path: str | os.PathLike, kind: str, raw: str) -> str:
    """A document's title for people: its HTML ``<title>``, else its first heading
    (``h1``-``h6`` in document order; a Word document's page carries the core properties'
    title as ``<title>`` and its headings as ``h1``..., so the rule reads "the title, else
    the first heading"), a Markdown document's first heading as rendered
    (:func:`engine.text.markdown.markdown_title`), or a text's first non-empty line (without
    a leading ``#``), at most 120 characters; else the file name. An HTML page is parsed
    (lexbor) from its first ``TITLE_SCAN_CHARS`` characters. The CLI, the desktop wizard
    and Check a revision made elsewhere all use this one rule."""
    if kind == "html":
        title = _html_title(raw[:TITLE_SCAN_CHARS])
    elif kind == "markdown":
        from engine.text.markdown import markdown_title

        title = markdown_title(raw)
    else:
        title = next((ln.strip() for ln in raw.splitlines()[:50] if ln.strip()), "")
        title = title.lstrip("#").strip()
    if not title or len(title) > 120:
        return os.path.basename(os.fspath(path))
    return title
