"""The declared checks of a review run (docs/checks.md): run after each round's verdicts
on the given version and the latest pushed one, their FAILs carried word for word into the
next round's brief, and the records the bundle's ``checks.json`` is written from.

``RunChecks(config, allow_commands, suffix)``; ``run(rnd, given, latest, result)`` returns
the round's ``CheckSet``; ``brief_lines(checks)`` the lines the next brief carries;
``to_json(final)`` the ``checks.json`` object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.checks.config import ChecksConfig
from engine.checks.results import CheckSet
from engine.checks.runner import run_checks
from engine.vocabulary import CHANGES_REQUESTED

if TYPE_CHECKING:
    from engine.score.scoring import ScoreResult, Version

__all__ = ["RunChecks", "checks_brief"]

CHECKS_FORMAT = 1
"""The shape of ``checks.json`` (docs/bundle.md, ``arl-bundle/3``)."""


def checks_brief(checks: CheckSet) -> list[str]:
    """The brief's lines for every FAIL of the revised version, its output word for word
    (a failure already in the reviewed version too, marked so); [] when nothing failed."""
    failures = checks.failures()
    if not failures:
        return []
    lines = [
        f"The reviewer's declared checks FAIL on the latest version ({len(failures)}). "
        "Approval is blocked until they pass; fix the document so that each passes. "
        "Each check's output, word for word:"
    ]
    for r in failures:
        tail = " (already in the version you were given)" if r.already else ""
        lines.append(f"- {r.title}: {r.summary}{tail}")
        lines.extend(f"    {x}" for x in (r.output or r.summary).splitlines())
    return lines


@dataclass
class RunChecks:
    """The checks of one run and their results round by round."""

    config: ChecksConfig
    allow_commands: bool = False
    suffix: str = ""
    rounds: list[dict[str, Any]] = field(default_factory=list)
    last: CheckSet | None = None
    last_version: str = ""

    def run(self, rnd: int, given: Version, latest: Version, result: ScoreResult) -> CheckSet:
        """The checks on ``given`` and ``latest`` (``result``: their scoring, whose verdict
        spans are the commented passages and whose diff the numbers check reads)."""
        checks = run_checks(
            self.config,
            given,
            latest,
            verdicts=result.verdicts,
            diff=result.diff,
            allow_commands=self.allow_commands,
            suffix=self.suffix,
        )
        self.last, self.last_version = checks, latest.version_id
        if rnd > 0:
            self.rounds.append({"round": rnd, "version_id": latest.version_id} | checks.to_json())
        return checks

    def checkpoint(self) -> dict[str, Any]:
        """What ``engine.run.recovery`` needs to finish the checks of an interrupted run."""
        return {
            "toml": self.config.text,
            "allow_commands": self.allow_commands,
            "suffix": self.suffix,
            "rounds": self.rounds,
        }

    @classmethod
    def from_checkpoint(cls, cp: dict[str, Any]) -> RunChecks:
        """The checks of an interrupted run, from ``checkpoint()``. Its commands do not run
        again: the process that finishes it is not the one the user allowed them in, so a
        version not checked before reads UNVERIFIED for them. Raises InputError when the
        checks file cannot be read back."""
        from engine.checks.config import parse_checks

        run = cls(
            parse_checks(str(cp.get("toml") or ""), "checks.toml"),
            False,
            str(cp.get("suffix") or ""),
        )
        run.rounds = [r for r in cp.get("rounds") or [] if isinstance(r, dict)]
        if run.rounds:
            last = run.rounds[-1]
            run.last, run.last_version = CheckSet.from_json(last), str(last.get("version_id"))
        return run

    def blocks_convergence(self) -> bool:
        """The last round's checks FAIL (a FAIL the agent can fix; an UNVERIFIED does not
        keep the run going)."""
        return self.last is not None and self.last.gate().failed

    def to_json(self, final: CheckSet | None, final_version: str) -> dict[str, Any]:
        """``checks.json``: the policy, each round's results and the final ones, and the
        outcome ("changes requested" when the final gate blocks, else null)."""
        gate = final.gate() if final is not None else None
        return {
            "format": CHECKS_FORMAT,
            "checks": self.config.check_names(),
            "allow_commands": self.allow_commands,
            "rounds": self.rounds,
            "final": None if final is None else {"version_id": final_version} | final.to_json(),
            "outcome": CHANGES_REQUESTED if gate is not None and gate.blocked else None,
            "reason": gate.reason() if gate is not None else "",
        }
