"""The suite statistics (engine.suite.stats, engine.suite.ranking; docs/suites.md,
"Statistics"): intervals over documents x repeats, rankings by paired differences, the
interval gate, Wilson for a single run, TAMPERED runs left out, byte-identical reports."""

from __future__ import annotations

import json

import pytest

from engine.suite.report import build_report, gate, render_report
from engine.suite.stats import MIN_DOCUMENTS, holm, interval, wilson
from engine.suite.store import ItemResult


def _row(model: str, doc: str, value: float, repeat: int = 1) -> ItemResult:
    return ItemResult(
        key=f"{doc}|{model}|default|r{repeat}",
        document=doc,
        size="small",
        model=model,
        model_id=model,
        base_url="http://x/v1",
        variant="default",
        instructions_hash="abc",
        repeat=repeat,
        status="finished",
        metrics={"attribution_rate": {"value": value, "numerator": value * 4, "denominator": 4}},
        tokens=100,
    )


def _deterministic(wins: dict[str, list[str]], docs: list[str], repeats: int = 3):
    """Agents that score 1 on the documents they win and 0 elsewhere, every repeat."""
    return [
        _row(m, d, 1.0 if d in won else 0.0, r)
        for m, won in wins.items()
        for d in docs
        for r in range(1, repeats + 1)
    ]


def test_one_win_of_three_is_not_ranked_above_two_wins():
    rows = _deterministic({"one": ["d1"], "two": ["d2", "d3"]}, ["d1", "d2", "d3"])
    rep = build_report(rows, seed=7)
    att = rep["ranking"]["attribution_rate"]
    assert all(p["verdict"] != "ranked" or p["better"] != "one / default" for p in att["pairs"])
    assert att["ranked"] == []  # three documents: too few to rank anything
    assert "too few documents to rank anything" in att["note"]
    assert "too few documents to rank anything" in render_report(rep)
    # the old rule (spread 0 between deterministic repeats) would have ranked this pair


def test_a_consistent_winner_over_enough_documents_is_ranked():
    docs = [f"d{i}" for i in range(12)]
    rows = _deterministic({"good": docs[:11], "weak": docs[:2]}, docs)
    att = build_report(rows, seed=1)["ranking"]["attribution_rate"]
    assert att["ranked"] == [["good / default", "weak / default"]]
    p = att["pairs"][0]
    assert p["low"] > 0 and p["documents"] == 12 and p["repeats"] == 3
    # a split (wins on half the documents each) is not ranked
    split = _deterministic({"a": docs[:6], "b": docs[6:]}, docs)
    s = build_report(split, seed=1)["ranking"]["attribution_rate"]
    assert s["ranked"] == [] and "all pairwise intervals include zero" in s["note"]


def test_intervals_shrink_as_documents_are_added():
    widths = []
    for n in (4, 16, 64):
        cells = {f"d{i}": [float(i % 2), float((i // 2) % 2)] for i in range(n)}
        iv = interval(cells, 0, "k")
        assert iv["documents"] == n and iv["repeats"] == 2
        widths.append(iv["high"] - iv["low"])
    assert widths[0] > widths[1] > widths[2] > 0


def test_same_seed_same_report_byte_for_byte_and_order_free():
    docs = [f"d{i}" for i in range(8)]
    rows = [
        _row(m, d, ((i * 7 + r * 3 + len(m)) % 10) / 10, r)
        for m in ("x", "y", "z")
        for i, d in enumerate(docs)
        for r in (1, 2)
    ]
    a = json.dumps(build_report(rows, seed=5), sort_keys=True)
    b = json.dumps(build_report(list(reversed(rows)), seed=5), sort_keys=True)
    assert a == b
    assert render_report(build_report(rows, seed=5)) == render_report(
        build_report(rows[::-1], seed=5)
    )
    assert a != json.dumps(build_report(rows, seed=6), sort_keys=True)


def test_the_gate_judges_the_interval_bound_not_the_mean():
    docs = [f"d{i}" for i in range(10)]
    # mean 0.7, but two documents at 0: the lower bound is under 0.6
    rows = [_row("A", d, 0.0 if i < 2 else 0.875) for i, d in enumerate(docs)]
    rep = build_report(rows)
    iv = rep["combinations"][0]["metrics"]["attribution_rate"]["interval"]
    assert iv["mean"] == pytest.approx(0.7) and iv["low"] < 0.6 < iv["high"]
    (g,) = gate(rep, {"attribution_rate": 0.6})
    assert g.outcome == "UNVERIFIED" and "10 documents x 1 repeats" in g.why
    (g,) = gate(rep, {"attribution_rate": 0.3})
    assert g.outcome == "PASS"
    (g,) = gate(rep, {}, {"attribution_rate": 0.2})
    assert g.outcome == "FAIL"


def test_a_single_run_gets_its_wilson_interval():
    rep = build_report([_row("A", "d", 0.75)])
    iv = rep["combinations"][0]["metrics"]["attribution_rate"]["interval"]
    assert iv["method"] == "wilson"
    assert (iv["low"], iv["high"]) == pytest.approx(wilson(3, 4))
    assert wilson(3, 4) == pytest.approx((0.3006, 0.9544), abs=1e-4)  # textbook value
    assert wilson(0, 0) is None


def test_a_tampered_run_is_a_failure_with_its_reason_and_left_out():
    rows = [_row("A", "d1", 1.0), _row("A", "d2", 0.0)]
    rep = build_report(rows, tampered={rows[1].key: "a figure was changed"})
    c = rep["combinations"][0]
    assert c["finished"] == 1 and c["failed"] == 1
    assert c["failures"] == [{"reason": "TAMPERED: a figure was changed", "runs": 1}]
    assert c["metrics"]["attribution_rate"]["mean"] == 1.0


def test_holm_adjusts_step_down():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert MIN_DOCUMENTS == 6
