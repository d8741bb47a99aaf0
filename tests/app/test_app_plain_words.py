"""Plain words on screen: the Run log calls comments by the number the Verdicts view shows
(never a raw id), counts say "1 comment" / "3 comments", times are read as people read
them, and an error is one plain line, never Python's own text."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from hypothesis import given, settings, strategies as st

from app.run_record import round_lines
from engine import events as ev
from engine.vocabulary import UNEXPECTED_ERROR, comment_names, error_words

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
EXAMPLE = ROOT / "resources" / "example" / "f1000rd-8-103-smollm2-135m"

RAW = "report51975_3@0#1"


def test_the_run_log_of_a_bundle_names_comments_by_their_number(qtbot):
    from app.window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.bundleOpened, timeout=30000):
        assert w.open_bundle(DATA / "bundle-min", remember=False)
    lines = [w.run_view.log.item(i).text() for i in range(w.run_view.log.count())]
    reopened = [line for line in lines if "Reopened" in line]
    assert reopened and "comment 2" in reopened[0], lines
    assert not any(" c2" in line or "c2:" in line for line in lines), lines


def test_events_in_the_run_log_say_comment_numbers_and_counts_in_words():
    names = comment_names([RAW, "report51975_3@0#2"])
    assert names[RAW] == "comment 1"
    lines = [
        ev.CommentReopened("r", round=1, comment_id=RAW, reason="x").plain(names),
        ev.ClaimUnchanged("r", round=1, comment_id=RAW).plain(names),
        ev.ToolCalled(
            "r", round=1, name="get_comment", arguments={}, ok=True, result="", comment_id=RAW
        ).plain(names),
        ev.VerdictsComputed(
            "r", round=1, version_id="v2", counts={}, verdicts=[], metrics={}, stale=[RAW]
        ).plain(names),
    ]
    for line in lines:
        assert RAW not in line and "comment 1" in line, line
    # an id the names lack is quoted, not bare
    assert "comment \u201cz9\u201d" in ev.ToolCalled(
        "r", round=1, name="resolve", arguments={}, ok=True, result="", comment_id="z9"
    ).plain(names)
    one = ev.RoundStarted("r", round=1, max_rounds=3, version_id="v1", unresolved=1).plain()
    many = ev.ReportReceived(
        "r", round=1, usable=True, problem="", claims={"a": "addressed", "b": "not_addressed"}
    ).plain()
    assert "1 comment to address" in one and "on 2 comments" in many
    start = ev.RunStarted(
        "r",
        workspace="w.db",
        document_id="d-1",
        comments=1,
        model="m",
        base_url="http://x",
        max_rounds=1,
    ).plain()
    assert "1 comment " in start and "(s)" not in start and "d-1" not in start
    # the CLI keeps its exact lines
    assert RAW in ev.CommentReopened("r", round=1, comment_id=RAW, reason="x").describe()


def test_round_records_name_comments_by_number():
    rounds = [
        {
            "round": 1,
            "version_id": "v2",
            "tokens": 10,
            "verdicts": [],
            "unusable": [{"comment_id": RAW, "reason": "no claim"}],
            "reopened": [{"comment_id": RAW, "reason": "r", "message": "x"}],
        }
    ]
    lines = [t for _, t in round_lines(rounds, names={RAW: "comment 1"})]
    assert not any(RAW in t for t in lines), lines
    assert "Comment 1: the agent's report on it was unusable: no claim" in lines[1]
    assert lines[2].strip().startswith("Reopened comment 1")


def test_a_decision_says_when_in_words(qtbot):
    from app.decisions_panel import DecisionPanel
    from engine.bundle.decisions import Decision

    panel = DecisionPanel()
    qtbot.addWidget(panel)
    d = Decision("c1", 1, "untouched", "addressed", "fixed", "Ann", "k", "2026-12-01T10:23:05Z")
    panel.show_comment({"verdict": "untouched", "decision": d, "counted": True}, [d])
    text = panel.state.text()
    assert "1 Dec 2026, 10:23 UTC" in text and "2026-12-01T" not in text


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(
        [
            KeyError,
            TypeError,
            AttributeError,
            IndexError,
            RuntimeError,
            ZeroDivisionError,
            AssertionError,
            LookupError,
        ]
    ),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=40),
)
def test_an_unexpected_error_is_never_shown_as_python_text(kind, message):
    words = error_words(kind(message))
    assert words == UNEXPECTED_ERROR
    assert kind.__name__ not in words and "Traceback" not in words


@given(
    st.text(min_size=1, max_size=30).filter(lambda t: t.strip()),
    st.sampled_from(["/tmp/x.json", "C:\\Users\\\u0639\u0644\u064a\\b.zip", "\u6587\u4ef6.txt"]),
)
def test_a_file_error_names_the_file_and_the_reason(reason, path):
    words = error_words(PermissionError(13, reason, path))
    assert words == f"{path}: {reason.lower()}"
    assert "Errno" not in words


def test_an_error_the_program_wrote_keeps_its_words():
    from engine.bundle.archive import BundleError

    assert error_words(BundleError("b.zip: not an evidence bundle")) == (
        "b.zip: not an evidence bundle"
    )
    assert error_words(ValueError("write the reply first")) == "write the reply first"
    import json

    try:
        json.loads("{")
    except ValueError as exc:  # a library's own words ("Expecting property name ...")
        assert error_words(exc) == UNEXPECTED_ERROR
