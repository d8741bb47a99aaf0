"""The reviewer decides from the keyboard in the Verdicts view: "needs your review" first,
a key per decision, an override's reason typed and Enter, Enter to the next comment; the
decisions are signed into the bundle and verify."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import Qt

from app.decisions_panel import SETTING
from app.window import MainWindow
from engine.bundle.read import verify_bundle

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


def _open(qtbot, window, path):
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        assert window.open_bundle(path)
    view = window.verdicts
    qtbot.waitUntil(lambda: view.data.rederivation is not None, timeout=30000)
    qtbot.waitUntil(
        lambda: view.decision.buttons["accept"].isEnabled() or view.rows[0]["verdict"] == "deleted",
        timeout=10000,
    )
    return view


def _current(view) -> dict:
    return view.rows[view.table.selectionModel().selectedRows()[0].row()]


def test_keyboard_review_of_every_comment(qtbot, window, tmp_path):
    bundle = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", bundle)
    window.settings.set(SETTING, "Ann Reviewer")
    view = _open(qtbot, window, bundle)
    # an approximate re-anchor, a claim that disagrees and a deletion need a person and
    # come first; the stale anchor (nothing to decide on) last
    assert [r["id"] for r in view.rows] == ["c1", "c2", "c3", "c4"]
    assert [bool(r["needs"]) for r in view.rows] == [True, True, True, False]
    assert view.table.item(2, 8).text() == "\u2691 needs review"
    view.table.setFocus()
    view.table.selectRow(2)
    assert not view.decision.buttons["accept"].isEnabled()  # no plain accept of a deletion
    qtbot.keyClick(view.table, Qt.Key.Key_A)  # refused: a deletion offers no accept
    assert view.decision.pending is None and not view._writing
    qtbot.keyClick(view.table, Qt.Key.Key_F)  # the deletion was the fix: asks the reason
    assert view.decision.reason.hasFocus()
    qtbot.keyClicks(view.decision.reason, "the sentence said it twice")
    qtbot.keyClick(view.decision.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not view._writing, timeout=30000)
    # the banner's count follows each decision, not only the next opening
    qtbot.waitUntil(
        lambda: "Awaiting review (2 of 3)</b>" in view.banner.text(),
        timeout=30000,
    )
    # the outcome leads how the run ended (the engine's one headline)
    text = view.banner.text()
    assert text.index("Awaiting review (2 of 3)") < text.index("Run completed")
    # the two undecided comments are not counted as not addressed
    window.metrics.show_bundle(view.data)
    assert "Reviewed attribution: <b>100% (1 of 1 decided; 2 not decided yet)</b>" in (
        window.metrics.review.text()
    )
    # moved on to the next comment needing a decision
    assert _current(view)["id"] == "c1" and view.table.hasFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: not view._writing and _current(view)["id"] == "c2", timeout=30000)
    # not addressed (N moves on) on an untouched comment: what the machine says, so no
    # override and no reason asked; it is recorded at once
    qtbot.keyClick(view.table, Qt.Key.Key_O)
    assert "Overriding" not in view.decision.state.text()
    qtbot.waitUntil(
        lambda: (
            not view._writing
            and view.data.decisions is not None
            and len(view.data.decisions.decisions) == 3
        ),
        timeout=30000,
    )
    assert "Awaiting review" not in view.banner.text()  # every actionable comment decided
    cells = {r["id"]: view.table.item(i, 8).text() for i, r in enumerate(view.rows)}
    assert cells["c1"] == "\u2713 accepted"
    assert cells["c2"] == "\u2713 not addressed"  # agrees with the machine
    res = verify_bundle(bundle)
    assert res.ok, res.decisions.problems
    assert {c: d.decision for c, d in res.decisions.latest().items()} == {
        "c1": "accept",
        "c2": "not-addressed",
        "c3": "deletion-is-fix",
    }
    assert res.decisions.latest()["c2"].reason == ""
    # c1 accepted and c2 not addressed agree with the machine; c3 overrides it
    window.metrics.show_bundle(view.data)
    assert "Agreement with the machine: <b>67% (2 of 3)</b>" in window.metrics.review.text()
    # Enter with nothing left to decide stays put
    keep = _current(view)["id"]
    qtbot.keyClick(view.table, Qt.Key.Key_Return)
    assert _current(view)["id"] == keep


def test_typing_a_reason_never_takes_a_decision(qtbot, window, tmp_path):
    bundle = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", bundle)
    window.settings.set(SETTING, "Ann")
    view = _open(qtbot, window, bundle)
    view.table.selectRow(1)
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_W)
    qtbot.keyClicks(view.decision.reason, "A D N F R")  # decision keys typed as text
    assert not view._writing and not (bundle / "decisions.json").exists()
    qtbot.keyClick(view.decision.reason, Qt.Key.Key_Escape)
    assert view.decision.pending is None


def test_compare_shows_each_sides_decisions(qtbot, tmp_path):
    from app.compare import CompareView
    from engine.bundle import signing
    from engine.bundle.adjudicate import adjudicate

    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", a)
    shutil.copytree(DATA / "bundle-min", b)
    adjudicate(a, "c2", "not-addressed", "only re-cased", "Ann", signing.new_private_key())
    view = CompareView()
    qtbot.addWidget(view)
    assert view.set_bundle("a", a)
    view.set_bundle("b", b)
    qtbot.waitUntil(
        lambda: view.a.decisions is not None and view.b.decisions is not None, timeout=30000
    )
    view.refresh()
    rows = {view.metrics.item(r, 0).text(): r for r in range(view.metrics.rowCount())}
    r = rows["Awaiting review"]
    assert (view.metrics.item(r, 1).text(), view.metrics.item(r, 2).text()) == ("2 of 3", "3 of 3")
    # comments by number, the id in the tooltip
    c2 = next(
        i for i in range(view.verdicts.rowCount()) if view.verdicts.item(i, 0).text() == "Comment 2"
    )
    assert "c2" in view.verdicts.item(c2, 0).toolTip()
    assert view.verdicts.item(c2, 6).text() == "not addressed (Ann) / none"


def test_csv_export_from_the_scorecard_tab(qtbot, window, tmp_path):
    bundle = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", bundle)
    from engine.bundle import signing
    from engine.bundle.adjudicate import adjudicate

    adjudicate(
        bundle, "c2", "not-addressed", "=1+1 is not a fix", "@Ann", signing.new_private_key()
    )
    _open(qtbot, window, bundle)
    dest = tmp_path / "out.csv"
    window.scorecard.export_csv(str(dest))
    lines = dest.read_text(encoding="utf-8-sig").splitlines()
    assert lines[0] == "id,quote,verdict,decision,reason,reviewer,decided_at"
    c2 = next(x for x in lines if x.startswith("c2,"))
    assert ",untouched,not-addressed,'=1+1 is not a fix,'@Ann," in c2


def test_reply_resolve_and_reopen_from_the_window(qtbot, window, tmp_path):
    import json

    from engine.bundle.read import open_bundle
    from engine.workspace import Workspace

    b = open_bundle(DATA / "bundle-min")
    with Workspace() as ws:  # the program's workspace (ARL_HOME, one per test)
        doc, _ = ws.create_document(b.document_title, b.version("v1").source, "html")
        ws.add_comments(doc, b.comments_before)
        run = ws.start_run(doc, "m", "http://127.0.0.1:1/v1")
    bundle = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", bundle)
    m = json.loads((bundle / "manifest.json").read_text())
    m["run_id"] = run  # the bundle of that workspace run
    (bundle / "manifest.json").write_text(json.dumps(m))
    window.settings.set(SETTING, "Ann")
    view = _open(qtbot, window, bundle)
    box = view.thread
    qtbot.waitUntil(lambda: box.document_id == doc and box.reply.isEnabled(), timeout=10000)
    view.table.selectRow(1)  # c2
    qtbot.waitUntil(lambda: box.comment_id == "c2" and not box.busy, timeout=10000)
    qtbot.keyClicks(box.reply, "Say which form: the HR portal")
    qtbot.keyClick(box.reply, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "HR portal" in box.state.text() and not box.busy, timeout=10000)
    box.act("resolve")
    qtbot.waitUntil(lambda: "status now <b>resolved" in box.state.text(), timeout=10000)
    box.act("reopen")
    qtbot.waitUntil(lambda: "status now <b>open" in box.state.text(), timeout=10000)
    with Workspace() as ws:
        c2 = {c.id: c for c in ws.comments(doc)}["c2"]
    assert [(r.author, r.kind) for r in c2.thread[-3:]] == [
        ("Ann", "reply"),
        ("Ann", "resolve"),
        ("Ann", "reopen"),
    ]


def test_a_bundle_from_elsewhere_can_be_read_not_answered(qtbot, window):
    view = _open(qtbot, window, DATA / "bundle-min")
    qtbot.waitUntil(lambda: "not in your workspace" in view.thread.state.text(), timeout=10000)
    assert not view.thread.reply.isEnabled()


def test_send_back_opens_the_next_round_with_the_reasons(qtbot, window, tmp_path):
    from engine.bundle import signing
    from engine.bundle.adjudicate import adjudicate

    bundle = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", bundle)
    key = signing.new_private_key()
    reason = "Still says email: name the HR portal form"
    adjudicate(bundle, "c1", "accept", "", "Ann", key)
    adjudicate(bundle, "c2", "not-addressed", reason, "Ann", key)
    view = _open(qtbot, window, bundle)
    qtbot.waitUntil(lambda: view.data.decisions is not None, timeout=30000)
    view.send_back_btn.click()
    dlg = window._send_back
    assert dlg.plan.reasons == {"c2": reason} and [c.id for c in dlg.plan.settled] == ["c1"]
    # c2 overridden; c4 is a stale anchor: not sent, and said so
    assert "1 comment goes back" in dlg.summary.text()
    assert (
        f"{html.escape(dlg.plan.names['c4'])} (a stale anchor, so it cannot be placed"
        in dlg.summary.text()
    )
    # the agent deleted c3's text and resolved it, no decision: not taken as the fix
    # (called by number and first words, never "c3")
    assert (
        f"{html.escape(dlg.plan.names['c3'])} (the agent deleted its text and resolved it; "
        "you have not said whether the deletion was the fix)" in dlg.summary.text()
    )
    # each comment named once in the dialog's lists
    for cid in ("c1", "c3", "c4"):
        assert dlg.summary.text().count(html.escape(dlg.plan.names[cid])) == 1
    assert dlg.plan.names["c3"].startswith("Comment 3 ")
    assert not re.search(r"\bc\d\b", dlg.summary.text() + dlg.brief.toPlainText())
    assert reason in dlg.brief.toPlainText()
    out = tmp_path / "next"
    dlg.save_to(str(out))
    assert (out / "brief.txt").is_file() and (out / "comments.json").is_file()
    dlg.start_btn.click()
    wiz = window.run_view._wizard
    assert wiz.document_page.raw == dlg.plan.document
    wiz.comments_page.initializePage()
    req = wiz.request()
    c2 = next(c for c in req.comments if c.id == "c2")
    assert c2.thread[-1].body == reason and c2.thread[-1].kind == "reopen"
    wiz.reject()


def test_run_with_another_model_opens_the_wizard_with_the_same_review(qtbot, window, tmp_path):
    from engine.bundle.read import open_bundle

    view = _open(qtbot, window, DATA / "bundle-min")
    view.another_btn.click()
    wiz = window.run_view._wizard
    old = open_bundle(DATA / "bundle-min")
    assert wiz.document_page.raw == old.version("v1").source
    wiz.comments_page.initializePage()
    assert [c.to_json() for c in wiz.request().comments] == [
        c.to_json() for c in old.comments_before
    ]
    assert window._compare_with == DATA / "bundle-min"
    wiz.reject()


def test_when_that_run_ends_compare_shows_both(qtbot, window, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(DATA / "bundle-min", other)
    window._compare_with = DATA / "bundle-min"
    window._run_finished(str(other))
    qtbot.waitUntil(lambda: window.tabs.currentIndex() == window.TAB_COMPARE, timeout=30000)
    assert window.compare.a.path == DATA / "bundle-min" and window.compare.b.path == other
    assert window._compare_with is None


def test_continue_this_review_opens_the_wizard_on_the_last_version(qtbot, window):
    from engine.bundle.read import open_bundle

    view = _open(qtbot, window, DATA / "bundle-min")
    view.continue_btn.click()
    wiz = window.run_view._wizard
    old = open_bundle(DATA / "bundle-min")
    assert wiz.document_page.raw == old.version("v2").source
    wiz.comments_page.initializePage()
    carried = {c.id: c for c in wiz.request().comments}
    assert set(carried) == {c.id for c in old.comments_after if c.status == "open"}
    assert all(c.created_on_version_id.startswith(old.manifest["run_id"]) for c in carried.values())
    wiz.reject()


def test_the_banner_says_awaiting_review_and_forged_decisions(qtbot, window, tmp_path):
    import json

    from engine.bundle import signing
    from engine.bundle.adjudicate import adjudicate

    bundle = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", bundle)
    adjudicate(bundle, "c2", "not-addressed", "only re-cased", "Ann", signing.new_private_key())
    view = _open(qtbot, window, bundle)
    qtbot.waitUntil(lambda: "Awaiting review (2 of 3)</b>" in view.banner.text(), timeout=30000)
    obj = json.loads((bundle / "decisions.json").read_text())
    obj["decisions"][0]["reason"] = "fixed after all"  # edited by hand
    (bundle / "decisions.json").write_text(json.dumps(obj))
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        assert window.open_bundle(bundle)
    qtbot.waitUntil(
        lambda: "reviewer decisions fail their checks" in view.banner.text(), timeout=30000
    )
    assert view.data.untrustworthy
    assert all(r["decision"] is None for r in view.rows)  # a forged decision counts for nothing
    assert not view.decision.buttons["addressed"].isEnabled()  # nothing decided on it


def test_continue_this_review_picks_the_provider_and_model_of_the_run(qtbot, window):
    """The shipped demo is a scripted-agent run: its next review starts with the scripted
    agent, not the provider last saved (OpenAI on a fresh start)."""
    from app import scripted_agent

    demo = Path(__file__).resolve().parents[2] / "resources" / "demo"
    view = _open(qtbot, window, demo / "remote-work-policy-scripted")
    view.continue_btn.click()
    page = window.run_view._wizard.model_page
    assert page.preset.currentData() == "scripted"
    assert page.model.currentText() == scripted_agent.MODEL
    window.run_view._wizard.reject()


def test_a_run_of_a_known_server_preselects_its_preset_and_model(qtbot):
    from app.wizard.model_page import ModelPage

    page = ModelPage(None)
    qtbot.addWidget(page)
    page.use_run({"model": "llama3.2", "base_url": "http://localhost:11434/v1/"})
    assert page.preset.currentData() == "ollama"
    assert (page.url.text(), page.model.currentText()) == (
        "http://localhost:11434/v1/",
        "llama3.2",
    )
    page.use_run({"model": "qwen", "base_url": "http://10.0.0.5:8080/v1"})
    assert page.preset.currentData() == "custom"
    assert (page.url.text(), page.model.currentText()) == ("http://10.0.0.5:8080/v1", "qwen")
