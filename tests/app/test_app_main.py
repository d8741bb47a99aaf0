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
