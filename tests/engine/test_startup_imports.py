"""``arl score`` and ``arl text`` on plain text load none of the heavy libraries they do not use
(docs/engine.md, "Speed": start-up): no keyring, no model client, no HTML parser, no ICU, no
Qt, no numpy; nor the standard-library and engine modules that only other commands or
inputs use (``UNUSED_BY_SCORE``: logging, hashlib, uuid and platform, base64, signal, the
credentials rule, ...). Each command runs in its own process, as a user runs it (the
installed ``arl`` script, and ``python -m engine.cli``), and reports the modules it ended
with.

The last test is the check of the check: an HTML document does load the HTML parser, and
``arl doctor`` does load keyring, the credentials rule and logging, so a lazy import that stopped working, or a list that
matched nothing, would be seen.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARL = Path(sys.executable).parent / "arl"

#: The libraries a plain-text score or text never needs (top-level module names).
HEAVY = (
    "keyring",
    "openai",
    "httpx",
    "selectolax",
    "justhtml",
    "icu4py",
    "PySide6",
    "numpy",
)

#: Modules a plain-text ``arl score`` (and ``arl text``) has no use for, each once imported
#: at start-up and now loaded only where used (docs/engine.md, "Speed"): a name here that
#: comes back is a start-up cost come back. Full module names.
UNUSED_BY_SCORE = (
    "logging",  # arl_keys.store, engine.redact: only where a log is written
    "hashlib",  # engine.comments_io: only a W3C export of a file with no path
    "uuid",  # engine.comments_io: only a W3C export (uuid loads platform)
    "platform",
    "base64",  # engine.redact: only when a secret is registered
    "signal",  # engine.cli.common: only a review run installs handlers
    "engine.credentials",  # the key rule (and urllib.parse): only where a key is chosen
    "engine.redact",  # (and threading) only where text is redacted: an error line, a run
    "threading",
    "pathlib",  # engine.comments_io: only a W3C export's document IRI
    "shutil",  # argparse's formatter, for the terminal's width: engine.cli.parser.ArlFormatter
    "bz2",
    "lzma",
    # the integrity check's module: only where a comment was resolved or claimed addressed
    "engine.score.integrity",
    # the other commands' modules: with the command named first nothing lists them
    "engine.cli.loop_options",
    "engine.cli.bundle",
    "engine.cli.comments",
    "engine.cli.suite",
)

# Runs a script (the installed arl) or a module as __main__, then prints the top-level
# names of every module loaded, as JSON, on stderr's last line.
_WRAPPER = """
import json, runpy, sys
how, target = sys.argv[1], sys.argv[2]
sys.argv = [target, *sys.argv[3:]]
try:
    if how == "script":
        runpy.run_path(target, run_name="__main__")
    else:
        runpy.run_module(target, run_name="__main__", alter_sys=True)
except SystemExit as e:
    code = e.code
else:
    code = 0
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def loaded(how: str, target: str, *args: str, env: dict | None = None) -> tuple[int, set[str]]:
    """(exit code, names loaded) of one command in its own process: every module's full
    name and every top-level package's name."""
    p = subprocess.run(
        [sys.executable, "-c", _WRAPPER, how, target, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    report = json.loads(p.stderr.strip().splitlines()[-1])
    names = set(report["modules"])
    return report["code"], names | {m.split(".")[0] for m in names}


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("startup")
    v1 = "The cat sat on the mat. It was a sunny day.\n\nA second paragraph here.\n"
    v2 = "The cat sat on the rug. It was a sunny day.\n\nA second paragraph here.\n"
    (d / "v1.txt").write_text(v1, encoding="utf-8")
    (d / "v2.txt").write_text(v2, encoding="utf-8")
    s = v1.index("the mat")
    comment = {
        "id": "c1",
        "body": "say where",
        "anchor": {"quote": "the mat", "start_offset": s, "end_offset": s + 7},
    }
    (d / "c.json").write_text(json.dumps({"comments": [comment]}), encoding="utf-8")
    (d / "page.html").write_text("<p>Hello <b>world</b></p>", encoding="utf-8")
    return d


def _score_args(d: Path) -> list[str]:
    return ["score", "--v1", str(d / "v1.txt"), "--v2", str(d / "v2.txt")] + [
        "--comments",
        str(d / "c.json"),
    ]


@pytest.mark.skipif(not ARL.exists(), reason="the arl script is installed by uv sync")
def test_installed_arl_score_loads_no_heavy_library(pair):
    code, modules = loaded("script", str(ARL), *_score_args(pair))
    assert code == 0
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))
    assert not modules & set(UNUSED_BY_SCORE), sorted(modules & set(UNUSED_BY_SCORE))
    assert "arl_keys" in modules  # the installed entry point did run


@pytest.mark.parametrize("json_out", [False, True])
def test_engine_cli_score_loads_no_heavy_library(pair, json_out):
    code, modules = loaded("module", "engine.cli", *_score_args(pair), *(["--json"] * json_out))
    assert code == 0
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))
    assert not modules & set(UNUSED_BY_SCORE), sorted(modules & set(UNUSED_BY_SCORE))


def test_review_loop_modules_stay_unloaded_for_score(pair):
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, contextlib, io\n"
            "from engine.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    code = main(sys.argv[1:])\n"
            "print(sorted(m for m in sys.modules if m == 'engine.cli.loop' or m.startswith(("
            "'engine.bundle', 'engine.run', 'engine.agent', 'engine.suite'))))\n"
            "sys.exit(code)",
            *_score_args(pair),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]", p.stdout


@pytest.mark.skipif(not ARL.exists(), reason="the arl script is installed by uv sync")
def test_installed_arl_text_of_plain_text_loads_no_heavy_library(pair):
    code, modules = loaded("script", str(ARL), "text", str(pair / "v1.txt"))
    assert code == 0
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))
    assert not modules & set(UNUSED_BY_SCORE), sorted(modules & set(UNUSED_BY_SCORE))


def test_the_check_sees_a_heavy_import(pair, tmp_path):
    # HTML needs the HTML parser: the same wrapper reports it
    code, modules = loaded("module", "engine.cli", "text", str(pair / "page.html"))
    assert code == 0
    assert modules & {"selectolax", "justhtml"}
    # and a command that reads the keyring loads keyring (no model endpoint: no network)
    if ARL.exists():
        env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
        env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
        _, modules = loaded("script", str(ARL), "doctor", "--no-qt", env=env)
        assert "keyring" in modules
        # the key rule and logging (keyring's own) are loaded where a key is looked up
        assert {"engine.credentials", "logging"} <= modules, sorted(modules & set(UNUSED_BY_SCORE))


def _run_main(argv: list[str]) -> tuple[int, str, str]:
    import contextlib
    import io

    from engine.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "argv", [["scroe"], ["-h", "score"], ["--help"], [], ["--", "score"], ["score", "--v1"]]
)
def test_the_commands_are_listed_wherever_arl_lists_them(argv, monkeypatch):
    # arl builds only the command named first (engine.cli.parser.named_first); wherever
    # arl's own parser speaks (its help, an unknown command) every command is still there
    from engine.cli.main import build_parser

    monkeypatch.setenv("COLUMNS", "100")
    code, out, err = _run_main(argv)
    names = [
        n for a in build_parser()._actions if a.dest == "command" for n in getattr(a, "choices", {})
    ]
    assert len(names) > 5 and {"score", "text", "run", "suite"} <= set(names)
    said = out + err
    if argv[:1] == ["score"]:  # a mistake after the command: the command's own line
        assert code == 2 and said.startswith("arl score: ") and "(the commands" not in said
    else:
        assert all(n in said for n in names), (argv, said)


@pytest.mark.parametrize("columns", [None, "120", "37", "0", "-3", "abc", " 90 ", ""])
def test_arl_formatter_width_is_shutils(columns, monkeypatch):
    # ArlFormatter lays help out at the width argparse's own formatter would take
    import argparse
    import shutil

    from engine.cli.parser import ArlFormatter, terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns
    ours, theirs = ArlFormatter("arl"), argparse.HelpFormatter("arl")
    assert (ours._width, ours._max_help_position) == (theirs._width, theirs._max_help_position)
