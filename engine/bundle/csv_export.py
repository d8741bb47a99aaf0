"""Verdicts and decisions per comment as CSV, for people who track reviews in a spreadsheet.

``csv_rows(bundle, final, decisions) -> list[list[str]]``: a header, then one row per
comment with a verdict: ``id``, ``quote`` (the v1 text, else the comment's own quote),
``verdict``, ``decision``, ``reason``, ``reviewer``, ``decided_at`` (the decision that
counts: ``engine.bundle.decisions``; empty when none, or when the decisions fail their
checks). Every cell is made safe against formula injection (OWASP "CSV Injection"): a cell
that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading
apostrophe, so a spreadsheet shows it as text and never evaluates it. Written with the
``csv`` module (RFC 4180 quoting), UTF-8 with a byte-order mark (so Excel reads it as
UTF-8), CRLF line ends.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import Any

HEADER = ["id", "quote", "verdict", "decision", "reason", "reviewer", "decided_at"]
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(text: object) -> str:
    """``text`` as a cell no spreadsheet evaluates: a leading ``'`` before a cell that
    begins with ``= + - @``, a tab or a carriage return (after leading spaces too)."""
    s = "" if text is None else str(text)
    if s.lstrip(" ").startswith(_FORMULA_STARTS):
        return "'" + s
    return s


def csv_rows(bundle: Any, final: list[Any], decisions: Any) -> list[list[str]]:
    """The rows (header first) of ``bundle``'s comments; ``final``: the verdict items a
    view shows (``engine.bundle.shown``); ``decisions``: a ``DecisionsCheck`` or None."""
    quotes = {c.id: c.anchor.quote or "" for c in bundle.comments_before}
    decided = decisions.latest() if decisions is not None else {}
    rows = [HEADER]
    for v in final:
        if not isinstance(v, dict):
            continue
        cid = str(v.get("comment_id"))
        span = v.get("v1")
        quote = span.get("text") if isinstance(span, dict) else quotes.get(cid, "")
        d = decided.get(cid)
        row = [cid, quote, str(v.get("verdict") or "")]
        row += [d.decision, d.reason, d.reviewer, d.decided_at] if d else ["", "", "", ""]
        rows.append([safe_cell(c) for c in row])
    return rows


def render_csv(rows: list[list[str]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows(rows)
    return buf.getvalue()


def write_csv(path: str | os.PathLike[str], bundle: Any, final: list[Any], decisions: Any) -> Path:
    """Write the CSV to ``path`` (through a temporary file, renamed). Raises OSError."""
    from engine.atomic import write_atomic

    dest = Path(path)
    write_atomic(dest, "\ufeff" + render_csv(csv_rows(bundle, final, decisions)))
    return dest
