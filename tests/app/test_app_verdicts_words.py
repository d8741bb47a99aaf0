"""The Verdicts view in the reader's words: no program terms on screen ("offsets
repaired", "1 decision kept"), the exact term kept where it is explained."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app import present
from app.decisions_panel import DecisionPanel


def _decision(**kw):
    base = dict(decision="accept", reason="", reviewer="Ana", decided_at="2026-12-01T10:23:05Z")
    base.update(kw)
    return SimpleNamespace(**base)


def test_a_repaired_place_is_said_in_words():
    text = present.method_text({"method": "exact", "offsets_repaired": True})
    assert "offset" not in text and "repaired" not in text
    assert "found again by" in text


@pytest.mark.parametrize("n", [1, 2, 5])
def test_a_decision_says_what_came_before_it_in_words(qtbot, n):
    panel = DecisionPanel()
    qtbot.addWidget(panel)
    d = _decision()
    row = {"verdict": "edited", "decision": d, "counted": True}
    panel.show_comment(row, [_decision()] * n)
    text = panel.state.text()
    assert "kept" not in text and "1 Dec 2026, 10:23 UTC" in text
    if n == 1:
        assert "earlier" not in text
    else:
        words = "1 earlier decision" if n == 2 else f"{n - 1} earlier decisions"
        assert f"it replaces {words}, still in the record" in text
