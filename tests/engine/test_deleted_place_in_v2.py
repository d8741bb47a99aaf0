"""Where a deleted comment's text stood in v2 (``TextDiff.place_in_b`` in code points,
``ChangeView.place_in_b`` in UTF-16 units): the one rule a Word copy re-creates such a
comment at and the Verdicts view scrolls v2 to."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from engine.diff.diffing import TextDiff
from engine.diff.marks import change_view
from engine.text.utf16 import OffsetMap, utf16_length

PARAGRAPHS = [
    "Employees may work remotely up to two days per week.",
    "员工每周最多可以远程工作两天，需经经理同意。",
    "يجوز للموظفين العمل عن بعد يومين في الأسبوع.",
    "کارکنان می‌توانند هفته‌ای دو روز از راه دور کار کنند.",
    "พนักงานสามารถทำงานจากที่บ้านได้สัปดาห์ละสองวัน",
    "Return the laptop 💻 within five working days 🗓️ of leaving.",
]


@pytest.mark.parametrize("i", range(len(PARAGRAPHS)))
def test_a_deleted_paragraph_stood_at_the_start_of_the_next(i):
    before, gone, after = PARAGRAPHS[i - 1], PARAGRAPHS[i], PARAGRAPHS[(i + 1) % len(PARAGRAPHS)]
    a = f"{before}\n{gone}\n{after}"
    b = f"{before}\n{after}"
    start = utf16_length(before) + 1
    cv = change_view(a, b)
    place = cv.place_in_b(start, start + utf16_length(gone))
    assert place == utf16_length(before) + 1  # where the next paragraph now begins
    # the same point as the code-point rule
    cp = TextDiff(a, b).place_in_b(len(before) + 1, len(before) + 1 + len(gone))
    assert OffsetMap(b).to_utf16(cp) == place


def test_a_deleted_sentence_stood_between_its_neighbours():
    a = "See the map. Return the laptop within five days. Call us."
    b = "See the map. Call us."
    s = a.index("Return")
    place = change_view(a, b).place_in_b(s, s + len("Return the laptop within five days. "))
    assert b[place:].startswith("Call us") or b[:place].endswith("See the map. ")


TEXT = st.text(alphabet=st.sampled_from("ab \n.ö中😀"), max_size=40)


@settings(max_examples=200, deadline=None)
@given(TEXT, TEXT, st.data())
def test_the_place_is_always_a_point_of_v2(a, b, data):
    cv = change_view(a, b)
    n = utf16_length(a)
    start = data.draw(st.integers(0, n))
    end = data.draw(st.integers(start, n))
    place = cv.place_in_b(start, end)
    assert 0 <= place <= utf16_length(b)
    OffsetMap(b).to_codepoint(place)  # never inside a surrogate pair
    with pytest.raises(ValueError):
        cv.place_in_b(0, n + 1)
