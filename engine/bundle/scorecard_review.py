"""The scorecard's part of the reviewer's decisions: the "awaiting review" banner and the
"Reviewed by people" section (the machine's attribution beside the reviewed one, the
agreement, and each comment's decision that counts).

``review_parts(final, comments_before, metrics, check) -> (banner_html, section_html)``:
``check`` is the bundle's ``engine.bundle.decisions.DecisionsCheck`` (None: not checked);
decisions that fail their checks count for nothing and the section says so.
"""

from __future__ import annotations

import html
from typing import Any

from engine import vocabulary as vocab
from engine.bundle.decisions import DECISION_WORDS
from engine.bundle.review import review_figures


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def review_parts(
    final: list[Any], comments_before: list[Any], metrics: dict[str, Any], check: Any
) -> tuple[str, str]:
    """(the banner, "" when nothing awaits review; the section). Before the decisions
    are checked (``check`` None: they need the re-derivation) nothing is said of them."""
    if check is None:
        return "", (
            "<h2>Reviewed by people</h2><p class='muted'>The reviewer decisions are checked "
            "with the re-derivation of the verdicts\u2026</p>"
        )
    decided = check.latest()
    fig = review_figures(final, comments_before, decided)
    banner = ""
    if fig.awaiting:
        banner = (
            f"<div class='banner awaiting'>Awaiting review: {fig.awaiting} of "
            f"{vocab.plural(fig.actionable, 'actionable comment')} "
            f"{'has' if fig.awaiting == 1 else 'have'} no reviewer decision yet; the "
            "machine's figures below are its word alone for those.</div>"
        )
    machine = metrics.get("attribution_rate")
    rows = [
        (
            "Attribution (the machine's)",
            vocab.metric_text("attribution_rate", machine) if isinstance(machine, dict) else "",
        ),
        ("Reviewed attribution", fig.reviewed_text()),
        (
            "Agreement with the machine",
            vocab.metric_text("attribution_rate", fig.agreement.to_json()),
        ),
        (
            "Awaiting review",
            f"{fig.awaiting} of {vocab.plural(fig.actionable, 'actionable comment')}",
        ),
    ]
    out = [
        "<h2>Reviewed by people</h2>",
        "<p class='muted'>Reviewed attribution: edited and accepted, plus overridden to "
        "addressed, plus the deletion was the fix, over the actionable comments decided (one "
        "not decided yet is not counted either way). Agreement: decisions that agree with "
        "the machine's verdict, over all decisions.</p>",
        "<table class='facts'>",
        *(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows),
        "</table>",
    ]
    if check is not None and check.present:
        out.append("<ul>" + "".join(f"<li>{_e(s.line())}</li>" for s in check.signers) + "</ul>")
    if check is not None and check.problems:
        out.append(
            "<p class='line differs'>The decisions fail their checks and count for nothing: "
            + _e(check.problems[0])
            + "</p>"
        )
    if decided:
        out.append(
            "<table class='verdicts'><tr><th>Comment</th><th>Verdict decided on</th>"
            "<th>Decision</th><th>Reason</th><th>Reviewer</th><th>When</th></tr>"
        )
        ids = [str(c.get("id")) for c in comments_before if isinstance(c, dict)]
        ids += [cid for cid in decided if cid not in ids]
        numbers = vocab.comment_numbers(ids)
        for cid, d in decided.items():
            out.append(
                f"<tr><td title='{_e(cid)}'>Comment {numbers[cid]}</td><td>{_e(vocab.VERDICT_LABELS.get(d.verdict, d.verdict))}"
                f"</td><td>{_e(DECISION_WORDS.get(d.decision, d.decision))}</td>"
                f"<td>{_e(d.reason)}</td><td>{_e(d.reviewer)}</td><td>{_e(vocab.when_words(d.decided_at))}</td></tr>"
            )
        out.append("</table>")
    return banner, "".join(out)
