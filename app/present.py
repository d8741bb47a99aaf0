"""Plain words for what the engine produced: verdicts, claims, re-anchor methods, metrics.

Formatting only; nothing here computes a verdict or a metric. A metric the engine marked
N/A is shown as "N/A" with its reason, never as a zero.
"""

from __future__ import annotations

from typing import Any

from app.docview import STYLES

METRIC_ORDER = (
    "attribution_rate",
    "collateral_churn",
    "claim_accuracy",
    "cost_per_attributed_fix",
    "rounds_to_converge",
)

METRIC_TITLES = {
    "attribution_rate": "Attribution rate",
    "collateral_churn": "Collateral churn",
    "claim_accuracy": "Claim accuracy",
    "cost_per_attributed_fix": "Cost per attributed fix",
    "rounds_to_converge": "Rounds to converge",
}

METRIC_HELP = {
    "attribution_rate": "Comments whose anchored text was really edited, out of the "
    "actionable comments (stale anchors not counted). Higher is better.",
    "collateral_churn": "Characters changed outside every anchored span, out of all "
    "characters changed. Lower is better: the agent should only touch "
    "what a comment points at.",
    "claim_accuracy": "The agent's claims that agree with the measured verdict, out of the "
    "claims it made. Higher is better.",
    "cost_per_attributed_fix": "API usage tokens of the whole run divided by the number of "
    "edited comments. No currency is assumed.",
    "rounds_to_converge": "Pushes until no unresolved actionable comment remained.",
}

VERDICT_WORDS = {
    "edited": "the anchored text was changed",
    "untouched": "the anchored text is unchanged",
    "deleted": "the quoted text is gone from the new version",
    "stale_anchor": "stale anchor: made on another version; not counted in any metric",
}

METHOD_WORDS = {
    "exact": "exact match",
    "context": "exact quote, told apart by its context",
    "fuzzy": "approximate: rewritten text found near the original place",
    "diff": "approximate: the region the diff maps the original span to",
    "diff-mapped": "approximate: the region the diff maps the original span to",
    "none": "not found in the new version",
}
APPROXIMATE_METHODS = {"fuzzy", "diff", "diff-mapped"}

CLAIM_WORDS = {
    "addressed": "addressed",
    "not_addressed": "not addressed",
    "stale_anchor": "stale anchor",
}

STATUS_WORDS = {
    "completed": "Run completed",
    "cancelled": "Run cancelled before it finished",
    "failed": "Run failed",
}


def verdict_label(verdict: str) -> str:
    """Icon and label, e.g. ``✎ edited``; never colour alone."""
    s = STYLES.get(verdict)
    if s is None:
        return verdict.replace("_", " ")
    return f"{s.icon} {s.label}"


def verdict_colour(verdict: str) -> str:
    s = STYLES.get(verdict)
    return s.line if s else "#777777"


def claim_text(claim: str | None) -> str:
    if not claim:
        return "no claim"
    return CLAIM_WORDS.get(claim, claim.replace("_", " "))


def agrees_text(agrees: bool | None) -> str:
    if agrees is True:
        return "\u2713 agrees"
    if agrees is False:
        return "\u2717 disagrees"
    return "\u2014 nothing to compare"


def method_text(item: dict[str, Any]) -> str:
    method = str(item.get("method") or "none")
    text = METHOD_WORDS.get(method, method)
    conf = item.get("confidence")
    if method in APPROXIMATE_METHODS and isinstance(conf, (int, float)):
        text += f" ({conf:.0%} similar)"
    if item.get("offsets_repaired"):
        text += "; the stored offsets did not match the quote and were repaired"
    if item.get("markup_changed"):
        text += "; markup inside the anchor changed (text verdict unaffected)"
    return text


def is_approximate(item: dict[str, Any]) -> bool:
    return bool(item.get("approximate")) or str(item.get("method")) in APPROXIMATE_METHODS


def _n(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        return f"{x:,.2f}"
    return str(x)


def metric_is_na(m: dict[str, Any] | None) -> bool:
    return not isinstance(m, dict) or m.get("value") is None


def metric_value(name: str, m: dict[str, Any] | None) -> str:
    """The headline, e.g. ``33%`` or ``1,234 tokens`` or ``N/A``."""
    if metric_is_na(m):
        return "N/A"
    v = m["value"]
    if name in ("attribution_rate", "collateral_churn", "claim_accuracy"):
        return f"{v:.0%}"
    if name == "cost_per_attributed_fix":
        return f"{_n(round(v)) if v >= 100 else _n(v)} tokens per fix"
    if name == "rounds_to_converge":
        return f"{_n(v)} push" + ("" if v == 1 else "es")  # the metric counts pushes
    return _n(v)


def metric_detail(name: str, m: dict[str, Any] | None) -> str:
    """Numerator and denominator in words, or the N/A reason."""
    if not isinstance(m, dict):
        return "not recorded in this bundle"
    if m.get("value") is None:
        return str(m.get("reason") or "no reason given")
    num, den = m.get("numerator"), m.get("denominator")
    if num is None or den is None:
        return ""
    if name == "attribution_rate":
        return f"{_n(num)} of {_n(den)} actionable comments edited"
    if name == "collateral_churn":
        return f"{_n(num)} of {_n(den)} changed characters were outside every anchor"
    if name == "claim_accuracy":
        return f"{_n(num)} of {_n(den)} claims agree with the measured verdict"
    if name == "cost_per_attributed_fix":
        return f"{_n(num)} tokens / {_n(den)} edited comment" + ("" if den == 1 else "s")
    if name == "rounds_to_converge":
        return f"{_n(num)} push" + ("" if num == 1 else "es")
    return f"{_n(num)} / {_n(den)}"


def metric_cell(name: str, m: dict[str, Any] | None) -> str:
    head, detail = metric_value(name, m), metric_detail(name, m)
    if head == "N/A":
        return f"N/A \u2014 {detail}"
    return f"{head} ({detail})" if detail else head
