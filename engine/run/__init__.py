"""The review loop: rounds of agent work, verdicts from the text, integrity control, bundle.

``start_review(request)`` is the one entry point the CLI (``arl run``) and the GUI's Run
view share; ``run_review`` runs a review on a document already in a workspace. The
package, higher modules first (an import-linter layers contract keeps it so):

- ``start``: ``ReviewRequest`` (what a run needs), ``prepare_document``, ``run_review``,
  ``start_review``.
- ``recovery``: finishing runs whose process ended mid-run (``recover_interrupted``), from
  the workspace and the run's last checkpoint.
- ``review``: ``ReviewRun``, one method per phase (prepare, rounds, score, integrity
  control, final score and bundle, checkpoint, events).
- ``records``: ``RunHandle`` (cancel, progress), ``RunOutcome``, and the per-round records
  the bundle is written from.

The package names these entry points; code inside this program imports each name from its
module.
"""

from __future__ import annotations

from engine.run.records import RunHandle, RunOutcome
from engine.run.recovery import recover_interrupted
from engine.run.review import ReviewRun
from engine.run.start import ReviewRequest, prepare_document, run_review, start_review

__all__ = [
    "ReviewRequest",
    "ReviewRun",
    "RunHandle",
    "RunOutcome",
    "prepare_document",
    "recover_interrupted",
    "run_review",
    "start_review",
]
