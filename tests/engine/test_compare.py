"""engine.compare: two bundles' facts side by side, with N/A where a bundle is silent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.compare import compare_bundles, run_seconds


@dataclass
class Facts:
    manifest: dict[str, Any]
    metrics: dict[str, Any] = field(default_factory=dict)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    comments_before: list[dict[str, Any]] = field(default_factory=list)
    v1: str = "doc"


def _c(cid: str, quote: str) -> dict[str, Any]:
    return {"id": cid, "anchor": {"quote": quote}}


def test_a_run_that_never_reached_the_model_reads_na_tokens_whatever_its_manifest_says():
    """Tokens null (written now) or 0 (bundles written before): N/A with the reason the
    metrics carry, never "0 tokens" nor "the provider reported no token usage"."""
    never = "the model was never reached: could not connect to 127.0.0.1:9 (nothing answered)"
    metrics = {"cost_per_attributed_fix": {"value": None, "reason": never}}
    for stated in (None, 0):
        a = Facts({"status": "failed", "tokens": stated}, metrics=metrics)
        b = Facts({"status": "completed", "tokens": 0})
        rows = {label: (x, y) for label, x, y in compare_bundles(a, b).run_rows}
        assert rows["tokens used"] == (f"tokens N/A \u2014 {never}", "0 tokens")


def test_run_rows_say_tokens_time_rounds_and_na_when_unrecorded():
    a = Facts(
        {
            "model": "m1",
            "status": "completed",
            "tokens": 12345,
            "rounds": 2,
            "created_at": "2026-01-01T10:00:00Z",
            "finished_at": "2026-01-01T10:02:05Z",
            "versions": [{"name": "v1"}, {"name": "round-1"}, {"name": "round-2"}],
        }
    )
    b = Facts(
        {"model": "m2", "status": "failed", "reason": "the endpoint timed out", "tokens": None}
    )
    cmp = compare_bundles(a, b)
    rows = {label: (x, y) for label, x, y in cmp.run_rows}
    assert rows["tokens used"] == ("12,345 tokens", "N/A — the provider reported no token usage")
    assert rows["time"][0] == "2 min 5 s" and rows["time"][1].startswith("N/A — ")
    assert rows["rounds"][0] == "2 rounds, 2 pushes" and rows["rounds"][1].startswith("N/A")
    assert any("Run B did not complete" in n and "timed out" in n for n in cmp.notes)
    assert run_seconds({"created_at": "x", "finished_at": "2026-01-01T00:00:00Z"}) is None


def test_comments_pair_by_id_only_when_both_bundles_have_the_same_comments():
    same = [_c("c1", "two days"), _c("c2", "HR")]
    a = Facts(
        {"status": "completed"},
        verdicts=[
            {"comment_id": "c1", "verdict": "edited"},
            {"comment_id": "c2", "verdict": "untouched"},
        ],
        comments_before=same,
    )
    b = Facts(
        {"status": "completed"},
        verdicts=[
            {"comment_id": "c1", "verdict": "untouched"},
            {"comment_id": "c2", "verdict": "untouched"},
        ],
        comments_before=same,
    )
    cmp = compare_bundles(a, b)
    assert [(p.comment_id, p.same) for p in cmp.pairs] == [("c1", False), ("c2", True)]
    b.comments_before = [_c("c1", "another quote"), _c("c2", "HR")]
    cmp = compare_bundles(a, b)
    assert not cmp.same_comments and any("different comments" in n for n in cmp.notes)
    c1 = [p for p in cmp.pairs if p.comment_id == "c1"]
    assert len(c1) == 2 and all(p.same is None for p in c1)  # never paired by id alone


def test_sides_of_one_model_are_told_apart_by_start_time_and_bundle_name():
    """Two rounds or two prompts of the same model: the labels differ, not only the model."""
    from pathlib import Path

    a = Facts({"model": "m", "run_id": "run-1", "created_at": "2026-11-30T21:20:32Z"})
    b = Facts({"model": "m", "run_id": "run-2", "created_at": "2026-11-30T22:05:00Z"})
    a.path = Path("/bundles/20261130-212032-run-1")  # type: ignore[attr-defined]
    b.path = Path("/bundles/20261130-220500-run-2.zip")  # type: ignore[attr-defined]
    la, lb = compare_bundles(a, b).labels
    assert la.text() == "m \u00b7 2026-11-30 21:20 UTC \u00b7 20261130-212032-run-1"
    assert lb.text() == "m \u00b7 2026-11-30 22:05 UTC \u00b7 20261130-220500-run-2.zip"
    # Started in the same minute: seconds are shown; no path: the run id names the side.
    b = Facts({"model": "m", "run_id": "run-2", "created_at": "2026-11-30T21:20:59+00:00"})
    la, lb = compare_bundles(Facts(dict(a.manifest)), b).labels
    assert (la.started, lb.started) == ("2026-11-30 21:20:32 UTC", "2026-11-30 21:20:59 UTC")
    assert (la.name, lb.name) == ("run-1", "run-2")
    # Two folders of the same name: the run ids are added.
    a.path, b.path = Path("/x/bundle"), Path("/y/bundle")  # type: ignore[attr-defined]
    la, lb = compare_bundles(a, b).labels
    assert (la.name, lb.name) == ("bundle (run run-1)", "bundle (run run-2)")
    # The same run on both sides is said first; unrecorded time and model stay readable.
    cmp = compare_bundles(a, Facts({"run_id": "run-1"}))
    assert any("same run" in n for n in cmp.notes)
    assert cmp.labels[1].text() == "unknown model \u00b7 run-1"


def test_rounds_cell_says_plurals_in_words():
    from engine.vocabulary import plural

    assert plural(1, "push", "pushes") == "1 push" and plural(2, "push", "pushes") == "2 pushes"
    assert plural(1, "comment") == "1 comment" and plural(3, "comment") == "3 comments"
