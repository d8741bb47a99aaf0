"""Dictionary word breaks (ICU) are found in code points, whatever comes before the word.

ICU counts UTF-16 units; an astral character (an emoji, a CJK Extension B ideograph) before
a Thai or Chinese word used to shift the word's boundaries by one unit per such character.
"""

from __future__ import annotations

import pytest

from engine.score.anchoring.words import _dictionary_word, _snap_dictionary_words

CASES = [
    ("\U0001f600\U0001f600ภาษาไทยง่าย", "ไทย"),
    ("ภาษาไทยง่าย", "ไทย"),
    ("\U00020000中文的句子很长", "句子"),
    ("👍🏽 ภาษาไทยง่าย", "ง่าย"),
]


@pytest.mark.parametrize(("text", "word"), CASES)
def test_the_word_holding_a_character_is_the_dictionary_word(text: str, word: str) -> None:
    i = text.index(word)
    for k in range(i, i + len(word)):
        s, e = _dictionary_word(text, k)
        assert text[s:e] == word, (text, k, text[s:e])


def test_a_span_cutting_a_word_after_an_emoji_widens_to_the_whole_word() -> None:
    text = "\U0001f600\U0001f600ภาษาไทยง่าย"
    i = text.index("ไทย")
    s, e = _snap_dictionary_words(text, i + 1, i + 2)
    assert text[s:e] == "ไทย"
