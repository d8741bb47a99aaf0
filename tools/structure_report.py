"""The largest modules and the longest functions of the code, for closing notes and reviews.

Counts lines as ``tests/engine/test_structure.py`` does (a module's lines; a function from
its ``def`` line to its last line, methods and nested functions included) over the same
packages (``engine``, ``app``, ``arl_keys``), and marks a module over 500 lines that says
why at its top. It checks nothing: the rules are enforced by that test.

    uv run python tools/structure_report.py          # the five largest of each
    uv run python tools/structure_report.py --top 10
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "app", "arl_keys")
MAX_LINES = 500
REASON = re.compile(r"Why this (module|file) is (long|over \d+ lines)")


def measure(root: Path = ROOT) -> tuple[list[tuple[int, str, bool]], list[tuple[int, str]]]:
    """(modules as (lines, path, says why), functions as (lines, "path:name")), unsorted."""
    modules: list[tuple[int, str, bool]] = []
    functions: list[tuple[int, str]] = []
    for p in sorted(q for d in PACKAGES for q in (root / d).rglob("*.py")):
        source = p.read_text(encoding="utf-8")
        lines = source.splitlines()
        rel = p.relative_to(root).as_posix()
        modules.append((len(lines), rel, any(REASON.search(line) for line in lines[:40])))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                functions.append((n, f"{rel}:{node.name}"))
    return modules, functions


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=5, help="how many of each (default 5)")
    args = ap.parse_args(argv)
    modules, functions = measure()
    print(f"largest modules (lines; * says why it is over {MAX_LINES})")
    for n, name, says_why in sorted(modules, reverse=True)[: args.top]:
        print(f"  {n:5d}  {name}{' *' if says_why and n > MAX_LINES else ''}")
    print("longest functions (lines)")
    for n, name in sorted(functions, reverse=True)[: args.top]:
        print(f"  {n:5d}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
