"""The switch "Require a complete review before publishing or sending back" (the Published
tab) is the engine's own setting (``arl bundle publish --require-review``): with it on, a
bundle awaiting decisions is neither published nor sent back, in the program or from
``arl``; the rule is one (``engine.publish.published.review_gate``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from hypothesis import given, strategies as st

from engine.cli.main import main as arl
from engine.publish import published

DATA = Path(__file__).resolve().parents[1] / "data"


def test_the_switch_is_the_engines_setting(qtbot):
    from app.published import PublishedView

    view = PublishedView()
    qtbot.addWidget(view)
    assert not view.require_box.isChecked() and not published.require_complete_review()
    view.require_box.setChecked(True)
    assert published.require_complete_review()
    again = PublishedView()
    qtbot.addWidget(again)
    assert again.require_box.isChecked()
    view.require_box.setChecked(False)
    assert not published.require_complete_review()


def test_send_back_and_publish_wait_for_a_complete_review(qtbot, tmp_path, capsys):
    from app.bundledata import load_bundle, rederive_now
    from app.send_back import plan_for

    bundle = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", bundle)
    data = load_bundle(bundle)
    rederive_now(data)
    assert plan_for(data) is not None  # off: sent back as it stands
    published.set_require_complete_review(True)
    with pytest.raises(ValueError, match=r"^Awaiting review: 3 of 3 actionable comments"):
        plan_for(data)
    out = tmp_path / "next"
    assert arl(["bundle", "send-back", str(bundle), "--out", str(out)]) != 0
    assert "sending back asks for a complete review" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(published.PublishError, match="publishing asks for a complete review"):
        published.publish(bundle, tmp_path / "pub")
    published.set_require_complete_review(False)
    assert arl(["bundle", "send-back", str(bundle), "--out", str(out)]) == 0


@given(st.integers(0, 10_000), st.integers(0, 10_000), st.booleans())
def test_the_gate_refuses_only_when_asked_and_something_awaits(awaiting, actionable, strict):
    words = published.review_gate(awaiting, actionable, "publishing", strict)
    assert bool(words) == (strict and awaiting > 0)
    if words:
        assert f"{awaiting} of {actionable}" in words and "(s)" not in words
