"""The records of a review run: its progress handle, its outcome, and the per-round
records that go into the evidence bundle (``verdicts.json``, ``claims.json``).

``RunHandle``: cooperative cancel and progress, shared with the caller's thread.
``RunOutcome``: how a run ended (``ReviewRun.run``'s result). ``RoundRecord`` and
``ClaimsRound``: one round's verdicts and one round's report, in the bundle's JSON shapes.
``RoundWork`` and ``FinalScore``: what a phase hands to the next.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.agent.config import RunCancelled, TokenBudgetExceeded
from engine.models import ClaimReport
from engine.vocabulary import CHANGES_REQUESTED, RunStatus

__all__ = [
    "METRIC_NAMES",
    "ClaimsRound",
    "FinalScore",
    "RoundRecord",
    "RoundWork",
    "RunHandle",
    "RunOutcome",
]

METRIC_NAMES = (
    "attribution_rate",
    "collateral_churn",
    "claim_accuracy",
    "cost_per_attributed_fix",
    "rounds_to_converge",
)


class RunHandle:
    """Cooperative cancel and progress for one run (Orange3's task-state idea).

    ``cancel()`` may be called from any thread; the run checks it between steps (before
    each model call, between tool calls, between rounds) and ends ``cancelled`` with a
    bundle. ``round``/``max_rounds``/``phase`` tell progress (``phase``: ``starting`` |
    ``working`` | ``reporting`` | ``scoring`` | ``writing`` | ``done``).
    """

    def __init__(self) -> None:
        self._cancel = threading.Event()
        self.round = 0
        self.max_rounds = 0
        self.phase = "starting"

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def is_interruption_requested(self) -> bool:
        """``cancel_requested`` under Orange3's name for it."""
        return self._cancel.is_set()

    def check(self) -> None:
        """Raise RunCancelled if ``cancel()`` was called."""
        if self._cancel.is_set():
            raise RunCancelled()


@dataclass
class RunOutcome:
    """How a run ended. ``metrics``: name -> ``arl score --json`` metric object.
    ``bundle``: the bundle folder (None only if even writing it failed)."""

    run_id: str
    status: RunStatus
    reason: str
    bundle: Path | None
    metrics: dict[str, dict[str, Any]]
    tokens: int | None
    rounds: int
    round_times: list[tuple[float, float]] = field(default_factory=list)
    """Per round: (wall seconds, seconds waiting on the model)."""
    word_revision: Path | None = None
    """The agent's revision written as a Word file with tracked changes (a run that started
    from a ``.docx``, ``engine.run.start.word_revision_of_run``); None: none written."""
    checks_blocked: bool | None = None
    """The declared checks' gate on the final version blocks ("changes requested"); None
    when the run declares no checks (docs/checks.md)."""

    @property
    def outcome(self) -> str | None:
        """ "changes requested" when a declared check blocks, else None."""
        return CHANGES_REQUESTED if self.checks_blocked else None

    def to_json(self) -> dict[str, Any]:
        """The last line of ``arl run --json``."""
        out: dict[str, Any] = {
            "bundle": str(self.bundle) if self.bundle else None,
            "status": self.status,
            "metrics": self.metrics,
        }
        if self.checks_blocked is not None:
            out["outcome"] = self.outcome
        return out


@dataclass
class RoundRecord:
    """One round's verdicts in the bundle's ``verdicts.json`` (``rounds`` list)."""

    round: int
    version_id: str
    verdicts: list[dict[str, Any]]
    metrics: dict[str, dict[str, Any]]
    tokens: int | None = None
    unusable: list[dict[str, str]] = field(default_factory=list)
    collateral: list[dict[str, Any]] = field(default_factory=list)
    #: ``[{"comment_id", "reason", "message"}]``: what the integrity control reopened.
    reopened: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The round record of ``verdicts.json`` (``engine.bundle.schema.RoundJson``)."""
        return {
            "round": self.round,
            "version_id": self.version_id,
            "verdicts": self.verdicts,
            "metrics": self.metrics,
            "tokens": self.tokens,
            "unusable": self.unusable,
            "collateral": self.collateral,
            "reopened": self.reopened,
        }


@dataclass
class ClaimsRound:
    """One round's report in the bundle's ``claims.json`` (``rounds`` list). ``raw``: the
    model's text as received ("" when no report call was made)."""

    round: int
    report: ClaimReport
    raw: str

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "report": self.report.to_json(), "raw": self.raw}


@dataclass
class RoundWork:
    """What the agent's part of a round produced: its report (possibly unusable), the raw
    report text, the token-limit stop when the run's budget ran out in the round, and
    ``interrupted``: why the agent's work ended early after its push (a model call
    failed; the run stops after scoring the round), "" when it did not."""

    report: ClaimReport
    raw: str
    budget_hit: TokenBudgetExceeded | None = None
    interrupted: str = ""


@dataclass
class FinalScore:
    """The last scoring of the run, in the bundle's JSON shapes."""

    metrics: dict[str, dict[str, Any]]
    verdicts: list[dict[str, Any]]
    unusable: list[dict[str, str]]
    collateral: list[dict[str, Any]]
