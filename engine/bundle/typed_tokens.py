"""A token figure the user typed for a revision made elsewhere (``engine.run.external``):
kept as the manifest's ``agent_mode.typed_tokens`` (under the run's signature; the
manifest's ``tokens`` stays null), shown as "typed, not measured", never as measured.

``typed_tokens_problem(n)``: why a figure is refused (a whole number from 1 to
``MAX_TYPED_TOKENS``). ``typed_tokens_words(manifest, metrics)``: the line the views show,
with tokens per attributed fix computed from it, saying so ("" when none was typed).
"""

from __future__ import annotations

from typing import Any

from engine.vocabulary import plural

#: The largest token figure a user may type (a cap where data comes in).
MAX_TYPED_TOKENS = 10**12
TYPED = "typed, not measured"


def typed_tokens_problem(n: int | None) -> str | None:
    """Why a typed token figure is refused (a whole number from 1 to ``MAX_TYPED_TOKENS``),
    or None."""
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, int) or not 0 < n <= MAX_TYPED_TOKENS:
        return f"a typed token figure is a whole number from 1 to {MAX_TYPED_TOKENS:,}"
    return None


def typed_tokens_words(manifest: Any, metrics: Any) -> str:
    """ "tokens 6,000 (typed, not measured); tokens per attributed fix 1,200 (6,000 / 5
    edited comments, from the typed figure, not measured)", or "" when no figure was typed.
    ``manifest``: the bundle's manifest; ``metrics``: name -> ``Metric`` or its JSON (the attribution's
    numerator is the edited actionable comments the cost divides by)."""
    mode = manifest.get("agent_mode") if isinstance(manifest, dict) else None
    n = mode.get("typed_tokens") if isinstance(mode, dict) else None
    if n is None or typed_tokens_problem(n):
        return ""
    head = f"tokens {n:,} ({TYPED})"
    attr = (metrics or {}).get("attribution_rate")
    if attr is not None and not isinstance(attr, dict):
        attr = attr.to_json()  # an engine.models.Metric
    attr = attr or {}
    edited = attr.get("numerator")
    if attr.get("value") is None or not isinstance(edited, (int, float)):
        why = attr.get("reason") or "the attribution is not known"
        return f"{head}; tokens per attributed fix N/A: {why}"
    if not edited:
        return f"{head}; tokens per attributed fix N/A: no comment's anchored text was edited"
    per = n / edited
    return (
        f"{head}; tokens per attributed fix {per:,.0f} ({n:,} / "
        f"{plural(int(edited), 'edited comment')}, from the typed figure, {TYPED})"
    )
