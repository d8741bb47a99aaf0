"""Every ``arl ... --help`` text stays byte-identical to its snapshot (tests/data/cli_help.json).

``arl`` builds in full only the command it runs (docs/engine.md, Speed: start-up), so the
help of each command must come out the same whichever way the parser was built. The
snapshot was written from the parser as it was before that change; a deliberate change of a
help text is made by rewriting the snapshot and reading its diff:

    uv run python tests/engine/test_cli_help.py --update
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "tests" / "data" / "cli_help.json"
COLUMNS = "100"  # argparse wraps help text to the terminal width: one width for all


def command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple]:
    """Every command path of ``parser`` (``()``, ``("score",)``, ``("bundle", "show")``...),
    in the order ``--help`` lists them."""
    out = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += command_paths(sub, (*prefix, name))
    return out


def help_of(path: tuple[str, ...]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``arl *path --help``, run through ``main`` as the
    command line runs it."""
    from engine.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([*path, "--help"])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def all_helps() -> dict[str, str]:
    from engine.cli.main import build_parser

    helps = {}
    for path in command_paths(build_parser()):
        code, out, err = help_of(path)
        assert code == 0 and not err, (path, code, err)
        helps[" ".join(("arl", *path))] = out
    return helps


@pytest.fixture
def columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", COLUMNS)


def test_every_help_text_is_the_snapshot(columns):
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    helps = all_helps()
    assert sorted(helps) == sorted(snapshot), (
        "commands added or gone: rewrite the snapshot "
        "(uv run python tests/engine/test_cli_help.py --update)"
    )
    changed = [name for name in snapshot if helps[name] != snapshot[name]]
    assert not changed, (
        f"help text changed: {changed}; if the change is meant, rewrite the snapshot "
        "(uv run python tests/engine/test_cli_help.py --update) and read its diff"
    )


def test_the_snapshot_covers_the_commands(columns):
    # a check of the check: the walk finds nested commands, and a changed text is caught
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert {"arl", "arl score", "arl text", "arl bundle show", "arl suite run"} <= set(snapshot)
    assert len(snapshot) > 30
    assert snapshot["arl score"].startswith("usage: arl score")
    assert "--word-copy OUT.docx" in snapshot["arl score"]


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(__doc__)
    os.environ["COLUMNS"] = COLUMNS
    SNAPSHOT.write_text(
        json.dumps(all_helps(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"wrote {SNAPSHOT}")
