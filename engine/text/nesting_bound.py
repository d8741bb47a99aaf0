"""What the fast path's guard asks of a page before lexbor parses it, in a handful of numpy
vector passes over the positions of ``<``, ``>``, ``"`` and ``'`` (no Python loop per tag):
an upper bound on the depth of ``engine.text.html_text._nesting_depth`` (so that exact scan
runs only where a page may really be deep), and where the page holds the start tags the
guard's regular expressions look for (docs/engine.md, "Text").

Why this module is long: the bound's steps (events, tags, names, comments and raw text,
the walk) read the same arrays in one order; apart, a dozen arrays would pass between
modules, and each step's soundness argument rests on the ones before it.

``markup_signals(utf8, not_nesting) -> Signals``; ``nesting_bound(utf8, not_nesting) -> int``.

The bound is the scan's own walk over a set of tags that holds every start tag the scan
counts and only end tags it is certain the scan reads: a start tag opens an element (void
and implicitly closed elements excepted, ``not_nesting``; one certain to end ``/>`` inside
``<svg>`` or ``<math>`` opens nothing), an end tag closes one of its own name if one is
open and is a stray otherwise. Counting a start tag more, or an end tag less, never lowers
a walk that is held at zero by strays, so the walk over that set is never below the scan;
its peak is at most ``max(S) + T``: ``S`` the plain running sum of +1 per start tag and -1
per end tag, ``T`` the strays of the whole page, counted per name from the running minimum
of that name's own walk. Names are compared exactly, ASCII case folded, as the scan reads
them (up to a tab, line feed, form feed, carriage return, space, ``/`` or ``>``): by their
bytes when shorter than 8 and free of NUL, else by a hash of the whole name.

Where the scan may not read markup, nothing is taken on trust: a ``<`` (tag, end tag,
comment, doctype, bogus comment) before the first ``>`` after another such ``<`` is inside
that tag; a position after the last quote of either kind that could open an attribute
value (an ``=`` before it, spaces allowed) may be inside a quoted value, and so may one
after a ``>`` that may be. A start tag is left out only where the scan certainly skips it
(inside a tag, or inside a comment or raw-text element whose own start is certain); an end
tag is counted only where the scan certainly reads it (outside every tag, quoted value,
comment and raw-text element the page could hold). Markup crafted to hide tags in quotes,
comments or raw text therefore only raises the bound. Where comments and raw-text elements
overlap past a budget (hostile markup only), the bound gives up and says the page's length:
the exact scan then decides.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_RAW_TEXT: tuple[bytes, ...] = (b"script", b"style", b"xmp", b"iframe", b"noembed")
_RAW_TEXT += (b"noframes", b"noscript")
_RAW_TEXT += (b"textarea", b"title", b"plaintext")
# The scan's own comment and raw-text tokens (engine.text.html_text._DEPTH_TOKEN), matched
# at one position to find where each ends.
_ATTRS = rb"""(?:[^>"'=/]+|=[\t\n\f\r ]*"[^"]*"|=[\t\n\f\r ]*'[^']*'|["'=]|/(?!>))*+"""
_COMMENT = re.compile(rb"<!--(?:-?>|.*?(?:--!?>|\Z))", re.S)
_RAW_OPEN = {
    name: re.compile(rb"<" + name + rb"(?=[\t\n\f\r />])" + _ATTRS, re.IGNORECASE)
    for name in _RAW_TEXT
}
_RAW_END = {name: re.compile(rb"</" + name, re.IGNORECASE) for name in _RAW_TEXT}
_NAME = re.compile(rb"[^\t\n\f\r />]*")
_FIRST_RAW = [False] * 256
for _name in _RAW_TEXT:
    _FIRST_RAW[_name[0]] = True
_FIRST_SIGNAL = [False] * 256
for _name in (b"frameset", b"annotation-xml", b"svg", b"math"):
    _FIRST_SIGNAL[_name[0]] = True
#: Bytes the walk of comments and raw-text elements may match, as a multiple of the page:
#: past it (elements overlapping by design) the bound gives up.
_SPAN_BUDGET = 4

_TABLES: dict[str, Any] = {}


@dataclass(frozen=True)
class Signals:
    """What :func:`markup_signals` finds in a page's UTF-8 bytes.

    ``bound``: an upper bound on the scan's depth (0 for a page with no tags). ``declines``:
    some ``<`` starts ``frameset`` or ``annotation-xml`` (ASCII case-insensitive, in any
    context). ``foreign``: some ``<`` starts ``svg`` or ``math``. ``long_tag``: some ``<``
    and a letter have no ``>`` within 8,193 bytes after them (a tag the guard's long-tag
    check may look at)."""

    bound: int
    declines: bool
    foreign: bool
    long_tag: bool


def _tables(np: Any) -> dict[str, Any]:
    """Byte tables: the scan's name terminators; ASCII lower case; the scan's spaces."""
    if not _TABLES:
        stop = np.zeros(256, bool)
        stop[[9, 10, 12, 13, 0x20, 0x2F, 0x3E]] = True
        lower = np.arange(256, dtype=np.uint8)
        lower[0x41:0x5B] += 0x20
        space = np.zeros(256, bool)
        space[[9, 10, 12, 13, 0x20]] = True
        _TABLES.update(stop=stop, lower=lower, space=space)
    return _TABLES


def _key(name: bytes) -> int:
    """A name's key (lower case): a name under 8 bytes without NUL is its bytes,
    little-endian, zero-padded; any other a hash of it with the top bit set."""
    if len(name) >= 8 or b"\0" in name:
        return (hash(name) & 0x7FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
    return int.from_bytes(name.ljust(8, b"\0"), "little")


def nesting_bound(utf8: bytes, not_nesting: frozenset[bytes]) -> int:
    """An upper bound on ``_nesting_depth(utf8)`` (see the module docstring);
    ``not_nesting``: the element names that never stay open (lower case)."""
    return markup_signals(utf8, not_nesting).bound


def markup_signals(utf8: bytes, not_nesting: frozenset[bytes]) -> Signals:
    """:class:`Signals` of a page's UTF-8 bytes (see the module docstring). Linear in the
    input; never raises."""
    import numpy as np  # lazy: only pages over 64 kB are read this way

    t = _tables(np)
    n = len(utf8)
    # 8 bytes before the page (to look back from a quote), 24 after (to read names): the
    # byte at page position p is buf[p + 8].
    buf = np.frombuffer(b"".join((bytes(8), utf8, bytes(24))), np.uint8)
    lt, gt_before, gtpos, gt_quoted, lt_quoted = _lt_and_gt(np, t, buf, n)
    # Each array is let go once read for the last time (here and in _lt_and_gt): a call's
    # peak memory, the pages the allocator takes back after it and faults in again in the
    # next, is most of what the arrays cost beyond the arithmetic on a large page (the
    # Node.js API: 17,000 page faults a call with every array held to the end).

    nxt = buf[lt + 9]
    slash = nxt == 0x2F
    at = lt + 1 + slash  # where a name starts
    tag = ((buf[at + 8] | 0x20) - 0x61) < 26  # "<" or "</" and a letter (uint8 wraps)
    opener = tag | slash | (nxt == 0x21) | (nxt == 0x3F)
    # One is inside a tag when no ">" lies between it and the opener before it.
    o = np.flatnonzero(opener)
    inside = np.zeros(len(lt), bool)
    inside[o[1:]] = gt_before[o[1:]] == gt_before[o[:-1]]
    last_gt_quoted = gt_quoted[gt_before]
    # Certain: the scan reads markup at this "<", unless a comment or raw text holds it.
    certain = opener & ~inside & ~lt_quoted & ~last_gt_quoted
    del opener, lt_quoted, last_gt_quoted

    ti = np.flatnonzero(tag)
    t_lt, t_at, t_slash = lt[ti], at[ti], slash[ti]
    del tag, at, slash
    words = np.ndarray(shape=(len(buf) - 8,), dtype="<u8", buffer=buf, strides=(1,))
    keys, prefix = _keys(np, t, words[t_at + 8], utf8, t_at)
    st = ~t_slash
    nxt_gt = gt_before[ti]  # index in gtpos of the first ">" after each tag
    next_gt = np.append(gtpos, n)[nxt_gt]  # where it is (the page's end if none)
    signals = _signals(np, utf8, prefix, st, t_lt, next_gt)
    if keys is None:
        return Signals(n, *signals)

    bang = np.flatnonzero(nxt == 0x21)
    comment = bang[(buf[lt[bang] + 10] == 0x2D) & (buf[lt[bang] + 11] == 0x2D)]
    del nxt, bang
    spans = _spans(np, utf8, lt, comment, ti, keys, st, certain, gt_before, len(gtpos))
    del gt_before, gtpos
    if spans is None:
        return Signals(n, *signals)
    sure_from, sure_to, any_from, any_to = spans
    in_sure = _inside(np, sure_from, sure_to, t_lt)
    in_any = _inside(np, any_from, any_to, t_lt)

    # For start tags, the end of raw text ("</script" without its ">") also ends a tag.
    inside_start = inside[ti]
    raw_end = _raw_ends(np, prefix, t_slash, t_at)
    if len(raw_end):
        ends_before = np.searchsorted(raw_end, lt[o], side="right")
        after_end = np.zeros(len(lt), bool)
        after_end[o[1:]] = ends_before[1:] != ends_before[:-1]
        inside_start = inside_start & ~after_end[ti]
        del ends_before, after_end
    del inside, raw_end, lt, o, prefix, t_at, t_slash
    nesting = ~_member(np, keys, [_key(k) for k in not_nesting])
    sure = certain[ti] & ~in_any  # the scan reads this tag
    counted_start = st & nesting & ~inside_start & ~in_sure
    if len(sure_from):  # a raw-text element: one token, no tag
        i = np.minimum(np.searchsorted(sure_from, t_lt), len(sure_from) - 1)
        counted_start &= sure_from[i] != t_lt
    counted_end = ~st & nesting & sure
    del t_lt, in_sure, in_any, inside_start, certain, nesting, ti

    sure_gt = ~gt_quoted[nxt_gt + 1]  # that ">" ends the tag (False where there is none)
    self_closing = sure_gt & (buf[next_gt + 7] == 0x2F)
    counted_start &= ~_closed_at_once(np, keys, st, sure & sure_gt, self_closing)

    return Signals(_walk_bound(np, keys, counted_start, counted_end), *signals)


def _lt_and_gt(np: Any, t: dict[str, Any], buf: Any, n: int) -> tuple[Any, ...]:
    """(positions of each "<"; per "<", how many ">" come before it; positions of each
    ">"; per ">" from 1, whether it may be in a quoted value (0: none before the first,
    the last: none after the last); per "<", the same) of the page in ``buf``."""
    page = buf[8 : 8 + n]
    ev = _events(np, page)
    kind = page[ev]
    is_lt, is_gt = kind == 0x3C, kind == 0x3E
    quoted = _maybe_quoted(np, t, buf, ev, kind)
    gt_seen = np.cumsum(is_gt, dtype=np.int32)
    # Index arrays, not boolean masks: a gather by index is several times faster than
    # numpy's boolean indexing here (6 -> 0.8 ms for the "<" of the Node.js API).
    i_lt, i_gt = np.flatnonzero(is_lt), np.flatnonzero(is_gt)
    lt = ev[i_lt]
    gt_before = gt_seen[i_lt]
    gtpos = ev[i_gt]
    gt_quoted = np.concatenate(([False], quoted[i_gt], [True]))
    return lt, gt_before, gtpos, gt_quoted, quoted[i_lt]


_CHUNK = 1 << 18  # bytes of the page _events reads at a time


def _events(np: Any, page: Any) -> Any:
    """The positions of every "<", ">", '"' and "'" (``x | 2`` is 0x3E for "<" and ">"
    alone), by passes in place over 256 kB of the page at a time, in two rounds: the count
    of each piece, then its positions into one array of the total. Scratch arrays of the
    page's size cost more in page faults (fresh memory each call) than in work; these
    are reused from piece to piece."""
    n = len(page)
    hit = np.empty(min(n, _CHUNK), np.uint8)
    other = np.empty(len(hit), bool)

    def mark(start: int) -> Any:
        piece = page[start : start + _CHUNK]
        h, o = hit[: len(piece)], other[: len(piece)]
        np.bitwise_or(piece, 2, out=h)
        is_event = h.view(bool)
        np.equal(h, 0x3E, out=is_event)
        np.equal(piece, 0x22, out=o)
        np.logical_or(is_event, o, out=is_event)
        np.equal(piece, 0x27, out=o)
        np.logical_or(is_event, o, out=is_event)
        return is_event

    starts = range(0, n, _CHUNK)
    counts = [int(np.count_nonzero(mark(start))) for start in starts]
    ev = np.empty(sum(counts), np.intp)
    at = 0
    for start, count in zip(starts, counts):
        np.add(np.flatnonzero(mark(start)), start, out=ev[at : at + count])
        at += count
    return ev


def _walk_bound(np: Any, keys: Any, starts: Any, ends: Any) -> int:
    """``max(S) + T`` over the counted start and end tags (see the module docstring)."""
    sign = starts.astype(np.int32) - ends
    used = np.flatnonzero(sign)
    if not len(used):
        return 0
    sign = sign[used]
    return max(0, int(np.cumsum(sign).max())) + _strays(np, keys[used], sign)


def _maybe_quoted(np: Any, t: dict[str, Any], buf: Any, ev: Any, kind: Any) -> Any:
    """Per event: after the last quote of either kind that could open an attribute value
    (an ``=`` before it, up to three spaces between; four spaces count as one could), up to
    the next quote of that kind: one running sum over marks at both ends of each such
    stretch (the stretches of one kind never overlap)."""
    m = len(ev)
    mark = np.zeros(m + 1, np.int8)
    for q in (0x22, 0x27):
        idx = np.flatnonzero(kind == q)  # this kind's quotes, as event indexes
        at = ev[idx] + 7  # the byte before each (buf holds the page from 8 on)
        b = buf[at]
        opens = b == 0x3D
        spaced = np.flatnonzero(t["space"][b])  # a space before: look further back
        for back in range(1, 4):
            if not len(spaced):
                break
            b = buf[at[spaced] - back]
            opens[spaced[b == 0x3D]] = True
            spaced = spaced[t["space"][b]]
        opens[spaced] = True
        o = np.flatnonzero(opens)
        mark[idx[o] + 1] += 1
        mark[np.append(idx, m)[o + 1]] -= 1
    return np.cumsum(mark[:-1], dtype=np.int32) > 0


def _keys(np: Any, t: dict[str, Any], w: Any, utf8: bytes, at: Any) -> tuple[Any | None, Any]:
    """(exact key of each name, its first 8 bytes lower-cased as one integer), from ``w``,
    the 8 bytes at each name's start as one little-endian integer, by bit arithmetic on all
    of them at once: ASCII upper case lowered; the first byte that is at most a space, a
    "/" or a ">" found, and the bytes from it on cleared. A name with no such byte in its 8
    (8 bytes or more, or the page's end) or cut by one that ends no name (a NUL or another
    control character) is keyed from its bytes one by one (None for the keys where those
    bytes pass the budget). In place over a few arrays: a fresh array per step cost more
    in page faults than in arithmetic."""
    u = np.uint64
    ones, high, low7 = u(0x0101010101010101), u(0x8080808080808080), u(0x7F7F7F7F7F7F7F7F)
    a = np.bitwise_and(w, low7)
    b = np.add(a, u(0x3F) * ones)  # high bit: at least "A"
    np.add(a, u(0x25) * ones, out=a)  # high bit: past "Z"
    np.bitwise_or(a, w, out=a)  # (or not ASCII)
    np.invert(a, out=a)
    np.bitwise_and(b, a, out=b)
    np.bitwise_and(b, high, out=b)
    np.right_shift(b, u(2), out=b)  # 0x20 where "A".."Z"
    lw = np.bitwise_or(w, b)
    # The first byte at most a space (the lowest such flag is exact), "/" or ">".
    np.subtract(lw, u(0x21) * ones, out=a)
    np.invert(lw, out=b)
    np.bitwise_and(a, b, out=a)
    np.bitwise_and(a, high, out=a)
    for mark in (0x2F, 0x3E):
        np.bitwise_xor(lw, u(mark) * ones, out=b)  # a zero byte where the mark is
        c = np.bitwise_and(b, low7)
        np.add(c, low7, out=c)
        np.bitwise_or(c, b, out=c)
        np.invert(c, out=c)
        np.bitwise_and(c, high, out=c)
        np.bitwise_or(a, c, out=a)
    np.negative(a, out=b)  # two's complement: the lowest flag alone
    np.bitwise_and(a, b, out=a)
    found = a != u(0)
    np.right_shift(a, u(7), out=a)
    np.subtract(a, u(1), out=a)  # the bytes before it (all when there is none)
    keys = np.bitwise_and(lw, a)
    shift = np.bitwise_count(a)
    np.bitwise_and(shift, 63, out=shift)
    np.right_shift(lw, shift, out=b)
    np.bitwise_and(b, u(0xFF), out=b)
    ends = t["stop"][b]
    np.logical_and(ends, found, out=ends)
    budget = _SPAN_BUDGET * len(utf8) + 4096
    name_end = -1
    for i in np.flatnonzero(~ends).tolist():
        start = int(at[i])
        if start >= name_end:  # else this name ends where the one around it does
            m = _NAME.match(utf8, start)
            name_end = m.end() if m else start
        budget -= name_end - start + 8
        if budget < 0:
            return None, lw  # names inside names ("<a<a<a..."), past the budget
        keys[i] = _key(utf8[start:name_end].lower())
    return keys, lw


def _word(name: bytes) -> tuple[Any, Any]:
    """(value, mask) comparing a name's first 8 bytes with a ``prefix`` integer."""
    import numpy as np

    head = name[:8]
    value = int.from_bytes(head.ljust(8, b"\0"), "little")
    return np.uint64(value), np.uint64((1 << (8 * len(head))) - 1)


def _signals(
    np: Any, utf8: bytes, prefix: Any, st: Any, pos: Any, next_gt: Any
) -> tuple[bool, bool, bool]:
    """(declines, foreign, long_tag) of :class:`Signals`, from the tags' first 8 bytes
    (lower case) and the first ">" after each (``next_gt``, the page's length if none)."""
    s = np.flatnonzero(st)
    long_tag = bool(((next_gt[s] - pos[s]) >= 8194).any())
    s = s[np.flatnonzero(np.asarray(_FIRST_SIGNAL)[(prefix[s] & np.uint64(0xFF)).astype(np.intp)])]
    head = prefix[s]
    value, _ = _word(b"frameset")
    declines = bool((head == value).any())
    value, mask = _word(b"annotation-xml")
    if not declines:
        for p in pos[s][(head & mask) == value].tolist():
            if utf8[p + 9 : p + 15].lower() == b"on-xml":
                declines = True
                break
    foreign = False
    for name in (b"svg", b"math"):
        value, mask = _word(name)
        foreign = foreign or bool(((head & mask) == value).any())
    return declines, foreign, long_tag


def _raw_ends(np: Any, prefix: Any, slash: Any, at: Any) -> Any:
    """Sorted positions just after each ``</`` and a raw-text name's first bytes (where
    the scan may end raw text and read on)."""
    ends = [np.zeros(0, np.int64)]
    e = np.flatnonzero(slash)
    e = e[np.flatnonzero(np.asarray(_FIRST_RAW)[(prefix[e] & np.uint64(0xFF)).astype(np.intp)])]
    head, at = prefix[e], at[e]
    by_length: dict[int, list[int]] = {}
    for name in _RAW_TEXT:
        by_length.setdefault(min(len(name), 8), []).append(int(_word(name)[0]))
    for length, values in by_length.items():
        _, mask = _word(bytes(length))
        ends.append(at[_member(np, head & mask, values)] + length)
    return np.sort(np.concatenate(ends))


def _spans(
    np: Any,
    utf8: bytes,
    lt: Any,
    comment: Any,
    ti: Any,
    keys: Any,
    st: Any,
    certain: Any,
    gt_before: Any,
    gts: int,
) -> tuple[Any, Any, Any, Any] | None:
    """Comments and raw-text elements as the scan reads them: (starts, ends) of those whose
    start is certain, and of every one the page could hold; None past the budget.
    ``comment``: indexes in ``lt`` of each ``<!--``; ``ti``: of each tag."""
    found = [(int(lt[i]), b"", int(i)) for i in comment.tolist()]
    names = {_key(name): name for name in _RAW_TEXT}
    raw = np.flatnonzero(st & _member(np, keys, list(names)))
    for j in raw.tolist():
        i = int(ti[j])
        if gt_before[i] < gts:  # with no ">" after it, "<script" is a plain tag
            found.append((int(lt[i]), names[int(keys[j])], i))
    found.sort()
    sure_from: list[int] = []
    sure_to: list[int] = []
    any_from: list[int] = []
    any_to: list[int] = []
    sure_until = any_until = 0
    budget = _SPAN_BUDGET * len(utf8) + 4096
    for p, name, i in found:
        if p < sure_until:
            continue  # inside a comment or raw text the scan reads: no markup
        if name:
            tag_end = _RAW_OPEN[name].match(utf8, p).end()  # type: ignore[union-attr]
            budget -= tag_end - p + 64
            if utf8[tag_end : tag_end + 1] != b">":
                if budget < 0:
                    return None
                continue  # "<script ...", ending "/>": a plain tag
            m = _RAW_END[name].search(utf8, tag_end + 1)
            end = m.end() if m else len(utf8)
            budget -= end - tag_end
        else:
            end = _COMMENT.match(utf8, p).end()  # type: ignore[union-attr]
            budget -= end - p + 64
        if budget < 0:
            return None
        if certain[i] and p >= any_until:
            sure_from.append(p)
            sure_to.append(end)
            sure_until = end
        any_from.append(p)
        any_to.append(end)
        any_until = max(any_until, end)
    found_spans = [np.array(x, np.int64) for x in (sure_from, sure_to, any_from, any_to)]
    return found_spans[0], found_spans[1], found_spans[2], found_spans[3]


def _inside(np: Any, starts: Any, ends: Any, pos: Any) -> Any:
    """Per position of ``pos`` (ascending): after the start of one of the spans ``[start,
    end)`` and before its end."""
    if not len(starts):
        return np.zeros(len(pos), bool)
    lo = np.searchsorted(pos, starts, side="right")
    hi = np.searchsorted(pos, ends, side="left")
    mark = np.zeros(len(pos) + 1, np.int32)
    np.add.at(mark, lo, 1)
    np.add.at(mark, hi, -1)
    return np.cumsum(mark)[:-1] > 0


def _closed_at_once(np: Any, keys: Any, st: Any, sure: Any, self_closing: Any) -> Any:
    """Start tags the scan certainly reads as ending ``/>`` inside ``<svg>`` or ``<math>``:
    they open nothing. Foreign content is told by a running sum of +1 per svg/math start
    tag the scan certainly reads as opening one and -1 per svg/math end tag of any kind, so
    it is never above the scan's own count. The sum is taken over the svg and math tags
    alone and read before each candidate (a start tag certainly read as ending ``/>``)."""
    out = np.zeros(len(keys), bool)
    candidates = np.flatnonzero(st & sure & self_closing)
    if not len(candidates):
        return out
    f = np.flatnonzero((keys == np.uint64(_key(b"svg"))) | (keys == np.uint64(_key(b"math"))))
    f_st = st[f]
    if not f_st.any():
        return out
    step = (f_st & sure[f] & ~self_closing[f]).astype(np.int64) - ~f_st
    run = np.concatenate(([0], np.cumsum(step)))  # the sum before the k-th svg/math tag
    before = run[np.searchsorted(f, candidates)]  # over the svg/math tags before each
    out[candidates[before > 0]] = True
    return out


def _hash16(np: Any, keys: Any) -> Any:
    """A 16-bit bucket of each key (multiplicative hashing: one multiply, one shift)."""
    return ((keys * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(48)).astype(np.intp)


def _member(np: Any, keys: Any, values: Any) -> Any:
    """Per key: one of ``values`` (a few), by a table of their 16-bit buckets and the key
    kept in each (``np.isin`` sorts all the keys). The table of each set of values is
    built once (the sets are the module's own name lists): filling its 512 kB for every
    call cost more than the lookups on a page of a megabyte."""
    v, table = _member_table(np, tuple(sorted({int(x) for x in values})))
    if table is None:  # two share a bucket: search instead
        i = np.minimum(np.searchsorted(v, keys), len(v) - 1)
        return v[i] == keys
    return table[_hash16(np, keys)] == keys


_MEMBER_TABLES: dict[tuple[int, ...], tuple[Any, Any]] = {}


def _member_table(np: Any, values: tuple[int, ...]) -> tuple[Any, Any]:
    """(the sorted values as an array, their bucket table or None where two share one)."""
    found = _MEMBER_TABLES.get(values)
    if found is None:
        v = np.asarray(values, np.uint64)
        where = _hash16(np, v)
        table = None
        if len(np.unique(where)) == len(v):
            table = np.full(1 << 16, np.uint64(0xFFFF_FFFF_FFFF_FFFF), np.uint64)
            table[where] = v
        found = _MEMBER_TABLES[values] = (v, table)
    return found


def _strays(np: Any, keys: Any, sign: Any) -> int:
    """End tags that close nothing: per name, the depth its own walk would reach below
    zero (the negated running minimum), summed. Names are grouped by a 16-bit bucket (a
    radix sort), by the whole key where two names share one."""
    bucket = _hash16(np, keys).astype(np.uint16)
    order = np.argsort(bucket, kind="stable")
    k = keys[order]
    b = bucket[order]
    if ((b[1:] == b[:-1]) & (k[1:] != k[:-1])).any():
        order = np.argsort(keys, kind="stable")
        k = keys[order]
    s = sign[order]
    first = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1])))
    run = np.cumsum(s, dtype=np.int32)
    base = run[first] - s[first]  # each name's walk starts from the sum before it
    lowest = np.minimum.reduceat(run, first) - base
    return int(np.maximum(0, -lowest).sum())
