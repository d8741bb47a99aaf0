"""The layering contracts in pyproject.toml ([tool.importlinter]) hold, and can fail.

``lint-imports`` is also run by ``.ci/run``; this test makes ``uv run pytest`` catch a
broken contract too (docs/conventions.md, "Layers, checked by CI").
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(exe), "--no-cache"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"},
    )


def contracts_config() -> str:
    """The ``[tool.importlinter]`` tables of pyproject.toml, as text."""
    out, keep = [], False
    for line in (ROOT / "pyproject.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            keep = line.lstrip("[").startswith("tool.importlinter")
        if keep:
            out.append(line)
    return "\n".join(out) + "\n"


def test_contracts_are_kept():
    run = lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_a_forbidden_or_upward_import_breaks_a_contract(tmp_path):
    # A copy of engine/ with two violations: a keyring import in the text layer, and the
    # text layer importing scoring.
    shutil.copytree(
        ROOT / "engine", tmp_path / "engine", ignore=shutil.ignore_patterns("__pycache__")
    )
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "pyproject.toml").write_text(contracts_config(), encoding="utf-8")
    utf16 = tmp_path / "engine" / "utf16.py"
    utf16.write_text(
        utf16.read_text(encoding="utf-8") + "\nimport keyring\nfrom engine import scoring\n",
        encoding="utf-8",
    )
    run = lint_imports(tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "engine.utf16 -> keyring" in run.stdout
    assert "engine.utf16 -> engine.scoring" in run.stdout
    assert "2 broken" in run.stdout


def test_engine_type_checks():
    """mypy on engine/ with the rules of [tool.mypy] (also run by .ci/run)."""
    exe = Path(sys.executable).with_name("mypy")
    run = subprocess.run([str(exe)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
