"""The review loop: rounds of agent work, verdicts from the text, integrity control, bundle.

``run_review(workspace, document_id, config, ...)`` is the one entry point the CLI and the
GUI share. It is a coroutine; run it as a task on the application's loop.

- The head version of the document when the run starts is the version the agent is given
  (the bundle's ``document/v1.html``). A comment without ``created_on_version_id`` was made
  on it; one naming another version falls under the stale anchor rule.
- Round after round (at most ``rounds``) while an actionable, non-stale comment is open:
  the agent works (``engine.agent.RevisionAgent.work_round``) and reports (a separate JSON
  call); the engine scores the given version against the latest pushed one
  (``engine.scoring.score``, in a worker thread), then runs the integrity control: every
  comment the agent resolved whose verdict is ``untouched`` (or ``stale_anchor``) is
  reopened with a reply on its thread saying why, and a ``CommentReopened`` event carries
  the VERIFICATION line of docs/verdicts.md.
- The run ends ``completed`` (converged, round limit, token limit), ``cancelled``
  (``RunHandle.cancel()`` honoured between steps, or the task itself cancelled) or
  ``failed`` (model, network or workspace failure, with the reason). Every ending writes an
  evidence bundle (``engine.bundle``), also on cancel and failure.
- Events (``engine.events``) go to ``on_event`` and to the workspace's event log.

Returns ``RunOutcome``. Raises only ``asyncio.CancelledError`` (after writing the bundle
marked cancelled) when the task is cancelled; every other failure is in the outcome.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine import __version__
from engine.agent import (
    AgentConfig,
    AgentError,
    ModelClient,
    RevisionAgent,
    RunCancelled,
    TokenBudgetExceeded,
    ToolOutcome,
    Trace,
    Usage,
    WorkspaceTools,
    safe_url,
)
from engine.events import (
    CommentReopened,
    ModelCalled,
    NarrationNudged,
    ReportReceived,
    RoundFinished,
    RoundStarted,
    RunEvent,
    RunFailed,
    RunFinished,
    ToolCalled,
    VerdictsComputed,
    VersionPushed,
)
from engine.models import (
    STALE_ANCHOR_MESSAGE,
    VERIFICATION_MESSAGE,
    ClaimReport,
    Comment,
    Metric,
    Reply,
)
from engine.workspace import Workspace, default_home, now_iso

__all__ = ["RunCancelled", "RunHandle", "RunOutcome", "prepare_document", "run_review"]


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

    is_interruption_requested = cancel_requested.fget  # type: ignore[assignment]

    def check(self) -> None:
        """Raise RunCancelled if ``cancel()`` was called."""
        if self._cancel.is_set():
            raise RunCancelled()


@dataclass
class RunOutcome:
    """How a run ended. ``metrics``: name -> ``arl score --json`` metric object.
    ``bundle``: the bundle folder (None only if even writing it failed)."""

    run_id: str
    status: str
    reason: str
    bundle: Path | None
    metrics: dict[str, dict[str, Any]]
    tokens: int | None
    rounds: int
    round_times: list[tuple[float, float]] = field(default_factory=list)
    """Per round: (wall seconds, seconds waiting on the model)."""

    def to_json(self) -> dict[str, Any]:
        """The last line of ``arl run --json``."""
        return {
            "bundle": str(self.bundle) if self.bundle else None,
            "status": self.status,
            "metrics": self.metrics,
        }


def prepare_document(
    workspace: Workspace, title: str, raw: str, kind: str, comments: list[Comment]
) -> str:
    """Store a document (its first version ``v1``) and its comments; returns the id."""
    doc_id, _ = workspace.create_document(title, raw, kind)
    workspace.add_comments(doc_id, comments)
    return doc_id


def _bundle_dir(out_dir: Path | None, run_id: str) -> Path:
    parent = Path(out_dir) if out_dir is not None else default_home() / "bundles"
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return parent / f"{stamp}-{run_id}"


def _round_brief(
    rnd: int,
    max_rounds: int,
    title: str,
    kind: str,
    head: str,
    pending: list[Comment],
    reopened: list[str],
) -> str:
    lines = [
        f'Round {rnd} of {max_rounds}. The document "{title}" ({kind}) is at version '
        f"{head}. {len(pending)} review comment(s) are open and each needs a "
        "disposition:"
    ]
    for c in pending[:50]:
        body = c.body if len(c.body) <= 300 else c.body[:297] + "..."
        lines.append(f'- {c.id}: on "{c.anchor.quote}": {body}')
    if len(pending) > 50:
        lines.append(f"- ... and {len(pending) - 50} more (list_comments shows them all)")
    if reopened:
        lines.append(
            "These comments were reopened because you resolved them without "
            "changing their anchored text: " + ", ".join(reopened) + ". Change "
            "their text, or reply with the reason and leave them open."
        )
    lines.append("Start with list_comments and pull_document.")
    return "\n".join(lines)


async def run_review(
    workspace: Workspace,
    document_id: str,
    config: AgentConfig,
    *,
    rounds: int = 3,
    out_dir: str | Path | None = None,
    handle: RunHandle | None = None,
    on_event: Callable[[RunEvent], None] | None = None,
    scripted: bool = False,
    app_version: str = __version__,
) -> RunOutcome:
    """Run the review loop on a workspace document; write the evidence bundle.

    ``rounds``: the round limit (>= 1). ``out_dir``: parent folder of the bundle (default
    ``<workspace home>/bundles``). ``scripted``: mark the bundle as a scripted
    demonstration (its manifest and scorecard say so). See the module docstring.
    """
    from engine import bundle as bundle_mod
    from engine.scoring import Version, score

    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    handle = handle or RunHandle()
    handle.max_rounds = rounds
    doc = workspace.document(document_id)
    given = workspace.head(document_id)
    comments_before = workspace.comments(document_id)
    open_at_start = [c for c in comments_before if c.status == "open" and c.actionable]
    visible = [c.id for c in open_at_start]
    run_id = workspace.start_run(document_id, config.model, safe_url(config.base_url))
    started_at = now_iso()
    trace = Trace()
    usage = Usage()
    state: dict[str, Any] = {"round": 0}
    round_records: list[dict[str, Any]] = []
    claims_rounds: list[dict[str, Any]] = []
    round_times: list[tuple[float, float]] = []
    pushes = 0
    last_report: ClaimReport | None = None
    converged_at: int | None = None
    stop_reason = ""

    def emit(ev: RunEvent) -> None:
        try:
            workspace.log_event(run_id, ev.to_json())
        except Exception as exc:  # the log is a convenience; the bundle has the trace
            trace.add("note", text=f"event log write failed: {exc}")
        if on_event is not None:
            try:
                on_event(ev)
            except Exception as exc:
                trace.add("note", text=f"event consumer raised {type(exc).__name__}: {exc}")

    def on_call(purpose: str, res: Any) -> None:
        emit(
            ModelCalled(
                run_id,
                round=state["round"],
                purpose=purpose,
                tokens=res.tokens,
                run_tokens=usage.total,
                seconds=round(res.seconds, 4),
                retries=res.retries,
            )
        )

    def emit_tool(rnd: int, o: ToolOutcome) -> None:
        emit(
            ToolCalled(
                run_id,
                round=rnd,
                name=o.name,
                arguments=_event_args(o.arguments),
                ok=o.ok,
                result=o.result[:200],
                comment_id=o.comment_id,
            )
        )
        if o.pushed is not None:
            row = o.pushed
            emit(
                VersionPushed(
                    run_id,
                    round=rnd,
                    version_id=row.version_id,
                    base_version_id=row.base_version_id or "",
                    characters=len(row.raw),
                    summary=row.summary,
                )
            )

    def emit_nudge(rnd: int, n: int, text: str) -> None:
        emit(
            NarrationNudged(
                run_id, round=rnd, nudge=n, max_nudges=config.max_nudges, narration=text[:500]
            )
        )

    loop = asyncio.get_running_loop()
    v_given: Any = None

    def version_of(row: Any) -> Any:
        nonlocal v_given
        if v_given is None:
            v_given = Version.from_source(given.raw, doc.kind, given.version_id)
        if row.version_id == given.version_id:
            return v_given
        return Version.from_source(row.raw, doc.kind, row.version_id)

    def do_score(latest_row: Any, claims: ClaimReport | None, final: bool) -> Any:
        v_latest = version_of(latest_row)  # parses the given version first if needed
        if final:
            if converged_at == 0:
                rtc, why = (
                    None,
                    (
                        "no actionable comment was open when the run started, so "
                        "there was nothing to converge"
                    ),
                )
            elif converged_at is not None:
                rtc, why = pushes_at_convergence, ""
            else:
                rtc = None
                why = stop_reason_for_rounds()
        else:
            rtc, why = None, "the run has not finished"
        return score(
            v_given,
            v_latest,
            comments_before,
            claims=claims,
            given_version_id=given.version_id,
            tokens=usage.total,
            tokens_reason=usage.reason(),
            rounds_to_converge=rtc,
            rounds_reason=why,
        )

    pushes_at_convergence = 0

    def stop_reason_for_rounds() -> str:
        if status_box["status"] == "cancelled":
            return "the run was cancelled before every comment was resolved"
        if status_box["status"] == "failed":
            return "the run failed before every comment was resolved"
        if stop_reason:
            return (
                f"did not converge: {stop_reason}, with {len(open_actionable())} "
                "comment(s) still unresolved"
            )
        return (
            f"did not converge within the round limit of {rounds}: "
            f"{len(open_actionable())} comment(s) still unresolved"
        )

    status_box = {"status": "completed", "reason": ""}
    stale_ids: set[str] = set()
    unusable_ids: set[str] = set()

    def open_actionable() -> list[str]:
        current = {c.id: c for c in workspace.comments(document_id)}
        return [
            cid
            for cid in visible
            if cid not in stale_ids and cid not in unusable_ids and current[cid].status == "open"
        ]

    client = ModelClient(config, trace, usage, on_call=on_call, check_cancel=handle.check)
    tools = WorkspaceTools(workspace, document_id, visible)
    agent = RevisionAgent(
        client, tools, emit_tool=emit_tool, emit_nudge=emit_nudge, check_cancel=handle.check
    )
    trace.add(
        "note",
        text="run started",
        run_id=run_id,
        settings=config.public(),
        rounds=rounds,
        document_id=document_id,
        given_version_id=given.version_id,
    )
    task_cancelled = False
    try:
        # Which comments are stale or unusable is a property of the given version alone.
        given_version = await loop.run_in_executor(None, version_of, given)
        initial = await loop.run_in_executor(
            None,
            functools.partial(
                score,
                given_version,
                given_version,
                comments_before,
                given_version_id=given.version_id,
            ),
        )
        stale_ids = {v.comment_id for v in initial.verdicts if v.verdict == "stale_anchor"}
        unusable_ids = {cid for cid, _ in initial.unusable}
        reopened_last: list[str] = []
        async with client:
            for rnd in range(1, rounds + 1):
                handle.check()
                pending = open_actionable()
                if not pending:
                    converged_at = rnd - 1
                    pushes_at_convergence = pushes
                    break
                state["round"] = rnd
                handle.round = rnd
                handle.phase = "working"
                t_round = time.monotonic()
                model_before = client.model_seconds
                tokens_before, unreported_before = usage.known, usage.unreported
                head = workspace.head(document_id)
                emit(
                    RoundStarted(
                        run_id,
                        round=rnd,
                        max_rounds=rounds,
                        version_id=head.version_id,
                        unresolved=len(pending),
                    )
                )
                by_id = {c.id: c for c in comments_before}
                brief = _round_brief(
                    rnd,
                    rounds,
                    doc.title,
                    doc.kind,
                    head.version_id,
                    [by_id[cid] for cid in pending],
                    reopened_last,
                )
                budget_hit: TokenBudgetExceeded | None = None
                try:
                    work = await agent.work_round(rnd, brief)
                    pushes = len(tools.pushed)
                    trace.add(
                        "note",
                        round=rnd,
                        text=f"round work ended: {work.stopped}",
                        turns=work.turns,
                        nudges=work.nudges,
                    )
                    handle.phase = "reporting"
                    report_comments = [c for c in comments_before if c.id in set(visible)]
                    report, raw = await agent.report(rnd, report_comments)
                except TokenBudgetExceeded as exc:
                    budget_hit = exc
                    pushes = len(tools.pushed)
                    report = ClaimReport.unusable(
                        f"the token limit of the run ({exc.budget}) was reached before the report"
                    )
                    raw = ""
                last_report = report
                claims_rounds.append({"round": rnd, "report": report.to_json(), "raw": raw})
                emit(
                    ReportReceived(
                        run_id,
                        round=rnd,
                        usable=report.usable,
                        problem=report.problem,
                        claims={c.comment_id: c.claim for c in report.comments},
                    )
                )
                handle.phase = "scoring"
                latest = workspace.head(document_id)
                result = await loop.run_in_executor(
                    None, functools.partial(do_score, latest, report, False)
                )
                v2_text = version_of(latest).text
                verdict_json = result.to_json()["verdicts"]
                round_metrics = {k: m.to_json() for k, m in result.metrics.items()}
                round_records.append(
                    {
                        "round": rnd,
                        "version_id": latest.version_id,
                        "verdicts": verdict_json,
                        "metrics": round_metrics,
                    }
                )
                emit(
                    VerdictsComputed(
                        run_id,
                        round=rnd,
                        version_id=latest.version_id,
                        counts=result.counts(),
                        verdicts=verdict_json,
                        metrics=round_metrics,
                        stale=sorted(stale_ids),
                        unusable=[list(u) for u in result.unusable],
                    )
                )
                reopened_last = _integrity_control(
                    workspace,
                    document_id,
                    run_id,
                    rnd,
                    result.verdicts,
                    visible,
                    latest.version_id,
                    v2_text,
                    emit,
                )
                remaining = open_actionable()
                converged = not remaining
                seconds = time.monotonic() - t_round
                model_s = client.model_seconds - model_before
                round_times.append((seconds, model_s))
                round_tokens = (
                    usage.known - tokens_before if usage.unreported == unreported_before else None
                )
                round_records[-1]["tokens"] = round_tokens
                emit(
                    RoundFinished(
                        run_id,
                        round=rnd,
                        seconds=round(seconds, 4),
                        model_seconds=round(model_s, 4),
                        tokens=round_tokens,
                        converged=converged,
                        run_tokens=usage.total,
                    )
                )
                if converged:
                    converged_at = rnd
                    pushes_at_convergence = pushes
                    break
                if budget_hit is not None:
                    stop_reason = (
                        f"the token limit of {budget_hit.budget} was reached in "
                        f"round {rnd} ({budget_hit.used} tokens used)"
                    )
                    break
            if converged_at is not None:
                status_box["reason"] = (
                    f"every actionable comment was resolved after {pushes_at_convergence} push(es)"
                    if converged_at
                    else "no actionable comment was open"
                )
            else:
                status_box["reason"] = stop_reason or (
                    f"the round limit of {rounds} was reached with "
                    f"{len(open_actionable())} comment(s) unresolved"
                )
    except RunCancelled:
        status_box.update(
            status="cancelled",
            reason=f"cancelled by the user during round {state['round']}"
            if state["round"]
            else "cancelled by the user before round 1",
        )
    except asyncio.CancelledError:
        task_cancelled = True
        status_box.update(
            status="cancelled",
            reason=f"the run's task was cancelled during round {state['round']}"
            if state["round"]
            else "the run's task was cancelled before round 1",
        )
    except AgentError as exc:
        status_box.update(status="failed", reason=str(exc))
    except Exception as exc:  # a bug or a workspace failure: record it, still write a bundle
        trace.add("note", text="internal error", traceback=traceback.format_exc())
        status_box.update(status="failed", reason=f"internal error: {type(exc).__name__}: {exc}")
    finally:
        await _close_quietly(client)

    # Finalisation is synchronous so it also completes when the task was cancelled.
    handle.phase = "writing"
    status, reason = status_box["status"], status_box["reason"]
    latest = workspace.head(document_id)
    metrics_json: dict[str, dict[str, Any]]
    try:
        final = do_score(latest, last_report, True)
        final_json = final.to_json()
        metrics_json = final_json["metrics"]
        final_verdicts = final_json["verdicts"]
        unusable = [list(u) for u in final.unusable]
        collateral = final.to_json(extended=True)["collateral"]
    except Exception as exc:
        trace.add("note", text="final scoring failed", traceback=traceback.format_exc())
        why = f"scoring failed: {type(exc).__name__}: {exc}"
        metrics_json = {
            k: Metric.na(why).to_json()
            for k in (
                "attribution_rate",
                "collateral_churn",
                "claim_accuracy",
                "cost_per_attributed_fix",
                "rounds_to_converge",
            )
        }
        final_verdicts, unusable, collateral = [], [], []
    if usage.total is None and "cost_per_attributed_fix" in metrics_json:
        trace.add("note", text=usage.reason())
    versions = workspace.versions(document_id)
    run_versions = [v for v in versions if v.seq > given.seq]
    push_round = {vid: r for r, vid, _ in agent.push_summaries}
    content = bundle_mod.BundleContent(
        run_id=run_id,
        status=status,
        reason=reason,
        app_version=app_version,
        created_at=started_at,
        finished_at=now_iso(),
        model=config.model,
        base_url=safe_url(config.base_url),
        document_title=doc.title,
        document_kind=doc.kind,
        given_version_id=given.version_id,
        v1=given.raw,
        rounds=[
            (v.version_id, v.raw, v.summary, push_round.get(v.version_id, state["round"]))
            for v in run_versions
        ],
        comments_before=[c.to_json() for c in comments_before],
        comments_after=[c.to_json() for c in workspace.comments(document_id)],
        claims={
            "rounds": claims_rounds,
            "final": last_report.to_json() if last_report is not None else None,
        },
        trace=trace.to_json() | {"usage": usage.to_json()},
        verdicts={
            "rounds": round_records,
            "final": final_verdicts,
            "unusable": unusable,
            "collateral": collateral,
        },
        metrics=metrics_json,
        tokens=usage.total,
        rounds_run=state["round"],
        scripted=scripted,
        settings=config.public(),
        secrets=[config.api_key] if config.api_key else [],
    )
    bundle_path: Path | None = None
    try:
        bundle_path = bundle_mod.write_bundle(_bundle_dir(out_dir, run_id), content)
    except Exception as exc:
        reason = f"{reason}; the evidence bundle could not be written: {exc}".lstrip("; ")
        if status == "completed":
            status = "failed"
    workspace.finish_run(run_id, status, reason, str(bundle_path or ""))
    if status == "failed":
        emit(RunFailed(run_id, reason=reason, bundle=str(bundle_path or "")))
    else:
        emit(
            RunFinished(
                run_id,
                status=status,
                reason=reason,
                bundle=str(bundle_path or ""),
                metrics=metrics_json,
                tokens=usage.total,
            )
        )
    handle.phase = "done"
    outcome = RunOutcome(
        run_id, status, reason, bundle_path, metrics_json, usage.total, state["round"], round_times
    )
    if task_cancelled:
        raise asyncio.CancelledError()
    return outcome


async def _close_quietly(client: ModelClient) -> None:
    try:
        await asyncio.shield(client.aclose())
    except BaseException:  # cancelled again while closing: the bundle matters more
        pass


def _event_args(args: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in args.items():
        if isinstance(v, str) and len(v) > 300:
            v = v[:300] + "…"
        out[k] = v
    return out


def _integrity_control(
    workspace: Workspace,
    document_id: str,
    run_id: str,
    rnd: int,
    verdicts: list[Any],
    visible: list[str],
    version_id: str,
    v2_text: str,
    emit: Callable[[RunEvent], None],
) -> list[str]:
    """Reopen every comment of the run that is resolved while its verdict is ``untouched``
    (resolution without an edit) or ``stale_anchor`` (left unresolved by rule). Returns
    the reopened ids."""
    by_id = {v.comment_id: v for v in verdicts}
    reopened = []
    visible_set = set(visible)
    for c in workspace.comments(document_id):
        if c.id not in visible_set or c.status != "resolved":
            continue
        v = by_id.get(c.id)
        if v is None:
            continue
        if v.verdict == "untouched":
            quote = (v.v2.text if v.v2 else c.anchor.quote) or ""
            short = quote if len(quote) <= 120 else quote[:117] + "..."
            reason = (
                f"Reopened by the review harness: this comment was marked resolved, but "
                f"its anchored text is unchanged in version {version_id} "
                f'("{short}"). Resolving needs an edit to the commented passage; if '
                "you did not change it, reply with the reason and leave it open."
            )
            message = VERIFICATION_MESSAGE
        elif v.verdict == "stale_anchor":
            reason = (
                "Reopened by the review harness: the quoted text of this comment is not "
                "in the version the agent was given, so it cannot be checked and stays "
                "unresolved."
            )
            message = STALE_ANCHOR_MESSAGE
        else:
            continue
        workspace.set_status(
            document_id, c.id, "open", reply=Reply("review harness", reason, now_iso(), "reopen")
        )
        reopened.append(c.id)
        emit(CommentReopened(run_id, round=rnd, comment_id=c.id, reason=reason, message=message))
    return reopened
