"""Every ending leaves a bundle: signals in quick succession, a process killed mid-run
(recovered at the next start), a full disk under the workspace."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.bundle.read import open_bundle, verify_bundle
from engine.score.scoring import Version
from engine.workspace import Workspace
from tests.helpers.scripted_server import (
    SAMPLE_HTML,
    FixEverything,
    ScriptedServer,
    sample_comments,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def inputs(tmp_path):
    doc = tmp_path / "memo.html"
    doc.write_text(SAMPLE_HTML, encoding="utf-8")
    comments = tmp_path / "comments.json"
    comments.write_text(
        json.dumps(sample_comments(Version.from_source(SAMPLE_HTML).text)), encoding="utf-8"
    )
    return doc, comments


def _argv(srv, doc, comments, tmp_path, *extra):
    return [
        sys.executable,
        "-m",
        "engine.cli.main",
        "run",
        "--yes",
        "--doc",
        str(doc),
        "--comments",
        str(comments),
        "--base-url",
        srv.base_url,
        "--model",
        srv.model,
        "--out",
        str(tmp_path / "bundles"),
        "--workspace",
        str(tmp_path / "ws.sqlite3"),
        "--json",
        *extra,
    ]


def _start(argv, tmp_path):
    env = dict(os.environ, ARL_HOME=str(tmp_path / "home"), PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        argv,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(proc, prefix: str, lines: list[str], timeout: float = 60) -> None:
    """Read the run's progress (stderr under --json; stdout is its one JSON line)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            raise AssertionError("the child ended early: " + "".join(lines))
        lines.append(line)
        if line.startswith(prefix):
            return
    raise AssertionError(f"no line starting {prefix!r}")


# The second signal lands at different moments of the cancelled run's finalisation (final
# scoring, bundle write, workspace record): 0 ms to 300 ms after the first.
DELAYS = [0.0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.07, 0.1, 0.15, 0.3]


@pytest.mark.parametrize("delay", DELAYS, ids=[f"{int(d * 1000)}ms" for d in DELAYS])
def test_two_sigterms_in_quick_succession_still_leave_a_bundle(inputs, tmp_path, delay):
    doc, comments = inputs
    with ScriptedServer(FixEverything(), latency=0.3) as srv:
        proc = _start(_argv(srv, doc, comments, tmp_path), tmp_path)
        lines: list[str] = []
        try:
            _wait_for(proc, "Agent called", lines)
            proc.send_signal(signal.SIGTERM)
            time.sleep(delay)
            proc.send_signal(signal.SIGTERM)
            rest, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    # 130: cancelled. A second signal that lands once the run has printed its last line,
    # while the interpreter shuts down (Python restores the default handlers then), ends
    # the process by SIGTERM: acceptable, the run and its output are complete by then.
    assert proc.returncode in (130, -signal.SIGTERM), err
    assert "Traceback" not in err, err
    last = json.loads(rest)  # stdout: the JSON object only
    assert last["status"] == "cancelled" and last["bundle"], rest
    assert verify_bundle(last["bundle"]).ok
    assert open_bundle(last["bundle"]).status == "cancelled"
    with Workspace(tmp_path / "ws.sqlite3") as ws:
        (run,) = ws.runs()
        assert run.status == "cancelled" and run.bundle == last["bundle"]


def _fill_the_disk(ws: Workspace) -> None:
    """Simulate a full disk under the workspace: SQLite refuses to grow the file any more
    (SQLITE_FULL, "database or disk is full"), exactly as on ENOSPC."""
    with ws._lock:
        pages = ws._db.execute("PRAGMA page_count").fetchone()[0]
        ws._db.execute(f"PRAGMA max_page_count={pages}")


async def test_a_full_disk_mid_run_says_so_and_the_bundle_is_written_to_the_out_folder(tmp_path):
    from engine.agent.config import AgentConfig
    from engine.events import RoundStarted
    from engine.models import Comment
    from engine.run.start import prepare_document, run_review

    ws = Workspace(tmp_path / "ws.sqlite3")
    raw = SAMPLE_HTML.replace("</body>", "<p>" + "Filler text. " * 3000 + "</p></body>")
    assert raw != SAMPLE_HTML  # a version needs new pages of the file
    text = Version.from_source(raw).text
    doc = prepare_document(
        ws, "Memo", raw, "html", [Comment.from_json(o) for o in sample_comments(text)]
    )
    events = []

    def on_event(ev):
        events.append(ev)
        if isinstance(ev, RoundStarted):
            _fill_the_disk(ws)  # the agent's push of a new version now cannot be stored

    with ScriptedServer(FixEverything()) as srv:
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model, api_key=None, max_retries=0)
        outcome = await run_review(
            ws, doc, cfg, rounds=2, out_dir=tmp_path / "elsewhere", on_event=on_event
        )
    assert outcome.status == "failed"
    assert "disk holding the workspace" in outcome.reason and "is full" in outcome.reason
    assert "rollback" not in outcome.reason and "internal error" not in outcome.reason
    assert outcome.bundle is not None and outcome.bundle.parent == tmp_path / "elsewhere"
    assert verify_bundle(outcome.bundle).ok
    assert open_bundle(outcome.bundle).status == "failed"
    # The workspace is consistent: what was committed is there, nothing half-written.
    assert ws.integrity_ok()
    assert [v.version_id for v in ws.versions(doc)] == ["v1"]
    assert len(ws.comments(doc)) == 3
    ws.close()


def test_a_run_killed_mid_run_is_finished_by_the_next_start(inputs, tmp_path):
    """SIGKILL (nothing can be shielded): the run stays "running"; the next `arl run` on
    the same workspace marks it failed ("interrupted") and writes its bundle."""
    doc, comments = inputs
    with ScriptedServer(FixEverything(), latency=0.3) as srv:
        proc = _start(_argv(srv, doc, comments, tmp_path), tmp_path)
        lines: list[str] = []
        try:
            _wait_for(proc, "Verdicts", lines)
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        with Workspace(tmp_path / "ws.sqlite3") as ws:
            (killed,) = ws.runs()
            assert killed.status == "running" and not killed.bundle
        second = _start(_argv(srv, doc, comments, tmp_path), tmp_path)
        out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert f"An earlier run ({killed.id}) was interrupted" in err
    assert json.loads(out)["status"] == "completed"  # stdout: the JSON object only
    with Workspace(tmp_path / "ws.sqlite3") as ws:
        runs = {r.id: r for r in ws.runs()}
    first = runs[killed.id]
    assert first.status == "failed" and first.reason.startswith("interrupted")
    b = open_bundle(first.bundle)
    assert verify_bundle(first.bundle).ok and b.status == "failed"
    assert b.version("v2").source != b.version("v1").source  # the push before the kill
    assert len(runs) == 2 and all(r.status != "running" for r in runs.values())
