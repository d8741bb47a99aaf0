"""Text from a bundle or a server (document title, model name, failure reasons) is shown as
text: a title made of HTML never renders as HTML (nor loads a local image) in any label or
message box."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox

from app.bundledata import load_bundle
from app.window import MainWindow

DATA = Path(__file__).resolve().parents[1] / "data"
HOSTILE = "<h1 style='color:red'>BIGRED</h1><img src='file:///etc/hostile.png'>"


def _fixture_module():
    spec = importlib.util.spec_from_file_location(
        "make_fixture_bundle",
        Path(__file__).resolve().parents[2] / "tools" / "make_fixture_bundle.py",
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def hostile_bundle(tmp_path: Path) -> Path:
    from engine.bundle.write import BundleContent, write_bundle

    mod = _fixture_module()
    src = load_bundle(DATA / "bundle-min")
    content = BundleContent(
        run_id="r",
        status="failed",
        reason="server said " + HOSTILE,
        app_version="0",
        created_at="",
        finished_at="",
        model="model " + HOSTILE,
        base_url="http://x/v1",
        document_title="Title " + HOSTILE,
        document_kind="html",
        given_version_id="v1",
        v1=mod.V1,
        rounds=[],
        comments_before=src.comments_before,
        comments_after=src.comments_before,
        claims={
            "rounds": [],
            "final": {"comments": [], "notes": "", "usable": False, "problem": HOSTILE},
        },
        trace={},
        verdicts={"rounds": [], "final": src.verdicts[1:2], "unusable": []},
        metrics=src.metrics,
        tokens=None,
        rounds_run=1,
    )
    return write_bundle(tmp_path / "b", content)


def shows_as_text(widget) -> bool:
    """False when ``widget`` would render HOSTILE's markup."""
    text = widget.text() + (widget.informativeText() if isinstance(widget, QMessageBox) else "")
    if "BIGRED" not in text:
        return True
    if widget.textFormat() == Qt.TextFormat.PlainText:
        return True
    return "<h1" not in text and "<img" not in text  # rich text, with the markup escaped


def hostile_labels(root) -> list[QLabel]:
    return [lbl for lbl in root.findChildren(QLabel) if "BIGRED" in lbl.text()]


def test_a_hostile_bundle_is_shown_as_text_everywhere(qtbot, tmp_path):
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    path = hostile_bundle(tmp_path)
    with qtbot.waitSignal(win.verdicts.rendered, timeout=30000):
        assert win.open_bundle(path, remember=False)
    labels = hostile_labels(win)
    assert labels, "the hostile title, model or reason should be shown somewhere"
    bad = [lbl.text()[:120] for lbl in labels if not shows_as_text(lbl)]
    assert bad == []
    # the Publish question names the document
    win.scorecard.ask_publish()
    boxes = [b for b in win.findChildren(QMessageBox) if "BIGRED" in b.text()]
    assert boxes and all(shows_as_text(b) for b in boxes)
    for b in boxes:
        b.close()


def test_the_run_tab_shows_a_servers_reason_as_text(qtbot):
    from app.runview import RunView

    view = RunView()
    qtbot.addWidget(view)
    view._finish_ui("failed", "the server answered " + HOSTILE)
    labels = hostile_labels(view)
    assert labels and all(shows_as_text(lbl) for lbl in labels)


def test_the_wizard_shows_a_title_and_errors_as_text(qtbot):
    from app.wizard import SetupWizard

    wiz = SetupWizard()
    qtbot.addWidget(wiz)
    wiz.document_page.set_document("Title " + HOSTILE, "<p>x</p>", "html")
    labels = hostile_labels(wiz)
    assert labels and all(shows_as_text(lbl) for lbl in labels)
    wiz.document_page.status.setText("")
    wiz.comments_page.count.setText("")


def test_the_check_catches_rich_text(qtbot):
    lbl = QLabel(HOSTILE)
    assert not shows_as_text(lbl)
    lbl.setTextFormat(Qt.TextFormat.PlainText)
    assert shows_as_text(lbl)
