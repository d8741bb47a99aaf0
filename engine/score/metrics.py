"""The five metrics and claim coverage of one scoring (docs/metrics.md): what they count,
their N/A reasons, and which comments a report makes a claim about.

``engine.score.scoring.score`` computes the verdicts and calls ``compute_metrics``; the bundle,
the scorecard and the desktop program read claim coverage back with ``coverage_of``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.models import ClaimReport, Comment, Metric, VerdictRecord
from engine.vocabulary import NEVER_REACHED


@dataclass(frozen=True)
class ClaimCoverage:
    """Which actionable comments the agent's report makes a claim about (docs/metrics.md,
    claim accuracy): a report covering one comment of four must not look perfect.

    ``claimed``/``no_claim`` count actionable comments (open, non-stale) with and without a
    claim; ``actionable`` is their sum; ``no_claim_ids`` lists the latter."""

    claimed: int
    no_claim: int
    actionable: int
    no_claim_ids: tuple[str, ...] = ()

    def text(self) -> str:
        """ "no claim for 3 of 4 comments", or "a claim for every comment"."""
        if not self.actionable:
            return "no actionable comments"
        if not self.no_claim:
            return f"a claim for every comment ({self.actionable})"
        return f"no claim for {self.no_claim} of {self.actionable} comments"

    def to_json(self) -> dict[str, Any]:
        return {
            "claimed": self.claimed,
            "no_claim": self.no_claim,
            "actionable": self.actionable,
            "no_claim_ids": list(self.no_claim_ids),
            "text": self.text(),
        }


def claim_coverage(
    verdicts: list[VerdictRecord], actionable_ids: set[str], claims: ClaimReport | None
) -> ClaimCoverage | None:
    """Claim coverage of a scoring: which actionable comments (``actionable_ids``) carry a
    claim in ``verdicts``; None when no usable report was given."""
    if claims is None or not claims.usable:
        return None
    judged = [v for v in verdicts if v.comment_id in actionable_ids]
    missing = tuple(v.comment_id for v in judged if v.claim is None)
    return ClaimCoverage(len(judged) - len(missing), len(missing), len(judged), missing)


def coverage_of(
    final_verdicts: list[dict[str, Any]], comments_before: list[dict[str, Any]]
) -> ClaimCoverage | None:
    """Claim coverage as a bundle states it: which open, actionable, non-stale comments of
    ``comments_before`` carry a claim in ``final_verdicts`` (verdicts.json's ``final``
    items). None when no verdict carries a claim (no usable report: claim accuracy is N/A
    and says why). The scorecard and the desktop program show its ``text()``."""
    verdicts = [v for v in final_verdicts if isinstance(v, dict)]
    if not any(v.get("claim") for v in verdicts):
        return None
    actionable = {
        str(c.get("id"))
        for c in comments_before
        if isinstance(c, dict) and c.get("actionable", True) and c.get("status", "open") == "open"
    }
    judged = [
        v
        for v in verdicts
        if str(v.get("comment_id")) in actionable and v.get("verdict") != "stale_anchor"
    ]
    missing = tuple(str(v.get("comment_id")) for v in judged if not v.get("claim"))
    return ClaimCoverage(len(judged) - len(missing), len(missing), len(judged), missing)


def never_reached_reason(status: str, trace_entries: Any) -> str:
    """For a run that failed before the model answered anything: "the model was never
    reached: <why>", the why being the last failed call's words in the trace (its last
    attempt's ``error``, e.g. "could not connect to 127.0.0.1:36877 (nothing answered)"),
    else "no model call was made". "" when ``status`` is not ``failed`` or any model call
    has an answer (``response``): then the metrics measure what was done. ``trace_entries``:
    trace.json's ``entries`` (the run's own trace while it runs); anything else reads as
    no entries. The run and the bundle's re-derivation both call this, so they agree."""
    if status != "failed":
        return ""
    entries = trace_entries if isinstance(trace_entries, list) else []
    calls = [e for e in entries if isinstance(e, dict) and e.get("kind") == "model_call"]
    if any(e.get("response") is not None for e in calls):
        return ""
    why = "no model call was made"
    for e in reversed(calls):
        attempts = e.get("attempts")
        last = attempts[-1] if isinstance(attempts, list) and attempts else None
        if isinstance(last, dict) and isinstance(last.get("error"), str) and last["error"]:
            why = last["error"]
            break
    return f"{NEVER_REACHED}: {why}"


#: The start of the attribution rate's N/A reason for a run that ended before any revision.
NO_REVISION = "no revision to measure"


def no_revision_reason(status: str, revised: bool) -> str:
    """For a run cancelled or failed before the agent pushed any revision: the attribution
    rate's N/A reason ("no revision to measure: the run was cancelled before the agent
    pushed one"), never "0% (0 of 4)" (the agent was stopped, it did not leave every comment
    unedited). ``revised``: the last version is not the one the agent was given. "" otherwise:
    a run that completed with no push measured what its agent did. The run and the bundle's
    re-derivation (its ``v2`` against ``given_version_id``) both call it."""
    if status not in ("cancelled", "failed") or revised:
        return ""
    how = "was cancelled" if status == "cancelled" else "failed"
    return f"{NO_REVISION}: the run {how} before the agent pushed one"


def apply_no_revision(metrics: dict[str, Metric], reason: str) -> None:
    """Make the attribution rate N/A with ``reason`` (``no_revision_reason``), unless it is
    N/A already (no actionable comments, the model never reached)."""
    m = metrics.get("attribution_rate")
    if reason and m is not None and m.value is not None:
        metrics["attribution_rate"] = Metric.na(reason)


def compute_metrics(
    verdicts: list[VerdictRecord],
    actionable_ids: set[str],
    comments: list[Comment],
    unusable: list[tuple[str, str]],
    claims: ClaimReport | None,
    inside: int,
    outside: int,
    tokens: int | None,
    tokens_reason: str,
    rounds: int | None,
    rounds_reason: str,
    moved: int = 0,
    never_reached: str = "",
) -> tuple[dict[str, Metric], list[str]]:
    """The five metrics (docs/metrics.md) and the problems found in the agent's report.

    ``actionable_ids``: the comments the metrics count; ``inside``/``outside``: characters
    changed inside and outside every actionable anchor, ``moved``: characters that only
    moved; ``tokens``/``rounds``: None when unknown, with the reason to show.
    ``never_reached``: ``never_reached_reason``'s words for a run that failed before any
    model answer: every metric is N/A with them (nothing the agent did to measure)."""
    problems: list[str] = []
    if never_reached:
        return {name: Metric.na(never_reached) for name in _METRIC_ORDER}, problems
    actionable = [v for v in verdicts if v.comment_id in actionable_ids]
    edited = sum(v.verdict == "edited" for v in actionable)
    stale = sum(v.verdict == "stale_anchor" for v in verdicts)
    return (
        {
            "attribution_rate": _attribution(edited, len(actionable), stale, len(unusable)),
            "collateral_churn": _collateral_churn(inside, outside, moved),
            "claim_accuracy": _claim_accuracy(actionable, comments, unusable, claims, problems),
            "cost_per_attributed_fix": _cost(tokens, tokens_reason, edited),
            "rounds_to_converge": _rounds(rounds, rounds_reason),
        },
        problems,
    )


_METRIC_ORDER = (
    "attribution_rate",
    "collateral_churn",
    "claim_accuracy",
    "cost_per_attributed_fix",
    "rounds_to_converge",
)


def _attribution(edited: int, actionable: int, stale: int, unusable: int) -> Metric:
    """Edited actionable comments / actionable comments; N/A names what was left out."""
    if actionable:
        return Metric.ratio(edited, actionable)
    why = "there are no actionable comments"
    left_out = []
    if stale:
        left_out.append(f"{stale} stale anchor{'s' if stale != 1 else ''}")
    if unusable:
        left_out.append(f"{unusable} unusable comment{'s' if unusable != 1 else ''}")
    if left_out:
        why += " (" + " and ".join(left_out) + " left out)"
    return Metric.na(why)


def _collateral_churn(inside: int, outside: int, moved: int) -> Metric:
    """Characters changed outside every actionable anchor / all characters changed."""
    total = inside + outside
    if total:
        return Metric.ratio(outside, total)
    if moved:
        return Metric.na(f"nothing changed but the order: {moved:,} characters moved, none edited")
    return Metric.na("nothing changed: the two versions have the same text")


def _claim_accuracy(
    actionable: list[VerdictRecord],
    comments: list[Comment],
    unusable: list[tuple[str, str]],
    claims: ClaimReport | None,
    problems: list[str],
) -> Metric:
    """Claims that agree with their verdict / actionable comments with a claim; a report
    naming comments that do not exist is N/A (and listed in ``problems``)."""
    if claims is None:
        return Metric.na("no report from the agent was given")
    if not claims.usable:
        return Metric.na(f"the agent's report is unusable: {claims.problem}")
    known_ids = {c.id for c in comments}
    unknown = sorted({c.comment_id for c in claims.comments} - known_ids)
    if unknown:
        problems.append("the report names comments that do not exist: " + ", ".join(unknown))
        return Metric.na(
            "the agent's report names comments that do not exist: "
            + ", ".join(unknown[:5])
            + ("…" if len(unknown) > 5 else "")
        )
    unusable_ids = {cid for cid, _ in unusable}
    judged = [v for v in actionable if v.claim is not None and v.comment_id not in unusable_ids]
    if judged:
        return Metric.ratio(sum(bool(v.claim_agrees) for v in judged), len(judged))
    return Metric.na("the agent's report makes no claim about any actionable comment")


def _cost(tokens: int | None, tokens_reason: str, edited: int) -> Metric:
    """Tokens of the run / edited actionable comments."""
    if tokens is None:
        return Metric.na(
            tokens_reason
            or "token usage is known only for a run; this score was computed from files"
        )
    if edited == 0:
        return Metric.na("no comment's anchored text was edited, so there is no fix to divide by")
    return Metric.ratio(tokens, edited)


def _rounds(rounds: int | None, rounds_reason: str) -> Metric:
    """Pushes until convergence (docs/metrics.md: it counts pushes), over 1."""
    if rounds is None:
        return Metric.na(
            rounds_reason or "rounds are known only for a run; this score was computed from files"
        )
    return Metric(value=rounds, numerator=rounds, denominator=1)
