"""The program's entry point: --smoke-test as a real process, offscreen."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")


def test_smoke_test_prints_smoke_ok(arl_home, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ARL_HOME=str(arl_home))
    proc = subprocess.run(
        [sys.executable, "-m", "app.main", "--smoke-test"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "SMOKE OK" in out
    assert "PySide6" in out and "keyring backend:" in out
    assert "page text equals the engine's extraction" in out
    assert "word: review.docx read (4 comments placed)" in out  # a Word review scored


def test_smoke_test_fails_in_words_on_a_broken_bundle(arl_home, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "manifest.json").write_text("{}", encoding="utf-8")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ARL_HOME=str(arl_home))
    proc = subprocess.run(
        [sys.executable, "-m", "app.main", "--smoke-test", str(bad)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )
    assert proc.returncode != 0
    assert "SMOKE FAILED" in proc.stdout


def test_a_qt_abort_is_one_line_in_the_terminal_and_exit_2(arl_home, tmp_path):
    """A platform Qt cannot start (here one that does not exist): Qt's fatal message and its
    "Reinstalling the application may fix this problem" go to the log file; the terminal
    gets one line with Qt's reason, and the exit status is 2, not a silent 134."""
    env = dict(os.environ, QT_QPA_PLATFORM="nosuchplatform", ARL_HOME=str(arl_home))
    proc = subprocess.run(
        [sys.executable, "-m", "app.main"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("agent-review-loop: Qt could not start: ")
    assert "nosuchplatform" in lines[0] and "Reinstalling" not in lines[0]
    logs = list(arl_home.rglob("*.log"))
    assert logs and "Reinstalling the application" in logs[0].read_text(encoding="utf-8")
