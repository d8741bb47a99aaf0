"""``TextIndex.sentence_pieces`` cuts a range after every sentence end and at every block
boundary inside it, in one pass: the same pieces as cutting the range into sentences
first and each sentence at the block boundaries inside it (the reference below), on
random text with random block boundaries, plain text's line boundaries, and the corpus."""

from __future__ import annotations

import bisect
import random
from pathlib import Path

from engine.score.anchoring.index import TextIndex
from engine.score.anchoring.sentences import _SENTENCE_END

ROOT = Path(__file__).resolve().parents[2]


def _reference(text: str, breaks: list[int], a: int, b: int) -> list[tuple[int, int]]:
    cuts = [m.end() for m in _SENTENCE_END.finditer(text, a, b) if a < m.end() < b]
    bounds = [a, *cuts, b]
    out = []
    for x, y in zip(bounds, bounds[1:]):
        if x >= y:
            continue
        inner = breaks[bisect.bisect_right(breaks, x) : bisect.bisect_left(breaks, y)]
        edges = [x, *inner, y]
        out += [(p, q) for p, q in zip(edges, edges[1:]) if p < q]
    return out


def test_same_pieces_as_sentences_cut_at_blocks_on_random_text() -> None:
    rnd = random.Random(7)
    alphabet = list("ab .!?;:\n\n。\u0e01 ")
    for _ in range(5000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 30)))
        breaks = sorted(rnd.sample(range(len(text) + 1), rnd.randint(0, min(6, len(text) + 1))))
        a = rnd.randint(0, len(text))
        b = rnd.randint(a, len(text))
        for index in (TextIndex(text, breaks), TextIndex(text)):
            assert index.sentence_pieces(a, b) == _reference(text, index.breaks, a, b)
        assert TextIndex(text, breaks).sentence_pieces(b, a) == []


def test_same_pieces_on_the_corpus() -> None:
    path = ROOT / "tests" / "data" / "f1000rd" / "docs" / "8-103" / "v1.txt"
    text = path.read_text(encoding="utf-8")
    index = TextIndex(text)
    for a in range(0, len(text), 331):
        assert index.sentence_pieces(a, a + 400) == _reference(text, index.breaks, a, a + 400)
