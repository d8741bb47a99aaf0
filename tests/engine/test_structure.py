"""The structure rules of docs/conventions.md ("One concern per file"), as a ratchet.

A module over ``MAX_LINES`` lines says why at its top (a line such as "Why this module is
long: ..." or "Why this file is over 500 lines: ..."), and no function is over ``MAX_FUNCTION_LINES`` lines. The modules and functions
that broke a rule when it was written down are listed below as a to-do: take one off when
it is split; never add one (say why in the module instead, or split the function).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "app", "arl_keys")
MAX_LINES = 500
MAX_FUNCTION_LINES = 80
REASON = re.compile(r"Why this (module|file) is (long|over \d+ lines)")

LONG_MODULES_TODO: set[str] = set()

LONG_FUNCTIONS_TODO: set[str] = set()


def modules() -> list[Path]:
    return sorted(p for d in PACKAGES for p in (ROOT / d).rglob("*.py"))


def long_modules() -> dict[str, bool]:
    """Modules over MAX_LINES -> whether they say why in their first 40 lines."""
    out = {}
    for p in modules():
        lines = p.read_text(encoding="utf-8").splitlines()
        if len(lines) > MAX_LINES:
            out[p.relative_to(ROOT).as_posix()] = any(REASON.search(line) for line in lines[:40])
    return out


def long_functions(source: str) -> dict[str, int]:
    """Functions (methods too) over MAX_FUNCTION_LINES lines -> their length."""
    out: dict[str, int] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n = (node.end_lineno or node.lineno) - node.lineno + 1
            if n > MAX_FUNCTION_LINES:
                out[node.name] = max(n, out.get(node.name, 0))
    return out


def test_a_long_module_says_why():
    unexplained = sorted(
        m for m, says_why in long_modules().items() if not says_why and m not in LONG_MODULES_TODO
    )
    assert not unexplained, (
        f"over {MAX_LINES} lines with no 'Why this module is long: ...' line at the top: "
        f"{unexplained} "
        "(split the module, or say why it stays whole)"
    )


def test_no_new_long_function():
    found = {
        f"{p.relative_to(ROOT).as_posix()}:{name}": n
        for p in modules()
        for name, n in long_functions(p.read_text(encoding="utf-8")).items()
    }
    new = {k: n for k, n in found.items() if k not in LONG_FUNCTIONS_TODO}
    assert not new, f"functions over {MAX_FUNCTION_LINES} lines: {new} (split them)"


def test_the_to_do_lists_only_shrink():
    """A listed module or function that is now within the rule comes off the list."""
    done_modules = sorted(m for m in LONG_MODULES_TODO if long_modules().get(m) in (None, True))
    found = {
        f"{p.relative_to(ROOT).as_posix()}:{name}"
        for p in modules()
        for name in long_functions(p.read_text(encoding="utf-8"))
    }
    done_functions = sorted(LONG_FUNCTIONS_TODO - found)
    assert not done_modules and not done_functions, (
        f"now within the rules, take off the to-do lists: {done_modules + done_functions}"
    )


def test_the_checks_can_fail():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}\n") == {"f": MAX_FUNCTION_LINES + 1}
    assert long_functions("def g():\n    return 1\n") == {}
