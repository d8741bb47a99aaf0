"""The first ten minutes: with no model and no key, the wizard's "Try with a scripted
agent (no model)" makes a whole run on this computer, marked scripted."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from test_app_wizard_run import _request, wait_signal

from app import scripted_agent
from app.settings import Settings
from app.wizard import SetupWizard
from app.wizard.model_page import PRESETS
from engine.credentials import is_loopback_host, key_host


def test_the_scripted_preset_fills_in_a_local_server_and_needs_no_key(qtbot):
    assert PRESETS["scripted"][0] == "Try with a scripted agent (no model)"
    w = SetupWizard(Settings())
    qtbot.addWidget(w)
    page = w.model_page
    i = page.preset.findData("scripted")
    assert i >= 0  # offered in a source checkout
    page.preset.setCurrentIndex(i)
    assert is_loopback_host(key_host(page.url.text())) and page.url.isReadOnly()
    assert page.model.currentText() == "scripted-model"
    assert "No model and no key" in page.test_result.text()
    assert page.scripted and page.isComplete()
    # Another preset gives the address field back.
    page.preset.setCurrentIndex(page.preset.findData("openai"))
    assert not page.url.isReadOnly() and not page.scripted


def test_the_scripted_agent_starts_fresh_after_a_restart_and_its_address_is_never_saved(qtbot):
    """A restarted program: the wizard reopens on the scripted agent with a newly started
    server, never the last program's address (that server is gone)."""
    settings = Settings()
    settings.base_url = "https://api.example.org/v1"  # the user's own address
    settings.model = "my-model"
    w = SetupWizard(settings)
    qtbot.addWidget(w)
    page = w.model_page
    page.preset.setCurrentIndex(page.preset.findData("scripted"))
    first = page.url.text()
    assert page.validatePage()
    assert settings.preset == "scripted"
    assert settings.base_url == "https://api.example.org/v1" and settings.model == "my-model"
    # The program ends: its server stops. The settings file as the tester found it, with
    # a scripted address kept by an older version.
    scripted_agent._stop()
    settings.base_url = first
    w2 = SetupWizard(settings)
    qtbot.addWidget(w2)
    page2 = w2.model_page
    assert page2.scripted
    assert page2.url.text() == scripted_agent.base_url() != first
    assert page2.model.currentText() == "scripted-model"


def test_the_scripted_agent_hides_the_key_and_its_estimate_spends_nothing(qtbot):
    from engine.models import Anchor, Comment

    w = SetupWizard(Settings())
    qtbot.addWidget(w)
    page = w.model_page
    page.preset.setCurrentIndex(page.preset.findData("scripted"))
    form = page._form
    assert not form.isRowVisible(page.key) and not form.isRowVisible(page.key_status)
    page._key_found(
        (type("C", (), {"key": None, "source": "none", "host": "", "note": ""})(), False)
    )
    assert not page.session_only.isVisibleTo(page) and page.key_status.text() == ""
    w.document_page.raw = "<p>Teams meet two days a week.</p>"
    anchor = Anchor(quote="two days", prefix="", suffix="", start_offset=11, end_offset=19)
    w.comments_page.comments = [Comment(id="c1", body="Say three.", anchor=anchor)]
    rp = w.run_page
    rp.show_estimate()
    assert "nothing is spent" in rp.estimate_text and "no prices given" not in rp.estimate_text
    assert "spends it" not in rp.estimate.text()
    # Another provider: the key field and the usual estimate are back.
    page.preset.setCurrentIndex(page.preset.findData("openai"))
    assert form.isRowVisible(page.key) and form.isRowVisible(page.key_status)
    rp.show_estimate()
    assert "spends it" in rp.estimate.text() and "nothing is spent" not in rp.estimate_text


def test_a_run_with_the_scripted_agent_completes_and_says_it_is_scripted(qtbot, qloop, tmp_path):
    from app.window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    url = scripted_agent.base_url()
    assert scripted_agent.base_url() == url  # one server per program

    class Srv:
        base_url = url
        model = scripted_agent.MODEL

    request = _request(Srv, tmp_path, rounds=1)
    request.scripted = True

    async def go():
        win.run_view.request_run(request)  # loopback: nothing to ask
        return await wait_signal(win.verdicts.rendered, timeout=60)

    qloop.run_until_complete(go())
    assert win.data.status == "completed" and win.data.scripted
    assert "Scripted demonstration" in win.verdicts.banner.text()
    log = [win.run_view.log.item(i).text() for i in range(win.run_view.log.count())]
    assert any("stay on this computer" in line for line in log)


# Folding the banner and legend on a short window: tests/app/test_app_room_for_documents.py.


def test_the_comment_detail_keeps_its_lines_on_a_short_window(qtbot):
    """At 1366 x 768 and 1.5x (910 x 493 in the program's pixels) the splitters pressed the
    comment's detail below its least: it keeps ``DETAIL_SHORT_LINES`` there (and scrolls:
    the documents get half the window, tests/app/test_app_room_for_documents.py), its
    ``DETAIL_LINES`` where the documents keep their share beside them."""
    from pathlib import Path

    from app.verdicts import DETAIL_LINES, DETAIL_SHORT_LINES
    from app.window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    demo = Path(__file__).resolve().parents[2] / "resources/demo/remote-work-policy-scripted"
    with qtbot.waitSignal(win.verdicts.rendered, timeout=30000):
        win.open_bundle(demo)
    win.resize(910, 493)
    qtbot.wait(100)
    detail = win.verdicts.detail
    assert detail.height() >= DETAIL_SHORT_LINES * detail.fontMetrics().lineSpacing()
    win.resize(1366, 900)
    qtbot.waitUntil(
        lambda: detail.height() >= DETAIL_LINES * detail.fontMetrics().lineSpacing(), timeout=5000
    )


def test_leaving_the_scripted_agent_takes_its_words_and_model_away(qtbot):
    """Custom after the scripted agent: not "A script plays the agent..." and not
    "scripted-model" left on screen; the words and the model's example are Custom's."""
    w = SetupWizard(Settings())
    qtbot.addWidget(w)
    page = w.model_page
    page.preset.setCurrentIndex(page.preset.findData("scripted"))
    assert "A script plays the agent" in page.test_result.text()
    page.preset.setCurrentIndex(page.preset.findData("custom"))
    assert "script" not in page.test_result.text()
    assert "speaks the OpenAI API" in page.test_result.text()
    assert page.model.currentText() == "" and page.url.text() == ""
    assert "the server serves" in page.model.lineEdit().placeholderText()
    assert not page.isComplete()
    # A model the user typed for another provider is kept when the provider changes.
    page.preset.setCurrentIndex(page.preset.findData("openai"))
    page.model.setEditText("gpt-4o-mini")
    page.preset.setCurrentIndex(page.preset.findData("openrouter"))
    assert page.model.currentText() == "gpt-4o-mini" and page.test_result.text() == ""
