"""The Checks view (docs/checks.md, docs/gui.md): one row per check per round, the output
on click, "changes requested" in the Checks view and the Verdicts banner, the rate without
N/A; a bundle with a forged result shows the re-derived truth. Bundles are written by the
engine, from a run against the scripted server."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.checks_view import ChecksView
from app.window import MainWindow

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def _bundle(tmp_path: Path) -> Path:
    from engine.checks.config import parse_checks
    from engine.models import Comment
    from engine.run.checking import RunChecks
    from engine.run.start import prepare_document, run_review
    from engine.score.scoring import Version
    from engine.workspace import Workspace
    from tests.engine.test_checks_run import CHECKS, TEMPLATE, _config
    from tests.helpers.scripted_server import Churner, ScriptedServer, sample_comments

    ws = Workspace(tmp_path / "ws.sqlite3")
    text = Version.from_source(TEMPLATE, "html").text
    doc = prepare_document(
        ws, "Policy", TEMPLATE, "html", [Comment.from_json(o) for o in sample_comments(text)]
    )
    code = "import sys; sys.exit(1 if 'UP TO' in open(sys.argv[1]).read() else 0)"
    toml = CHECKS + (
        f'[[command]]\nname = "style"\nargv = {json.dumps([sys.executable, "-c", code, "{file}"])}\n'
        '[[command]]\nname = "vale"\nargv = ["vale-is-not-installed", "{file}"]\n'
    )
    checks = RunChecks(parse_checks(toml, "checks.toml"), allow_commands=True)

    async def go():
        with ScriptedServer(Churner("{{FirstName}}", "Customer")) as srv:
            return await run_review(
                ws, doc, _config(srv), rounds=1, out_dir=tmp_path / "b", checks=checks
            )

    outcome = asyncio.run(go())
    ws.close()
    return outcome.bundle


@pytest.fixture
def bundle(tmp_path):
    return _bundle(tmp_path)


def _open(qtbot, bundle):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignal(w.verdicts.rendered, timeout=30000):
        assert w.open_bundle(bundle)
    qtbot.waitUntil(lambda: w.data is not None and w.data.rederivation is not None, timeout=30000)
    return w


def _rows(view: ChecksView) -> list[tuple[str, ...]]:
    t = view.table
    return [tuple(t.item(r, c).text() for c in range(t.columnCount())) for r in range(t.rowCount())]


def test_checks_view_rows_output_and_outcome(qtbot, bundle):
    w = _open(qtbot, bundle)
    assert w.tabs.isTabEnabled(w.TAB_CHECKS)
    assert w.tabs.tabText(w.TAB_CHECKS).replace("&", "") == "Checks"
    view = w.checks
    qtbot.waitUntil(lambda: view.table.rowCount() > 0, timeout=10000)
    rows = _rows(view)
    # The version the agent was given: only the checks that judge it alone (commands).
    assert [r[1] for r in rows if r[0] == "The version the agent was given"] == [
        "Command: style",
        "Command: vale",
    ]
    round1 = [r for r in rows if r[0].startswith("Round 1")]
    assert [r[1] for r in round1] == [
        "Placeholders kept",
        "Links kept",
        "Sections kept",
        "Length kept",
        "Numbers and dates outside comments",
        "Command: style",
        "Command: vale",
    ]
    by_name = {r[1]: r for r in round1}
    assert by_name["Placeholders kept"][2] == "FAIL"
    assert by_name["Command: style"][2] == "FAIL"
    assert by_name["Command: vale"][2].startswith("UNVERIFIED")
    assert "recorded, not re-run" in by_name["Command: style"][3]
    assert "Changes requested." in view.headline.text()
    # 4 of 7 passed: placeholders and style FAIL, vale UNVERIFIED; no N/A in this run.
    assert view.rate.text() == "Checks passed on the final version: 57% (4 of 7), N/A left out."
    row = next(
        i for i, r in enumerate(rows) if r[0].startswith("Round 1") and r[1] == "Placeholders kept"
    )
    view.table.selectRow(row)
    assert (
        'lost "{{FirstName}}" from: Dear {{FirstName}}, see the FAQ.' in view.output.toPlainText()
    )
    from app.verdicts import banner_for

    level, text = banner_for(w.data)
    assert level == "error" and "Changes requested:" in text


def test_forged_result_shows_the_rederived_truth(qtbot, bundle, tmp_path):
    copy = tmp_path / "forged"
    shutil.copytree(bundle, copy)
    data = json.loads((copy / "checks.json").read_text())
    for part in [*data["rounds"], data["final"]]:
        for r in part["revised"]:
            if r["name"] == "placeholders":
                r.update(
                    status="pass", summary="every placeholder kept (1)", output="", findings=[]
                )
    raw = (json.dumps(data, indent=1) + "\n").encode()
    (copy / "checks.json").write_bytes(raw)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["files"]["checks.json"] = hashlib.sha256(raw).hexdigest()
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=1))
    w = _open(qtbot, copy)
    assert w.data.untrustworthy
    qtbot.waitUntil(lambda: w.checks.table.rowCount() > 0, timeout=10000)
    placeholders = [r for r in _rows(w.checks) if r[1] == "Placeholders kept"]
    assert placeholders and all(r[2] == "FAIL" for r in placeholders)


def test_a_bundle_without_checks_says_so(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    data_dir = Path(__file__).resolve().parents[1] / "data" / "bundle-min"
    with qtbot.waitSignal(w.verdicts.rendered, timeout=30000):
        assert w.open_bundle(data_dir)
    assert w.checks.table.rowCount() == 0
    assert w.checks.headline.text().startswith("This run declared no checks.")
    assert w.checks.accept_btn.isHidden()  # nothing to accept


# -- the wizard and the suites tab ----------------------------------------------------------


def test_wizard_checks_file_permission_and_request(qtbot, tmp_path, arl_home):
    from test_app_wizard_run import _to_comments_page
    from wizard_helpers import SAMPLE_TEXT, u16

    from app.settings import Settings
    from app.wizard import SetupWizard

    wizard = SetupWizard(Settings())
    qtbot.addWidget(wizard)
    page = _to_comments_page(qtbot, wizard)
    s, e = u16(SAMPLE_TEXT, "by email")
    page.add_comment({"quote": "by email", "start_offset": s, "end_offset": e}, "Form?")
    wizard.next()
    run_page = wizard.run_page
    box = run_page.checks
    assert box.status.text().startswith("No declared checks")
    bad = tmp_path / "bad.toml"
    bad.write_text("lenght = 3\n")
    box.file.setText(str(bad))
    box.reload()
    assert not run_page.isComplete()
    assert "unknown key &quot;lenght&quot;" in box.status.text() and str(bad) in box.status.text()
    good = tmp_path / "checks.toml"
    good.write_text(
        'placeholders = true\nlinks = true\n[[command]]\nname = "style"\n'
        'argv = ["vale", "--output=JSON", "{file}"]\n'
    )
    box.file.setText(str(good))
    box.reload()
    assert run_page.isComplete()
    text = box.status.text()
    assert "Placeholders kept, Links kept, Command: style" in text
    assert "will <b>not</b> run" in text
    assert box.commands.text().startswith("style: vale --output=JSON {file}  (will NOT run")
    box.allow.setChecked(True)
    assert "These commands will run on each version" in box.status.text()
    with qtbot.waitSignal(wizard.runRequested, timeout=5000) as blocker:
        wizard.accept()
    req = blocker.args[0]
    assert req.checks is not None and req.checks.check_names()[-1] == "command:style"
    assert req.allow_commands is True
    again = Settings()
    assert again.get("checks/file") == str(good) and again.get("checks/allow_commands") is True


def test_suites_tab_lists_the_checks_commands_before_start(qtbot, tmp_path):
    from app.suites.view import SuitesView

    (tmp_path / "checks.toml").write_text(
        'links = true\n[[command]]\nname = "lint"\nargv = ["lint-tool", "{file}"]\n'
    )
    suite = tmp_path / "suite.toml"
    suite.write_text(
        'name = "t"\nrounds = 1\nrepeats = 1\ndocuments = [{ corpus = "briefs", sample = 1 }]\n'
        'checks = "checks.toml"\n[[models]]\nname = "m"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'model = "m"\n'
    )
    view = SuitesView()
    qtbot.addWidget(view)
    view.open_suite(suite)
    qtbot.waitUntil(lambda: view.suite is not None, timeout=20000)
    text = view.estimate.toPlainText()
    assert "Declared checks on every run: Links kept, Command: lint." in text
    assert "lint: lint-tool {file}  (will NOT run" in text
    view.allow_commands.setChecked(True)
    assert "(on each version, timeout 30 s)" in view.estimate.toPlainText()


def test_an_accepted_fail_no_longer_blocks_in_the_window(qtbot, bundle):
    """A reviewer accepted both FAILs with a reason: the Checks tab and the banner drop
    "changes requested" and say each acceptance with its reason (the UNVERIFIED still
    blocks under the default policy, so the headline names only it)."""
    from engine.bundle import signing
    from engine.bundle.adjudicate import adjudicate_check

    key = signing.new_private_key()
    for name in ("placeholders", "command:style"):
        adjudicate_check(bundle, name, "accept", f"{name} is fine here", "Ann", key)
    w = _open(qtbot, bundle)
    view = w.checks
    qtbot.waitUntil(lambda: "accepted by the reviewer" in view.rate.text(), timeout=10000)
    assert "Placeholders kept FAIL accepted by the reviewer: placeholders is fine here" in (
        view.rate.text()
    )
    headline = view.headline.text()
    assert "Changes requested." in headline and "Command: vale" in headline
    assert "Placeholders kept" not in headline and "Command: style" not in headline
