"""engine/ is pure Python: nothing under it imports Qt, qasync or keyring (docs/conventions.md)."""

import ast
from pathlib import Path

FORBIDDEN = ("PySide6", "qasync", "keyring", "shiboken6")
ENGINE = Path(__file__).resolve().parents[2] / "engine"


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module


def test_engine_imports_no_qt_qasync_or_keyring():
    files = sorted(ENGINE.rglob("*.py"))
    assert files, "engine/ has no Python files"
    offenders = [
        f"{p.relative_to(ENGINE.parent)}:{line}: import {name}"
        for p in files
        for line, name in _imports(p)
        if name.split(".")[0] in FORBIDDEN
    ]
    assert not offenders, "engine/ must stay free of Qt:\n" + "\n".join(offenders)


def test_the_check_sees_a_forbidden_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom PySide6.QtCore import QObject\n", encoding="utf-8")
    assert [n for _, n in _imports(bad) if n.split(".")[0] in FORBIDDEN] == ["PySide6.QtCore"]
