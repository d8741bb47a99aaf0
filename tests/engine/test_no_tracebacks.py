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
from hypothesis import given, settings, strategies as st

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


# -- plain words on the command line (docs/conventions.md: bad input = one line) -----------


@pytest.mark.parametrize(
    "page",
    [
        "",
        "<html><body></body></html>",
        "<p>  </p>\n",
        "<!-- only a comment --><template>x</template>",
    ],
)
def test_arl_text_of_a_document_with_no_text_says_so(tmp_path, capsys, page):
    doc = tmp_path / "empty page.html"
    doc.write_text(page, encoding="utf-8")
    assert arl(["text", str(doc)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err == f"arl: {doc}: the document has no text (nothing a comment could point at)\n"


def test_arl_text_of_a_document_with_text_prints_it(tmp_path, capsys):
    doc = tmp_path / "a.html"
    doc.write_text("<p>\u4f60\u597d \U0001f600</p>", encoding="utf-8")
    assert arl(["text", str(doc)]) == 0
    assert capsys.readouterr().out == "\u4f60\u597d \U0001f600"


def _usage_error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        arl(argv)
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and "usage:" not in err and "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    return err.rstrip("\n")


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["score", "--v1", "a"], "arl score: the following arguments are required: --v2"),
        (
            ["score", "--v1", "a", "--v2", "b", "--bogus"],
            "arl score: unknown option or argument: --bogus",
        ),
        (
            ["score", "--v1", "a", "--v2", "b", "--tokens", "x"],
            "arl score: --tokens: 'x' is not a whole number",
        ),
        (["score", "--v1"], "arl score: --v1 needs a value"),
        (
            ["run", "--doc", "d", "--base-url", "u", "--model", "m", "--mode", "x"],
            "arl run: --mode: 'x' is not one of",
        ),
        (
            ["run", "--base-url", "u", "--model", "m", "--rounds", "0"],
            "arl run: --rounds: '0' must be at least 1",
        ),
        (["bogus"], "arl: 'bogus' is not a command (the commands: text, score, run,"),
        (["bundle", "frob"], "arl bundle: 'frob' is not an action (the actions: verify, export,"),
        (["bundle", "show"], "arl bundle show: the following arguments are required: PATH"),
        (["--bogus"], "arl: unknown option or argument: --bogus"),
        (["text"], "arl text: the following arguments are required: DOC"),
    ],
)
def test_a_command_line_mistake_is_one_line_pointing_at_help(capsys, argv, line):
    err = _usage_error(argv, capsys)
    assert err.startswith(line), err
    command = line.split(":")[0]
    assert err.endswith(f"(see {command} --help)")


def test_a_command_line_mistake_escapes_terminal_controls(capsys):
    err = _usage_error(["score", "--v1", "a", "--v2", "b", "--\x1b[2Jx\u202e"], capsys)
    assert "\x1b" not in err and "\u202e" not in err
    assert "--\\x1b[2Jx\\u202e" in err


_COMMANDS = ("text", "score", "run", "author", "bundle", "published", "doctor", "comments", "suite")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    word=st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20).filter(
        lambda w: w.strip() and not w.startswith("-") and w not in _COMMANDS
    )
)
def test_any_unknown_command_is_one_line(word):
    # in every script (CJK, Arabic, Thai, emoji), with newlines and controls: one line, exit 2
    import contextlib
    import io

    err = io.StringIO()
    with (
        contextlib.redirect_stderr(err),
        contextlib.redirect_stdout(io.StringIO()),
        pytest.raises(SystemExit) as exc,
    ):
        arl([word])
    text = err.getvalue()
    assert exc.value.code == 2
    assert text.count("\n") == 1 and text.endswith("(see arl --help)\n"), text
    assert "is not a command" in text


@pytest.mark.parametrize(
    "message",
    [
        "unrecognized arguments: a\nb",
        "argument --x: invalid int value: '\u0e41\u0e21\u0e27'",
        "argument COMMAND: invalid choice: '\u4f60' (choose from 'text', 'score')",
        "something argparse may say one day",
    ],
)
def test_plain_message_is_one_line(message):
    from engine.cli.parser import plain_message

    text = plain_message(message)
    assert "\n" not in text and text.strip() == text


def _locked_backend(tmp_path) -> None:
    (tmp_path / "locked_keyring.py").write_text(
        "import keyring.backend\n"
        "from keyring.errors import KeyringLocked\n"
        "class Locked(keyring.backend.KeyringBackend):\n"
        "    priority = 1\n"
        "    def get_password(self, service, username):\n"
        "        raise KeyringLocked('Failed to unlock the collection! org.freedesktop')\n"
        "    def set_password(self, service, username, password):\n"
        "        raise KeyringLocked('Failed to unlock the collection!')\n"
        "    def delete_password(self, service, username):\n"
        "        raise KeyringLocked('Failed to unlock the collection!')\n",
        encoding="utf-8",
    )


@pytest.mark.parametrize(
    ("backend", "words"),
    [
        ("keyring.backends.fail.Keyring", "none is installed for keyring to use"),
        ("keyring.backends.null.Keyring", "none is installed for keyring to use"),
        ("locked_keyring.Locked", "it is locked"),
    ],
)
def test_doctors_keyring_line_quotes_no_python_exception(tmp_path, monkeypatch, backend, words):
    from engine.doctor import NA, check_keyring

    _locked_backend(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", backend)
    check = check_keyring()
    assert check.status == NA
    line = check.line()
    assert words in line, line
    for python in ("Error", "Exception", "Traceback", "keyring.backends", "Failed to unlock"):
        assert python not in line, line
    assert "KeyringLocked" not in line and "NoKeyringError" not in line
