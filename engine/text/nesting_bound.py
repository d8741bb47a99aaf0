"""A cheap upper bound on how deep a page's elements nest, so the exact depth scan of the
fast path's guard (``engine.text.html_text._nesting_depth``) runs only where a page may
really be deep (docs/engine.md, "Text").

``nesting_bound(utf8) -> int``: an upper bound on the depth that scan would find, computed
with numpy over the positions of ``<`` (a handful of vector passes, no Python loop per
tag). Its walk, like the scan's: a start tag opens an element (void and implicitly closed
elements excepted, the scan's ``_NOT_NESTING``; one ending ``/>`` inside ``<svg>`` or
``<math>`` opens nothing), an end tag closes one of its own name if
one is open, and is a stray (closing nothing) otherwise; comments and raw text
(``<script>``, ``<style>``...) are skipped; a ``<`` inside a tag (before the ``>`` of the
tag it is in) is no tag.

Why it bounds the scan's depth: the scan keeps one count per element name, held at zero
by strays. The sum of those counts at any point is the plain running sum ``S`` of +1 per
start tag and -1 per end tag, plus the strays so far; so the scan's peak is at most
``max(S) + T``, ``T`` the number of strays of the whole page, which is counted per name
from the running minimum of that name's own walk. Names are compared ASCII case folded:
by their bytes when shorter than 8, else by a hash of the whole name. Where an attribute value quotes a ``>`` and then an
end tag (markup crafted against this bound), the bound can be lower than the scan's
depth, as the scan itself can be misled by markup crafted against it.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import re
from typing import Any

_RAW_TEXT: tuple[bytes, ...] = (b"script", b"style", b"xmp", b"iframe", b"noembed")
_RAW_TEXT += (b"noframes", b"noscript")
_RAW_TEXT += (b"textarea", b"title", b"plaintext")
_COMMENT_END = re.compile(rb"--!?>")
_NAME = re.compile(rb"[^\t\n\f\r />\x00]*")
_RAW_END = {name: re.compile(rb"</" + name, re.IGNORECASE) for name in _RAW_TEXT}


_TERMINATOR: Any = None
_LOWER: Any = None


def _tables(np: Any) -> None:
    """The byte tables of ``_keys``: which bytes end a tag name; ASCII lower case."""
    global _TERMINATOR, _LOWER
    if _TERMINATOR is None:
        _TERMINATOR = np.zeros(256, bool)
        _TERMINATOR[[0, 9, 10, 11, 12, 13, 0x20, 0x2F, 0x3E]] = True
        _LOWER = np.arange(256, dtype=np.uint8)
        _LOWER[0x41:0x5B] += 0x20


def _key(name: bytes) -> int:
    """A name's key (lower case): a name under 8 bytes is its bytes, little-endian,
    zero-padded; a longer one a hash of it with the top bit set (``_keys`` alike)."""
    if len(name) >= 8:
        return (hash(name) & 0x7FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
    return int.from_bytes(name.ljust(8, b"\0"), "little")


def nesting_bound(utf8: bytes, not_nesting: frozenset[bytes]) -> int:
    """An upper bound on ``_nesting_depth(utf8)`` (see the module docstring);
    ``not_nesting``: the element names that never stay open (lower case). Linear in the
    input: about 0.1 s for 8 MB on a loaded 2-core machine."""
    import numpy as np  # lazy: only pages over a megabyte are bounded this way

    _tables(np)
    n = len(utf8)
    pad = np.frombuffer(utf8 + bytes(16), np.uint8)
    lt = np.flatnonzero(pad[:n] == 0x3C)
    slash = pad[lt + 1] == 0x2F
    at = lt + 1 + slash
    letter = pad[at] | 0x20
    tags = (letter >= 0x61) & (letter <= 0x7A)
    keys = _keys(np, pad, at[tags])
    gt = np.flatnonzero(pad[:n] == 0x3E)
    after = np.searchsorted(gt, lt[tags])  # the first ">" after each tag's "<"
    skip = _skipped(np, utf8, lt, gt, after, pad, tags, slash, keys)
    keep = ~skip
    pos, slash, keys, after = lt[tags][keep], slash[tags][keep], keys[keep], after[keep]
    nesting = ~np.isin(keys, np.array(sorted(_key(k) for k in not_nesting), np.uint64))
    pos, slash, keys, after = pos[nesting], slash[nesting], keys[nesting], after[nesting]
    if not len(pos):
        return 0
    sign = np.where(slash, -1, 1).astype(np.int64)
    sign[_closed_at_once(np, pad, gt, after, slash, keys)] = 0
    peak = int(np.cumsum(sign).max())
    return max(0, peak) + _strays(np, keys, sign)


def _keys(np: Any, pad: Any, at: Any) -> Any:
    """The 8-byte key of the name starting at each of ``at``, cut at its first
    terminator (whitespace, ``/``, ``>``), ASCII letters lower-cased."""
    words = np.ndarray(shape=(len(pad) - 8,), dtype="<u8", buffer=pad, strides=(1,))
    b = words[at].view(np.uint8).reshape(-1, 8)
    stop = _TERMINATOR[b]
    np.logical_or.accumulate(stop, axis=1, out=stop)
    long = ~stop[:, 7]  # a name of 8 bytes or more: keyed by its whole name instead
    b = _LOWER[b]
    b[stop] = 0
    keys = b.view(np.uint64).ravel()
    if long.any():
        data = pad.tobytes()
        for i in np.flatnonzero(long).tolist():
            m = _NAME.match(data, int(at[i]))
            name = m.group().lower() if m else b""
            keys[i] = _key(name) if len(name) >= 8 else _key(b"")
    return keys


def _skipped(
    np: Any, utf8: bytes, lt: Any, gt: Any, after: Any, pad: Any, tags: Any, slash: Any, keys: Any
) -> Any:
    """Per tag (of ``lt[tags]``): inside a comment or raw text, or inside another tag."""
    pos = lt[tags]
    comments = lt[(pad[lt + 1] == 0x21) & (pad[lt + 2] == 0x2D) & (pad[lt + 3] == 0x2D)]
    raw = {_key(k): k for k in _RAW_TEXT}
    openers = np.flatnonzero(np.isin(keys, np.array(list(raw), np.uint64)) & ~slash[tags])
    starts = sorted(
        [(int(p), b"") for p in comments] + [(int(pos[i]), raw[int(keys[i])]) for i in openers]
    )
    spans: list[tuple[int, int]] = []
    for p, name in starts:
        if spans and p < spans[-1][1]:
            continue  # inside the comment or raw text before it
        if not name:
            if utf8.startswith((b">", b"->"), p + 4):
                continue  # "<!-->" and "<!--->" end at once
            m = _COMMENT_END.search(utf8, p + 4)
        else:
            m = _RAW_END[name].search(utf8, p + 1)
        spans.append((p, m.start() if m else len(utf8)))
    skip = np.zeros(len(pos), bool)
    if spans:
        s = np.array([a for a, _ in spans], np.int64)
        e = np.array([b for _, b in spans], np.int64)
        i = np.searchsorted(s, pos, side="left") - 1
        ok = i >= 0
        skip[ok] = pos[ok] < e[i[ok]]
    last_gt = after - 1
    last_gt_pos = np.where(last_gt >= 0, gt[np.maximum(last_gt, 0)], -1)
    last_lt = np.concatenate(([-1], pos[:-1]))
    return skip | (last_gt_pos < last_lt)


def _closed_at_once(np: Any, pad: Any, gt: Any, end: Any, slash: Any, keys: Any) -> Any:
    """Start tags ending ``/>`` inside ``<svg>`` or ``<math>``: they open nothing. Foreign
    content is told by the plain running sum of svg/math start and end tags, never above
    the scan's own count, so no tag is taken for foreign that the scan would not."""
    foreign_keys = np.array([_key(b"svg"), _key(b"math")], np.uint64)
    step = np.where(np.isin(keys, foreign_keys), np.where(slash, -1, 1), 0)
    inside = (np.cumsum(step) - step) > 0
    if not inside.any():
        return inside
    ends = np.where(end < len(gt), gt[np.minimum(end, len(gt) - 1)], 0)
    return inside & ~slash & (pad[np.maximum(ends - 1, 0)] == 0x2F) & (end < len(gt))


def _strays(np: Any, keys: Any, sign: Any) -> int:
    """End tags that close nothing: per name, the depth its own walk would reach below
    zero (the negated running minimum), summed."""
    order = np.argsort(keys, kind="stable")
    k, s = keys[order], sign[order]
    first = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1])))
    run = np.cumsum(s)
    base = np.repeat(run[first] - s[first], np.diff(np.append(first, len(k))))
    lowest = np.minimum.reduceat(run - base, first)
    return int(np.maximum(0, -lowest).sum())
