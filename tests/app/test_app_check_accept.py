"""The Checks tab accepts a final-version FAIL with a reason through the engine
(``adjudicate_check``, as ``arl bundle adjudicate --check``): signed, verified, and the
FAIL no longer blocks in the Checks tab nor in the Verdicts banner. A row that is not a
final FAIL offers no accept; no reason records nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtWidgets import QApplication, QInputDialog

from app.decisions_panel import SETTING

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.app.test_app_checks import _bundle, _open

REASON = "the greeting is generic on purpose"


def _dialog():
    found = [w for w in QApplication.topLevelWidgets() if isinstance(w, QInputDialog)]
    return next((w for w in found if w.isVisible()), None)


def test_accept_a_fail_with_a_reason_from_the_checks_tab(qtbot, tmp_path):
    from engine.bundle.read import verify_bundle

    bundle = _bundle(tmp_path)
    w = _open(qtbot, bundle)
    w.settings.set(SETTING, "Ann Reviewer")
    view = w.checks
    qtbot.waitUntil(lambda: view.table.rowCount() > 0, timeout=10000)
    assert view.headline.text().startswith("<b>Changes requested.</b>")
    assert "Placeholders" in view.headline.text()
    qtbot.waitUntil(lambda: "Placeholders" in w.verdicts.banner.text(), timeout=10000)
    rows = [
        (view.table.item(r, 1).text(), view.table.item(r, 2).text(), r)
        for r in range(view.table.rowCount())
    ]
    passing = next(r for t, s, r in rows if s == "PASS")
    view.table.selectRow(passing)
    assert not view.accept_btn.isEnabled()
    fail = [r for t, s, r in rows if t == "Placeholders kept" and s == "FAIL"][-1]
    view.table.selectRow(fail)
    assert view.accept_btn.isEnabled()
    # no reason: nothing is recorded
    view.accept_btn.click()
    qtbot.waitUntil(lambda: _dialog() is not None, timeout=5000)
    _dialog().accept()
    qtbot.waitUntil(lambda: _dialog() is None, timeout=5000)
    assert "needs a reason" in view.status.text()
    assert not (Path(bundle) / "decisions.json").exists()
    view.accept_btn.click()
    qtbot.waitUntil(lambda: _dialog() is not None, timeout=5000)
    dlg = _dialog()
    dlg.setTextValue(REASON)
    dlg.accept()
    qtbot.waitUntil(lambda: view.status.text().startswith("Recorded"), timeout=30000)
    res = verify_bundle(bundle)
    assert not res.tampered, res.decisions.problems
    assert res.decisions.accepted_checks() == {"placeholders": REASON}
    assert res.decisions.decisions[-1].reviewer == "Ann Reviewer"
    # Placeholders no longer blocks (the run's other checks, a command FAIL and an
    # UNVERIFIED, still do), here and in the Verdicts banner
    assert "Placeholders" not in view.headline.text() and "style FAIL" in view.headline.text()
    assert REASON in view.rate.text()
    banner = w.verdicts.banner.text()
    assert (
        "Changes requested" in banner
        and "Placeholders" not in banner.split("Changes requested")[1].split("</b>")[1][:200]
    )
    # accepted once: the row offers it no more
    rows = [
        (view.table.item(r, 1).text(), view.table.item(r, 2).text(), r)
        for r in range(view.table.rowCount())
    ]
    view.table.selectRow([r for t, s, r in rows if t == "Placeholders kept" and s == "FAIL"][-1])
    assert not view.accept_btn.isEnabled()
