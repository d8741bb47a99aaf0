"""Evidence bundles (docs/bundle.md): the documented entry points, named here.

The format and the reading API are described in ``engine.bundle.bundle``. Each name lives in
one module of this package, and code inside this program imports it from there:

- ``archive``: safe reading of a bundle's files (caps, no traversal), ``BundleError``;
- ``schema``: the members' shapes (``formats``: the format names); ``read``:
  ``open_bundle``, ``verify_bundle``, ``judge_bundle`` (``members``: each member file
  read); ``write``: ``write_bundle``;
- ``rederive`` (+ ``rederive_trace``, ``differences``): verdicts and metrics derived again
  from the bundle's own files; ``signing``: Ed25519 signatures and trusted keys;
- ``scorecard``: the self-contained scorecard page a bundle carries; ``shown``: what a view
  shows of a bundle; ``bundle``: zip export and extraction, trust marks, publishing the
  scorecard;
- ``decisions``, ``adjudicate``, ``review``, ``scorecard_review``, ``csv_export``: the
  reviewer's decisions (shapes and checks, writing them, the reviewed figures, their part
  of the scorecard, the CSV export); ``own_copy``: where decisions go when the bundle is
  shipped with the program or read-only (the user's copy of it).

The names are resolved on first use (PEP 562 ``__getattr__``), so importing one module of
the package (``engine.bundle.archive`` for ``arl score``'s path) does not load them all.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Each documented entry point and the module that defines it.
_HOMES = {
    "BundleError": "engine.bundle.archive",
    "export_zip": "engine.bundle.bundle",
    "extract_zip": "engine.bundle.bundle",
    "own_scorecard": "engine.bundle.bundle",
    "publish_scorecard": "engine.bundle.bundle",
    "trust_marks": "engine.bundle.bundle",
    "trust_signer": "engine.bundle.bundle",
    "FORMAT": "engine.bundle.read",
    "OLD_FORMATS": "engine.bundle.read",
    "Bundle": "engine.bundle.read",
    "BundleVersion": "engine.bundle.read",
    "VerifyResult": "engine.bundle.read",
    "judge_bundle": "engine.bundle.read",
    "open_bundle": "engine.bundle.read",
    "verify_bundle": "engine.bundle.read",
    "BundleContent": "engine.bundle.write",
    "write_bundle": "engine.bundle.write",
    "MAX_ENTRIES": "engine.caps",
    "MAX_FILE_BYTES": "engine.caps",
    "MAX_TOTAL_BYTES": "engine.caps",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    """A documented entry point, from its module (AttributeError for any other name)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'engine.bundle' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
