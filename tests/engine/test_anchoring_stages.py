"""The re-anchoring stages are tried in the order engine/score/anchoring/__init__.py lists
(``STAGES``, ``STAGES_IN_PLACE``): the order decides verdicts, so it is read in one place and
pinned here against the code that runs it."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap

from engine.score import anchoring
from engine.score.anchoring.reanchor import _Reanchor


def _references(method) -> list[str]:
    """Names of ``self.<attribute>`` and called names in ``method``'s source, in order."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "self":
                found.append((node.lineno, node.col_offset, node.attr))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            found.append((node.lineno, node.col_offset, node.func.id))
    return [name for _l, _c, name in sorted(found)]


def _in_order(refs: list[str], wanted: list[str]) -> list[str]:
    """``refs`` cut to the names in ``wanted``, a repeat of the name just before dropped."""
    out: list[str] = []
    for r in refs:
        if r in wanted and (not out or out[-1] != r):
            out.append(r)
    return out


def test_run_tries_the_stages_in_the_listed_order():
    wanted = [m for _mod, m, _what in anchoring.STAGES]
    assert _in_order(_references(_Reanchor.run), wanted) == wanted


def test_the_place_stages_are_tried_in_the_listed_order():
    wanted = [m for _mod, m, _what in anchoring.STAGES_IN_PLACE]
    got = _in_order(_references(_Reanchor._in_place), wanted)
    # _moved_and_rewritten is tried twice (in the sentence its context travelled to, then
    # in the mapped sentence); the list names the order of first tries
    firsts = list(dict.fromkeys(got))
    assert firsts == wanted


def test_each_stage_lives_in_the_module_the_list_names():
    for mod, method, _what in anchoring.STAGES + anchoring.STAGES_IN_PLACE:
        if method == "moved_to":  # the diff's own detection, asked from run
            continue
        module = importlib.import_module(f"engine.score.anchoring.{mod}")
        owners = [c for c in vars(module).values() if inspect.isclass(c) and method in vars(c)]
        assert owners, (mod, method)
        assert issubclass(_Reanchor, owners[0])


def test_every_threshold_says_what_it_measures():
    from engine.score.anchoring import thresholds

    source = inspect.getsource(thresholds)
    names = [n for n in vars(thresholds) if n.isupper()]
    assert len(names) >= 18
    for n in names:
        # the constant is followed by its docstring
        i = source.index(f"\n{n} = ")
        after = source[i:].split("\n", 2)[2] if source[i:].count("\n") > 1 else ""
        assert after.lstrip().startswith('"""'), n
