"""The cheap number signal of ``engine.safe_io.load_json`` (``_numbers_are_plain``): a text
it clears parses with C numbers and gives exactly what the hooked decoder gives, and every
text the hooked decoder refuses for a number is sent to it (never cleared)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from engine.safe_io import (
    JSON_MAX_INT_DIGITS,
    BoundedInputError,
    _decoder,
    _numbers_are_plain,
    load_json,
)

_DIGITS = st.text("0123456789", min_size=1, max_size=320)
_NUMBER = st.builds(
    lambda sign, whole, frac, exp: (
        sign
        + (whole.lstrip("0") or "0")
        + (f".{frac}" if frac else "")
        + (f"{exp[0]}{exp[1]}{exp[2]}" if exp else "")
    ),
    st.sampled_from(["", "-"]),
    _DIGITS,
    st.one_of(st.just(""), _DIGITS),
    st.one_of(
        st.none(),
        st.tuples(
            st.sampled_from("eE"),
            st.sampled_from(["", "+", "-"]),
            st.text("0123456789", min_size=1, max_size=5),
        ),
    ),
)
_WORDS = st.text(alphabet=st.sampled_from(list('ae0123456789 +-E日本ไทย😀"\\')), max_size=40)


def _hooked(text: str):
    try:
        return "ok", _decoder(JSON_MAX_INT_DIGITS).decode(text)
    except ValueError as exc:  # _Refused is an Exception: compare by kind
        return "refused", type(exc).__name__
    except Exception as exc:
        return "refused", type(exc).__name__


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_NUMBER, _WORDS.map(json.dumps)), min_size=1, max_size=6))
def test_a_cleared_text_parses_as_the_hooked_decoder_parses_it(items):
    text = "[" + ", ".join(items) + "]"
    kind, value = _hooked(text)
    if _numbers_are_plain(text.encode("utf-8"), JSON_MAX_INT_DIGITS):
        # cleared: the hooked decoder accepts it, and load_json gives the same value
        assert kind == "ok", text
        assert load_json(text.encode("utf-8"), "t.json") == value
    elif kind == "ok":
        assert load_json(text.encode("utf-8"), "t.json") == value
    else:
        with pytest.raises(BoundedInputError):
            load_json(text.encode("utf-8"), "t.json")


@pytest.mark.parametrize(
    "number",
    [
        "1" * 31,
        "-" + "9" * 31,
        "1e309",
        "1E+309",
        "-2.5e0309",
        "2" + "0" * 308 + ".0",
        "0." + "0" * 40 + "1e400",
    ],
)
def test_a_number_the_hooked_decoder_refuses_is_never_cleared(number):
    text = f'{{"offset": {number}}}'
    assert not _numbers_are_plain(text.encode(), JSON_MAX_INT_DIGITS)
    with pytest.raises(BoundedInputError):
        load_json(text.encode(), "t.json")


def test_a_long_digit_run_inside_a_string_still_loads():
    text = json.dumps({"quote": "ISBN " + "7" * 40 + " e1234", "start": 3, "c": 0.25})
    assert not _numbers_are_plain(text.encode(), JSON_MAX_INT_DIGITS)  # the exact path
    assert load_json(text.encode(), "t.json")["quote"].startswith("ISBN 777")


def test_nan_and_infinity_are_refused_on_the_plain_path_too():
    for text in ("[NaN]", "[Infinity]", "[-Infinity]", '{"a": 1, "b": NaN}'):
        assert _numbers_are_plain(text.encode(), JSON_MAX_INT_DIGITS)
        with pytest.raises(BoundedInputError, match="not a JSON number"):
            load_json(text.encode(), "t.json")
