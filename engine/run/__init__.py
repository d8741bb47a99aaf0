"""The review loop (``engine.run``): rounds of agent work, verdicts from the text,
integrity control, bundle. See ``engine.run.review`` for the phases.
"""

from __future__ import annotations

from engine.agent import RunCancelled
from engine.run.records import RunHandle, RunOutcome
from engine.run.recovery import recover_interrupted
from engine.run.review import ReviewRun
from engine.run.start import ReviewRequest, prepare_document, run_review, start_review

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
