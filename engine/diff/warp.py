"""Splitting a group of sentences that no shared unique word could cut (engine.diff.hunks):
a monotone warping path through the sentence grid (dynamic time warping)."""

from __future__ import annotations

import re

from engine.diff.tokens import _Chunks

SENTENCE_MATCH = 0.25
"""Dice similarity of two sentences' word sets above which pairing them gains."""
WARP_CELLS = 400
"""The largest group (v1 sentences x v2 sentences) split by ``_warp_groups``."""
_WORDISH = re.compile(r"\w+")


def _warp_groups(
    ta: _Chunks, tb: _Chunks, i0: int, i1: int, j0: int, j1: int
) -> list[tuple[int, int, int, int]]:
    """Split a group of sentences that no shared unique word could cut.

    A monotone warping path (dynamic time warping) through the sentence grid maximising
    the sum of ``dice - SENTENCE_MATCH`` over its cells, ``dice`` being the Dice
    coefficient of two sentences' word sets; a diagonal step of the path is a cut. Only
    for groups of at most ``WARP_CELLS`` cells; larger ones stay whole.
    """
    n, m = i1 - i0, j1 - j0
    if n <= 1 or m <= 1 or n * m > WARP_CELLS:
        return [(i0, i1, j0, j1)]
    wa = [set(_WORDISH.findall(ta[i])) for i in range(i0, i1)]
    wb = [set(_WORDISH.findall(tb[j])) for j in range(j0, j1)]
    neg = float("-inf")
    best = [[neg] * m for _ in range(n)]
    back = [[0] * m for _ in range(n)]  # 0 diagonal, 1 from above, 2 from the left
    for i in range(n):
        x = wa[i]
        row = best[i]
        prev = best[i - 1] if i else row
        brow = back[i]
        for j in range(m):
            y = wb[j]
            tot = len(x) + len(y)
            score = (2 * len(x & y) / tot if tot else 1.0) - SENTENCE_MATCH
            if i == 0 and j == 0:
                row[j] = score
                continue
            d = prev[j - 1] if i and j else neg
            u = prev[j] if i else neg
            left = row[j - 1] if j else neg
            if d >= u and d >= left:
                row[j], brow[j] = score + d, 0
            elif u >= left:
                row[j], brow[j] = score + u, 1
            else:
                row[j], brow[j] = score + left, 2
    groups = []
    i, j = n - 1, m - 1
    gi1, gj1 = n, m
    while i > 0 or j > 0:
        step = back[i][j]
        if step == 0:
            groups.append((i0 + i, i0 + gi1, j0 + j, j0 + gj1))
            gi1, gj1 = i, j
            i, j = i - 1, j - 1
        elif step == 1:
            i -= 1
        else:
            j -= 1
    groups.append((i0, i0 + gi1, j0, j0 + gj1))
    groups.reverse()
    return groups
