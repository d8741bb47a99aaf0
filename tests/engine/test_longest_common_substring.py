"""``longest_common_substring`` gives difflib's answer (``find_longest_match`` with no junk),
tie-breaking included, on any text and in any script."""

from __future__ import annotations

import difflib

from hypothesis import given, strategies as st

from engine.score.anchoring.words import longest_common_substring

# few letters, so the two texts share runs and ties are common; every script the engine
# reads (CJK, Arabic, Persian with its ZWNJ, Thai, Devanagari, emoji with a joiner)
_LETTERS = st.sampled_from(
    list("ab .") + list("国語ではمیخ\u200cواهمกขคनमस्ते") + ["👩\u200d💻", "é"]
)
_TEXT = st.lists(_LETTERS, max_size=40).map("".join)


def _difflib(a: str, b: str) -> tuple[int, int, int]:
    m = difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    return m.a, m.b, m.size


@given(_TEXT, _TEXT)
def test_the_answer_is_difflibs(a: str, b: str) -> None:
    assert longest_common_substring(a, b) == _difflib(a, b)


@given(_TEXT, _TEXT, _TEXT)
def test_a_text_held_whole_is_found_whole(a: str, left: str, right: str) -> None:
    i, j, size = longest_common_substring(a, left + a + right)
    assert size == len(a)
    assert (left + a + right)[j : j + size] == a


def test_worked_cases() -> None:
    assert longest_common_substring("", "abc") == (0, 0, 0)
    assert longest_common_substring("xyz", "abc") == (0, 0, 0)
    # the earliest in a, then the earliest in b
    assert longest_common_substring("abXcd", "cdab") == (0, 2, 2)
    assert longest_common_substring("The budget rose.", "Although the budget rose, costs") == (
        1,
        10,
        14,
    )
