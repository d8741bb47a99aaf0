"""The declared-check options every ``arl`` command with a gate shares (docs/checks.md):
``--checks FILE``, ``--allow-commands``, ``--gate``, and how results are printed.

Exit code 4 (``EXIT_GATE``) means "a gate blocked": with ``--gate``, a FAIL or a blocking
UNVERIFIED of a declared check; a suite's ``--fail-under`` too. It is distinct from 1
(failed), 2 (unusable input), 3 (tampered) and 130 (cancelled).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.checks.config import ChecksConfig
    from engine.checks.results import CheckSet

EXIT_GATE = 4


def add_check_options(p: argparse.ArgumentParser, *, gate: bool = True) -> None:
    """``--checks FILE``, ``--allow-commands`` and (``gate``) ``--gate``."""
    p.add_argument(
        "--checks",
        metavar="FILE",
        help="the reviewer's declared checks (TOML; docs/checks.md), run on each version",
    )
    p.add_argument(
        "--allow-commands",
        action="store_true",
        help="let the checks file's [[command]] checks run (without it they read UNVERIFIED)",
    )
    if gate:
        p.add_argument(
            "--gate",
            action="store_true",
            help="exit 4 when a declared check FAILs (or an UNVERIFIED blocks)",
        )


def load_checks_option(path: str | None) -> ChecksConfig | None:
    """The checks file named by ``--checks`` (None when not given). Raises InputError."""
    if not path:
        return None
    from engine.checks.config import load_checks

    return load_checks(path)


def announce_commands(config: ChecksConfig | None, allowed: bool, out: object = None) -> None:
    """List, before anything runs, the commands the checks will execute (on stderr)."""
    if config is None or not config.commands:
        return
    from engine.checks.runner import planned_commands
    from engine.cli.common import say

    say(
        "Commands the declared checks will run:" if allowed else "Declared command checks:",
        err=True,
    )
    for line in planned_commands(config, allowed):
        say(f"  {line}", err=True)
    sys.stderr.flush()


def check_lines(checks: CheckSet) -> list[str]:
    """The checks as printed: the revised version's results, one line each, a FAIL's
    output indented under it; then the rate."""
    lines = ["Declared checks (on the revised version):"]
    for r in checks.revised:
        lines.append(f"  {r.line()}")
        if r.status in ("fail", "unverified") and r.output:
            lines.extend(f"      {x}" for x in r.output.splitlines())
    lines.append(f"  checks passed: {checks.rate()} (N/A left out)")
    return lines


def bundle_check_lines(
    stored: object, recomputed: dict | None, accepted: dict[str, str] | None = None
) -> list[str]:
    """What ``arl bundle show`` says of a bundle's declared checks (none without them):
    ``CHANGES REQUESTED: ...`` when the final gate blocks, then the final version's
    results, re-derived where they can be (a command's: recorded, not re-run), and each
    FAIL a reviewer accepted (``accepted``: check name -> reason), which does not block."""
    from dataclasses import replace

    from engine.bundle.scorecard_checks import accepted_line
    from engine.checks.results import CheckSet
    from engine.vocabulary import RECORDED_NOT_RERUN

    if not isinstance(stored, dict) or not isinstance(stored.get("final"), dict):
        return []
    final = (recomputed or {}).get("final checks")
    if final is None:
        try:
            final = CheckSet.from_json(stored["final"])
        except ValueError:
            return ["CHECKS: checks.json cannot be read"]
    final = replace(final, accepted=dict(accepted or {}))
    lines = []
    if final.gate().blocked:
        lines.append(f"CHANGES REQUESTED: {final.gate().reason()}")
    lines.append(f"declared checks (final version): checks passed {final.rate()}, N/A left out")
    for r in final.revised:
        tail = f" [{RECORDED_NOT_RERUN}]" if r.kind == "command" else ""
        lines.append(f"  {r.line()}{tail}")
    lines += [f"ACCEPTED {accepted_line(r, why)}" for r, why in final.gate().accepted]
    return lines
