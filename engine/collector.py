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
