"""The published index reads at 1200 px wide without scrolling sideways (a colleague's
browser window), with long titles, signed, unsigned and tampered runs."""

from __future__ import annotations

import json
import shutil

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import QUrl
from PySide6.QtWebEngineWidgets import QWebEngineView

from engine.bundle import signing
from engine.bundle.read import open_bundle
from engine.bundle.write import content_of, write_bundle
from engine.publish import published
from tests.engine.test_bundle import make_bundle
from tests.helpers.relabel import trace_as


def test_index_does_not_scroll_sideways_at_1200_px(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("ARL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ARL_TRUSTED_KEYS", str(tmp_path / "trusted.json"))
    b = open_bundle(make_bundle(tmp_path / "base"))
    folder = tmp_path / "shared"
    title = "Case Report: Concurrent primary CNS lymphoma and meningothelial meningioma " * 2
    for i, key in enumerate((None, signing.new_private_key(), signing.new_private_key())):
        content = content_of(
            b,
            run_id=f"run-{i}-{'x' * 30}",
            model=f"a-rather-long-model-name-{i}:latest",
            trace=trace_as(b.trace, f"a-rather-long-model-name-{i}:latest"),
            finished_at=f"2026-11-2{i}T10:00:00Z",
            document_title=title,
            signing_key=key,
        )
        path = write_bundle(tmp_path / f"b{i}", content)
        if i == 2:  # edited after signing: the longest signature and check cells
            m = json.loads((path / "metrics.json").read_text())
            m["attribution_rate"]["value"] = 0.0
            (path / "metrics.json").write_text(json.dumps(m))
        published.publish(path, folder)
    shutil.rmtree(tmp_path / "b0")  # the index must not depend on the originals
    view = QWebEngineView()
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    with qtbot.waitSignal(view.loadFinished, timeout=30000):
        view.load(QUrl.fromLocalFile(str(folder / "index.html")))
    with qtbot.waitCallback(timeout=10000) as cb:
        view.page().runJavaScript(
            "JSON.stringify([document.documentElement.scrollWidth,"
            " document.documentElement.clientWidth])",
            1,  # the application's own world: the page's CSP forbids page scripts
            cb,
        )
    scroll, client = json.loads(cb.args[0])
    assert client > 1100
    assert scroll <= client, f"the index scrolls sideways: {scroll} px in {client} px"
