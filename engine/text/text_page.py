"""A plain text as an HTML page whose body ``textContent`` is the text (how a plain-text
document is shown and stored in an evidence bundle)."""

from __future__ import annotations

import html


def text_as_html(text: str, title: str = "") -> str:
    """A plain text wrapped so a browser renders it and body ``textContent`` == ``text``.

    The newline right after ``<pre>`` is dropped by the HTML parser, so one is always
    written (a text that starts with a newline keeps it). Nothing follows ``</html>``.
    """
    esc = html.escape(text, quote=False)
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>'
        + html.escape(title)
        + "</title><style>pre{white-space:pre-wrap;"
        "font:15px/1.5 system-ui,sans-serif;max-width:48em;margin:1em auto}</style>"
        "</head><body><pre>\n" + esc + "</pre></body></html>"
    )
