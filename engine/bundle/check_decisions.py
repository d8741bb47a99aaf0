"""Reviewer decisions whose subject is a declared check (docs/checks.md, "The gate"): the
rule such a decision keeps and its check on verify. The shapes, the signature and the
writing are ``engine.bundle.decisions``'s and ``engine.bundle.adjudicate``'s.

``check_rule_problem(status, decision, reason)``: only a FAIL, only ``accept``, a one-line
reason. ``derived_check_status(rederivation, name)``: the final version's result of the
check as re-derived now (``Rederivation.checks["final checks"]``). ``check_check_decision``:
called by ``check_decisions`` for each decision on a check: its rule holds and the check is
still the result decided on ("decided on a different result" otherwise: tampered).
"""

from __future__ import annotations

from typing import Any

from engine.bundle.decisions import MAX_REASON, Decision, DecisionsCheck


def check_rule_problem(status: str, decision: str, reason: str) -> str | None:
    """The rule a decision on a declared check breaks, or None: only a FAIL is decided on,
    the only decision is ``accept``, and it needs a one-line reason."""
    if status != "fail":
        return f"the check's result is {status}, not FAIL: only a FAIL is accepted"
    if decision != "accept":
        return f"a check's FAIL can only be accepted (accept), not {decision}"
    if not reason.strip():
        return "accepting a FAIL needs a one-line reason"
    if "\n" in reason or "\r" in reason or len(reason) > MAX_REASON:
        return f"the reason must be one line of at most {MAX_REASON} characters"
    return None


def derived_check_status(rederivation: Any, name: str) -> str | None:
    """The status of the final version's check ``name`` as re-derived now (a command's:
    as recorded), or None when the bundle's checks were not derived or have no such check."""
    sets = getattr(rederivation, "checks", None) or {}
    final = sets.get("final checks")
    for r in getattr(final, "revised", None) or []:
        if r.name == name:
            return str(r.status)
    return None


def check_check_decision(d: Decision, rederivation: Any, res: DecisionsCheck) -> None:
    """A decision on a declared check: its rule holds and the check is still the result
    decided on (the final version's, as re-derived)."""
    rule = check_rule_problem(d.verdict, d.decision, d.reason)
    if rule or d.comment_id:
        res.decision_problem(d, rule or "a decision on a check names a comment too")
    now = derived_check_status(rederivation, d.check)
    if now is None:
        res.decision_problem(d, "decided on a check this bundle has no re-derived result for")
    elif now != d.verdict:
        res.decision_problem(
            d,
            f"decided on a different result ({d.verdict.upper()}; this program "
            f"derives {now.upper()})",
        )
