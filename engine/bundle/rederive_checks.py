"""Re-deriving a bundle's declared checks (``checks.toml`` + ``checks.json``) on verify and
on open, like its verdicts (docs/checks.md, docs/bundle.md).

``rederive_checks(bundle, res)`` reads the checks file the bundle holds, runs the built-in
checks again on v1 and each round's version (``engine.checks.rederive``), and adds a
``Difference`` to ``res`` for every stored result, gate or outcome that differs, and a
problem when the checks cannot be checked (``checks.toml`` unreadable, a result naming a
version the bundle does not hold): what cannot be checked is not taken as true. The
recomputed sets go to ``res.checks`` ("round N" / "final") for the views. A command's
result is recorded, not re-run.
"""

from __future__ import annotations

from typing import Any

from engine.bundle.differences import Difference, round_version
from engine.checks.config import parse_checks
from engine.checks.rederive import rederive_set
from engine.models import InputError
from engine.vocabulary import CHANGES_REQUESTED


def rederive_checks(bundle: Any, v1: Any, res: Any) -> None:
    """See the module docstring. ``v1``: the bundle's v1 ``Version``; ``res``: the
    ``engine.bundle.rederive.Rederivation`` being filled."""
    stored = bundle.checks
    if stored is None:
        return
    try:
        config = parse_checks(bundle.checks_toml or "", "checks.toml")
    except InputError as exc:
        res.problems.append(f"the declared checks cannot be checked: {exc}")
        return
    if stored.get("checks") != config.check_names():
        res.differences.append(
            Difference(
                "checks", None, "declared checks", stored.get("checks"), config.check_names()
            )
        )
    sets: list[tuple[str, Any, Any]] = []
    for record in stored.get("rounds") or []:
        where = f"round {record.get('round')} checks"
        again = (res.rounds or {}).get(record.get("round"))
        sets.append((where, record, again))
    final = stored.get("final")
    if final is not None:
        sets.append(("final checks", final, res.final))
    final_blocked = None
    for where, record, again in sets:
        bv = round_version(bundle, str(record.get("version_id")))
        if bv is None or again is None:
            res.problems.append(f"{where}: version {record.get('version_id')!r} cannot be scored")
            continue
        recomputed, diffs = rederive_set(config, record, v1, bv.to_version(), again["verdicts"])
        res.checks[where] = recomputed
        for d in diffs:
            what = f"{d.name} ({d.role}) {d.field}" if d.name else d.field
            res.differences.append(Difference(where, None, what, d.stored, d.recomputed))
        if where == "final checks":
            final_blocked = recomputed.gate().blocked
    outcome = CHANGES_REQUESTED if final_blocked else None
    if final is not None and stored.get("outcome") != outcome:
        res.differences.append(
            Difference("checks", None, "outcome", stored.get("outcome"), outcome)
        )
