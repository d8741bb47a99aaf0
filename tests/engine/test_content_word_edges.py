"""``content_word_edges`` on ASCII text (two C-level searches, the first word of
``SURVIVING_WORD`` characters or more and, in the reversal, the last) equals the
word-by-word form it replaced: every ``\\w+`` run, the first and the last long one."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from engine.score.anchoring.thresholds import SURVIVING_WORD
from engine.score.anchoring.words import _WORDISH, content_word_edges


def _word_by_word(text: str) -> tuple[int, int] | None:
    long_words = [w for w in _WORDISH.finditer(text) if len(w.group()) >= SURVIVING_WORD]
    return (long_words[0].start(), long_words[-1].end()) if long_words else None


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab_9Z .,;()[]-\n\t'", max_size=40))
def test_ascii_edges_are_those_of_the_words_one_by_one(text: str) -> None:
    assert content_word_edges(text) == _word_by_word(text)


def test_edges_of_short_words_and_marks_alone_are_none() -> None:
    assert content_word_edges(" as we do [12].") is None
    assert content_word_edges("") is None
    assert content_word_edges("in the data (Smith, 2020).") == (7, 24)
