"""Recovery of runs whose process ended while they ran, from the workspace and the last
checkpoint a run saved.

A ``ReviewRun`` saves a checkpoint (``ReviewRun.checkpoint_state``: what a bundle needs
beyond the workspace's versions and comments) when it is prepared and after every round.
When a process dies mid-run, the workspace still says ``running``; the next
``start_review`` calls ``recover_interrupted``, which finishes each such run as the run
itself would have: ``failed`` ("interrupted ..."), a ``RunRecovered`` event, and its
evidence bundle written from the checkpoint (``restore`` reads it back into a
``ReviewRun``). A bundle the run already wrote is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import __version__
from engine.agent.config import AgentConfig
from engine.events import RunEvent, RunRecovered
from engine.models import ClaimItem, ClaimReport, Comment
from engine.run.records import ClaimsRound, RoundRecord, RunOutcome
from engine.run.review import ReviewRun
from engine.workspace import RunRow, Workspace, WorkspaceError, default_home

__all__ = ["recover_interrupted", "recover_run", "restore"]


def recover_interrupted(
    workspace: Workspace,
    *,
    out_dir: Path | None = None,
    on_event: Callable[[RunEvent], None] | None = None,
    signing_key: bytes | None = None,
) -> list[RunOutcome]:
    """Finish every run of ``workspace`` whose process died while it ran (see
    ``recover_run``); each gets its bundle and a ``RunRecovered`` event. Failures are
    skipped (the next start tries again)."""
    out = []
    for row in workspace.interrupted_runs():
        try:
            out.append(
                recover_run(
                    workspace, row, out_dir=out_dir, on_event=on_event, signing_key=signing_key
                )
            )
        except (WorkspaceError, KeyError, TypeError, ValueError):
            continue
    return out


def recover_run(
    workspace: Workspace,
    row: RunRow,
    *,
    out_dir: Path | None = None,
    on_event: Callable[[RunEvent], None] | None = None,
    signing_key: bytes | None = None,
) -> RunOutcome:
    """Finish a run whose process died (``Workspace.interrupted_runs``): mark it
    ``failed`` ("interrupted ...") and write its bundle from the workspace and its last
    checkpoint, as the run itself would have. A bundle the run already wrote is kept
    (only the workspace record is completed). Raises WorkspaceError when even the
    record cannot be written."""
    cp = workspace.checkpoint(row.id) or {}
    parent = Path(cp["out_dir"]) if cp.get("out_dir") else out_dir
    why = (
        f"interrupted: the process running it ended during round {cp.get('round', 0)} "
        "without finishing; this bundle was written from the workspace when the next "
        "run started"
    )
    written = _existing_bundle(parent, row.id)
    if written is not None or not cp:
        reason = why.split(";")[0] + (
            "; its evidence bundle was already written"
            if written
            else "; no bundle: the run left no checkpoint (recorded by an older version)"
        )
        workspace.finish_run(row.id, "failed", reason, str(written or ""))
        if on_event is not None:
            on_event(RunRecovered(row.id, reason=reason, bundle=str(written or "")))
        return RunOutcome(row.id, "failed", reason, written, {}, None, int(cp.get("round", 0)))
    config = AgentConfig(base_url=cp.get("base_url") or row.base_url, model=row.model)
    run = ReviewRun(
        workspace,
        row.document_id,
        config,
        rounds=max(1, int(cp.get("max_rounds", 1))),
        out_dir=parent,
        on_event=on_event,
        scripted=bool(cp.get("scripted")),
        app_version=str(cp.get("app_version") or __version__),
        signing_key=signing_key,
    )
    restore(run, row, cp)
    run.recovered = True
    run.end("failed", why)
    return run.finish()


def restore(run: ReviewRun, row: RunRow, cp: dict[str, Any]) -> None:
    """Put a checkpoint (``ReviewRun.checkpoint_state``'s shape) back into ``run``, a
    ReviewRun made for the interrupted run ``row``; the trace notes the recovery."""
    ws = run.workspace
    run.run_id = row.id
    run.started_at = str(cp.get("started_at") or row.started_at)
    run.doc = ws.document(row.document_id)
    run.given = ws.version(row.document_id, str(cp["given_version_id"]))
    run.comments_before = [Comment.from_json(c) for c in cp.get("comments_before", [])]
    run.visible = list(cp.get("visible", []))
    run.stale_ids = set(cp.get("stale_ids", []))
    run.unusable_ids = set(cp.get("unusable_ids", []))
    run.round = int(cp.get("round", 0))
    run.claims_rounds = [
        ClaimsRound(int(r["round"]), report_from_json(r["report"]), str(r.get("raw", "")))
        for r in cp.get("claims_rounds", [])
    ]
    run.round_records = [RoundRecord(**r) for r in cp.get("round_records", [])]
    last = cp.get("last_report")
    run.last_report = report_from_json(last) if isinstance(last, dict) else None
    run.converged_at = cp.get("converged_at")
    run.pushes = int(cp.get("pushes", 0))
    run.pushes_at_convergence = int(cp.get("pushes_at_convergence", 0))
    run.stop_reason = str(cp.get("stop_reason", ""))
    for k, v in (cp.get("usage") or {}).items():
        if k in vars(run.usage) and isinstance(v, int):
            setattr(run.usage, k, v)
    trace = cp.get("trace") or {}
    run.trace.started_at = str(trace.get("started_at") or run.trace.started_at)
    run.trace.entries = list(trace.get("entries") or [])
    run.trace.add("note", text="run recovered after its process ended", run_id=row.id)
    run.settings_record = dict(cp.get("settings") or {})
    if isinstance(cp.get("checks"), dict):
        from engine.models import InputError
        from engine.run.checking import RunChecks

        try:
            run.checks = RunChecks.from_checkpoint(cp["checks"])
        except (InputError, ValueError) as exc:  # recorded, not fatal: the bundle says so
            run.trace.add("note", text=f"the declared checks could not be restored: {exc}")
    run.push_round = {str(k): int(v) for k, v in (cp.get("push_round") or {}).items()}


def report_from_json(obj: dict[str, Any]) -> ClaimReport:
    """A ``ClaimReport`` from its ``to_json()`` shape (a checkpoint)."""
    return ClaimReport(
        comments=[
            ClaimItem(
                str(c["comment_id"]),
                c["claim"],
                str(c.get("change_summary", "")),
                str(c.get("rationale", "")),
            )
            for c in obj.get("comments", [])
        ],
        notes=str(obj.get("notes", "")),
        usable=bool(obj.get("usable", True)),
        problem=str(obj.get("problem", "")),
    )


def _existing_bundle(parent: Path | None, run_id: str) -> Path | None:
    """A bundle folder the run already wrote under ``parent`` (``*-<run id>`` with a
    manifest), or None."""
    folder = parent if parent is not None else default_home() / "bundles"
    try:
        for p in sorted(folder.glob(f"*-{run_id}")):
            if (p / "manifest.json").is_file():
                return p
    except OSError:
        return None
    return None
