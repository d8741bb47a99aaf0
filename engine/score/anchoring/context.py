"""How well the text around a candidate agrees with an anchor's stored prefix and suffix, and
where the occurrences of a quote nearest to an expected place are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.score.anchoring.sentences import _SENTENCE_END, sentence_ends_before
from engine.score.anchoring.thresholds import NEAR_HITS
from engine.score.anchoring.words import similarity

if TYPE_CHECKING:
    from engine.score.anchoring.index import TextIndex


def context_score(prefix: str, suffix: str, text: str, s: int, e: int) -> float:
    """How well ``text`` around ``[s, e)`` agrees with ``prefix``/``suffix``, in [0, 1].

    Each side is compared over the stored context's length. The score is the mean of the
    two sides' similarities; 0.0 when both stored sides are empty.
    """
    sides = []
    if prefix:
        sides.append(similarity(prefix, text[max(0, s - len(prefix)) : s]))
    if suffix:
        sides.append(similarity(suffix, text[e : e + len(suffix)]))
    return sum(sides) / len(sides) if sides else 0.0


def travelling_context(prefix: str, quote: str, suffix: str) -> tuple[str, str]:
    """The parts of ``prefix`` and ``suffix`` inside the quote's own sentence: the context
    that travels with a moved passage (a moved sentence has new neighbours). Pass the
    context already cut to the quote's block (``_Reanchor.block_context``): a block's edge
    ends a sentence, also where ``textContent`` has no character there
    (``<p>…/HDCytoData</p><p>Source code…</p>`` is "…/HDCytoDataSource code…")."""
    # the quote's first character seen (Thai's sentence end looks ahead at it)
    ends = sentence_ends_before(prefix + quote[:1], 0, len(prefix))
    p_in = prefix[ends[-1] :] if ends else prefix
    m = _SENTENCE_END.search(suffix)
    s_in = suffix[: m.start() + 1] if m else suffix
    return p_in, s_in


def side_score(travelling: tuple[str, str], v2: TextIndex, s: int, e: int) -> float:
    """How well the context that travels with a moved passage (``travelling_context``)
    agrees around ``v2.text[s:e]``, in [0, 1]: 1.0 when all of it stands there, 8
    characters or more with the quote, where an empty side, or one of spaces alone (the
    quote starts or ends its sentence, block or table cell), is matched only by an edge
    there (``TextIndex.edges``): a sentence's or a block's where the other side holds
    context, a block's where neither does. A quote that is a whole block, or follows
    "Contact:", has no context of its own, and a chance copy inside a new sentence ("the
    editors wrote Jose Menendez on the form", "Sponsors include e.g. Jose Menendez: see
    the list.") is no move of it (two attackers' briefs). Else each side compared when it
    has at least 4 characters, the better side counting. 0.0 when neither side has that
    much."""
    p_in, s_in = travelling
    # a side of spaces alone is empty too (a table cell's " Jose Menendez ")
    p_len = len(p_in) if p_in.strip() else 0
    s_len = len(s_in) if s_in.strip() else 0
    text = v2.text
    # an empty side's edge: a block's where neither side has context
    opens, closes = (
        (True, True) if p_len and s_len else v2.edges(s, e, blocks_only=not (p_len or s_len))
    )
    p_ok = text[s - p_len : s] == p_in if p_len else opens
    s_ok = text[e : e + s_len] == s_in if s_len else closes
    if s >= p_len and p_len + (e - s) + s_len >= 8 and p_ok and s_ok:
        return 1.0  # the quote's whole sentence (as far as the context reaches) travelled
    sides = [0.0]
    if len(p_in.strip()) >= 4:
        sides.append(similarity(p_in, text[max(0, s - len(p_in)) : s]))
    if len(s_in.strip()) >= 4:
        sides.append(similarity(s_in, text[e : e + len(s_in)]))
    return max(sides)


def nearest_starts(
    text: str, needle: str, center: int, k: int = NEAR_HITS, lo: int = 0, hi: int | None = None
) -> list[int]:
    """Starts of the (at most) ``k`` occurrences of ``needle`` in ``text[lo:hi]`` nearest to
    ``center``, nearest first (ties: the earlier one). Overlapping occurrences count.

    The search grows a window around ``center`` (x4 each time) until it holds ``k`` hits
    whose farthest is inside the window, so a frequent needle costs its neighbourhood, not
    the document; an absent one costs about two scans of ``text[lo:hi]`` (``str.find``).
    """
    hi = len(text) if hi is None else min(hi, len(text))
    n = len(needle)
    if not needle or hi - lo < n:
        return []
    center = min(max(center, lo), hi)
    w = max(256, 8 * n)
    while True:
        a, b = max(lo, center - w), min(hi, center + w + n)
        found = []
        i = text.find(needle, a, b)
        while i >= 0:
            found.append(i)
            i = text.find(needle, i + 1, b)
        found.sort(key=lambda x: (abs(x - center), x))
        whole = a == lo and b == hi
        if whole or (len(found) >= k and abs(found[k - 1] - center) <= w):
            return found[:k]
        w *= 4


def context_agreement(prefix: str, suffix: str, text: str, s: int, e: int) -> int:
    """How many characters of ``prefix`` (from its end) and ``suffix`` (from its start)
    agree exactly with ``text`` around ``[s, e)``, counted outward from the quote until the
    first difference. Numbered repeats ("Item 1499: see" / "Item 1500: see") are told apart
    by this, where a similarity of the whole context barely differs."""
    n = 0
    for k in range(1, min(len(prefix), s) + 1):
        if prefix[-k] != text[s - k]:
            break
        n = k
    m = 0
    for k in range(min(len(suffix), len(text) - e)):
        if suffix[k] != text[e + k]:
            break
        m = k + 1
    return n + m
