"""What the reviewer's decisions make of a bundle's figures, and which verdicts need a person.

``review_figures(final, comments_before, decided) -> ReviewFigures``: reviewed attribution =
(edited and accepted + overridden to addressed + the deletion was the fix) / actionable
comments decided (actionable and open before the run, not a stale anchor: the machine's attribution
counts the same comments); agreement with the machine = decisions that agree with the
verdict (an accept, or the decision the verdict means:
``engine.bundle.decisions.agrees_with_machine``) / decisions; "awaiting
review: N" = actionable comments with no decision. ``decided``: comment id -> the decision
that counts (``engine.bundle.decisions.DecisionsCheck.latest()``). The reviewed attribution
counts only the decided comments: one not decided yet is not "not addressed", it is not
measured; with no decision at all it is N/A ("no comment has a reviewer decision yet"),
never a zero, and ``reviewed_text()`` says how many are still undecided ("0% (0 of 1
decided; 2 not decided yet)").

``needs_review(item)``: why a verdict item needs a person, in plain words; the Verdicts
view puts those comments first, marked "needs your review".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.bundle.decisions import Decision
from engine.models import Metric
from engine.vocabulary import (
    APPROXIMATE_METHODS,
    metric_fraction,
    metric_text,
    metric_value,
    plural,
)


def needs_review(item: dict[str, Any]) -> list[str]:
    """Why a verdict item needs a person, in plain words ([] when it does not): a token edit,
    an approximate re-anchor, only hidden text / invisible characters / look-alike
    characters changed, a claim that disagrees with the verdict, and every ``deleted``."""
    out = []
    if item.get("verdict") == "deleted":
        out.append("the passage was deleted: was that the fix?")
    if item.get("token_edit"):
        kind = item.get("token_edit_kind")
        out.append("a token edit" + (f" ({kind})" if isinstance(kind, str) and kind else ""))
    if item.get("approximate") or item.get("method") in APPROXIMATE_METHODS:
        out.append("found again only approximately")
    if item.get("hidden_only"):
        out.append("only hidden text changed")
    if item.get("invisible_only"):
        out.append("invisible characters only")
    if item.get("lookalike_only"):
        out.append("look-alike characters only")
    if item.get("claim_agrees") is False:
        out.append("the agent's claim disagrees with the verdict")
    return out


@dataclass(frozen=True)
class ReviewFigures:
    """``reviewed``: reviewed attribution, of the decided comments; ``agreement``: decisions that agree / decisions (both
    ``Metric``: N/A with the reason when not measurable); ``awaiting``: actionable
    comments with no decision; ``actionable``: how many there are; ``decided``: how many
    comments carry a decision."""

    reviewed: Metric
    agreement: Metric
    awaiting: int
    actionable: int
    decided: int

    @property
    def complete(self) -> bool:
        return self.awaiting == 0

    def reviewed_text(self) -> str:
        """The reviewed attribution as written: "50% (1 of 2)" when every comment is
        decided, "0% (0 of 1 decided; 2 not decided yet)" while some are not, or "N/A — …"."""
        m = self.reviewed.to_json()
        if self.reviewed.value is None or not self.awaiting:
            return metric_text("attribution_rate", m)
        frac = metric_fraction("attribution_rate", m)
        return (
            f"{metric_value('attribution_rate', m)} ({frac} decided; "
            f"{self.awaiting} not decided yet)"
        )

    def awaiting_line(self) -> str:
        """ "awaiting review: 3 of 4 actionable comments", or "" when every one is decided."""
        if self.complete:
            return ""
        return (
            f"awaiting review: {self.awaiting} of {plural(self.actionable, 'actionable comment')}"
        )


def actionable_ids(final: list[Any], comments_before: list[Any]) -> list[str]:
    """The comments the attribution counts: actionable and open before the run, with a
    verdict that is not ``stale_anchor`` (``final``: verdict items; comments: native JSON
    or ``engine.models.Comment``)."""
    open_actionable = set()
    for c in comments_before:
        obj = c.to_json() if hasattr(c, "to_json") else c
        if (
            isinstance(obj, dict)
            and obj.get("actionable", True)
            and obj.get("status", "open") == "open"
        ):
            open_actionable.add(str(obj.get("id")))
    return [
        str(v.get("comment_id"))
        for v in final
        if isinstance(v, dict)
        and str(v.get("comment_id")) in open_actionable
        and v.get("verdict") != "stale_anchor"
    ]


def review_figures(
    final: list[Any], comments_before: list[Any], decided: dict[str, Decision]
) -> ReviewFigures:
    """The reviewed figures from the verdicts shown (``final`` items) and the decisions
    that count (``DecisionsCheck.latest()``)."""
    ids = actionable_ids(final, comments_before)
    verdict = {str(v.get("comment_id")): v.get("verdict") for v in final if isinstance(v, dict)}
    addressed = 0
    for cid in ids:
        d = decided.get(cid)
        if d is None:
            continue
        if d.decision in ("addressed", "deletion-is-fix") or (
            d.decision == "accept" and verdict.get(cid) == "edited"
        ):
            addressed += 1
    awaiting = sum(1 for cid in ids if cid not in decided)
    if not ids:
        reviewed = Metric.na("there are no actionable comments")
    elif awaiting == len(ids):  # not a zero: nobody has reviewed yet
        reviewed = Metric.na("no comment has a reviewer decision yet")
    else:  # of the decided ones only: an undecided comment is not measured, not a "no"
        reviewed = Metric.ratio(addressed, len(ids) - awaiting)
    counted = [d for cid, d in decided.items() if cid in verdict]
    if counted:
        agreement = Metric.ratio(sum(d.agrees for d in counted), len(counted))
    else:
        agreement = Metric.na("no decision yet")
    return ReviewFigures(reviewed, agreement, awaiting, len(ids), len(counted))
