"""The diff of two texts as ops: sentence alignment, moved sentences, and the word pass
over each changed hunk (``diff_ops``; engine.diff.diffing describes the whole algorithm).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from engine.collector import paused
from engine.diff.align import (
    DEFAULT_LIMITS,
    DELETE,
    EQUAL,
    INSERT,
    DiffLimits,
    Region,
    _Aligner,
    _anchors,
    _common_prefix,
    _common_suffix,
    _Hunk,
)
from engine.diff.cleanup import _SPACE, _merge, _semantic_merge
from engine.diff.myers import _Budget, _CountedDmp
from engine.diff.tokens import (
    OFFSETS,
    _Chunks,
    _encode_chunks,
    _starts,
    _TokenCodec,
    _without,
    cuts_inside,
    glued_breaks,
    shared_keys,
    split_sentences,
    word_tokens,
    word_tokens_cut,
)
from engine.diff.warp import _warp_groups

_SNAP = 4096
"""Characters searched back (and forward) for the sentence boundary where the common
prefix (suffix) is cut."""


# -- the diff ----------------------------------------------------------------------------


class _Differ:
    def __init__(
        self,
        a: str,
        b: str,
        limits: DiffLimits,
        breaks: tuple[Sequence[int] | None, Sequence[int] | None] = (None, None),
    ) -> None:
        self.a, self.b, self.limits = a, b, limits
        # where a block ends with no character between it and the next: units end there
        self.glued_a, self.glued_b = glued_breaks(a, breaks[0]), glued_breaks(b, breaks[1])
        total = limits.total_steps_base + limits.total_steps_per_char * (len(a) + len(b))
        self.dmp = _CountedDmp(_Budget(total, limits.myers_steps))
        self.aligner = _Aligner(self.dmp)
        self.words = _TokenCodec()
        # The ops as two parallel arrays, kind and length (an op is 5 bytes, not a tuple of
        # two ints: a rewritten 20 MB text has 1.3 million of them).
        self.tags = array("b")
        self.lens = array(OFFSETS)
        self.moves: list[Region] = []
        self.moved_tokens_a: list[tuple[int, int]] = []  # whole moved sentence chunks
        self.moved_tokens_b: list[tuple[int, int]] = []
        self.approximate: list[Region] = []

    def emit(self, op: int, n: int) -> None:
        if n:
            self.tags.append(op)
            self.lens.append(n)

    def run(self) -> None:
        a, b = self.a, self.b
        if a == b:
            self.emit(EQUAL, len(a))
            return
        p = _common_prefix(a, 0, len(a), b, 0, len(b))
        s = _common_suffix(a, p, len(a), b, p, len(b))
        # Cut only at sentence boundaries, so the first and last changed sentences keep
        # their whole text (a sentence that moved there is still recognised as itself).
        w = max(0, p - _SNAP)
        head = split_sentences(a[w:p])
        p = w + sum(map(len, head[:-1])) if (len(head) > 1 or w == 0) else w
        tail = split_sentences(a[len(a) - s : len(a) - s + _SNAP])
        if len(tail) > 1:
            s -= len(tail[0])
        elif s <= _SNAP:
            s = 0
        else:
            s -= _SNAP
        self.emit(EQUAL, p)
        self._middle(p, len(a) - s, p, len(b) - s)
        self.emit(EQUAL, s)

    def _middle(self, x0: int, x1: int, y0: int, y1: int) -> None:
        a, b = self.a, self.b
        if x0 == x1 or y0 == y1:
            self.emit(DELETE, x1 - x0)
            self.emit(INSERT, y1 - y0)
            return
        # Sentence chunks as codes and start offsets (global, one extra at the end). The
        # texts are neither sliced nor kept in pieces: a chunk is cut out when needed.
        table: dict[str, str] = {}
        sa, sta = _encode_chunks(a, x0, x1, table, self.glued_a)
        sb, stb = _encode_chunks(b, y0, y1, table, self.glued_b)
        del table
        ta, tb = _Chunks(a, sta), _Chunks(b, stb)
        blocks, _ = self.aligner.align(sa, sb, myers=False)
        # Hunks: the gaps between matching blocks, in token indices.
        hunks: list[tuple[int, int, int, int]] = []
        equal_after: list[int] = []  # chars of the block after each hunk
        lead = 0
        pi = pj = 0
        for i, j, n in blocks + [(len(sa), len(sb), 0)]:
            if i > pi or j > pj:
                hunks.append((pi, i, pj, j))
                equal_after.append(sta[i + n] - sta[i])
            elif not hunks:
                lead += sta[i + n] - sta[i]
            else:
                equal_after[-1] += sta[i + n] - sta[i]
            pi, pj = i + n, j + n
        moved_a, moved_b = self._find_moves(hunks, ta, tb, sta, stb)
        del sa, sb
        self.emit(EQUAL, lead)
        for h, (i0, i1, j0, j1) in enumerate(hunks):
            self._hunk(i0, i1, j0, j1, ta, tb, sta, stb, moved_a, moved_b)
            self.emit(EQUAL, equal_after[h])

    def _find_moves(
        self, hunks: list[_Hunk], ta: _Chunks, tb: _Chunks, sta: array, stb: array
    ) -> tuple[set[int], set[int]]:
        """Sentences deleted in one hunk and inserted, the same, in another hunk: moved.

        A sentence deleted and inserted within one hunk (only its spaces or its line break
        changed) is left to the word pass, which aligns it. The k-th remaining deletion of
        a sentence is paired with its k-th remaining insertion.
        """
        minc = self.limits.move_min_chars
        moved_a: set[int] = set()
        moved_b: set[int] = set()
        cand_a, cand_b = shared_keys(hunks, ta, tb, minc)
        deleted: dict[str, list[int]] = {}
        inserted: list[tuple[str, int]] = []
        ia = ib = 0
        for _i0, i1, _j0, j1 in hunks:
            here: dict[str, list[int]] = {}
            while ia < len(cand_a) and cand_a[ia] < i1:
                i = cand_a[ia]
                here.setdefault(ta[i].strip(), []).append(i)
                ia += 1
            while ib < len(cand_b) and cand_b[ib] < j1:
                j = cand_b[ib]
                key = tb[j].strip()
                ib += 1
                q = here.get(key)
                if q:
                    q.pop(0)  # the same sentence on both sides of one hunk: not a move
                else:
                    inserted.append((key, j))
            for key, q in here.items():
                deleted.setdefault(key, []).extend(q)
        if not deleted or not inserted:
            return moved_a, moved_b
        pairs = []
        for key, j in inserted:
            q = deleted.get(key)
            if q:
                i = q.pop(0)
                moved_a.add(i)
                moved_b.add(j)
                pairs.append((i, j))
        pairs.sort()
        for i, j in pairs:
            ka, kb = ta[i], tb[j]
            a0 = sta[i] + len(ka) - len(ka.lstrip())
            a1 = a0 + len(ka.strip())
            b0 = stb[j] + len(kb) - len(kb.lstrip())
            b1 = b0 + (a1 - a0)
            self.moved_tokens_a.append((sta[i], sta[i + 1]))
            last = self.moves[-1] if self.moves else None
            if (
                last is not None
                and last.a1 <= a0
                and last.b1 <= b0
                and not self.a[last.a1 : a0].strip()
                and self.a[last.a1 : a0] == self.b[last.b1 : b0]
            ):
                self.moves[-1] = Region(last.a0, a1, last.b0, b1)
            else:
                self.moves.append(Region(a0, a1, b0, b1))
        self.moved_tokens_b.extend(sorted((stb[j], stb[j + 1]) for j in moved_b))
        return moved_a, moved_b

    def _hunk(
        self,
        i0: int,
        i1: int,
        j0: int,
        j1: int,
        ta: _Chunks,
        tb: _Chunks,
        sta: array,
        stb: array,
        moved_a: set[int],
        moved_b: set[int],
    ) -> None:
        a, b = self.a, self.b
        cuts_a = [i for i in range(i0, i1) if i in moved_a] if moved_a else []
        cuts_b = [j for j in range(j0, j1) if j in moved_b] if moved_b else []
        if not cuts_a and not cuts_b:
            for gi0, gi1, gj0, gj1 in self._sentence_groups(ta, i0, i1, tb, j0, j1):
                x0, x1, y0, y1 = sta[gi0], sta[gi1], stb[gj0], stb[gj1]
                wa = self._group_words(ta, gi0, gi1)
                wb = self._group_words(tb, gj0, gj1) if wa else None
                stops = (
                    [c - x0 for c in cuts_inside(self.glued_a, x0, x1)],
                    [c - y0 for c in cuts_inside(self.glued_b, y0, y1)],
                )
                self._words(a[x0:x1], b[y0:y1], x0, y0, wa and wb and (*wa, *wb), stops)
            ta.words.clear()
            tb.words.clear()
            return
        # Diff the hunk without its moved sentences, then put them back in place as a
        # deletion (v1 side) and an insertion (v2 side).
        dn, ca, stops_a = _without(ta, i0, i1, cuts_a, self.glued_a)
        dm, cb, stops_b = _without(tb, j0, j1, cuts_b, self.glued_b)
        start, rough = len(self.tags), len(self.approximate)
        self._words(dn, dm, sta[i0], stb[j0], None, (stops_a, stops_b))
        if len(self.approximate) > rough:  # offsets there skip the moved sentences
            del self.approximate[rough:]
            self.approximate.append(Region(sta[i0], sta[i1], stb[j0], stb[j1]))
        sub = list(zip(self.tags[start:], self.lens[start:]))
        del self.tags[start:], self.lens[start:]
        ka = kb = 0  # next cut on each side
        da = db = 0  # position in dn and dm
        sub.append((EQUAL, 0))
        for op, n in sub:
            while True:
                while ka < len(ca) and ca[ka][0] == da:
                    self.emit(DELETE, ca[ka][1])
                    ka += 1
                while kb < len(cb) and cb[kb][0] == db:
                    self.emit(INSERT, cb[kb][1])
                    kb += 1
                if n == 0:
                    break
                room = n
                if op != INSERT and ka < len(ca):
                    room = min(room, ca[ka][0] - da)
                if op != DELETE and kb < len(cb):
                    room = min(room, cb[kb][0] - db)
                self.emit(op, room)
                if op != INSERT:
                    da += room
                if op != DELETE:
                    db += room
                n -= room

    def _sentence_groups(
        self, ta: _Chunks, i0: int, i1: int, tb: _Chunks, j0: int, j1: int
    ) -> list[_Hunk]:
        """Split a hunk (v1 sentences ``[i0, i1)``, v2 sentences ``[j0, j1)``) into groups
        ``(i0, i1, j0, j1)`` of sentences that correspond, so that each is word-diffed on
        its own and no change spreads into a neighbouring sentence.

        Correspondence comes from the words both sides share: word tokens unique in the
        hunk on both sides (else occurring equally often), kept in order by a longest
        increasing subsequence, link a v1 sentence to a v2 sentence; the hunk is cut
        wherever no link crosses. A sentence rewritten in place stays with its rewrite, one
        split in two with both halves. Each group is cut again on the words unique within
        it, until none can be; what is left is split by ``_warp_groups``.
        """
        out = []
        todo = [(i0, i1, j0, j1)]
        while todo:
            g = todo.pop()
            parts = self._cut_group(ta, tb, *g)
            if len(parts) == 1:
                out.extend(_warp_groups(ta, tb, *g))
            else:
                todo.extend(reversed(parts))  # a part's own unique words may cut it again
        return out

    def _cut_group(
        self, ta: _Chunks, tb: _Chunks, i0: int, i1: int, j0: int, j1: int
    ) -> list[_Hunk]:
        if i1 - i0 <= 1 or j1 - j0 <= 1:
            return [(i0, i1, j0, j1)]
        codes_a, sent_a = self._sentence_codes(ta, i0, i1)
        codes_b, sent_b = self._sentence_codes(tb, j0, j1)
        groups = []
        gi, gj = i0, j0
        pi, pj = i0, j0
        pairs = _anchors(codes_a, codes_b)
        keep = pairs.keep
        # The kept pairs increase on both sides, so their sentences never decrease: a cut
        # falls where both sentences moved on from the previous pair's.
        qis = map(sent_a.__getitem__, map(pairs.ia.__getitem__, keep))
        qjs = map(sent_b.__getitem__, map(pairs.jb.__getitem__, keep))
        for qi, qj in zip(qis, qjs):
            if qi > pi and qj > pj:
                groups.append((gi, qi, gj, qj))
                gi, gj = qi, qj
            pi, pj = qi, qj
        groups.append((gi, i1, gj, j1))
        return groups

    def _sentence_codes(self, tokens: _Chunks, i0: int, i1: int) -> tuple[list[str], list[int]]:
        """The word tokens of sentences ``[i0, i1)`` in one list (anchored as they are, not
        as codes: ``_anchors``), and each token's sentence; each sentence's tokens and
        codes are cached for the word pass."""
        toks: list[str] = []
        sent: list[int] = []
        cache = tokens.words
        for i in range(i0, i1):
            hit = cache.get(i)
            if hit is None:
                words = word_tokens(tokens[i])
                hit = cache[i] = (words, self.words.encode(words))
            toks += hit[0]
            sent.extend([i] * len(hit[0]))
        return toks, sent

    def _group_words(self, tokens: _Chunks, i0: int, i1: int) -> tuple[list[str], str] | None:
        """Word tokens and codes of sentences ``[i0, i1)``, if all were tokenised already."""
        cache = tokens.words
        if i1 - i0 == 1:
            return cache.get(i0)  # read only: the caller does not change the list
        hits = [cache.get(i) for i in range(i0, i1)]
        if not hits or None in hits:
            return None
        found = [h for h in hits if h is not None]
        return [w for h in found for w in h[0]], "".join(h[1] for h in found)

    def _words(
        self,
        x: str,
        y: str,
        ax: int,
        by: int,
        tokens: tuple[list[str], str, list[str], str] | None = None,
        stops: tuple[Sequence[int], Sequence[int]] = ((), ()),
    ) -> None:
        """Word-level diff of one hunk (v1 text ``x`` at ``ax``, v2 text ``y`` at ``by``);
        ``tokens``: ``(tx, sx, ty, sy)``, their word tokens and codes, when known;
        ``stops``: positions in ``x`` and ``y`` where a token must end (block breaks)."""
        if not x or not y:
            self.emit(DELETE, len(x))
            self.emit(INSERT, len(y))
            return
        if tokens:
            tx, sx, ty, sy = tokens
        else:
            tx, ty = word_tokens_cut(x, stops[0]), word_tokens_cut(y, stops[1])
            sx, sy = self.words.encode(tx), self.words.encode(ty)
        blocks, rough = self.aligner.align(sx, sy, myers=True, blank=self.words.blank)
        if rough:
            px, py = _starts(tx, 0), _starts(ty, 0)
            for i0, i1, j0, j1 in rough:
                self.approximate.append(Region(ax + px[i0], ax + px[i1], by + py[j0], by + py[j1]))
        coarse: list[tuple[int, str]] = []
        groups = 0  # change groups (runs of deletions and insertions between equalities)
        ti = tj = 0  # token positions
        blocks.append((len(tx), len(ty), 0))
        for i, j, n in blocks:
            if i > ti or j > tj:
                groups += 1
                if i > ti:
                    coarse.append((DELETE, "".join(tx[ti:i])))
                if j > tj:
                    coarse.append((INSERT, "".join(ty[tj:j])))
            if n:
                coarse.append((EQUAL, "".join(tx[i : i + n])))
            ti, tj = i + n, j + n
        # The semantic cleanup folds equalities between two change groups; with one group
        # (or none) it changes nothing the emitted ops keep.
        self._refine(_semantic_merge(coarse) if groups > 1 else coarse, ax, by)

    def _refine(self, seg: list[tuple[int, str]], ax: int, by: int) -> None:
        """Emit ``seg``, short replacements diffed by character."""
        lim = self.limits.refine_chars
        k = 0
        while k < len(seg):
            op, t = seg[k]
            if (
                op == DELETE
                and k + 1 < len(seg)
                and seg[k + 1][0] == INSERT
                and len(t) <= lim
                and len(seg[k + 1][1]) <= lim
            ):
                u = seg[k + 1][1]
                p = _common_prefix(t, 0, len(t), u, 0, len(u))
                q = _common_suffix(t, p, len(t), u, p, len(u))
                mt, mu = t[p : len(t) - q], u[p : len(u) - q]
                if not (p or q) or _SPACE.search(t) or _SPACE.search(u):
                    # Unrelated words (nothing shared at their start or end: "foo" -> "bar")
                    # or a phrase replaced: whole, not letter by letter (what Myers and the
                    # semantic cleanup conclude for such pairs, without running them).
                    self.emit(DELETE, len(t))
                    self.emit(INSERT, len(u))
                elif not mt or not mu or set(mt).isdisjoint(mu):
                    self.emit(EQUAL, p)  # "colour" -> "color": one letter deleted
                    self.emit(DELETE, len(mt))
                    self.emit(INSERT, len(mu))
                    self.emit(EQUAL, q)
                else:
                    self.emit(EQUAL, p)
                    fine, hit = self.dmp.refined(mt, mu)
                    if hit:
                        self.approximate.append(Region(ax, ax + len(t), by, by + len(u)))
                    for fop, n in fine:
                        self.emit(fop, n)
                    self.emit(EQUAL, q)
                ax += len(t)
                by += len(u)
                k += 2
                continue
            self.emit(op, len(t))
            if op != INSERT:
                ax += len(t)
            if op != DELETE:
                by += len(t)
            k += 1


@dataclass
class DiffResult:
    """What ``diff_ops`` found.

    ``tags`` and ``lens``: the ops in order as parallel arrays, each op's kind (EQUAL,
    DELETE or INSERT) and length in code points (``ops``: the same as ``(op, length)``
    pairs). ``moves``: moved passages, sorted by v1 start, each with ``a[a0:a1] ==
    b[b0:b1]`` (their text is also inside DELETE and INSERT ops). ``moved_a`` / ``moved_b``:
    the whole moved sentence chunks (with their spaces), sorted: what churn leaves out.
    ``approximate``: regions where a bound of the limits was hit.
    """

    tags: array
    lens: array
    moves: list[Region]
    moved_a: list[tuple[int, int]]
    moved_b: list[tuple[int, int]]
    approximate: list[Region]

    @property
    def ops(self) -> list[tuple[int, int]]:
        return list(zip(self.tags, self.lens))


def diff_ops(
    a: str,
    b: str,
    limits: DiffLimits = DEFAULT_LIMITS,
    breaks: tuple[Sequence[int] | None, Sequence[int] | None] = (None, None),
) -> DiffResult:
    """Diff ``a`` against ``b`` (see the module docstring). Deterministic: the same texts
    and limits give the same result on any machine, at any load. ``breaks``: the block
    edges of each text (code points, sorted; ``Version.block_breaks``, None for plain
    text): no sentence chunk or word token runs over one that no character marks."""
    d = _Differ(a, b, limits, breaks)
    # The diff allocates millions of small objects (ops, tokens, blocks), none of them in a
    # cycle: the cyclic garbage collector, triggered every few hundred allocations, would
    # scan the ones alive again and again and free nothing (as in html_text.extract).
    with paused():
        d.run()
        _merge(d.tags, d.lens)
    return DiffResult(
        d.tags, d.lens, d.moves, sorted(d.moved_tokens_a), d.moved_tokens_b, d.approximate
    )
