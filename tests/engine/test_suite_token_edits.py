"""Suite reports: the token-edit share per model (docs/verdicts.md, "Token edits";
docs/suites.md), counted from each run's bundle, stored with the run, N/A (never 0%) where
it was not counted."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from engine.suite.report import build_report, combination_cell, render_report
from engine.suite.store import ItemResult, SuiteRunRow, SuiteStore
from engine.suite.token_share import token_edit_counts


def _row(model: str, repeat: int, counts: dict[str, int] | None) -> ItemResult:
    return ItemResult(
        key=f"d1|{model}|default|r{repeat}",
        document="d1",
        size="small",
        model=model,
        model_id=model,
        base_url="http://x/v1",
        variant="default",
        instructions_hash="abc",
        repeat=repeat,
        status="finished",
        metrics={},
        token_edits=counts,
    )


def test_counts_from_a_bundle(tmp_path: Path) -> None:
    final = [
        {
            "comment_id": "c1",
            "verdict": "edited",
            "token_edit": True,
            "token_edit_kind": "only the punctuation changed",
        },
        {"comment_id": "c2", "verdict": "edited"},
        {"comment_id": "c3", "verdict": "untouched"},
    ]
    (tmp_path / "verdicts.json").write_text(json.dumps({"final": final}), encoding="utf-8")
    assert token_edit_counts(tmp_path) == {"edited": 2, "token_edits": 1}
    assert token_edit_counts(tmp_path / "missing") is None
    assert token_edit_counts(None) is None


def test_share_per_model_and_na() -> None:
    rows = [
        _row("A", 1, {"edited": 4, "token_edits": 4}),
        _row("A", 2, {"edited": 4, "token_edits": 2}),
        _row("B", 1, {"edited": 0, "token_edits": 0}),
        _row("C", 1, None),
    ]
    rep = build_report(rows)
    by = {c["model"]: c for c in rep["combinations"]}
    assert by["A"]["token_edit_share"] == {"value": 0.75, "numerator": 6, "denominator": 8}
    assert combination_cell(by["A"], "token_edit_share") == "75% of edited verdicts (6 of 8)"
    assert combination_cell(by["B"], "token_edit_share") == "N/A \u2014 no edited verdict"
    assert combination_cell(by["C"], "token_edit_share").startswith("N/A \u2014 not counted for 1")
    text = render_report(rep)
    assert "  token edits: 75% of edited verdicts (6 of 8)" in text


def test_store_keeps_the_counts_and_opens_an_older_store(tmp_path: Path) -> None:
    path = tmp_path / "suites.sqlite"
    run = SuiteRunRow("s1", "n", None, "f", 1, None, "0", "t", None, "running", "", str(tmp_path))
    with SuiteStore(path) as store:
        store.create_run(run, [_row("A", 1, {"edited": 3, "token_edits": 1})])
        assert store.items("s1")[0].token_edits == {"edited": 3, "token_edits": 1}
    db = sqlite3.connect(path)  # a store written before the column existed
    db.execute("ALTER TABLE suite_items DROP COLUMN token_edits")
    db.commit()
    db.close()
    with SuiteStore(path) as store:
        assert store.items("s1")[0].token_edits is None
        store.put_item("s1", _row("A", 2, {"edited": 1, "token_edits": 0}))
        assert [i.token_edits for i in store.items("s1")] == [None, {"edited": 1, "token_edits": 0}]
