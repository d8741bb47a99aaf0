"""Test fixtures that stand for another model's run: the trace says the same model as the
manifest (re-derivation cross-checks the two: docs/bundle.md, "Re-derived, never
trusted")."""

from __future__ import annotations

import copy
from typing import Any


def trace_as(trace: dict[str, Any], model: str) -> dict[str, Any]:
    """``trace`` with its "run started" settings and every model call naming ``model``."""
    out = copy.deepcopy(trace)
    for e in out.get("entries") or []:
        if e.get("kind") == "note" and isinstance(e.get("settings"), dict):
            e["settings"]["model"] = model
        if e.get("kind") == "model_call" and isinstance(e.get("request"), dict):
            e["request"]["model"] = model
    return out
