"""The sentence-end expression of the re-anchoring (``anchoring.sentences._SENTENCE_END``)
finds exactly what its plain form finds: the same matches, at any start and end of the
scan, on random text of the characters it looks at and their neighbours, and on the
corpus. Its written form (one class of first characters, then the cases) is only for
speed: a verdict or place must not depend on it."""

from __future__ import annotations

import random
import re
from pathlib import Path

from engine.score.anchoring.sentences import (
    _CITE,
    _CJK_CLOSE,
    _CLOSE,
    _DOTS,
    _SENTENCE_END,
    _THAI_LAO,
    _WIDE,
    _class,
)

ROOT = Path(__file__).resolve().parents[2]

PLAIN = re.compile(
    f"[.!?;:]+(?:[{_CLOSE}]|{_CITE})*[\\s\u00a0]+|[{_class(_WIDE)}]+[{_CJK_CLOSE}]*\\s*"
    f"|[{_class(_DOTS)}](?![0-9\uff10-\uff19])[{_class(_WIDE + _DOTS)}]*[{_CJK_CLOSE}]*\\s*|\n+"
    f'|(?<=[{_THAI_LAO})\\]"\u201d]) +(?=[{_THAI_LAO}])'
)
"""The expression as plain alternatives: a full stop (or ``!?;:``), its closing marks
and note numbers, and space; another script's full stop, its closing marks and any space
(a dot-like one not before a digit); line breaks; or spaces between Thai or Lao letters."""

ALPHABET = list(
    ".!?;:\u2026。！？；।॥؟۔\n \t\r\u00a0\u3000\u2028)]\"\u201d\u2019'*\u00b2\u300d[,1ab"
    "\u0e01\u0e2b\u0e5b\u0e5c\u0e00\u0e81\u0edf\u0ee0"
    "\u0589\u104b\u17d4\u0f0d\u203d\uff61\uff0e\ufe52\u2024\uff11\U00011047"
)


def _scan(p: re.Pattern[str], text: str, a: int, b: int) -> tuple[list, tuple | None]:
    m = p.search(text, a, b)
    return [m.span() for m in p.finditer(text, a, b)], (m.span() if m else None)


def test_same_matches_as_the_plain_form_on_random_text() -> None:
    rnd = random.Random(20261202)
    for _ in range(30_000):
        text = "".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(0, 16)))
        a = rnd.randint(0, len(text))
        b = rnd.randint(a, len(text)) if rnd.random() < 0.7 else len(text)
        assert _scan(_SENTENCE_END, text, a, b) == _scan(PLAIN, text, a, b), (text, a, b)


def test_same_matches_as_the_plain_form_on_the_corpus() -> None:
    docs = sorted((ROOT / "tests" / "data" / "f1000rd" / "docs").glob("*/v*.txt"))
    assert docs
    for path in docs:
        text = path.read_text(encoding="utf-8")
        assert _scan(_SENTENCE_END, text, 0, len(text)) == _scan(PLAIN, text, 0, len(text))
        for a in range(0, len(text), 997):
            assert _scan(_SENTENCE_END, text, a, a + 400) == _scan(PLAIN, text, a, a + 400)
