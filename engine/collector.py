"""The cyclic garbage collector paused over work that makes many small objects and no cycle.

CPython frees an object when its last reference goes (reference counting); the cyclic
collector exists only for objects that refer to each other in a cycle. It runs after every
few hundred allocations (``gc.get_threshold()``, 700 by default in CPython 3.11) and scans
the young objects still alive, and every tenth or hundredth time the older ones too. Work
that allocates millions of small objects in no cycle (a diff's ops and tokens, an HTML
walk's element wrappers, a command's imports) pays those scans and frees nothing by them:
half an 8 MB page's text walk, an eighth of a 1 MB diff. ``paused()`` turns the collector
off for such a block and back on after it (only if it was on), so the cycles made
elsewhere are collected as before. Python's documentation: "gc — Garbage Collector
interface" (https://docs.python.org/3/library/gc.html).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Run the ``with`` block with the cyclic garbage collector off; it is on again after
    the block (also when the block raises) if it was on before. Nesting is safe: an inner
    block leaves the collector as the outer one set it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_freeze_after_imports = False
"""Set by ``freeze_after_imports``: this process runs one command, then exits."""


def freeze_after_imports() -> None:
    """Say that this process runs one command and exits, so ``settled`` may freeze what it
    imported: said by the process's entry points, the ``arl`` script
    (``arl_keys.cli.main`` with no ``argv``) and ``python -m engine.cli``. A program that
    calls the command in process (the tests) never says it: a freeze would keep whatever
    cyclic garbage it had not collected yet."""
    global _freeze_after_imports
    _freeze_after_imports = True


def settled() -> None:
    """Once a command's modules are imported: if ``freeze_after_imports`` was said, every
    object alive now (the modules, their functions and classes, the parser) is moved to
    the collector's permanent generation (``gc.freeze``). They live until the process
    exits, so neither a collection during the command nor the one at exit walks them
    again: about 4 ms of a 0.1 MB ``arl score`` (docs/engine.md, "Speed"; CPython's
    ``gc.freeze``, https://docs.python.org/3/library/gc.html#gc.freeze)."""
    if _freeze_after_imports:
        gc.freeze()
