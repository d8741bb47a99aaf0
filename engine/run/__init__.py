"""The review loop (``engine.run``): rounds of agent work, verdicts from the text,
integrity control, bundle. See ``engine.run.review`` for the phases.
"""

from __future__ import annotations

from engine.run.review import (
    ReviewRequest,
    ReviewRun,
    RunCancelled,
    RunHandle,
    RunOutcome,
    prepare_document,
    recover_interrupted,
    run_review,
    start_review,
)

__all__ = [
    "ReviewRequest",
    "ReviewRun",
    "RunCancelled",
    "RunHandle",
    "RunOutcome",
    "prepare_document",
    "recover_interrupted",
    "run_review",
    "start_review",
]
