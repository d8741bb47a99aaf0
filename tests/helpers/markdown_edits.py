"""Edits of Markdown source that change no word a reader sees: re-wrapping paragraphs,
re-numbering ordered lists, re-padding tables. Each works on markdown-it's own parse (the
source line ranges of its block tokens), never on a guess at the syntax, and leaves alone
a block it cannot edit without changing what renders (a line that would start a new
block, a hard line break, a table cell holding a pipe)."""

from __future__ import annotations

import re

from engine.text.markdown import _parser

# A line that, at the start of a paragraph's continuation, would begin another block
# (CommonMark 4.x, 5.x): a list marker, heading, quote, fence, thematic break, table row,
# setext underline, HTML, or 4+ spaces (code).
_STARTS_BLOCK = re.compile(r"^(?:[-+*>#|=`~<]|\d{1,9}[.)]|\s{4})")


def _lines(source: str) -> list[str]:
    return source.split("\n")


def rewrap(source: str, width: int) -> str:
    """Every top-level paragraph re-wrapped to about ``width`` characters a line."""
    lines = _lines(source)
    tokens = _parser().parse(source)
    edits: list[tuple[int, int, list[str]]] = []
    for i, tok in enumerate(tokens):
        if tok.type != "paragraph_open" or tok.level != 0 or tok.map is None:
            continue
        inline = tokens[i + 1]
        if any(c.type == "hardbreak" for c in inline.children or ()):
            continue
        start, end = tok.map
        words = " ".join(ln.strip() for ln in lines[start:end]).split(" ")
        wrapped = _wrap(words, width)
        if wrapped is not None:
            edits.append((start, end, wrapped))
    for start, end, wrapped in reversed(edits):
        lines[start:end] = wrapped
    return "\n".join(lines)


def _wrap(words: list[str], width: int) -> list[str] | None:
    """Words (split on single spaces; "" marks a run of spaces, never broken at) joined
    into lines; None when some line would start a block."""
    lines: list[str] = []
    cur = ""
    for k, w in enumerate(words):
        breakable = cur and w and words[k - 1] != "" and len(cur) + 1 + len(w) > width
        if breakable:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if k else w
    lines.append(cur)
    if any(_STARTS_BLOCK.match(ln) for ln in lines[1:]):
        return None
    return lines


_ITEM = re.compile(r"^(\s*)(\d{1,9})([.)])")


def renumber(source: str, scheme: str = "same") -> str:
    """Every ordered list's items re-numbered: ``same`` gives each item the first item's
    number, ``count`` counts up from it. An item whose number would change width is left
    as it is (its content column would move)."""
    lines = _lines(source)
    tokens = _parser().parse(source)
    stack: list[list[int]] = []  # per open ordered list: [first number, items seen]
    for tok in tokens:
        if tok.type == "ordered_list_open":
            stack.append([int(tok.attrGet("start") or 1), 0])
        elif tok.type == "ordered_list_close":
            stack.pop()
        elif tok.type == "list_item_open" and stack and tok.map and tok.markup in ".)":
            first, seen = stack[-1]
            stack[-1][1] += 1
            number = first if scheme == "same" else first + seen
            line = lines[tok.map[0]]
            m = _ITEM.match(line)
            if m and len(str(number)) == len(m.group(2)):
                lines[tok.map[0]] = f"{m.group(1)}{number}{m.group(3)}{line[m.end() :]}"
    return "\n".join(lines)


def repad(source: str, extra: int = 3) -> str:
    """Every table's cells re-padded: each cell's content stripped and given ``extra``
    spaces after it, the delimiter row's dashes lengthened as much. A table whose rows
    hold an escaped pipe or a code span is left as it is."""
    lines = _lines(source)
    tokens = _parser().parse(source)
    for tok in tokens:
        if tok.type != "table_open" or tok.map is None:
            continue
        start, end = tok.map
        rows = lines[start:end]
        if any("\\|" in r or "`" in r for r in rows):
            continue
        for k, row in enumerate(rows):
            indent = row[: len(row) - len(row.lstrip())]
            body = row.strip()
            lead, trail = body.startswith("|"), body.endswith("|")
            cells = body.strip("|").split("|")
            if k == 1:
                cells = [c.strip().replace("-", "-" * (1 + extra), 1) for c in cells]
            else:
                cells = [c.strip() + " " * extra for c in cells]
            joined = " | ".join(cells)
            lines[start + k] = indent + ("| " if lead else "") + joined + (" |" if trail else "")
    return "\n".join(lines)
