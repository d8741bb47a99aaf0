"""A suite file (it comes from a pull request in CI) cannot send any local file or any
environment variable to its own endpoint: the files it names resolve inside its folder
unless ``--allow-outside-files``; ``api_key_env`` must be a variable the user named
(``--key-env`` or ``ARL_KEY_ENVS``); the estimate lists what it reads and where it sends it
before ``--yes`` (docs/suites.md, "What a suite may read and send")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.cli.main import main as arl
from engine.suite.suite import SuiteError, load_suite
from tests.engine.test_suites import write_suite
from tests.helpers.scripted_server import SAMPLE_HTML, FixEverything, ScriptedServer

TOKEN = "ci-token-0123456789abcdef"


@pytest.fixture
def secret(tmp_path) -> Path:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    f = outside / "secret.txt"
    f.write_text("THE PRIVATE NOTES")
    return f


def _with_variant(folder: Path, instructions: str) -> Path:
    s = write_suite(folder, "http://127.0.0.1:9/v1")
    s.write_text(
        s.read_text() + f'[[variants]]\nname = "v"\ninstructions = "{instructions}"\n',
        encoding="utf-8",
    )
    return s


@pytest.mark.parametrize("how", ["absolute", "dotdot", "link"])
def test_instructions_outside_the_suite_folder_are_refused(tmp_path, secret, how, capsys):
    folder = tmp_path / "suite"
    folder.mkdir()
    name = {
        "absolute": str(secret),
        "dotdot": "../elsewhere/secret.txt",
        "link": "notes.txt",
    }[how]
    if how == "link":
        os.symlink(secret, folder / "notes.txt")
    s = _with_variant(folder, name)
    with pytest.raises(SuiteError, match="outside the suite file's folder"):
        load_suite(s)
    assert arl(["suite", "estimate", str(s)]) == 2
    err = capsys.readouterr().err
    assert "--allow-outside-files" in err and "THE PRIVATE NOTES" not in err
    suite = load_suite(s, allow_outside=True)
    assert suite.variants[0].text == "THE PRIVATE NOTES"
    assert arl(["suite", "estimate", str(s), "--allow-outside-files"]) == 0
    assert str(secret) in capsys.readouterr().out


def test_documents_comments_and_checks_outside_are_refused(tmp_path, secret):
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "doc.html").write_text(SAMPLE_HTML)
    (folder / "c.json").write_text('{"comments": []}')
    base = 'name = "x"\n[[models]]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n'
    for docs in (
        f'documents = [{{ path = "{secret}", comments = "c.json" }}]\n',
        f'documents = [{{ path = "doc.html", comments = "{secret}" }}]\n',
        f'documents = [{{ path = "doc.html", comments = "c.json" }}]\nchecks = "{secret}"\n',
    ):
        s = folder / "s.toml"
        s.write_text(docs + base)
        with pytest.raises(SuiteError, match="outside the suite file's folder"):
            load_suite(s)
    # files beside the suite file, in any script, are fine
    (folder / "指示 تعليمات.txt").write_text("Be brief.")
    ok = _with_variant(folder, "指示 تعليمات.txt")
    assert load_suite(ok).variants[0].text == "Be brief."


def _keyed_suite(folder: Path, url: str, var: str = "SOME_CI_TOKEN") -> Path:
    return write_suite(folder, url, repeats=1, models=[[f'api_key_env = "{var}"']])


def test_a_key_variable_the_user_did_not_name_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOME_CI_TOKEN", TOKEN)
    monkeypatch.delenv("ARL_KEY_ENVS", raising=False)
    with ScriptedServer(FixEverything()) as srv:
        s = _keyed_suite(tmp_path, srv.base_url)
        code = arl(["suite", "run", str(s), "--yes", "--out", str(tmp_path / "o")])
        err = capsys.readouterr().err
        assert code == 2 and "--key-env SOME_CI_TOKEN" in err and TOKEN not in err
        assert srv.requests == [] and not any(TOKEN in a for a in srv.auth_headers)
        assert arl(["suite", "estimate", str(s)]) == 2


@pytest.mark.parametrize("allow", ["flag", "setting"])
def test_a_named_key_variable_is_sent(tmp_path, monkeypatch, capsys, allow):
    monkeypatch.setenv("SOME_CI_TOKEN", TOKEN)
    extra = ["--key-env", "SOME_CI_TOKEN"] if allow == "flag" else []
    if allow == "setting":
        monkeypatch.setenv("ARL_KEY_ENVS", "OTHER, SOME_CI_TOKEN")
    with ScriptedServer(FixEverything()) as srv:
        s = _keyed_suite(tmp_path, srv.base_url)
        code = arl(["suite", "run", str(s), "--yes", "--out", str(tmp_path / "o"), *extra])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert srv.auth_headers and all(a == f"Bearer {TOKEN}" for a in srv.auth_headers)
    assert "the key in $SOME_CI_TOKEN" in out and TOKEN not in out


def test_the_estimate_lists_what_is_read_and_where_it_goes_before_yes(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("ARL_KEY_ENVS", "SOME_CI_TOKEN")
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "terse.txt").write_text("Be terse.")
    s = _keyed_suite(folder, "https://user:pw@models.example.com/v1")
    s.write_text(s.read_text() + '[[variants]]\nname = "terse"\ninstructions = "terse.txt"\n')
    code = arl(["suite", "run", str(s)])  # no --yes, no terminal: not started
    out = capsys.readouterr().out
    assert code == 2
    reads = out.index("Reads:")
    sends = out.index("Sends (documents, comments and the agent's instructions) to:")
    assert str(folder / "terse.txt") in out[reads:sends]
    assert "built-in corpus (builtin)" in out[reads:sends] or "built-in" in out[reads:sends]
    assert "models.example.com" in out[sends:] and "the key in $SOME_CI_TOKEN" in out[sends:]
    assert "pw@" not in out  # the URL is shown masked
