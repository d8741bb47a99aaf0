"""Comparing two bundles of the same document and comments."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import Qt

from app.compare import CompareView
from tests.helpers.relabel import trace_as

DATA = Path(__file__).resolve().parents[1] / "data"


def _fixture_module():
    spec = importlib.util.spec_from_file_location(
        "mfb", Path(__file__).resolve().parents[2] / "tools" / "make_fixture_bundle.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_compare_two_bundles_side_by_side(qtbot, tmp_path):
    mod = _fixture_module()
    other = mod.build(tmp_path / "b", status="failed", reason="the endpoint timed out")
    view = CompareView()
    qtbot.addWidget(view)
    assert view.set_bundle("a", DATA / "bundle-min")
    with qtbot.waitSignal(view.compared, timeout=5000):
        assert view.set_bundle("b", other)
    labels = [view.metrics.item(r, 0).text() for r in range(view.metrics.rowCount())]
    assert labels[:7] == [
        "model",
        "agent mode",
        "how the run ended",
        "tokens used",
        "time",
        "rounds",
        "declared checks",
    ]
    # the runs' cost and length, the metrics, then the reviewer decisions' figures
    assert view.metrics.rowCount() == 7 + 5 + 3
    assert labels[12:] == ["Reviewed attribution", "Agreement with the machine", "Awaiting review"]
    assert view.metrics.item(3, 1).text().endswith("tokens")
    assert view.metrics.item(6, 1).text() == "none declared"  # these runs declared none
    assert view.metrics.item(7, 1).text().startswith("33%")
    assert view.metrics.item(11, 2).text().startswith("N/A \u2014")
    assert view.verdicts.rowCount() == 4
    assert view.verdicts.item(0, 2).text() == "\u270e edited"
    assert view.verdicts.item(0, 4).text() == "\u2713 same"
    assert "did not complete" in view.note.text() and "endpoint timed out" in view.note.text()


def test_compare_refuses_an_unreadable_bundle_in_words(qtbot, tmp_path):
    view = CompareView()
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.message, timeout=2000) as blocker:
        assert not view.set_bundle("a", tmp_path / "missing")
    assert "cannot be opened" in blocker.args[0]


def test_different_comments_are_not_paired_by_id_alone(qtbot, tmp_path):
    import json

    from app.bundledata import load_bundle
    from engine.bundle.read import open_bundle
    from engine.bundle.write import content_of, write_bundle

    src = load_bundle(DATA / "bundle-min")
    before = json.loads(json.dumps(src.comments_before))
    before[0]["anchor"]["quote"] = "something else entirely"
    content = content_of(
        open_bundle(DATA / "bundle-min"),
        model="other",
        trace=trace_as(open_bundle(DATA / "bundle-min").trace, "other"),
        comments_before=before,
        comments_after=before,
    )
    other = write_bundle(tmp_path / "o", content)
    view = CompareView()
    qtbot.addWidget(view)
    view.set_bundle("a", DATA / "bundle-min")
    view.set_bundle("b", other)
    assert "different comments" in view.note.text()
    rows = [
        (view.verdicts.item(r, 0).text(), view.verdicts.item(r, 4).text())
        for r in range(view.verdicts.rowCount())
    ]
    # named by number, as the Verdicts view names them; the raw id in the tooltip
    assert rows.count(("Comment 1", "\u2014 not in both")) == 2
    assert ("Comment 2", "\u2713 same") in rows
    tips = [view.verdicts.item(r, 0).toolTip() for r in range(view.verdicts.rowCount())]
    assert "Comment 2 (id c2)" in tips and not any(t == "c2" for t in tips)


def test_two_runs_of_one_model_are_told_apart(qtbot, tmp_path):
    import shutil

    other = tmp_path / "second-run"
    shutil.copytree(DATA / "bundle-min", other)
    view = CompareView()
    qtbot.addWidget(view)
    view.resize(1366, 700)
    view.show()
    view.set_bundle("a", DATA / "bundle-min")
    view.set_bundle("b", other)
    head_a = view.metrics.horizontalHeaderItem(1).text()
    head_b = view.metrics.horizontalHeaderItem(2).text()
    model = view.a.model
    assert head_a.startswith("A: ") and head_b.startswith("B: ")
    assert model in head_a and model in head_b
    assert head_a[3:] != head_b[3:]  # same model: something else tells them apart
    assert "second-run" in head_b
    assert view.verdicts.horizontalHeaderItem(3).toolTip() == head_b
    # every run and metric row is in view, without scrolling
    qtbot.waitUntil(lambda: view.metrics.verticalScrollBar().maximum() == 0, timeout=3000)


def test_a_tampered_bundle_compares_with_its_recomputed_verdicts(qtbot, tmp_path):
    """A bundle whose verdicts.json was edited (c2 untouched -> edited) is compared by
    what its documents show, its cell marked, never by the forged verdict."""
    import json

    mod = _fixture_module()
    a = mod.build(tmp_path / "a")
    b = mod.build(tmp_path / "b")
    v = json.loads((b / "verdicts.json").read_text())
    for item in v["final"]:
        if item["comment_id"] == "c2":
            item["verdict"] = "edited"
    (b / "verdicts.json").write_text(json.dumps(v))
    view = CompareView()
    qtbot.addWidget(view)
    assert view.set_bundle("a", a)
    assert view.set_bundle("b", b)
    qtbot.waitUntil(lambda: view.b.rederivation is not None, timeout=30000)
    row = next(
        r
        for r in range(view.verdicts.rowCount())
        if view.verdicts.item(r, 0).data(Qt.ItemDataRole.UserRole) == "c2"
    )
    assert view.verdicts.item(row, 3).text() == "\u26a0 \u25cb untouched"
    assert "the bundle says edited" in view.verdicts.item(row, 3).toolTip()
    assert view.verdicts.item(row, 4).text() == "\u2713 same"
    assert "recomputed from its own documents" in view.label_b.text()
