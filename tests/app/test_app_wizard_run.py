"""The setup wizard's pages (isComplete/validatePage/next, fakes injected, never exec) and
live runs in the Run view against the scripted OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import keyring
import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")
qasync = pytest.importorskip("qasync")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from wizard_helpers import SAMPLE, SAMPLE_TEXT, u16  # noqa: E402

from app import secrets as app_secrets  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.wizard import SetupWizard  # noqa: E402


async def wait_signal(signal, timeout=30.0):
    fut = asyncio.get_running_loop().create_future()

    def cb(*args):
        if not fut.done():
            fut.set_result(args)

    signal.connect(cb)
    try:
        return await asyncio.wait_for(fut, timeout)
    finally:
        signal.disconnect(cb)


@pytest.fixture
def wizard(qtbot):
    w = SetupWizard(Settings())
    qtbot.addWidget(w)
    return w


# -- page 1 ---------------------------------------------------------------------------------


def test_model_page_completes_and_saves_settings_and_key(qtbot, wizard, memory_keyring):
    page = wizard.model_page
    wizard.show()
    page.url.setText("")
    assert not page.isComplete()
    page.preset.setCurrentIndex(page.preset.findData("ollama"))
    assert page.url.text() == "http://localhost:11434/v1"
    page.model.setEditText("")
    assert not page.isComplete()
    page.model.setEditText("llama3.1")
    assert page.isComplete()
    page.key.setText("sk-secret-1")
    assert page.validatePage()
    qtbot.waitUntil(
        lambda: (
            memory_keyring.passwords.get(("agent-review-loop", "api-key@localhost:11434"))
            == "sk-secret-1"
        ),
        timeout=5000,
    )
    s = Settings()
    assert (s.base_url, s.model, s.preset) == ("http://localhost:11434/v1", "llama3.1", "ollama")
    assert "sk-secret" not in s.path.read_text(encoding="utf-8")
    assert page.config().api_key == "sk-secret-1"


class BrokenKeyring(keyring.backend.KeyringBackend):
    priority = 1

    def get_password(self, *a):
        raise keyring.errors.NoKeyringError("none")

    def set_password(self, *a):
        raise keyring.errors.NoKeyringError("none")

    def delete_password(self, *a):
        raise keyring.errors.NoKeyringError("none")


def test_model_page_without_keyring_offers_session_only(qtbot, wizard):
    keyring.set_keyring(BrokenKeyring())  # restored by the autouse fixture
    app_secrets.keep_for_session(None)
    page = wizard.model_page
    wizard.show()
    page.url.setText("https://api.openai.com/v1")
    page.model.setEditText("gpt-4o-mini")
    page.key.setText("sk-session")
    page.save_key()
    qtbot.waitUntil(lambda: page.session_only.isVisible(), timeout=5000)
    assert "session only" in page.key_status.text()
    assert page.validatePage()
    assert app_secrets.get_key("https://api.openai.com/v1") == ("sk-session", "session")
    app_secrets.keep_for_session(None)


def test_test_connection_shows_each_check_in_words(qtbot, wizard, qloop):
    from engine.doctor import Check

    page = wizard.model_page
    wizard.show()
    page.url.setText("http://127.0.0.1:9/v1")
    page.model.setEditText("m")

    async def fake_checker(url, model, key):
        return [
            Check("endpoint reachable", "PASS", "answers"),
            Check(
                "tool calling works",
                "FAIL",
                "answered with text",
                "use a model with tool-calling support",
            ),
        ]

    page.checker = fake_checker

    async def go():
        page.test_connection()
        await page._job

    qloop.run_until_complete(go())
    text = page.test_result.text()
    assert "PASS" in text and "FAIL" in text and "What to do" in text


def test_test_connection_when_nothing_answers_says_so_in_one_line(qtbot, wizard, qloop):
    """A server that no longer runs: one plain line (nothing answered at this address,
    the host and port, what to do), not a FAIL and a column of UNVERIFIED."""
    from tests.helpers.scripted_server import FixEverything, ScriptedServer

    srv = ScriptedServer(FixEverything()).start()
    url = srv.base_url
    srv.stop()
    port = url.split(":")[2].split("/")[0]
    page = wizard.model_page
    page.url.setText(url)
    page.model.setEditText("m")

    async def go():
        page.test_connection()
        await page._job

    qloop.run_until_complete(go())
    text = page.test_result.text()
    assert "Nothing answered at this address" in text
    assert f"could not connect to 127.0.0.1:{port} (nothing answered)" in text
    assert "What to do: start the server" in text
    assert "UNVERIFIED" not in text and "FAIL" not in text and "Error" not in text
    assert page.test_failed  # the run still warns before it starts


def test_test_connection_with_a_wrong_key_names_the_key_box(qtbot, wizard, qloop):
    """A refused key: one FAIL whose fix names the key box above; the other checks say
    they were not checked because of the key, never "could not be reached"."""
    from tests.helpers.scripted_server import FixEverything, ScriptedServer

    page = wizard.model_page
    wizard.show()
    with ScriptedServer(FixEverything(), api_key="sk-the-right-one-0000000") as srv:
        page.url.setText(srv.base_url)
        page.model.setEditText(srv.model)
        page.key.setText("sk-a-wrong-one-00000000")

        async def go():
            page.test_connection()
            await page._job

        qloop.run_until_complete(go())
    text = page.test_result.text()
    assert text.count("FAIL") == 1 and "refused the API key" in text
    assert "re-type the key in the key box above" in text
    assert "OPENAI_API_KEY" not in text and "could not be reached" not in text
    assert text.count("not checked: the server refused the API key") == 8
    assert page.test_failed and "refused the API key" in page.test_failed


def test_fetch_models_against_the_scripted_server(qtbot, wizard, qloop):
    from tests.helpers.scripted_server import FixEverything, ScriptedServer

    page = wizard.model_page
    wizard.show()
    with ScriptedServer(FixEverything()) as srv:
        page.url.setText(srv.base_url)

        async def go():
            page.fetch_models()
            await page._job

        qloop.run_until_complete(go())
        assert page.model.currentText() == srv.model


# -- page 2 ---------------------------------------------------------------------------------


def test_document_page_refuses_a_binary_file_and_notes_bad_bytes(qtbot, wizard, tmp_path):
    page = wizard.document_page
    png = tmp_path / "photo.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    page.load_file(str(png))
    qtbot.waitUntil(lambda: "Could not read" in page.status.text(), timeout=5000)
    assert "looks like a PNG image, not a text or HTML document" in page.status.text()
    assert not page.isComplete() and "Ready" not in page.status.text()
    sjis = tmp_path / "ja.txt"
    sjis.write_bytes("予算は一千万円です。".encode("shift_jis"))
    page.load_file(str(sjis))  # undeclared and not UTF-8: refused, never read as a guess
    qtbot.waitUntil(lambda: "not valid UTF-8 (" in page.status.text(), timeout=5000)
    assert not page.isComplete() and "no encoding is declared" in page.status.text()


def test_document_page_dialog_lists_every_format_and_refuses_pdf_with_a_next_step(
    qtbot, wizard, tmp_path
):
    page = wizard.document_page
    wizard.show()
    page.ask_file()
    filters = page._dialog.nameFilters()
    page._dialog.reject()
    assert filters[0].startswith("Documents (") and filters[-1] == "All files (*)"
    for pattern in ("*.html", "*.md", "*.markdown", "*.txt"):
        assert pattern in filters[0].split("(")[1]
    assert {"HTML", "Markdown", "Plain text"} <= {f.split(" (")[0] for f in filters}
    pdf = tmp_path / "memo.pdf"
    pdf.write_bytes(b"%PDF-1.7\n1 0 obj")
    page.load_file(str(pdf))
    qtbot.waitUntil(lambda: "Could not read" in page.status.text(), timeout=5000)
    assert "cannot read yet" in page.status.text() and "save it as .docx" in page.status.text()
    assert not page.isComplete()


def test_document_page_from_file_and_from_brief(qtbot, wizard, tmp_path, qloop):
    page = wizard.document_page
    assert not page.isComplete()
    md = tmp_path / "notes.md"
    md.write_text("# Notes\n\nSome *text*.\n", encoding="utf-8")
    page.load_file(str(md))
    qtbot.waitUntil(page.isComplete, timeout=5000)
    assert page.kind == "markdown" and page.title == "Notes"  # its first heading
    assert "(Markdown, " in page.status.text()

    class Result:
        html = SAMPLE

    async def fake_author(config, brief):
        await asyncio.sleep(0)
        return Result()

    page.author = fake_author
    page.use_brief.setChecked(True)
    assert page.briefs.count() >= 3  # the shipped one-click briefs

    async def go():
        page.write_from_brief()
        await page._job

    qloop.run_until_complete(go())
    assert page.kind == "html" and page.raw == SAMPLE


def test_document_page_cancel_while_authoring(qtbot, wizard, qloop):
    page = wizard.document_page
    page.use_brief.setChecked(True)

    async def slow_author(config, brief):
        await asyncio.sleep(30)

    page.author = slow_author

    async def go():
        page.write_from_brief()
        job = page._job
        await asyncio.sleep(0.05)
        page.cancel_author()
        with pytest.raises(asyncio.CancelledError):
            await job

    qloop.run_until_complete(go())
    assert "cancelled" in page.status.text()
    assert not page.isComplete()


# -- page 3 ---------------------------------------------------------------------------------


def _to_comments_page(qtbot, wizard):
    wizard.show()
    wizard.model_page.url.setText("http://127.0.0.1:9/v1")
    wizard.model_page.model.setEditText("m")
    wizard.next()
    wizard.document_page.set_document("Memo", SAMPLE, "html")
    view = wizard.comments_page.view
    with qtbot.waitSignal(view.rendered, timeout=20000):
        wizard.next()
    assert wizard.currentPage() is wizard.comments_page
    return wizard.comments_page


def test_the_comments_page_uses_the_wizards_height(qtbot, wizard):
    wizard.resize(1000, 720)
    page = _to_comments_page(qtbot, wizard)
    qtbot.waitUntil(lambda: page.view.height() > 0)
    # the document fills the page down to the buttons (it stopped 130 px short)
    bottom = page.view.mapTo(wizard, page.view.rect().bottomLeft()).y()
    buttons = wizard.button(wizard.WizardButton.NextButton).mapTo(wizard, QPoint(0, 0)).y()
    assert buttons - bottom < 60, (bottom, buttons)


def test_selection_after_emoji_becomes_a_utf16_anchor(qtbot, wizard):
    page = _to_comments_page(qtbot, wizard)
    assert not page.isComplete()
    start, end = u16(SAMPLE_TEXT, "two days a week")
    assert start == SAMPLE_TEXT.index("two days a week") + 1  # one emoji before it
    with qtbot.waitSignal(
        page.view.anchorSelected, timeout=10000, check_params_cb=lambda a: bool(a)
    ):
        page.view.select_offsets(start, end)
    assert page.anchor["quote"] == "two days a week"
    assert not page.add_btn.isEnabled()  # no comment text yet
    page.body.setPlainText("Three days, per the board decision.")
    assert page.add_btn.isEnabled()
    page.add_from_selection()
    assert page.isComplete()
    c = page.comments[0]
    assert (c.anchor.start_offset, c.anchor.end_offset) == (start, end)
    assert c.anchor.quote == "two days a week"
    assert c.anchor.prefix == SAMPLE_TEXT[: SAMPLE_TEXT.index("two days")][-32:]
    assert c.anchor.suffix == SAMPLE_TEXT[SAMPLE_TEXT.index("a week") + 6 :][:32]
    # The engine locates it exactly where the page said.
    from engine.score.scoring import Version, score

    v = Version.from_source(SAMPLE, "html")
    r = score(v, v, page.comments)
    assert r.verdicts[0].v1.text == "two days a week" and not r.verdicts[0].offsets_repaired


def test_edit_delete_actionable_and_import(qtbot, wizard, tmp_path):
    import json

    page = _to_comments_page(qtbot, wizard)
    s, e = u16(SAMPLE_TEXT, "by email")
    page.add_comment(
        {"quote": "by email", "prefix": "", "suffix": "", "start_offset": s, "end_offset": e},
        "Use the form.",
    )
    page.body.setPlainText("Use the HR form instead.")
    page.save_edit()
    assert page.comments[0].body == "Use the HR form instead."
    page.actionable.setChecked(False)
    assert not page.comments[0].actionable and not page.isComplete()
    page.actionable.setChecked(True)
    ann = {
        "@context": "http://www.w3.org/ns/anno.jsonld",
        "type": "Annotation",
        "id": "a1",
        "body": {"type": "TextualBody", "value": "Which month?"},
        "target": {
            "selector": [
                {
                    "type": "TextQuoteSelector",
                    "exact": "first of next month",
                    "prefix": "starts on the ",
                    "suffix": ".",
                }
            ]
        },
    }
    f = tmp_path / "ann.json"
    f.write_text(json.dumps(ann), encoding="utf-8")
    assert page.import_file(str(f)) == []
    assert [c.body for c in page.comments] == ["Use the HR form instead.", "Which month?"]
    page.list.setCurrentRow(0)
    page.delete_current()
    assert [c.id for c in page.comments] == ["a1"]


def test_finish_emits_a_run_request(qtbot, wizard):
    page = _to_comments_page(qtbot, wizard)
    s, e = u16(SAMPLE_TEXT, "by email")
    page.add_comment({"quote": "by email", "start_offset": s, "end_offset": e}, "Form?")
    wizard.next()
    assert wizard.currentPage() is wizard.run_page
    wizard.run_page.rounds.setValue(2)
    wizard.run_page.budget.setValue(0)
    wizard.run_page.turns.setValue(6)
    echo = wizard.run_page.echo
    # Plain words on the box; the tooltip says when it is needed.
    assert "what its tools returned" in echo.text() and "plain messages" not in echo.text()
    assert "Leave this off unless" in echo.toolTip() and "llama.cpp" in echo.toolTip()
    echo.setChecked(True)
    assert wizard.run_page.mode.currentData() == "tools"  # the default
    wizard.run_page.mode.setCurrentIndex(wizard.run_page.mode.findData("no-tools"))
    with qtbot.waitSignal(wizard.runRequested, timeout=5000) as blocker:
        wizard.accept()
    req = blocker.args[0]
    assert req.rounds == 2 and req.config.max_tokens_per_run is None
    assert req.config.max_turns_per_round == 6 and req.config.echo_tool_results is True
    assert req.raw == SAMPLE and [c.id for c in req.comments] == ["c1"]
    assert Settings().rounds == 2
    assert Settings().turns_per_round == 6 and Settings().echo_tool_results is True
    assert req.config.mode == "no-tools" and Settings().agent_mode == "no-tools"


# -- run view -------------------------------------------------------------------------------


def _request(srv, tmp_path, rounds=2):
    from app.runrequest import RunRequest
    from engine.agent.config import AgentConfig
    from engine.models import Anchor, Comment

    comments = []
    for i, q in enumerate(("two days a week", "by email", "first of next month"), 1):
        s, e = u16(SAMPLE_TEXT, q)
        comments.append(
            Comment(
                id=f"c{i}",
                body="Please revise.",
                anchor=Anchor(quote=q, start_offset=s, end_offset=e),
            )
        )
    cfg = AgentConfig(
        base_url=srv.base_url,
        model=srv.model,
        api_key=None,
        request_timeout=10,
        max_retries=1,
        backoff_initial=0.01,
        backoff_max=0.05,
    )
    return RunRequest(
        config=cfg,
        title="Memo",
        raw=SAMPLE,
        kind="html",
        comments=comments,
        rounds=rounds,
        out_dir=tmp_path / "bundles",
        workspace_path=tmp_path / "ws.sqlite3",
    )


def test_cancel_during_a_run_leaves_a_cancelled_bundle(qtbot, qloop, tmp_path):
    from app.runview import RunView
    from engine.bundle.read import open_bundle
    from tests.helpers.scripted_server import FixEverything, ScriptedServer

    view = RunView()
    qtbot.addWidget(view)
    view.show()
    with ScriptedServer(FixEverything(), latency=0.3) as srv:

        async def go():
            view.start_run(_request(srv, tmp_path))
            await wait_signal(view.eventShown)  # the first event: the run is live
            assert view.cancel_btn.isEnabled()
            view.cancel()
            return await wait_signal(view.runFinished)

        (bundle,) = qloop.run_until_complete(go())
    assert bundle
    assert open_bundle(bundle).status == "cancelled"
    assert "Run cancelled" in view.title.text()
    assert "Memo" in view.title.text()  # the document is still named once the run ended
    assert not view.cancel_btn.isEnabled() and view.new_btn.isEnabled()
    # What was true while running is no longer said.
    assert "Cancel stops" not in view.hint.text() and "Verdicts tab" in view.hint.text()
    assert "so far" not in view.tokens_label.text()
    # the bar no longer shows a round in progress once the run has ended
    assert view.round_bar.format().startswith("Run cancelled after ")


def test_a_run_that_never_reached_the_model_says_tokens_na_live_and_reopened(
    qtbot, qloop, tmp_path
):
    """Nothing answers: the ended run says "Tokens used: N/A, the model was never
    reached: ..." (not "none reported"), and so does the Run tab of its reopened bundle."""
    from types import SimpleNamespace

    from app.runview import RunView
    from tests.helpers.scripted_server import FixEverything, ScriptedServer

    view = RunView()
    qtbot.addWidget(view)
    view.show()
    srv = ScriptedServer(FixEverything()).start()
    gone = SimpleNamespace(base_url=srv.base_url, model=srv.model)
    srv.stop()  # its address now answers nothing

    async def go():
        view.start_run(_request(gone, tmp_path, rounds=1))
        return await wait_signal(view.runFinished)

    (bundle,) = qloop.run_until_complete(go())
    assert bundle and "Run failed" in view.title.text()
    said = "Tokens used: N/A \u2014 the model was never reached: could not connect to"
    assert view.tokens_label.text().startswith(said), view.tokens_label.text()
    from app.bundledata import load_bundle

    view.show_bundle(load_bundle(bundle))
    assert view.tokens_label.text().startswith(said), view.tokens_label.text()


def test_a_full_run_opens_its_verdicts(qtbot, qloop, tmp_path):
    from app.window import MainWindow
    from tests.helpers.scripted_server import ClaimWithoutEditing, ScriptedServer

    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    with ScriptedServer(ClaimWithoutEditing()) as srv:

        async def go():
            win.run_view.start_run(_request(srv, tmp_path, rounds=1))
            return await wait_signal(win.verdicts.rendered, timeout=60)

        qloop.run_until_complete(go())
    assert win.tabs.currentIndex() == win.TAB_VERDICTS
    assert win.data.status == "completed"
    labels = [win.verdicts.table.item(r, 1).text() for r in range(3)]
    assert labels == ["\u25cb untouched"] * 3
    log = [win.run_view.log.item(i).text() for i in range(win.run_view.log.count())]
    # Sentence case in the GUI; the CLI keeps the exact all-caps line (a contract).
    # Comments are named by the number the Verdicts view shows, never by their raw id.
    assert any(
        re.search(r"Verification: the model claimed it addressed comment \d", line)
        and "but the anchored text is unchanged" in line
        for line in log
    )
    assert not any(re.search(r"\bcomment c\d", line) for line in log)
    assert not any("MODEL CLAIMED ADDRESSED" in line for line in log)
    assert any(line.startswith("The agent listed the comments") for line in log)
    assert not any("Agent called" in line or "push_version" in line for line in log)
    # who signs, in words; the key's fingerprint only in the line's tooltip
    signed = [
        win.run_view.log.item(i)
        for i in range(win.run_view.log.count())
        if "will be signed by you" in win.run_view.log.item(i).text()
    ]
    assert signed and "fingerprint" not in signed[0].text().lower()
    assert "short form of the signing key" in signed[0].toolTip()
    assert ("attribution_rate", "After round 1") in win.metrics.cells


def test_closing_the_wizard_stops_its_network_work(qtbot, wizard, qloop):
    page = wizard.document_page
    page.use_brief.setChecked(True)

    async def slow_author(config, brief):
        await asyncio.sleep(30)

    page.author = slow_author

    async def go():
        page.write_from_brief()
        job = page._job
        await asyncio.sleep(0.05)
        wizard.reject()
        with pytest.raises(asyncio.CancelledError):
            await job

    qloop.run_until_complete(go())


def test_closing_the_window_during_a_run_cancels_it_first(qtbot, qloop, tmp_path):
    from app.window import MainWindow
    from engine.bundle.read import open_bundle
    from tests.helpers.scripted_server import FixEverything, ScriptedServer

    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    with ScriptedServer(FixEverything(), latency=0.3) as srv:

        async def go():
            win.run_view.start_run(_request(srv, tmp_path))
            await wait_signal(win.run_view.eventShown)
            assert win.close() is False  # refused: it asks first
            box = win._quit_box
            assert box.isVisible() and "in progress" in box.text()
            box.button(box.StandardButton.No).click()  # keep running
            await asyncio.sleep(0.2)
            assert win.run_view.running and win.isVisible()
            assert win.close() is False
            win._quit_box.button(box.StandardButton.Yes).click()  # cancel it and quit
            return await wait_signal(win.run_view.runFinished)

        (bundle,) = qloop.run_until_complete(go())
    qtbot.waitUntil(lambda: not win.isVisible(), timeout=5000)
    assert open_bundle(bundle).status == "cancelled"
    # the cancelled run's bundle is in Recent bundles too
    assert str(Path(bundle).resolve()) in Settings().recent_bundles


def test_esc_on_the_run_tab_asks_before_cancelling(qtbot, qloop, tmp_path):
    from app.runview import RunView
    from tests.helpers.scripted_server import FixEverything, ScriptedServer

    view = RunView()
    qtbot.addWidget(view)
    view.show()
    with ScriptedServer(FixEverything(), latency=0.3) as srv:

        async def go():
            view.start_run(_request(srv, tmp_path))
            await wait_signal(view.eventShown)
            qtbot.keyClick(view, Qt.Key.Key_Escape)
            box = view._cancel_box
            assert box.isVisible() and not view.handle.cancel_requested
            box.button(box.StandardButton.No).click()
            await asyncio.sleep(0.2)
            assert view.running
            qtbot.keyClick(view, Qt.Key.Key_Escape)
            view._cancel_box.button(box.StandardButton.Yes).click()
            return await wait_signal(view.runFinished)

        (bundle,) = qloop.run_until_complete(go())
    assert bundle and "Run cancelled" in view.title.text()
