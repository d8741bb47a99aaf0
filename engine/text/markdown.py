"""Markdown as the reader sees it: the source rendered to an HTML page, whose body text is
what offsets index.

A Markdown document is reviewed as rendered text (docs/anchor.md, "Markdown"): the page
:func:`markdown_page` builds is what the viewer shows and the reviewer selects in, its
``document.body.textContent`` (through :func:`engine.text.html_text.extract`, as for any
HTML page) is what offsets index and what the verdicts compare, and the source is what
the agent receives and pushes. So a change that only re-wraps lines, re-numbers an
ordered list or re-pads a table renders the same words and is no edit of them.

The rendering is CommonMark (markdown-it-py, its ``commonmark`` preset) with the GitHub
Flavored Markdown extensions of mdit-py-plugins' ``gfm_plugin``: tables, strikethrough,
autolinks, task lists, alerts and footnotes. Two rules are ours, each from a spec:

- **Soft line breaks** render as the CSS Text Module Level 3 segment break transformation
  says a browser shows them (section 4.1.3): removed when the character before or after is
  U+200B, or when both are East Asian Wide, Fullwidth or Halfwidth and neither is Hangul
  (Chinese and Japanese lines re-wrapped join without a space); else one space. CommonMark
  allows a soft break to render as a space (spec 6.12); rendering it as the browser
  displays it makes the text independent of where the source's lines break.
- **Raw HTML** passes through as CommonMark says (spec 4.6, 6.6), with GFM's tag filter
  (GFM spec 6.11, "Disallowed Raw HTML"): the ``<`` of ``title``, ``textarea``, ``style``,
  ``xmp``, ``iframe``, ``noembed``, ``noframes``, ``script`` and ``plaintext`` tags becomes
  ``&lt;``, so they show as text and none can swallow the rest of the page. The rest stays
  inert where it is shown: the page carries a Content-Security-Policy that loads and runs
  nothing (no script, no fetch; inline styles and ``data:`` images only), and the
  program's viewer adds its own (docs/gui.md, "Documents under review are untrusted").

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

__all__ = [
    "MAX_MARKDOWN_CHARS",
    "MAX_MARKDOWN_NESTING",
    "PAGE_CSP",
    "markdown_page",
    "markdown_title",
    "render_body",
    "renderer_identity",
    "too_large",
]

#: The largest Markdown source rendered, in characters: markdown-it-py renders about
#: 1.5 MB/s (2.4 MB of real READMEs in 1.6 s of CPU on one shared core), so about 7 s.
#: Larger sources are refused where they come in (a file opened, a version pushed, a
#: bundle's source checked); the largest real Markdown documents are well under 1 MB.
MAX_MARKDOWN_CHARS = 10_000_000

#: The deepest block nesting rendered, in markdown-it levels (each block quote one, each
#: list two: the list and its item). markdown-it's ``commonmark`` preset stops at 20 and
#: drops everything deeper without a word (a quote 21 deep rendered blank); its parser
#: recurses about two Python frames per level, so 1,000 levels already hit Python's
#: recursion limit (measured: 490 nested quotes or lists render, 500 raise). 100 levels,
#: markdown-it's own ``default`` preset, leave the caller's stack most of the limit.
#: A deeper source is refused where it comes in (:func:`too_large`), never rendered
#: short.
MAX_MARKDOWN_NESTING = 100

# A line's leading container markers (spaces, tabs, ">", list markers, footnote labels):
# every nesting level a line opens takes at least one column of it (a quote's ">", a
# list's marker and space for its two levels), so the longest such run, tabs as four
# columns, bounds the block nesting; the parse that measures it runs only past the cap.
_CONTAINER_PREFIX = re.compile(
    r"^(?:[ \t>]|(?:[-+*]|\d{1,9}[.)])(?=[ \t\n]|$)|\[\^[^\]\s]*\]:)*", re.MULTILINE
)

#: The policy every rendered page carries in a ``<meta http-equiv>``: nothing is fetched,
#: framed or run, whichever browser opens the page; inline styles and ``data:`` images
#: are the only resources allowed.
PAGE_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

# GFM spec 6.11: these tags are filtered (the leading "<" of their start or end tag).
_FILTERED_TAG = re.compile(
    r"<(?=/?(?:title|textarea|style|xmp|iframe|noembed|noframes|script|plaintext)"
    r"(?:[\s/>]|$))",
    re.IGNORECASE,
)

# Hangul (Unicode Script=Hangul, by block): Jamo, Compatibility Jamo, Jamo Extended-A/B,
# Syllables, and the halfwidth Hangul letters of the Halfwidth and Fullwidth Forms block.
_HANGUL = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7FF), (0xFFA0, 0xFFDC))

_STYLE = (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:48em;margin:1em auto;padding:0 1em}"
    "pre,code{font-family:ui-monospace,monospace;font-size:90%}"
    "pre{background:#f6f8fa;padding:.8em;overflow:auto}"
    "table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:.3em .7em}"
    "blockquote{margin-left:0;padding-left:1em;border-left:.25em solid #d0d7de;color:#555}"
    "img{max-width:100%}li.task-list-item{list-style:none}"
    ".markdown-alert{border-left:.25em solid #0969da;padding:0 1em}"
    ".markdown-alert-title{font-weight:600}"
)


def _is_wide(c: str) -> bool:
    """East Asian Width F, W or H and not Hangul (CSS Text 3, 4.1.3)."""
    if unicodedata.east_asian_width(c) not in ("F", "W", "H"):
        return False
    o = ord(c)
    return not any(a <= o <= b for a, b in _HANGUL)


def _edge(tokens: Sequence[Any], idx: int, step: int) -> str:
    """The character next to a soft break: the last (``step`` -1) or first (+1) character
    of the nearest inline token holding text, or "" when there is none."""
    i = idx + step
    while 0 <= i < len(tokens):
        tok = tokens[i]
        if tok.type in ("softbreak", "hardbreak"):
            return ""
        if tok.type in ("text", "code_inline") and tok.content:
            return tok.content[-1] if step < 0 else tok.content[0]
        i += step
    return ""


def _softbreak(self: Any, tokens: Sequence[Any], idx: int, options: Any, env: Any) -> str:
    before, after = _edge(tokens, idx, -1), _edge(tokens, idx, 1)
    if "\u200b" in (before, after):
        return ""
    if before and after and _is_wide(before) and _is_wide(after):
        return ""
    return " "


def _tag_filter(state: Any) -> None:
    """GFM's tag filter over every raw HTML token, block and inline."""
    for tok in state.tokens:
        if tok.type == "html_block":
            tok.content = _FILTERED_TAG.sub("&lt;", tok.content)
        for child in tok.children or ():
            if child.type == "html_inline":
                child.content = _FILTERED_TAG.sub("&lt;", child.content)


@cache
def _parser() -> Any:
    from markdown_it import MarkdownIt  # lazy: only Markdown documents need it
    from mdit_py_plugins.gfm import gfm_plugin

    md = MarkdownIt("commonmark").use(gfm_plugin)
    # Blocks parse with the deeper cap on a twin parser; inlines keep the preset's 20, which
    # drops no text there (markdown-it keeps a too-deep inline run as text) and keeps
    # "[" * 50,000 linear (its link labels are retried up to the cap at every "[").
    deep = MarkdownIt("commonmark", {"maxNesting": MAX_MARKDOWN_NESTING}).use(gfm_plugin)

    def block(state: Any) -> None:
        deep.block.parse(state.src, deep, state.env, state.tokens)

    md.core.ruler.at("block", block)
    md.core.ruler.push("arl_tag_filter", _tag_filter)
    md.add_render_rule("softbreak", _softbreak)
    return md


def _deepest(tokens: Sequence[Any]) -> int:
    """The deepest level a block opens at in a parsed token stream (0 when none opens)."""
    return max((t.level + 1 for t in tokens if t.nesting == 1), default=0)


def _too_deep(tokens: Sequence[Any]) -> bool:
    """Whether markdown-it reached :data:`MAX_MARKDOWN_NESTING` (and so may have dropped
    what lies deeper: its block parser skips the rest of a container at the cap)."""
    return _deepest(tokens) >= MAX_MARKDOWN_NESTING


_DEEP = (
    f"nests its block quotes and lists {MAX_MARKDOWN_NESTING} levels deep or more (each "
    f"list counts two), past the {MAX_MARKDOWN_NESTING - 1} this program renders"
)


def render_body(source: str) -> str:
    """The HTML a Markdown ``source`` renders to (the rules of the module docstring), as
    the content of a ``<body>``. Deterministic for one :func:`renderer_identity`.

    Raises ValueError (its text the phrase :func:`too_large` gives) when the source nests
    deeper than :data:`MAX_MARKDOWN_NESTING`: the text past the cap would be missing, so no
    page is made. Callers refuse such a source where it comes in."""
    md = _parser()
    env: dict[str, Any] = {}
    tokens = md.parse(source, env)
    if _too_deep(tokens):
        raise ValueError(_DEEP)
    return str(md.renderer.render(tokens, md.options, env))


@lru_cache(maxsize=8)  # a run renders each version to score, to size and to store it
def markdown_page(source: str, title: str = "") -> str:
    """A whole HTML page of ``source`` rendered: ``<!DOCTYPE html>``, a head with the
    charset, :data:`PAGE_CSP`, the escaped ``title`` and a reading style, then
    :func:`render_body` as the body. Its ``document.body.textContent`` is the document's
    text; ``title`` does not change it."""
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{PAGE_CSP}">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        + render_body(source)
        + "</body></html>"
    )


def too_large(source: str) -> str | None:
    """Why ``source`` is not rendered, or None when it is within both limits: a phrase
    naming its size and the limit (``"is 12,000,000 characters of Markdown, over the
    10,000,000 this program renders"``, :data:`MAX_MARKDOWN_CHARS`) or its depth
    (``"nests its block quotes and lists 100 levels deep or more (each list counts two),
    past the 99 this program renders"``, :data:`MAX_MARKDOWN_NESTING`). Never raises.

    The depth is measured by markdown-it's own parse, run only when the longest run of
    container markers opening a line could reach the cap (a real document's is a few
    columns): a linear regex scan otherwise."""
    if len(source) > MAX_MARKDOWN_CHARS:
        return (
            f"is {len(source):,} characters of Markdown, over the {MAX_MARKDOWN_CHARS:,} "
            "this program renders"
        )
    if _prefix_columns(source) + 2 < MAX_MARKDOWN_NESTING:
        return None
    return _DEEP if _too_deep(_parser().parse(source)) else None


def _prefix_columns(source: str) -> int:
    """The most columns of container markers any line of ``source`` opens with (a tab
    counted as four): an upper bound on the block nesting of that line, less two."""
    return max((len(m) + 3 * m.count("\t") for m in _CONTAINER_PREFIX.findall(source)), default=0)


def markdown_title(source: str) -> str:
    """The text of the first heading of ``source`` (its inline text as rendered, spaces
    collapsed), read from the first 20,000 characters; "" when there is none."""
    tokens = _parser().parse(source[:20000])
    for i, tok in enumerate(tokens[:-1]):
        if tok.type == "heading_open":
            words = [
                c.content
                for c in tokens[i + 1].children or ()
                if c.type in ("text", "code_inline", "softbreak")
            ]
            return " ".join("".join(w or " " for w in words).split())
    return ""


def renderer_identity() -> str:
    """The renderer's versions, as a bundle records them: ``"markdown-it-py 4.3.0,
    mdit-py-plugins 0.7.0"`` (the packages' own ``__version__``, which a frozen build
    keeps)."""
    import markdown_it
    import mdit_py_plugins

    return (
        f"markdown-it-py {markdown_it.__version__}, mdit-py-plugins {mdit_py_plugins.__version__}"
    )
