"""The mapped sentence: the v2 sentence(s) the quote's own v1 sentence(s) became, chosen by
shared words, the quote's words and the diff's kept text (docs/verdicts.md, "The sentence a
rewritten sentence became").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.diff.tokens import _CLOSERS
from engine.score.anchoring.changes import _substantial
from engine.score.anchoring.thresholds import (
    DISTANCE_COST,
    FUZZY_WINDOW,
    KEPT_SHARE,
    MOVED_REWRITE_DICE,
    MOVED_REWRITE_SHARED,
    QUOTE_DICE,
    REGION_REACH,
)
from engine.score.anchoring.words import (
    _content_words,
    _set_dice,
    _snap_words,
    _trim,
    _word_set,
    content_word_edges,
)
from engine.text.sentence_stops import SENTENCE_TERMINATORS

if TYPE_CHECKING:
    from engine.score.anchoring.reanchor import _Reanchor

_STOPS = frozenset(SENTENCE_TERMINATORS + _CLOSERS)


def _count_dice(wa: set[str], wb: set[str]) -> float:
    """How much of a sentence a v2 sentence keeps, for ``MOVED_REWRITE_DICE``: the Dice
    coefficient of the two word sets by count, ``2 |A & B| / (|A| + |B|)``, every word
    weighing the same (one long word shared by chance, "tomorrow", does not outweigh the
    rest), or that of their words of ``SURVIVING_WORD`` letters or more (and the
    character pairs of scripts written without spaces), whichever is higher: a rewrite
    keeps either the sentence's shape or its content words. The content words count only
    where ``MOVED_REWRITE_SHARED`` of them or more are shared: two words shared by chance
    are half of a short sentence's content words ("I love and am loved by a better man
    than he." and "Coffee love better outside.", 0.57), and no evidence of a rewrite; nor
    is the Dice of all their words where they share no content word at all."""

    def dice(a: set[str], b: set[str]) -> float:
        total = len(a) + len(b)
        return 2 * len(a & b) / total if total else 0.0

    ca, cb = _content_words(wa), _content_words(wb)
    shared = len(ca & cb)
    by_content = dice(ca, cb) if shared >= MOVED_REWRITE_SHARED else 0.0
    # the shape alone, in short words ("the", "is", "in"), is no evidence either: "The fee
    # is due in May." and "The sun is out in June." share half their words
    by_shape = dice(wa, wb) if shared else 0.0
    return max(by_shape, by_content)


class Mapped:
    """The v2 sentence a v1 sentence became."""

    def _mapped_sentences(self: _Reanchor, s: int, e: int) -> tuple[int, int] | None:  # type: ignore[misc]
        """The v2 sentence(s) the v1 sentence(s) of ``[s, e)`` became: for each v1
        sentence the quote touches, its image (``_sentence_image``), and the range from the
        first image to the last. None when no touched sentence has one."""
        t1 = self.t1
        a, b = self.v1.sentence_bounds(s, e)
        found = [
            m
            for p0, p1 in self.v1.sentence_pieces(a, b)
            if t1[max(p0, s) : min(p1, e)].strip()
            and (m := self._sentence_image(p0, p1, s, e))
            and not self._claimed_by_a_neighbour(p0, p1, m)
        ]
        if not found:
            return None
        return min(f[0] for f in found), max(f[1] for f in found)

    def _runs_in(  # type: ignore[misc]
        self: _Reanchor, a: int, b: int, c0: int, c1: int, content: bool = False
    ) -> list[tuple[int, int, int]]:
        """The ``_evidence_runs`` of v1 ``[a, b)`` (with ``content``, those that touch a
        content word) whose v2 copy overlaps ``[c0, c1)``, as ``(x0, x1, y0)``."""
        return [
            r for r in self._evidence_runs(a, b, content) if r[2] < c1 and c0 < r[2] + r[1] - r[0]
        ]

    def _evidence_in(  # type: ignore[misc]
        self: _Reanchor, a: int, b: int, m: tuple[int, int], content: bool = False
    ) -> int:
        """Characters of v1 ``[a, b)``'s ``_evidence_runs`` (with ``content``, of those
        that touch a content word) that lie, in v2, inside ``m``."""
        return sum(
            min(m[1], y0 + x1 - x0) - max(m[0], y0)
            for x0, x1, y0 in self._runs_in(a, b, m[0], m[1], content)
        )

    def _image_score(self: _Reanchor, p0: int, p1: int, m: tuple[int, int]) -> float:  # type: ignore[misc]
        """How much v2 sentence ``m`` is v1 sentence ``[p0, p1)``'s rewrite: their word-set
        Dice plus ``KEPT_SHARE`` x the share of the sentence's kept text inside ``m``."""
        own_words, _mid, cands = self._sentence_candidates(p0, p1)
        chance = not self._kept_counts(p0, p1)
        for c0, c1, words, share in cands:
            if (c0, c1) == m:
                return _set_dice(own_words, words) + (0.0 if chance else KEPT_SHARE * share)
        return 0.0

    def _sentence_image(  # type: ignore[misc]
        self: _Reanchor,
        p0: int,
        p1: int,
        s: int,
        e: int,
        strict: bool = True,
    ) -> tuple[int, int] | None:
        """The v2 sentence v1 sentence ``[p0, p1)`` became: of the v2 sentences in the
        diff's image of it (at least ``FUZZY_WINDOW`` and at most twice that around its
        estimated place), the
        one most like it and the quote ``[s, e)`` in it — the sum of their word-set Dice
        coefficients, so a shuffled rewrite is found by its words and a sentence split in
        two goes with the quote's words, plus the share of its kept text there
        (``KEPT_SHARE``), less ``DISTANCE_COST`` for distance from the estimated place. Only
        sentences of mostly new text (or the sentence's own) count: a sentence kept from
        elsewhere in v1 is not this one's rewrite. ``strict``, for crediting the sentence
        with a rewrite: only a candidate with evidence beyond its words' shape
        (``_image_evidence``) that lies in order with its rewritten neighbours
        (``KeptNeighbours._out_of_order``). Not strict, for asking whether a v2 sentence is
        a neighbour's rewrite (``Gates._a_neighbours_image``, ``Claims._claimed_now``, the
        neighbours' extents): the image by words alone, so a neighbour's rewrite that keeps
        only short words ("He orchard 5.meadow kg;") still shields it from a deleted
        sentence beside it. None when no candidate shares a word."""
        own_words, mid, cands = self._sentence_candidates(p0, p1)
        quote_words = _word_set(self.t1[max(p0, s) : min(p1, e)])
        ranked = []
        # the kept neighbours of every sentence the quote touches (a quote over several
        # sentences, all deleted: its inner ones' neighbours are deleted too)
        ra, rb = p0, p1
        if (s, e) != (p0, p1) and s < e:
            qa, qb = self.v1.sentence_bounds(s, e)
            ra, rb = min(ra, qa), max(rb, qb)
        for c0, c1, words, share in cands:
            if (
                strict
                and self._beyond_kept_neighbours(ra, rb, c0, c1)
                and _count_dice(own_words, words) < MOVED_REWRITE_DICE
            ):
                # past a sentence the diff kept from the other side of this one (asked
                # only for crediting a rewrite: where a neighbour's image is asked, the
                # wider answer is the safe one)
                continue
            dice = round(
                _set_dice(own_words, words)
                + QUOTE_DICE * _set_dice(quote_words, words)
                + KEPT_SHARE * share,
                3,
            )
            rank = (dice - DISTANCE_COST * abs(mid - (c0 + c1) // 2) / FUZZY_WINDOW, -c0)
            # a candidate shares a word with the sentence (docs/verdicts.md): kept text
            # alone may be a chance ")." the diff aligned there
            if dice > 0 and own_words & words:
                ranked.append((rank, c0, c1, words))
        for _rank, c0, c1, words in sorted(ranked, key=lambda r: r[0], reverse=True):
            if not strict:
                return c0, c1
            if not self._image_evidence(p0, p1, own_words & words, c0, c1):
                continue  # its shape alone ("in"), away from where the diff put it
            if self._out_of_order(ra, rb, c0, c1, own_words, words):
                continue  # before the rewrite of the sentence before it, or past the next's
            return c0, c1
        return None

    def _image_evidence(  # type: ignore[misc]
        self: _Reanchor, p0: int, p1: int, shared: set[str], c0: int, c1: int
    ) -> bool:
        """v2 sentence ``[c0, c1)``, which shares the words ``shared`` with v1 sentence
        ``[p0, p1)``, may be its rewrite: they share a content word (``_content_words``),
        or it holds kept text of the sentence that touches one or is ``KEPT_GAP`` long
        (a sentence of short words kept whole), or the diff put the
        sentence there and nowhere else (its image, ``TextDiff.image``, inside it). Short
        words alone ("in", "the") recur in any sentence: "Staff numbers fell sharply in
        March." deleted, its neighbours joined into one sentence and "A new office opened
        in May." added after it, shares only "in", and is no rewrite of it (docs/verdicts.md,
        "The shape alone is no image"); a sentence the diff put in its place is, however
        unlike, but not one of several the diff put in the place of several."""
        if _content_words(shared) or self._evidence_in(p0, p1, (c0, c1), content=True):
            return True
        t1 = self.t1
        if any(_substantial(t1[x0:x1]) for x0, x1, _y in self._runs_in(p0, p1, c0, c1)):
            return True  # its own words kept there, however short (" by the end of May.")
        ms, me = _trim(self.t2, *self.diff.image(p0, p1))
        return c0 <= ms and me <= c1 if ms < me else c0 < ms < c1

    def _sentence_candidates(  # type: ignore[misc]
        self: _Reanchor,
        p0: int,
        p1: int,
    ) -> tuple[set[str], int, list[tuple[int, int, set[str], float]]]:
        """For v1 sentence ``[p0, p1)``: its word set, its estimated v2 middle, and its
        candidate v2 sentences as (start, end, word set, share of its kept text there).
        Built once per sentence for the pair (``ChangeIndex.sentences``): many comments
        share a sentence."""
        key = (p0, p1)
        hit = self.changes.sentences.get(key)
        if hit is not None:
            return hit
        t1 = self.t1
        es, ee = self.changes.estimate(p0, p1)
        ms, me = self.diff.image(p0, p1)
        lo = max(min(ms, es - FUZZY_WINDOW), es - 2 * FUZZY_WINDOW)
        hi = min(max(me, ee + FUZZY_WINDOW), ee + 2 * FUZZY_WINDOW)
        kept = [(y0, y0 + x1 - x0) for x0, x1, y0 in self._evidence_runs(p0, p1)]
        # and the image of its own block: a neighbour that moved out of the paragraph can
        # push the estimate past the sentence's rewrite
        ba, bb = self._near_block(self.v1, p0, p1)
        ia, ib = self.diff.image(ba, bb)
        lo = min(lo, max(ia, es - REGION_REACH))
        hi = max(hi, min(ib, ee + REGION_REACH))
        cands = self._candidates_in(p0, p1, lo, hi, kept)
        for a, b in self._beside_moved_neighbours(ba, bb):
            if a < lo or b > hi:
                seen = {(c[0], c[1]) for c in cands}
                cands += [c for c in self._candidates_in(p0, p1, a, b, kept) if c[:2] not in seen]
        if not cands:
            # Nothing there can be its rewrite: the blocks just beside that image too (text
            # inserted where two blocks meet belongs to either).
            ia, ib = self.v2.beside(ia, ib)
            lo2 = min(lo, max(ia, es - REGION_REACH))
            hi2 = max(hi, min(ib, ee + REGION_REACH))
            if (lo2, hi2) != (lo, hi):
                cands = self._candidates_in(p0, p1, lo2, hi2, kept)
        out = (self.changes.kept_words(_word_set(t1[p0:p1])), (es + ee) // 2, cands)
        self.changes.sentences[key] = out
        return out

    def _beside_moved_neighbours(self: _Reanchor, a: int, b: int) -> list[tuple[int, int]]:  # type: ignore[misc]
        """Where v1 block ``[a, b)``'s place went when a block beside it moved (the diff's
        moves): the v2 block just before the moved copy of the block that followed it, and
        the one just after the moved copy of the block that preceded it. The diff may keep
        a neighbour that moved and take the text between for new: a moved block carries
        its neighbour's place with it (docs/verdicts.md, "The sentence a rewritten
        sentence became"). A block counts as moved when more than half of it did, its moved
        pieces together in v2 (``TextDiff.moved_part``; no farther apart than the block is
        long): the diff moves sentences of ``move_min_chars`` or more, and aligns a short
        one ("“No.") on its own."""
        if not getattr(self.diff, "moves", None):
            return []
        t1, out = self.t1, []
        x, y = a, b
        while x > 0 and t1[x - 1].isspace():
            x -= 1
        while y < len(t1) and t1[y].isspace():
            y += 1
        for side, at in (("before", x - 1), ("after", y)):
            if not 0 <= at < len(t1):
                continue
            o0, o1 = _trim(t1, *self.v1.block(at, at + 1))
            mv = self.diff.moved_to(o0, o1) if o0 < o1 else None
            if mv is not None:
                w0, w1 = self.v2.beside(*mv)
            else:
                # most of it moved, a short sentence of it aligned on its own: its copy's
                # v2 block(s) and those beside them
                held, m0, m1 = self.diff.moved_part(o0, o1)
                if 2 * held <= o1 - o0 or m1 - m0 > o1 - o0:
                    continue  # (its moved pieces went to places apart: no block moved)
                # the copy's edges taken to its v2 block's where no more than the part that
                # did not move lies between (the "“No. " aligned on its own)
                rest = (o1 - o0) - held
                xa, xb = self.v2.block(m0, m1)
                mv = (xa if m0 - xa <= rest else m0, xb if xb - m1 <= rest else m1)
                w0, w1 = self.v2.beside(*mv)
            # the block that followed moved: the place is just before its copy, and so on
            out.append((mv[1], w1) if side == "before" else (w0, mv[0]))
        return [(p, q) for p, q in out if p < q]

    def _candidates_in(  # type: ignore[misc]
        self: _Reanchor,
        p0: int,
        p1: int,
        lo: int,
        hi: int,
        kept: list[tuple[int, int]],
    ) -> list[tuple[int, int, set[str], float]]:
        """The v2 sentences of ``[lo, hi)`` (widened to whole sentences) that may be v1
        sentence ``[p0, p1)``'s rewrite: not kept from elsewhere in v1; with the share of the
        sentence's kept text (``kept``, v2 ranges) in each."""
        t2 = self.t2
        lo, hi = self.v2.whole_sentences(max(0, lo), min(len(t2), hi))
        kept_total = sum(b - a for a, b in kept) or 1
        cands = []
        for c0, c1 in self.v2.sentence_pieces(lo, hi):
            c0, c1 = _trim(t2, c0, c1)
            if c0 >= c1:
                continue
            if not self.new_here(c0, c1, p0, p1):
                own = self._edge_copies(c0, c1, p0, p1)
                if not own or not self.new_here(c0, c1, p0, p1, own):
                    continue
            if self._was_in_v1(c0, c1, p0, p1):
                continue  # a sentence v1 already had elsewhere is not this one's rewrite
            share = sum(max(0, min(b, c1) - max(a, c0)) for a, b in kept) / kept_total
            cands.append((c0, c1, self.changes.words_of(t2, c0, c1), share))
        return cands

    def _edge_copies(self: _Reanchor, c0: int, c1: int, p0: int, p1: int) -> int:  # type: ignore[misc]
        """Characters of v2 sentence ``[c0, c1)`` that the diff kept from v1 outside
        sentence ``[p0, p1)`` where an alignment of equal cost keeps a copy inside the
        sentence instead (``ChangeIndex.equal_copies``): the diff's choice between two
        equal copies is no evidence that the v2 sentence is another sentence's rewrite (two
        sentences ending in one citation, "( Smaglik, 2016).", the second deleted and the
        first rewritten: docs/verdicts.md, "Equal copies")."""
        _inserted, runs = self.changes.origin(c0, c1)
        return sum(
            sum(self.changes.copies_inside(r0, r1, p0, p1))
            for r0, r1 in runs
            if not (r0 < p1 and p0 < r1)  # (partly) the sentence's own already
        )

    def _evidence_runs(  # type: ignore[misc]
        self: _Reanchor, p0: int, p1: int, content: bool = False
    ) -> list[tuple[int, int, int]]:
        """``ChangeIndex.kept_runs`` of v1 sentence ``[p0, p1)`` less the head or tail of
        each run that an alignment of equal cost keeps from another copy
        (``ChangeIndex.equal_copies``): kept text the diff could as well have kept from a
        neighbour is evidence for neither when two sentences claim one v2 sentence. With
        ``content``, only the runs that touch a content word (``content_word_edges`` of the
        run widened to whole words: "Dog" kept of "Dogs" counts, and so does "Hi" of a kept
        "Hi, thanks for "; a kept " of use." or " 7, 8 ." is a sentence's shape)."""
        key = (p0, p1, content)
        hit = self.changes.evidence.get(key)
        if hit is not None:
            return hit
        out = self.changes.evidence[key] = []
        t1 = self.t1
        for x0, x1, y0 in self.changes.kept_runs(p0, p1):
            if content and not content_word_edges(t1[slice(*_snap_words(t1, x0, x1))]):
                continue
            head, tail = self.changes.equal_copies(x0, x1)
            h = head.covers if head else 0
            t = tail.covers if tail else 0
            if x0 + h < x1 - t:
                out.append((x0 + h, x1 - t, y0 + h))
        return out

    def _was_in_v1(self: _Reanchor, c0: int, c1: int, p0: int, p1: int) -> bool:  # type: ignore[misc]
        """v2 ``[c0, c1)`` (16 characters or more) is, word for word, text v1 had near
        sentence ``[p0, p1)`` but outside it (within ``4 * REGION_REACH``)."""
        text = self.t2[c0:c1]
        if len(text) < 16:
            return False
        t1 = self.t1
        lo, hi = max(0, p0 - 4 * REGION_REACH), p1 + 4 * REGION_REACH
        i = t1.find(text, lo, hi)
        while i >= 0:
            if i + len(text) <= p0 or i >= p1:
                return True
            i = t1.find(text, i + 1, hi)
        return False

    def _kept_from_elsewhere(self: _Reanchor, cs: int, ce: int, s: int, e: int) -> bool:  # type: ignore[misc]
        """v2 ``[cs, ce)`` is text the diff kept, unchanged, from v1 outside ``[s, e)``."""
        inserted, runs = self.changes.origin(cs, ce)
        return not inserted and all(r1 <= s or r0 >= e for r0, r1 in runs)
