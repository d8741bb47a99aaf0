"""Plain words for what the engine produced: verdicts, claims, re-anchor methods, metrics.

Formatting only; nothing here computes a verdict or a metric. A metric the engine marked
N/A is shown as "N/A" with its reason, never as a zero.
"""

from __future__ import annotations

from typing import Any

from app.docview import STYLES
from engine import vocabulary as vocab

# The words and formats come from engine.vocabulary (one vocabulary); these names stay
# for the views that import them from here.
METRIC_ORDER = vocab.METRIC_NAMES
METRIC_TITLES = vocab.METRIC_TITLES
METRIC_HELP = vocab.METRIC_MEANINGS
VERDICT_WORDS = vocab.VERDICT_MEANINGS
METHOD_WORDS = vocab.METHOD_WORDS
APPROXIMATE_METHODS = vocab.APPROXIMATE_METHODS
CLAIM_WORDS = vocab.CLAIM_WORDS
STATUS_WORDS = vocab.RUN_STATUS_WORDS


# Metrics the engine measures only once the run has ended (engine/run/review.py scores each round
# with ``final=False``): an earlier round's column says so instead of the reason the engine
# wrote while the run was still going ("the run has not finished").
RUN_END_METRICS = frozenset({"rounds_to_converge"})
NOT_PER_ROUND = (
    "N/A \u2014 not measured after each round: counted once, when the run ends (see Whole run)"
)


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
    return vocab.claim_words(claim)


def agrees_text(agrees: bool | None) -> str:
    if agrees is True:
        return "\u2713 agrees"
    if agrees is False:
        return "\u2717 disagrees"
    return "\u2014 nothing to compare"


def method_text(item: dict[str, Any]) -> str:
    method = str(item.get("method") or "none")
    text = METHOD_WORDS.get(method, method)
    # ``similarity`` is a similarity (v1 vs v2 text); ``confidence`` is how sure the place
    # is, never shown as "% similar" (docs/verdicts.md).
    conf = item.get("confidence")
    if similar := vocab.similarity_words(item):
        text += f" ({similar})"
    if method in APPROXIMATE_METHODS and isinstance(conf, (int, float)) and conf < 1:
        # "place confidence" is the engine's term; people read how sure the place is.
        text += f"; {vocab.percent(conf)} sure this is the right place"
    # A token edit and a repaired saved place are said once, by the verdict's note
    # (``vocab.note_sentence``): a repair is about finding the quote in v1, not in v2.
    if item.get("hidden_only") is True:
        text += "; only hidden text changed"
    if item.get("markup_changed"):
        text += "; markup inside the anchor changed (text verdict unaffected)"
    return text


def is_approximate(item: dict[str, Any]) -> bool:
    return bool(item.get("approximate")) or str(item.get("method")) in APPROXIMATE_METHODS


def metric_is_na(m: dict[str, Any] | None) -> bool:
    return vocab.metric_is_na(m)


def metric_value(name: str, m: dict[str, Any] | None) -> str:
    """The headline, e.g. ``33%`` or ``1,234 tokens per fix`` or ``N/A``."""
    return vocab.metric_value(name, m)


def metric_detail(name: str, m: dict[str, Any] | None) -> str:
    """Numerator and denominator in words, or the N/A reason."""
    if not isinstance(m, dict):
        return "not recorded in this bundle"
    return vocab.metric_detail(name, m)


def metric_cell(name: str, m: dict[str, Any] | None) -> str:
    """The one format of a metric: ``33% (1 of 3)``, or ``N/A — <reason>``."""
    if not isinstance(m, dict):
        return "N/A \u2014 not recorded in this bundle"
    return vocab.metric_text(name, m)
