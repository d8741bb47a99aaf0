"""The scorecard says first when the agent changed nothing, gives N/A reasons in plain
words, and keeps long comment ids and verdict badges inside their columns (print/PDF)."""

from __future__ import annotations

from pathlib import Path

from engine.bundle.bundle import own_scorecard
from engine.bundle.read import open_bundle
from engine.bundle.scorecard import _nothing_changed

ROOT = Path(__file__).resolve().parents[2]


def _bundle(folder: str):
    return open_bundle(next((ROOT / "resources" / folder).glob("*/manifest.json")).parent)


def test_a_run_that_pushed_nothing_says_so_before_anything_else():
    page = own_scorecard(_bundle("example"))
    head = page.split("<h2>")[0]
    assert "The agent changed nothing: it pushed no revision of the document." in head
    status = next(
        w for w in ("The run completed", "The run was cancelled", "The run failed") if w in head
    )
    assert head.index("banner nothing") < head.index(status)
    assert "banner nothing" not in own_scorecard(_bundle("demo"))  # the demo edits text


def test_a_pushed_revision_with_the_same_text_is_also_nothing():
    manifest = {"versions": [{"name": "v1", "round": None}, {"name": "round-1", "round": 1}]}
    same = {
        "collateral_churn": {
            "value": None,
            "reason": "nothing changed: the two versions have the same text",
        }
    }
    assert "same text" in _nothing_changed(manifest, same)
    assert _nothing_changed(manifest, {"collateral_churn": {"value": 0.1}}) == ""
    assert _nothing_changed({}, {}) == ""  # an old bundle without versions says nothing


def test_na_reasons_are_plain_and_columns_hold_their_text():
    page = own_scorecard(_bundle("example"))
    assert "unterminated string" not in page and "character 5257" not in page
    assert "so it could not be read" in page and "not valid JSON" not in page
    assert "table.verdicts td:first-child{overflow-wrap:anywhere}" in page  # long ids wrap
    assert ".v{white-space:nowrap" in page  # a badge is never split mid-word


def test_a_report_covering_few_comments_never_looks_perfect():
    from engine.score.metrics import coverage_of

    comments = [{"id": f"c{i}", "actionable": True, "status": "open"} for i in range(1, 5)]
    final = [
        {"comment_id": "c1", "verdict": "edited", "claim": "addressed", "claim_agrees": True},
        {"comment_id": "c2", "verdict": "untouched", "claim": None},
        {"comment_id": "c3", "verdict": "untouched", "claim": None},
        {"comment_id": "c4", "verdict": "untouched", "claim": None},
    ]
    cov = coverage_of(final, comments)
    assert cov is not None and cov.text() == "no claim for 3 of 4 comments"
    assert coverage_of([{**v, "claim": None} for v in final], comments) is None  # no report
    from engine.bundle.scorecard import render_scorecard

    metrics = {"claim_accuracy": {"value": 1.0, "numerator": 1, "denominator": 1}}
    page = render_scorecard({"status": "completed"}, {"final": final}, metrics, comments, [], {})
    assert page.count("no claim for 3 of 4 comments") == 2  # beside the metric and in words


def test_the_agent_mode_recorded_in_settings_is_on_the_scorecard():
    from engine.bundle.scorecard import render_scorecard

    manifest = {
        "status": "completed",
        "settings": {
            "agent_mode": {
                "requested": "auto",
                "ran": "no-tools",
                "reason": "the server refused tools",
            }
        },
    }
    page = render_scorecard(manifest, {"final": []}, {}, [], [], {})
    assert "Agent mode" in page
    assert "The model worked without tools (auto mode switched: the server refused tools)" in page


def test_the_agent_mode_reads_in_plain_words():
    from engine.vocabulary import agent_mode_words

    asked = {"requested": "tools", "ran": "tools", "reason": "tools mode was asked for"}
    assert agent_mode_words(asked) == "The model worked with tools (as asked)"
    auto = {"requested": "auto", "ran": "tools", "reason": "auto mode: the model called tools"}
    assert agent_mode_words(auto) == "The model worked with tools (auto mode: it called them)"
    no = {"requested": "no-tools", "ran": "no-tools", "reason": "no-tools mode was asked for"}
    assert agent_mode_words(no).startswith("The model worked without tools (as asked)")
    switched = {
        "requested": "auto",
        "ran": "no-tools",
        "reason": "auto mode switched to no-tools: the endpoint refused a request offering tools",
    }
    words = agent_mode_words(switched)
    assert "without tools" in words and "the endpoint refused a request offering tools" in words
    assert "mode was asked for" not in words
