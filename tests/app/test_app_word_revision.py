"""A wizard run that starts from a Word review gives the agent's revision back as a Word
file whose edits are tracked changes (engine.word_revision): the wizard hands the run the
reviewed file, the Run view says where the Word file is."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")
qasync = pytest.importorskip("qasync")

from app.settings import Settings  # noqa: E402
from app.wizard import SetupWizard  # noqa: E402

REVIEW = Path(__file__).resolve().parents[2] / "resources" / "word" / "review.docx"


async def wait_signal(signal, timeout=60.0):
    fut = asyncio.get_running_loop().create_future()

    def cb(*args):
        if not fut.done():
            fut.set_result(args)

    signal.connect(cb)
    try:
        return await asyncio.wait_for(fut, timeout)
    finally:
        signal.disconnect(cb)


def test_the_wizard_hands_a_word_review_to_the_run(qtbot, tmp_path):
    wizard = SetupWizard(Settings())
    qtbot.addWidget(wizard)
    page = wizard.document_page
    page.load_file(str(REVIEW))
    qtbot.waitUntil(page.isComplete, timeout=10000)
    assert page.word_path == str(REVIEW)
    assert wizard.request().word_source == REVIEW.read_bytes()
    html = tmp_path / "memo.html"
    html.write_text("<p>Plain memo.</p>", encoding="utf-8")
    page.load_file(str(html))
    qtbot.waitUntil(lambda: page.word is None and page.raw and "Plain" in page.raw, timeout=10000)
    assert page.word_path is None and wizard.request().word_source is None


def test_a_run_from_a_word_review_writes_the_tracked_word_file(qtbot, qloop, tmp_path):
    from app.runrequest import RunRequest
    from app.runview import RunView
    from engine.agent.config import AgentConfig
    from engine.text.documents import open_document
    from engine.text.docx import read_docx
    from engine.word_review import word_comments
    from tests.helpers.scripted_server import FixEverything, ScriptedServer
    from tests.helpers.word_tracked import changes_in

    doc = open_document(REVIEW)
    comments, _ = word_comments(doc.word)
    view = RunView()
    qtbot.addWidget(view)
    view.show()
    with ScriptedServer(FixEverything()) as srv:
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model, api_key=None, max_retries=1)
        req = RunRequest(
            config=cfg,
            title="Review",
            raw=doc.content,
            kind="html",
            comments=comments,
            rounds=1,
            out_dir=tmp_path / "bundles",
            workspace_path=tmp_path / "ws.sqlite3",
            word_source=REVIEW.read_bytes(),
        )

        async def go():
            view.start_run(req)
            return await wait_signal(view.runFinished)

        (bundle,) = qloop.run_until_complete(go())
    word = Path(bundle).parent / f"{Path(bundle).name}-revision.docx"
    assert view.outcome.word_revision == word and word.is_file()
    assert "Word file" in view.hint.text() and word.name in view.hint.text()
    log = [view.log.item(i).text() for i in range(view.log.count())]
    assert any("The agent's revision as a Word file" in line for line in log)
    assert changes_in(word.read_bytes()) and read_docx(word.read_bytes()).comments


def test_send_back_saves_a_word_copy_for_another_agent(qtbot, tmp_path, capsys):
    import json

    from app.send_back import SendBackDialog
    from engine.bundle.read import open_bundle
    from engine.bundle.sendback import send_back
    from engine.cli.main import main
    from engine.text.docx import read_docx
    from tests.helpers.scripted_server import ClaimWithoutEditing, ScriptedServer

    with ScriptedServer(ClaimWithoutEditing()) as srv:
        code = main(
            ["run", "--yes", "--doc", str(REVIEW), "--base-url", srv.base_url, "--model", srv.model]
            + ["--out", str(tmp_path / "bundles"), "--json", "--rounds", "1"]
        )
    out, _ = capsys.readouterr()
    assert code == 0
    plan = send_back(open_bundle(json.loads(out)["bundle"]), {})
    dlg = SendBackDialog(plan, lambda p: None, None)
    qtbot.addWidget(dlg)
    assert dlg.word_path is not None and "Word copy" in dlg.status.text()
    dlg.save_to(str(tmp_path / "next"))
    assert "document.docx" in dlg.status.text()
    back = read_docx((tmp_path / "next" / "document.docx").read_bytes())
    replies = [r.text for c in back.comments for r in c.replies if r.author == "Agent Review Loop"]
    assert len(replies) == len(plan.comments) and all("still to do" in r for r in replies)
    # a Word file that is not the last version: said in one line, nothing written
    other = tmp_path / "other.docx"
    from tests.helpers.word_files import make_docx, para, run

    other.write_bytes(make_docx(para(run("Something else entirely."))))
    dlg.use_word_file(str(other))
    dlg.save_to(str(tmp_path / "bad"))
    assert "Nothing was written" in dlg.status.text() and "other.docx" in dlg.status.text()
    assert not (tmp_path / "bad" / "document.docx").exists()


def test_the_v2_pane_toggles_the_documents_own_tracked_changes(qtbot, tmp_path):
    import subprocess
    import sys

    from app.window import MainWindow
    from tests.engine.test_tracked_layer import _pair

    v1, v2 = _pair(tmp_path)
    out = tmp_path / "bundle"
    p = subprocess.run(
        [sys.executable, "-m", "engine.cli.main", "score", "--v1", str(v1), "--v2", str(v2)]
        + ["--bundle", str(out)],
        capture_output=True,
    )
    assert p.returncode == 0, p.stderr
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    with qtbot.waitSignal(win.verdicts.rendered, timeout=30000):
        assert win.open_bundle(str(out))
    view = win.verdicts
    qtbot.waitUntil(lambda: view.change_cv is not None, timeout=30000)
    painted = []
    real = view.v2.set_highlights
    view.v2.set_highlights = lambda spans, *a, **k: (painted.append(spans), real(spans, *a, **k))
    toggle = view.tracked
    assert toggle.isVisibleTo(view) and not toggle.isChecked()
    toggle.setChecked(True)
    kinds = {s["kind"] for s in painted[-1]}
    assert {"tracked", "untracked", "added"} <= kinds  # the program's own marks stay
    assert "made without tracking" in toggle.text()
    toggle.setChecked(False)
    assert not {"tracked", "untracked"} & {s["kind"] for s in painted[-1]}
    # a bundle without tracked changes: no toggle
    with qtbot.waitSignal(win.verdicts.rendered, timeout=30000):
        assert win.open_bundle(str(Path(__file__).resolve().parents[1] / "data" / "bundle-min"))
    assert not view.tracked.isVisibleTo(view)
