"""The setup wizard never loses work and says what it means: Esc asks before discarding, a
comment's text is loaded for editing, a failed Test connection is said before starting,
the custom server starts empty, the defaults are the CLI's, picked folders are remembered."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtWidgets import QWizard
from test_app_wizard_run import _to_comments_page
from wizard_helpers import SAMPLE, SAMPLE_TEXT, u16

from app.settings import Settings
from app.wizard import SetupWizard


@pytest.fixture
def wizard(qtbot):
    w = SetupWizard(Settings())
    qtbot.addWidget(w)
    return w


def _comment(page, phrase, body):
    s, e = u16(SAMPLE_TEXT, phrase)
    return page.add_comment(
        {"quote": phrase, "prefix": "", "suffix": "", "start_offset": s, "end_offset": e}, body
    )


def test_esc_asks_before_discarding_the_document_and_comments(qtbot, wizard):
    page = _to_comments_page(qtbot, wizard)
    _comment(page, "by email", "Use the form.")
    wizard.reject()  # what Esc, Cancel and the close button do
    box = wizard.confirm_box
    assert box.isVisible() and "1 comment" in box.text() and "Memo" in box.text()
    assert wizard.isVisible()
    keep = next(b for b in box.buttons() if "Keep" in b.text())
    keep.click()
    assert wizard.isVisible()
    assert [c.body for c in page.comments] == ["Use the form."]
    wizard.reject()
    discard = next(b for b in wizard.confirm_box.buttons() if "Discard" in b.text())
    discard.click()
    assert not wizard.isVisible()


def test_esc_on_an_empty_wizard_just_closes(qtbot, wizard):
    wizard.show()
    wizard.reject()
    assert not wizard.isVisible() and getattr(wizard, "confirm_box", None) is None


def test_selecting_a_comment_loads_its_text_for_editing(qtbot, wizard):
    page = _to_comments_page(qtbot, wizard)
    _comment(page, "by email", "Use the form.")
    _comment(page, "two days a week", "Three days.")
    page.body.clear()
    page.list.setCurrentRow(0)
    assert page.body.toPlainText() == "Use the form."
    assert "Editing c1" in page.selection_label.text()  # not "Comment added"
    page.body.setPlainText("Use the HR form.")
    page.save_edit()
    assert [c.body for c in page.comments] == ["Use the HR form.", "Three days."]
    page.list.setCurrentRow(1)
    assert page.body.toPlainText() == "Three days."
    # words being written for a new comment are never overwritten by a selection
    page.body.setPlainText("A new comment being written")
    page.list.setCurrentRow(0)
    assert page.body.toPlainText() == "A new comment being written"


def test_next_keeps_an_unsaved_edit_and_an_unadded_comment(qtbot, wizard):
    page = _to_comments_page(qtbot, wizard)
    _comment(page, "by email", "Use the form.")
    page.list.setCurrentRow(0)
    page.body.setPlainText("UNSAVED EDIT")  # typed, never saved, then Next
    assert page.validatePage()
    assert [c.body for c in page.comments] == ["UNSAVED EDIT"]
    assert "saved" in page.selection_label.text()
    s, e = u16(SAMPLE_TEXT, "two days a week")
    page._on_anchor(
        {"quote": "two days a week", "prefix": "", "suffix": "", "start_offset": s, "end_offset": e}
    )
    page.body.setPlainText("Three days.")  # a comment written for a selection, not added
    assert page.validatePage()
    assert [c.body for c in page.comments] == ["UNSAVED EDIT", "Three days."]


class _Check:
    def __init__(self, name, status, detail, fix=""):
        self.name, self.status, self.detail, self.fix = name, status, detail, fix


def test_a_failed_connection_test_is_said_before_starting(qtbot, qloop, wizard):
    page = wizard.model_page
    wizard.show()
    page.url.setText("http://127.0.0.1:9/v1")
    page.model.setEditText("m")

    async def failing(url, model, key):
        return [_Check("endpoint reachable", "FAIL", "cannot be reached: Connection error.")]

    page.checker = failing
    page.test_connection()
    qloop.run_until_complete(page._job)
    assert page.test_failed and "Connection error" in page.test_failed
    assert ".." not in page.test_result.text()
    wizard.document_page.set_document("Memo", SAMPLE, "html")
    c = _comment(wizard.comments_page, "by email", "Use the form.")
    assert c.actionable
    emitted = []
    wizard.runRequested.connect(emitted.append)
    wizard.accept()
    box = wizard.confirm_box
    assert box.isVisible() and "Test connection failed" in box.text() + box.windowTitle()
    assert "Connection error." in box.text() and ".." not in box.text()
    assert emitted == []
    next(b for b in box.buttons() if "anyway" in b.text()).click()
    assert len(emitted) == 1


def test_a_fallback_the_program_handles_is_no_failure(qtbot, qloop, wizard):
    page = wizard.model_page
    page.url.setText("http://127.0.0.1:9/v1")
    page.model.setEditText("m")

    async def quirky(url, model, key):
        refused = _Check("json_object", "FAIL", "refused (HTTP 400).", "json_schema is used")
        refused.handled = True
        return [_Check("tool calls", "PASS", "the model called a tool."), refused]

    page.checker = quirky
    page.test_connection()
    qloop.run_until_complete(page._job)
    assert page.test_failed is None  # nothing to warn about before the run
    text = page.test_result.text()
    assert "WORKED AROUND" in text and "What the program does" in text and "FAIL" not in text
    # Plain words first; the API's own name only at the end of the line, in brackets.
    assert "The server can return a JSON report: refused" in text
    assert "The model can call a tool: " in text
    assert text.index("JSON report") < text.index("[response_format=json_object]")
    assert "json_object:" not in text


def test_an_exception_from_the_test_gives_one_stop_and_what_to_do(qtbot, qloop, wizard):
    page = wizard.model_page
    page.url.setText("http://127.0.0.1:9/v1")
    page.model.setEditText("m")

    async def raising(url, model, key):
        raise RuntimeError("Connection error.")

    page.checker = raising
    page.test_connection()
    qloop.run_until_complete(page._job)
    text = page.test_result.text()
    assert "Connection error." in text and ".." not in text and "What to do" in text
    page.url.setText("http://127.0.0.1:10/v1")  # another server: the old result no longer holds
    assert page.test_failed is None


def test_custom_server_starts_empty_with_an_example(qtbot, wizard):
    page = wizard.model_page
    page.preset.setCurrentIndex(page.preset.findData("openai"))
    assert page.url.text().startswith("https://api.openai.com")
    page.preset.setCurrentIndex(page.preset.findData("custom"))
    assert page.url.text() == ""
    assert "e.g. http://127.0.0.1" in page.url.placeholderText()
    assert not page.isComplete()


def test_run_defaults_are_the_clis(qtbot, tmp_path, monkeypatch):
    from engine.cli.main import build_parser

    monkeypatch.setenv("ARL_HOME", str(tmp_path))
    args = build_parser().parse_args(
        ["run", "--yes", "--doc", "d.html", "--comments", "c.json", "--base-url", "http://x/v1"]
        + ["--model", "m"]
    )
    assert isinstance(args, argparse.Namespace)
    wiz = SetupWizard(Settings())
    qtbot.addWidget(wiz)
    rp = wiz.run_page
    assert rp.rounds.value() == args.rounds
    assert rp.turns.value() == args.turns
    assert (rp.budget.value() or None) == args.max_tokens
    assert "Start the run" in rp.subTitle() and "Finish" not in rp.subTitle()
    assert wiz.buttonText(QWizard.WizardButton.FinishButton).replace("&", "") == "Start the run"


def test_writing_from_a_brief_uses_the_authoring_rule_and_shows_the_time(qtbot, qloop, wizard):
    import asyncio

    from engine.author import AUTHOR_REQUEST_TIMEOUT

    wizard.model_page.url.setText("http://127.0.0.1:9/v1")
    wizard.model_page.model.setEditText("m")
    page = wizard.document_page
    seen = []

    async def slow(config, brief):
        seen.append(config)
        await asyncio.sleep(1.7)
        seen.append(page.status.text())
        raise RuntimeError("stopped by the test")

    page.author = slow
    page.use_brief.setChecked(True)
    page.write_from_brief()
    qloop.run_until_complete(page._job)
    assert seen[0].request_timeout == AUTHOR_REQUEST_TIMEOUT
    assert seen[0].base_url == "http://127.0.0.1:9/v1"
    assert "0:01 so far" in seen[1] and "Cancel" in seen[1]
    assert "stopped by the test" in page.status.text()


def test_the_cli_author_timeout_is_the_same_rule():
    from engine.author import AUTHOR_REQUEST_TIMEOUT, author_config

    cfg = author_config("http://x/v1", "m", None)
    assert cfg.request_timeout == AUTHOR_REQUEST_TIMEOUT
    assert dataclasses.asdict(cfg)["temperature"] == 0.7


def test_file_pickers_open_in_the_last_folder_used(qtbot, wizard, tmp_path):
    from app.wizard.common import last_folder, remember_folder

    f = tmp_path / "sub" / "doc.html"
    f.parent.mkdir()
    f.write_text("<p>x</p>", encoding="utf-8")
    remember_folder(wizard, str(f))
    assert last_folder(wizard) == str(f.parent)
    assert wizard.settings.last_dir == str(f.parent)


def test_a_failed_run_says_it_once_with_what_to_do(qtbot):
    from app.runview import RunView
    from engine.events import RunFailed

    view = RunView()
    qtbot.addWidget(view)
    view._finish_ui(
        "failed", "the endpoint cannot be reached: APIConnectionError: Connection error."
    )
    text = view.round_label.text()
    assert "Connection error." in text and ".." not in text and "What to do" in text
    assert ".." not in RunFailed(run_id="r", reason="Connection error.").describe()


def test_reasons_are_said_plainly_in_every_view():
    from engine import vocabulary

    raw = (
        "the agent's report is unusable: the report was cut off at its limit of 1400 tokens "
        "(the report is not valid JSON: unterminated string starting at character 5257 of 5279)"
    )
    assert vocabulary.plain_reason(raw) == (
        "the agent's report is unusable: the report was cut off at its limit of 1400 tokens, "
        "so it could not be read"
    )
    m = {"value": None, "reason": raw}
    assert "unterminated" not in vocabulary.metric_text("claim_accuracy", m)
    assert (
        vocabulary.plain_reason("the report is not valid JSON: Expecting value at character 0 of 3")
        == vocabulary.REPORT_UNREADABLE
    )
    assert "JSON" not in vocabulary.REPORT_UNREADABLE
    assert vocabulary.plain_reason("no comment was edited") == "no comment was edited"


def test_a_result_for_a_closed_wizard_goes_nowhere(qtbot):
    import shiboken6

    from app.jobs import _deliver

    wiz = SetupWizard(Settings())
    page = wiz.model_page
    got = []
    page.got = got.append
    shiboken6.delete(wiz)
    _deliver(page._key_found, None, False)  # would raise "already deleted" before
    assert got == []


def test_the_run_page_shows_the_estimate_a_suite_run_gets(qtbot, tmp_path, monkeypatch):
    """The wizard's run: the same estimate as arl run and a suite's run (engine.suite.
    estimate), following the page's settings and the prices typed; Start confirms it."""
    from engine.models import Anchor, Comment
    from engine.suite.estimate import estimate_run, render_run_estimate

    monkeypatch.setenv("ARL_HOME", str(tmp_path))
    wiz = SetupWizard(Settings())
    qtbot.addWidget(wiz)
    raw = "<p>Teams meet in the office two days a week. 会议每周两天。</p>"
    wiz.document_page.raw = raw
    c = Comment(
        id="c1",
        body="Say three.",
        anchor=Anchor(quote="two days", prefix="", suffix="", start_offset=26, end_offset=34),
    )
    wiz.comments_page.comments = [c]
    rp = wiz.run_page
    rp.rounds.setValue(2)
    rp.turns.setValue(10)
    want = estimate_run(raw, [c], rounds=2, turns=10)
    assert rp.estimate_text.startswith(f"Estimate: about {want.total[1]:,} tokens")
    assert "Cost: no prices given (give both prices above" in rp.estimate_text
    assert "Start the run" in rp.estimate.text()
    rp.rounds.setValue(4)  # the estimate follows the settings
    assert (
        rp.estimate_text.splitlines()[0]
        == render_run_estimate(estimate_run(raw, [c], rounds=4, turns=10)).splitlines()[0]
    )
    rp.price_input.setText("2")
    assert "Give both prices" in rp.estimate_text
    rp.price_output.setText("8")
    priced = estimate_run(raw, [c], rounds=4, turns=10, price_input=2, price_output=8)
    assert f"Cost: about {priced.cost[1]:.4f} (" in rp.estimate_text
