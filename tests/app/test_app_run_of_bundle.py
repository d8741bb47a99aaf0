"""The Run tab of an opened bundle says what that bundle's run was and lists its round
records; "No run yet" stays only while nothing is open."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "resources" / "example" / "f1000rd-8-103-smollm2-135m"


def test_the_run_tab_of_an_opened_bundle_shows_its_run(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    run = w.run_view
    assert "No run yet" in run.title.text()
    manifest = json.loads((EXAMPLE / "manifest.json").read_text("utf-8"))
    rounds = json.loads((EXAMPLE / "verdicts.json").read_text("utf-8"))["rounds"]
    with qtbot.waitSignal(w.bundleOpened, timeout=30000):
        assert w.open_bundle(EXAMPLE, remember=False)
    assert "No run yet" not in run.title.text()
    assert manifest["status"] in run.title.text()
    hint = run.hint.text()
    assert manifest["model"] in hint and "trace.json" in hint
    from engine.vocabulary import when_words

    assert when_words(manifest["finished_at"]) in hint  # "30 Nov 2026, 10:23 UTC", not ISO
    assert manifest["finished_at"][:10] not in hint
    assert "The model worked with tools (as asked)" in hint  # the agent mode, in words
    lines = [run.log.item(i).text() for i in range(run.log.count())]
    # one line per round record, with that round's tokens as the bundle stores them
    for r in rounds:
        assert any(
            line.startswith(f"Round {r['round']}:") and f"{r['tokens']:,}" in line for line in lines
        ), lines
    assert lines[-1].startswith(f"Final: {manifest['status']}")
    assert f"{manifest['tokens']:,}" in run.tokens_label.text()


DEMO = ROOT / "resources" / "demo" / "remote-work-policy-scripted"


@pytest.mark.parametrize("bundle", [DEMO, EXAMPLE], ids=["demo", "example"])
def test_attribution_says_deleted_comments_are_not_counted(qtbot, bundle):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    final = json.loads((bundle / "verdicts.json").read_text("utf-8"))["final"]
    deleted = sum(v["verdict"] == "deleted" for v in final)
    with qtbot.waitSignal(w.bundleOpened, timeout=30000):
        assert w.open_bundle(bundle, remember=False)
    cell = w.metrics.cells[("attribution_rate", "Whole run")]
    if deleted:
        assert f"deleted: {deleted}, not counted as attributed" in cell
    else:
        assert "deleted:" not in cell


def test_the_run_tab_of_a_check_says_no_round_and_no_model_call_ran_here(qtbot, tmp_path):
    """A revision made elsewhere and checked here: no "1 round run", no "the full trace of
    every model call", no provider; each said with its true cause."""
    from engine.cli.main import main as arl
    from engine.vocabulary import EXTERNAL_AGENT, EXTERNAL_FACT_WORDS

    md = ROOT / "resources" / "markdown"
    out = tmp_path / "check"
    args = ["score", "--v1", str(md / "review.md"), "--v2", str(md / "revised.md")]
    assert arl([*args, "--comments", str(md / "comments.json"), "--bundle", str(out)]) in (0, 1)
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignal(w.bundleOpened, timeout=30000):
        assert w.open_bundle(out, remember=False)
    run = w.run_view
    hint = run.hint.text()
    assert "round run" not in hint and "every model call" not in hint
    assert EXTERNAL_FACT_WORDS["rounds"] in hint and EXTERNAL_AGENT in hint
    assert " checked " in hint and " ended " not in hint
    assert run.tokens_label.text() == f"Tokens used: {EXTERNAL_FACT_WORDS['tokens']}"
    lines = [run.log.item(i).text() for i in range(run.log.count())]
    assert f"tokens {EXTERNAL_FACT_WORDS['tokens']}" in lines[0]
    assert not any("provider" in line or "no usage was reported" in line for line in lines)
