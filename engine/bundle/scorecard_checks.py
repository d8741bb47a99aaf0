"""The scorecard's part of the declared checks (docs/checks.md): the "changes requested"
banner (right after TAMPERED) and the "Declared checks" section: one row per check per
round, its output under a disclosure (no script), a command's result marked "recorded, not
re-run", and the rate that leaves N/A out.

``checks_parts(stored, recomputed) -> (banner_html, section_html)``: ``stored`` is the
bundle's ``checks.json`` (None: the run declared no checks: both parts empty);
``recomputed``: the re-derived sets (``Rederivation.checks``), shown instead of the stated
ones where they exist, so a forged result never reads as the truth.
"""

from __future__ import annotations

import html
from dataclasses import replace
from typing import Any

from engine.checks.results import CheckResult, CheckSet
from engine.vocabulary import (
    ALREADY_IN_REVIEWED,
    CHECK_STATUS_WORDS,
    RECORDED_NOT_RERUN,
)


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def shown_check_sets(
    stored: Any, recomputed: dict[str, Any] | None, accepted: dict[str, str] | None = None
) -> list[tuple[str, CheckSet]]:
    """What a view shows of a bundle's declared checks: ``(label, set)`` per round
    ("Round 1", ...) and the final one ("Final"), each the re-derived set where there is
    one (``Rederivation.checks``), else the stated one; [] without checks. ``accepted``:
    check name -> reason, the FAILs a reviewer accepted (``DecisionsCheck.
    accepted_checks()``), set on the final set: they no longer block its gate."""
    if not isinstance(stored, dict):
        return []
    recomputed = recomputed or {}
    out: list[tuple[str, CheckSet]] = []
    entries = [(f"round {r.get('round')} checks", r) for r in stored.get("rounds") or []]
    if isinstance(stored.get("final"), dict):
        entries.append(("final checks", stored["final"]))
    for where, record in entries:
        again = recomputed.get(where)
        if again is None:
            try:
                again = CheckSet.from_json(record)
            except ValueError:
                continue
        label = "Final" if where == "final checks" else f"Round {record.get('round')}"
        if label == "Final" and accepted:
            again = replace(again, accepted=dict(accepted))
        out.append((label, again))
    return out


def shown_check_rows(
    stored: Any, recomputed: dict[str, Any] | None
) -> list[tuple[str, CheckResult]]:
    """The rows a view lists: ``(label, result)`` for the version the agent was given once
    (only the checks that judge it alone: not N/A), then each round's revised version, then
    the final version when it is not the last round's (else its rows are already there)."""
    sets = shown_check_sets(stored, recomputed)
    if not sets:
        return []
    final = next((s for label, s in sets if label == "Final"), sets[-1][1])
    rows = [("The version the agent was given", r) for r in final.reviewed if r.status != "na"]
    rounds = [c for label, c in sets if label != "Final"]
    last = rounds[-1].revised[0].version_id if rounds and rounds[-1].revised else None
    for label, checks in sets:
        if label == "Final" and checks.revised and checks.revised[0].version_id == last:
            continue
        rows.extend((f"{label} (version {r.version_id})", r) for r in checks.revised)
    return rows


def checks_parts(
    stored: Any, recomputed: dict[str, Any] | None = None, accepted: dict[str, str] | None = None
) -> tuple[str, str]:
    """(the banner, "" unless a check blocks; the section, "" without checks).
    ``accepted``: as ``shown_check_sets``; each accepted FAIL is said with its reason."""
    if not isinstance(stored, dict):
        return "", ""
    sets = shown_check_sets(stored, recomputed, accepted)
    final = next((s for label, s in sets if label == "Final"), None)
    banner = ""
    if final is not None and final.gate().blocked:
        banner = (
            "<div class='banner failed'><b>Changes requested.</b> "
            f"{_e(final.gate().reason()[:1].upper() + final.gate().reason()[1:])}; "
            "approval is blocked whatever the verdicts say.</div>"
        )
    rows = "".join(_row(label, r) for label, r in shown_check_rows(stored, recomputed))
    rate = (
        f"<p>Checks passed (final version): {_e(final.rate())}, N/A left out.</p>" if final else ""
    )
    for r, why in final.gate().accepted if final is not None else ():
        rate += f"<p>{_e(accepted_line(r, why))}</p>"
    section = (
        "<h2>Declared checks</h2>"
        "<p class='muted'>The reviewer's own checks, run on every version. A FAIL blocks "
        "approval; a command's output is recorded, not re-run, when the bundle is checked."
        f"</p>{rate}<table><tr><th>Round</th><th>Check</th><th>Result</th>"
        f"<th>What it found</th></tr>{rows}</table>"
    )
    return banner, section


def accepted_line(r: CheckResult, reason: str) -> str:
    """ "Placeholders kept FAIL accepted by the reviewer: <reason> (it does not block)"."""
    return (
        f"{r.title} {CHECK_STATUS_WORDS[r.status]} accepted by the reviewer: {reason} "
        "(it does not block approval)"
    )


def _row(label: str, r: CheckResult) -> str:
    notes = []
    if r.already:
        notes.append(ALREADY_IN_REVIEWED)
    if r.kind == "command":
        notes.append(RECORDED_NOT_RERUN)
    tail = f"<div class='muted'>{_e('; '.join(notes))}</div>" if notes else ""
    detail = _e(r.summary) + tail
    if r.output:
        detail += (
            f"<details><summary>Output</summary><pre class='line'>{_e(r.output)}</pre></details>"
        )
    word = CHECK_STATUS_WORDS[r.status]
    css = {"pass": "v-edited", "fail": "v-untouched", "unverified": "v-stale_anchor"}.get(
        r.status, ""
    )
    return (
        f"<tr><td>{_e(label)}</td><td>{_e(r.title)}</td>"
        f"<td><span class='v {css}'>{_e(word)}</span></td><td>{detail}</td></tr>"
    )
