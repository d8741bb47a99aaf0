"""``verdicts.json``'s rounds whose verdicts are the final ones are checked once
(``engine.bundle.schema._checked_once``): the problems are those of the whole file, and a
round that differs from ``final`` in any value or type is checked on its own."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.bundle import schema
from engine.bundle.formats import FORMAT_V1, FORMAT_V3
from engine.bundle.schema import check_file

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = next(ROOT.glob("resources/suites/example/*/runs/*/*/verdicts.json"))


def full(obj, fmt=FORMAT_V3) -> list[str]:
    """The problems of the whole file, without leaving anything out."""
    real = schema._checked_once
    try:
        schema._checked_once = lambda name, o: o
        return check_file("verdicts.json", obj, fmt)
    finally:
        schema._checked_once = real


@pytest.fixture
def verdicts():
    obj = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert obj["rounds"][-1]["verdicts"] == obj["final"] and obj["final"]
    return obj


def test_rounds_and_final_hold_verdicts_of_one_shape_in_every_format():
    # the rule's ground: leaving a round's verdicts out is sound only while this holds
    assert (
        schema.RoundJson.model_fields["verdicts"].annotation
        == schema.VerdictsFile.model_fields["final"].annotation
    )
    assert (
        schema.RoundJsonV1.model_fields["verdicts"].annotation
        == schema.VerdictsFileV1.model_fields["final"].annotation
    )


def test_an_equal_round_is_left_out_and_the_file_still_fits(verdicts):
    once = schema._checked_once("verdicts.json", verdicts)
    assert once is not verdicts and once["rounds"][-1]["verdicts"] == []
    assert verdicts["rounds"][-1]["verdicts"]  # the parsed file itself is not changed
    assert check_file("verdicts.json", verdicts) == [] == full(verdicts)


@pytest.mark.parametrize("value", [1, 0, 1.0, "true", None])
def test_a_round_equal_in_python_but_not_in_type_is_checked_itself(verdicts, value):
    item = verdicts["final"][0]
    item["markup_changed"] = bool(value) if value is not None else False
    rnd = copy.deepcopy(verdicts["final"])
    rnd[0]["markup_changed"] = value
    verdicts["rounds"][-1]["verdicts"] = rnd
    problems = check_file("verdicts.json", verdicts)
    assert problems == full(verdicts)
    assert problems and problems[0].startswith("verdicts.json: rounds.0.verdicts.0.markup_changed")


def test_a_bad_final_is_reported_at_its_own_places(verdicts):
    verdicts["final"][2]["verdict"] = "fixed"
    verdicts["rounds"][-1]["verdicts"] = copy.deepcopy(verdicts["final"])
    problems = check_file("verdicts.json", verdicts)
    assert problems == full(verdicts)
    assert any(p.startswith("verdicts.json: rounds.0.verdicts.2.verdict") for p in problems)
    assert any(p.startswith("verdicts.json: final.2.verdict") for p in problems)


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.floats(-1, 2),
    st.sampled_from(["edited", "untouched", "x", "", "日本語", "مرحبا"]),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.booleans(),
            st.integers(0, 10),
            st.sampled_from(
                ["verdict", "markup_changed", "confidence", "method", "note", "claim", "extra"]
            ),
            _VALUES,
        ),
        max_size=4,
    ),
    st.sampled_from([FORMAT_V3, FORMAT_V1]),
)
def test_the_problems_are_those_of_the_whole_file(edits, fmt):
    obj = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    obj["rounds"][-1]["verdicts"] = copy.deepcopy(obj["final"])
    for in_final, i, key, value in edits:
        items = obj["final"] if in_final else obj["rounds"][-1]["verdicts"]
        items[i % len(items)][key] = value
    assert check_file("verdicts.json", obj, fmt) == full(obj, fmt)
