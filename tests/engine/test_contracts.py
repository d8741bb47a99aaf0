"""The layering contracts in pyproject.toml ([tool.importlinter]) hold, and can fail.

``lint-imports`` is also run by ``.ci/run``; this test makes ``uv run pytest`` catch a
broken contract too (docs/conventions.md, "Layers, checked by CI").
"""

from __future__ import annotations

import ast
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
    utf16 = tmp_path / "engine" / "text" / "utf16.py"
    utf16.write_text(
        utf16.read_text(encoding="utf-8") + "\nimport keyring\nfrom engine.score import scoring\n",
        encoding="utf-8",
    )
    run = lint_imports(tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "engine.text.utf16 -> keyring" in run.stdout
    assert "engine.text.utf16 -> engine.score.scoring" in run.stdout
    # the Qt/keyring contract and the layers over packages (the inner layers of score/
    # break too: metrics now reaches scoring through models and utf16; and those of diff/:
    # its tokens reach scoring through engine.text.bmp_twin and utf16)
    assert "engine/ is pure Python: no Qt, qasync, keyring, app or arl_keys BROKEN" in run.stdout
    assert (
        "engine/diff: marks > diffing > hunks/churn > cleanup > align > myers > tokens BROKEN"
        in run.stdout
    )
    assert "4 broken" in run.stdout


def test_engine_type_checks():
    """mypy on engine/ with the rules of [tool.mypy] (also run by .ci/run)."""
    exe = Path(sys.executable).with_name("mypy")
    run = subprocess.run([str(exe)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_scoring_digest_covers_every_module_scoring_imports():
    """``SCORING_MODULES`` (the scoring digest of a manifest) lists exactly the engine
    modules the scoring package imports, directly or not, and each of them exists."""
    import grimp

    from engine.bundle.rederive import SCORING_MODULES, scoring_digest

    graph = grimp.build_graph("engine")
    scoring = {m for m in graph.modules if m.startswith("engine.score.")}
    imported = set(scoring)
    for m in scoring:
        imported |= graph.find_upstream_modules(m)
    paths = {
        m.removeprefix("engine.").replace(".", "/") + ".py"
        for m in imported
        if m.startswith("engine.") and not (ROOT / m.replace(".", "/")).is_dir()
    }
    assert set(SCORING_MODULES) == paths
    assert all((ROOT / "engine" / name).is_file() for name in SCORING_MODULES)
    assert len(scoring_digest()) == 12


def test_every_module_of_engine_sits_in_a_named_layer():
    """Each package and each module at engine/'s top is in the layers contract over
    packages (a module not listed there would not be checked at all)."""
    import re
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c.get("containers") == ["engine"] and c["type"] == "layers"
    )
    named = {n for layer in contract["layers"] for n in re.split(r"[:|]", layer) if n.strip()}
    named = {n.strip() for n in named}
    engine = ROOT / "engine"
    present = {p.stem for p in engine.glob("*.py") if p.stem != "__init__"}
    present |= {p.name for p in engine.iterdir() if (p / "__init__.py").is_file()}
    assert present - named == set(), "add them to a layer in pyproject.toml"
    assert named - present == set(), "layers name modules that do not exist"


def _defined_names(tree: ast.Module) -> set[str]:
    """Names a module binds itself at its top (def, class, assignment), in if/try too."""
    out: set[str] = set()

    def walk(body: list[ast.stmt]) -> None:
        for n in body:
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.add(n.name)
            elif isinstance(n, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                out.update(x.id for t in targets for x in ast.walk(t) if isinstance(x, ast.Name))
            elif isinstance(n, ast.If):
                walk(n.body)
                walk(n.orelse)
            elif isinstance(n, ast.Try):
                walk(n.body)
                walk(n.orelse)
                walk(n.finalbody)
                for h in n.handlers:
                    walk(h.body)

    walk(tree.body)
    return out


def test_every_engine_name_is_imported_from_its_one_home():
    """Inside this repository ``from engine.X import name`` names the module that defines
    ``name`` (or a submodule of package X): never a re-export, never a package's facade
    (those are for callers outside the program; docs/conventions.md)."""
    modules = {}
    for p in (ROOT / "engine").rglob("*.py"):
        parts = p.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    defined = {
        m: _defined_names(ast.parse(p.read_text(encoding="utf-8"))) for m, p in modules.items()
    }
    bad = []
    for d in ("engine", "app", "arl_keys", "tests", "tools", "benchmarks"):
        for p in sorted((ROOT / d).rglob("*.py")):
            if "data" in p.relative_to(ROOT).parts:
                continue
            for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
                if not (isinstance(n, ast.ImportFrom) and n.level == 0 and n.module):
                    continue
                if n.module != "engine" and not n.module.startswith("engine."):
                    continue
                for a in n.names:
                    if f"{n.module}.{a.name}" in modules or a.name in defined.get(n.module, ()):
                        continue
                    bad.append(f"{p.relative_to(ROOT)}:{n.lineno}: {n.module}.{a.name}")
    assert not bad, "import each name from the module that defines it:\n" + "\n".join(bad)
