"""Command checks (docs/checks.md, "A command"): argv only, never a shell; the timeout
kills the process group and reads UNVERIFIED; no API key in the environment; output
capped; a missing tool is UNVERIFIED with the reason; commands run only when allowed."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from engine import redact
from engine.checks.command import OUTPUT_CAP, TAIL_LINES, clean_environment, run_command
from engine.checks.config import CommandSpec, parse_checks
from engine.checks.runner import NOT_ALLOWED, planned_commands, run_checks
from engine.score.scoring import Version

PY = sys.executable
SE = Path(__file__).resolve().parents[1] / "data/standardebooks/0159a89"


def _spec(*argv: str, timeout: float = 20) -> CommandSpec:
    return CommandSpec("t", tuple(argv), timeout)


def _pair():
    v1 = Version.from_source((SE / "imprint.v1.xhtml").read_bytes(), "html", "v1")
    v2 = Version.from_source((SE / "imprint.v2.xhtml").read_bytes(), "html", "v2")
    return v1, v2


def test_arguments_reach_the_program_as_they_are_never_through_a_shell(tmp_path):
    marker = tmp_path / "pwned"
    tricky = [f"a; touch {marker}", f"$(touch {marker})", f"`touch {marker}`", "| cat", "*"]
    code = "import sys, json; print(json.dumps(sys.argv[1:]))"
    f = run_command(_spec(PY, "-c", code, *tricky, "{file}"), "/tmp/the file.html")
    assert f.status == "pass", f.output
    assert json.loads(f.output) == [*tricky, "/tmp/the file.html"]
    assert not marker.exists()


def test_a_hanging_command_is_stopped_at_its_timeout_with_its_whole_group(tmp_path):
    pids = tmp_path / "pids"
    # The command starts a grandchild that would outlive it, then hangs.
    script = (
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        f"open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
        "print('working', flush=True)\n"
        "time.sleep(120)\n"
    )
    t0 = time.monotonic()
    f = run_command(_spec(PY, "-c", script, timeout=1.5), "x")
    took = time.monotonic() - t0
    assert f.status == "unverified"
    assert f.summary == "stopped at its timeout of 1.5 s (its process group was killed)"
    assert "working" in f.output
    assert took < 15
    for pid in map(int, pids.read_text().split()):
        deadline = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), f"process {pid} survived the timeout"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie not yet reaped counts as gone
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[1][0] != "Z"
    except OSError:
        return True


def test_no_key_reaches_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-abcdefghijklmnop1234")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "anthropic-secret-value-1")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-1234567890")
    monkeypatch.setenv("DB_PASSWORD", "hunter22")
    monkeypatch.setenv("INNOCENT_LOOKING", "sk-proj-ABCDEFGHIJKLMNOPQRST")
    monkeypatch.setenv("REMEMBERED", "the-key-this-process-uses-42")
    monkeypatch.setenv("HEADER", "Authorization: Bearer abcdef123456789")
    monkeypatch.setenv("LANG_KEEP", "en_GB.UTF-8")
    redact.remember("the-key-this-process-uses-42")
    try:
        code = "import os, json, sys; open(sys.argv[1], 'w').write(json.dumps(dict(os.environ)))"
        f = run_command(_spec(PY, "-c", code, "{file}"), str(tmp_path / "env.json"))
    finally:
        redact.forget_all()
    assert f.status == "pass", f.output
    env = json.loads((tmp_path / "env.json").read_text())
    for name in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "MY_SERVICE_TOKEN",
        "DB_PASSWORD",
        "INNOCENT_LOOKING",
        "REMEMBERED",
        "HEADER",
    ):
        assert name not in env
    assert env["LANG_KEEP"] == "en_GB.UTF-8" and "PATH" in env
    blob = json.dumps(env)
    assert "sk-" not in blob and "hunter22" not in blob


def test_clean_environment_by_name_and_by_value():
    env = {
        "PATH": "/bin",
        "GH_TOKEN": "x",
        "aws_secret_access_key": "y",
        "X": "sk-abcdefghijklmnop",
    }
    assert clean_environment(env) == {"PATH": "/bin"}


def test_missing_tool_and_one_that_cannot_start(tmp_path):
    f = run_command(_spec("vale-not-installed-here", "{file}"), "x")
    assert f.status == "unverified"
    assert f.summary == "vale-not-installed-here: not found (is it installed, and on PATH?)"
    not_exec = tmp_path / "tool"
    not_exec.write_text("#!/bin/sh\n")
    f = run_command(_spec(str(not_exec)), "x")
    assert f.status == "unverified" and "not found" in f.summary
    broken = tmp_path / "broken"
    broken.write_bytes(b"\x7fELF garbage")
    broken.chmod(0o755)
    f = run_command(_spec(str(broken)), "x")
    assert f.status == "unverified" and "could not start" in f.summary


def test_exit_status_and_the_last_lines_of_output():
    code = "import sys\nfor i in range(200000): print(f'line {i}')\nsys.exit(3)"
    f = run_command(_spec(PY, "-c", code), "x")
    assert f.status == "fail" and f.summary == "exit status 3" and f.exit_code == 3
    lines = f.output.splitlines()
    assert len(lines) == TAIL_LINES + 1 and lines[0].startswith("[the last 40 lines")
    assert lines[-1] == "line 199999" and lines[1] == f"line {200000 - TAIL_LINES}"
    assert OUTPUT_CAP < 200000 * 10  # the output above was larger than what is kept


def test_output_is_redacted():
    f = run_command(_spec(PY, "-c", "print('Authorization: Bearer abcdef1234567890')"), "x")
    assert "abcdef1234567890" not in f.output and "[REDACTED]" in f.output


def _config(cmd: str) -> str:
    return f'links = true\n[[command]]\nname = "lint"\nargv = {cmd}\ntimeout_s = 10\n'


def test_commands_run_only_when_allowed(tmp_path):
    marker = tmp_path / "ran"
    argv = json.dumps([PY, "-c", f"open({str(marker)!r}, 'a').write('x')", "{file}"])
    config = parse_checks(_config(argv), "checks.toml")
    v1, v2 = _pair()
    cs = run_checks(config, v1, v2)
    r = next(r for r in cs.revised if r.kind == "command")
    assert r.status == "unverified" and r.summary == NOT_ALLOWED
    assert not marker.exists()
    assert "will NOT run" in planned_commands(config, False)[0]
    assert planned_commands(config, True)[0].startswith("lint: ")
    cs = run_checks(config, v1, v2, allow_commands=True)
    assert marker.read_text() == "xx"  # once on each version
    assert [r.status for r in cs.revised if r.kind == "command"] == ["pass"]


def test_command_sees_each_versions_file_and_a_failure_already_there():
    code = "import sys; t = open(sys.argv[1], encoding='utf-8').read(); print(len(t)); sys.exit(1 if 'imprint' in t else 0)"
    argv = json.dumps([PY, "-c", code, "{file}"])
    config = parse_checks(_config(argv), "checks.toml")
    v1, v2 = _pair()
    cs = run_checks(config, v1, v2, allow_commands=True, suffix=".xhtml")
    before = next(r for r in cs.reviewed if r.kind == "command")
    after = next(r for r in cs.revised if r.kind == "command")
    assert before.output == str(len(v1.raw)) and after.output == str(len(v2.raw))
    assert before.status == after.status == "fail" and after.already
    assert not cs.gate().blocked


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
def test_killed_by_a_signal_is_a_fail():
    f = run_command(_spec(PY, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"), "x")
    assert f.status == "fail" and f.summary == "killed by signal 15"


def test_one_endless_line_is_cut_and_says_so():
    code = "import sys; sys.stdout.write('x' * 5_000_000); sys.exit(2)"
    f = run_command(_spec(PY, "-c", code), "x")
    assert f.status == "fail" and len(f.output) < 3000
    assert "more characters]" in f.output


def test_a_command_cannot_change_what_the_next_one_reads(tmp_path):
    spoil = json.dumps([PY, "-c", "import sys; open(sys.argv[1], 'w').write('spoilt')", "{file}"])
    read = json.dumps([PY, "-c", "import sys; print(open(sys.argv[1]).read()[:20])", "{file}"])
    config = parse_checks(
        f'[[command]]\nname = "a"\nargv = {spoil}\n[[command]]\nname = "b"\nargv = {read}\n',
        "checks.toml",
    )
    v1, v2 = _pair()
    cs = run_checks(config, v1, v2, allow_commands=True)
    (b,) = [r for r in cs.revised if r.name == "command:b"]
    assert b.output == v2.raw[:20]
