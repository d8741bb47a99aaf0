"""What the file system refuses is one line naming the file and exit 2, never a traceback:
an --out folder that cannot be searched, a read-only home, an unreadable bundle member, a
keyring configuration file that cannot be used (docs/conventions.md: bad input = one line).
The tests run as root in CI, which reads any file, so the refusals are made real where the
file system allows it (a home under a regular file) and injected where it does not."""

from __future__ import annotations

import configparser
import errno
import pathlib

import keyring
import pytest

from arl_keys.cli import main as arl_with_keyring
from engine.cli.main import main as arl
from tests.engine.test_bundle import make_bundle
from tests.engine.test_cli_loop import _run_args, inputs  # noqa: F401 (fixture)
from tests.helpers.scripted_server import FixEverything, ScriptedServer


def _one_line(capsys) -> str:
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return make_bundle(tmp_path_factory.mktemp("nt"))


def _refuse(monkeypatch, method: str, matches) -> None:
    real = getattr(pathlib.Path, method)

    def refused(self, *a, **k):
        if matches(self):
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self, *a, **k)

    monkeypatch.setattr(pathlib.Path, method, refused)


def test_comments_export_into_a_folder_that_cannot_be_searched(
    inputs,  # noqa: F811
    tmp_path,
    monkeypatch,
    capsys,
):
    doc, comments = inputs
    locked = tmp_path / "locked"
    locked.mkdir()
    _refuse(monkeypatch, "stat", lambda p: locked in p.parents)
    out = str(locked / "a.json")
    code = arl(["comments", "export", "--doc", str(doc), "--comments", str(comments), "--out", out])
    assert code == 2 and "Permission denied" in _one_line(capsys)


def test_suite_history_with_a_home_that_cannot_be_made(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ARL_HOME", str(blocker / "home"))
    assert arl(["suite", "history"]) == 2
    line = _one_line(capsys)
    assert str(blocker) in line and "Not a directory" in line


def test_suite_history_with_a_read_only_home(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    monkeypatch.setenv("ARL_HOME", str(home))
    _refuse(monkeypatch, "mkdir", lambda p: p == home or home in p.parents)
    assert arl(["suite", "history"]) == 2
    assert "Permission denied" in _one_line(capsys)


@pytest.mark.parametrize("member", ["verdicts.json", "manifest.json", "document/v1.html"])
@pytest.mark.parametrize("command", ["verify", "show", "export"])
def test_an_unreadable_bundle_member(bundle, tmp_path, monkeypatch, capsys, member, command):
    _refuse(monkeypatch, "read_bytes", lambda p: p == bundle / member)
    argv = ["bundle", command, str(bundle)]
    if command == "export":
        argv.append(str(tmp_path / "out.zip"))
    assert arl(argv) == 2
    line = _one_line(capsys)
    assert member in line and "Permission denied" in line


@pytest.mark.parametrize(
    "problem",
    [
        PermissionError(errno.EACCES, "Permission denied", "/x/keyringrc.cfg"),
        configparser.MissingSectionHeaderError("/x/keyringrc.cfg", 1, "garbage"),
        ModuleNotFoundError("No module named 'nosuch'"),
    ],
)
def test_a_keyring_configuration_that_cannot_be_used(
    inputs,  # noqa: F811
    tmp_path,
    monkeypatch,
    capsys,
    problem,
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    def broken():
        raise problem

    monkeypatch.setattr(keyring, "get_keyring", broken)
    doc, comments = inputs
    with ScriptedServer(FixEverything()) as srv:
        assert arl_with_keyring(_run_args(srv, doc, comments, tmp_path)) == 2
    line = _one_line(capsys)
    assert "keyring configuration" in line
