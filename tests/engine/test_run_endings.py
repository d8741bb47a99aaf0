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

from engine.bundle import open_bundle, verify_bundle
from engine.scoring import Version
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
        "engine.cli",
        "run",
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
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
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
    last = json.loads(rest.strip().splitlines()[-1])
    assert last["status"] == "cancelled" and last["bundle"], rest
    assert verify_bundle(last["bundle"]).ok
    assert open_bundle(last["bundle"]).status == "cancelled"
    with Workspace(tmp_path / "ws.sqlite3") as ws:
        (run,) = ws.runs()
        assert run.status == "cancelled" and run.bundle == last["bundle"]
