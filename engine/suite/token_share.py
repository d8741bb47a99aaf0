"""Token edits in a suite (docs/verdicts.md, "Token edits"; docs/suites.md): per run, how
many of its final verdicts are ``edited`` and how many of those are token edits; per model
and variant, the token-edit share over its finished runs.

``token_edit_counts(bundle) -> {"edited", "token_edits"} | None``: read from a run's
bundle (``verdicts.json``, its ``final`` items); None when the bundle cannot be read.
``token_edit_share(runs) -> metric object``: token edits / edited verdicts, or N/A with
the reason (no finished run, no edited verdict, or runs recorded before the count existed),
never a zero standing in for "not measured".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.suite.store import ItemResult
from engine.vocabulary import percent, plural, token_edit_items


def token_edit_counts(bundle: Path | None) -> dict[str, int] | None:
    """{"edited": n, "token_edits": m} of the bundle's final verdicts; None when the
    bundle or its ``verdicts.json`` cannot be read."""
    if bundle is None:
        return None
    try:
        final = json.loads((bundle / "verdicts.json").read_text(encoding="utf-8")).get("final")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(final, list):
        return None
    edited, kinds = token_edit_items(final)
    return {"edited": edited, "token_edits": len(kinds)}


def token_edit_share(done: list[ItemResult]) -> dict[str, Any]:
    """Token edits over edited verdicts of the finished runs ``done``, as a metric object
    (``{"value", "numerator", "denominator"}`` or ``{"value": None, "reason"}``)."""
    if not done:
        return {"value": None, "reason": "no finished run"}
    unknown = sum(1 for r in done if not _counts(r))
    if unknown:
        return {
            "value": None,
            "reason": f"not counted for {plural(unknown, 'run')} (recorded before token edits were "
            "counted, or the bundle could not be read)",
        }
    edited = sum(_counts(r)["edited"] for r in done)
    tokens = sum(_counts(r)["token_edits"] for r in done)
    if not edited:
        return {"value": None, "reason": "no edited verdict"}
    return {"value": tokens / edited, "numerator": tokens, "denominator": edited}


def _counts(r: ItemResult) -> dict[str, int]:
    c = r.token_edits
    if (
        isinstance(c, dict)
        and isinstance(c.get("edited"), int)
        and isinstance(c.get("token_edits"), int)
    ):
        return c
    return {}


def token_share_text(m: dict[str, Any]) -> str:
    """ "25% of edited verdicts (3 of 12)", or "N/A — <reason>"."""
    if m.get("value") is None:
        return f"N/A \u2014 {m.get('reason') or 'not measured'}"
    return f"{percent(m['value'])} of edited verdicts ({m['numerator']} of {m['denominator']})"
