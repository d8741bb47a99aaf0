"""One comment's v1 and v2 text with what changed inside it, for the detail pane's table.

The pieces come from the engine (``engine.diff.marks.inline_pieces``, the same diff as the
verdicts); here they are written as Qt rich text: in the v1 cell the deleted pieces struck
through, in the v2 cell the inserted pieces underlined, both also tinted and with a
line under the table naming the marks (never colour alone). Every text is escaped.
"""

from __future__ import annotations

import html

DEL_STYLE = "text-decoration:line-through;background-color:#f6e3e3;color:#5c0c0c"
INS_STYLE = "text-decoration:underline;background-color:#e3ecf6;color:#002a57"
MAX_CHARS = 20_000  # a longer passage is shown plain (the cell would not be read anyway)
KEY = (
    "<small>In the table: <s>struck through</s> was deleted, <u>underlined</u> was "
    "inserted.</small>"
)


def change_cells(t1: str | None, t2: str | None) -> tuple[str, str]:
    """(v1 cell, v2 cell) as rich text; a missing side is ``""`` (the caller words it),
    and so is the other side's mark: with one side missing, its text is shown plain."""
    e = html.escape
    if t1 is None or t2 is None or len(t1) + len(t2) > MAX_CHARS or t1 == t2:
        return (e(t1) if t1 is not None else "", e(t2) if t2 is not None else "")
    from engine.diff.marks import inline_pieces

    left, right = [], []
    for kind, text in inline_pieces(t1, t2):
        if kind == "equal":
            left.append(e(text))
            right.append(e(text))
        elif kind == "deleted":
            left.append(f"<span style='{DEL_STYLE}'>{e(text)}</span>")
        else:
            right.append(f"<span style='{INS_STYLE}'>{e(text)}</span>")
    return "".join(left), "".join(right)
