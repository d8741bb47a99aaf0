"""``ReviewRun``: one review run on a workspace document, one method per phase.

A ``ReviewRun`` has one method per phase, its state in typed attributes:

- ``prepare()``: record the run in the workspace (``running``), emit ``RunStarted``, build
  the model client, the workspace tools and the agent. The head version of the document
  when the run starts is the version the agent is given (the bundle's
  ``document/v1.html``). A comment without ``created_on_version_id`` was made on it; one
  naming another version falls under the stale anchor rule.
- ``score_given()``: which comments are stale or unusable (a property of the given version).
- ``work_round(n)``: round after round (at most ``rounds``) while an actionable, non-stale
  comment is open, the agent works (``agent_turns``: ``engine.agent.RevisionAgent``'s
  ``work_round`` and its separate JSON report call), then ``score_round`` scores the given
  version against the latest pushed one (``engine.score.scoring.score``, in a worker thread),
  then ``integrity_control`` runs: every comment the agent resolved whose verdict is
  ``untouched`` (or ``stale_anchor``) is reopened with a reply on its thread saying why,
  and a ``CommentReopened`` event carries the VERIFICATION line of docs/verdicts.md.
- ``final_score()`` and ``write_bundle()``: the run ends ``completed`` (converged, round
  limit, token limit), ``cancelled`` (``RunHandle.cancel()`` honoured between steps, or the
  task itself cancelled) or ``failed`` (model, network or workspace failure, with the
  reason). Every ending writes an evidence bundle (``engine.bundle``), also on cancel and
  failure.
- ``save_checkpoint()`` after ``prepare`` and after every round: what
  ``engine.run.recovery`` needs to finish the run if its process ends.

Events (``engine.events``) go to ``on_event`` and to the workspace's event log: the one
stream the CLI and the GUI consume.

``run()`` returns ``RunOutcome``. It raises only ``asyncio.CancelledError`` (after writing
the bundle marked cancelled) when the task is cancelled; every other failure is in the
outcome.

Why this module is long: ``ReviewRun`` is one object whose phases share one typed state
(the rounds, verdicts, claims, usage and trace the bundle is written from); its records,
entry points and recovery live beside it in ``engine/run/``, and splitting the phases
themselves across modules would scatter that state.
"""

from __future__ import annotations

import asyncio
import functools
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import __version__
from engine.agent.client import ModelClient
from engine.agent.config import (
    AgentConfig,
    AgentError,
    RunCancelled,
    TokenBudgetExceeded,
    Trace,
    Usage,
    safe_url,
)
from engine.agent.intake import admit_report
from engine.agent.modes import ModeAgent, make_agent
from engine.agent.tools import ToolOutcome, WorkspaceTools
from engine.events import (
    AgentNotice,
    ChecksComputed,
    ClaimUnchanged,
    CommentReopened,
    ModelCalled,
    NarrationNudged,
    ReportReceived,
    RoundFinished,
    RoundStarted,
    RunEvent,
    RunFailed,
    RunFinished,
    RunRecovered,
    RunStarted,
    ToolCalled,
    VerdictsComputed,
    VersionPushed,
    event_from_json,
)
from engine.models import ClaimReport, Comment, Metric, Reply, VerdictRecord
from engine.redact import known_secrets, redact, redact_json, url_note
from engine.run.checking import RunChecks, checks_brief
from engine.run.records import (
    METRIC_NAMES,
    ClaimsRound,
    FinalScore,
    RoundRecord,
    RoundWork,
    RunHandle,
    RunOutcome,
)
from engine.vocabulary import (
    PROGRAM_AUTHOR,
    PROGRAM_AUTHOR_WORDS,
    STALE_ANCHOR_MESSAGE,
    VERIFICATION_MESSAGE,
    RunStatus,
    plural,
)
from engine.workspace import (
    DocumentRow,
    VersionRow,
    Workspace,
    WorkspaceError,
    default_home,
    now_iso,
)

if TYPE_CHECKING:
    from engine.bundle.write import BundleContent
    from engine.checks.results import CheckSet
    from engine.score.scoring import ScoreResult, Version

__all__ = ["ReviewRun"]


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
    failing: list[str] | None = None,
) -> str:
    lines = [
        f'Round {rnd} of {max_rounds}. The document "{title}" ({kind}) is at version '
        f"{head}. {plural(len(pending), 'review comment')} "
        f"{'is' if len(pending) == 1 else 'are'} open and each needs a disposition:"
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
    if failing:  # the declared checks' FAILs, word for word (docs/checks.md)
        lines.extend(failing)
    lines.append("Start with list_comments and pull_document.")
    return "\n".join(lines)


class ReviewRun:
    """One review run on a workspace document. Create it, then ``await run()`` once.

    ``rounds``: the round limit (>= 1; ValueError otherwise). ``out_dir``: parent folder
    of the bundle. ``scripted``: mark the bundle as a scripted demonstration (its manifest
    and scorecard say so). ``key_source``: where the key came from, said in ``RunStarted``.
    See the module docstring for the phases.
    """

    # Set by prepare().
    doc: DocumentRow
    given: VersionRow
    client: ModelClient
    tools: WorkspaceTools
    agent: ModeAgent

    def __init__(
        self,
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
        key_source: str = "",
        signing_key: bytes | None = None,
        checks: RunChecks | None = None,
        word_versions: tuple[str, ...] = (),
    ) -> None:
        if rounds < 1:
            raise ValueError("rounds must be at least 1")
        self.workspace = workspace
        self.document_id = document_id
        self.config = config
        self.max_rounds = rounds
        self.out_dir = Path(out_dir) if out_dir is not None else None
        self.handle = handle or RunHandle()
        self.on_event = on_event
        self.scripted = scripted
        self.app_version = app_version
        self.key_source = key_source
        self.signing_key = signing_key
        #: The declared checks (docs/checks.md), None when the run has none.
        self.checks = checks
        self.final_checks: CheckSet | None = None
        #: The versions read from Word files: ("v1",) for a run that starts from a .docx.
        self.word_versions = word_versions
        # Filled by prepare().
        self.run_id = ""
        self.started_at = ""
        self.comments_before: list[Comment] = []
        self.visible: list[str] = []
        # Progress and results.
        self.trace = Trace()
        self.usage = Usage()
        self.round = 0
        self.round_records: list[RoundRecord] = []
        self.claims_rounds: list[ClaimsRound] = []
        self.round_times: list[tuple[float, float]] = []
        self.pushes = 0
        self.pushes_at_convergence = 0
        self.converged_at: int | None = None
        self.last_report: ClaimReport | None = None
        self.stop_reason = ""
        self.status: RunStatus = "completed"
        self.reason = ""
        self.task_cancelled = False
        self.stale_ids: set[str] = set()
        self.unusable_ids: set[str] = set()
        self.reopened_last: list[str] = []
        self._v_given: Version | None = None
        #: The settings the bundle records (the config's public part and the agent mode).
        self.settings_record: dict[str, Any] = {}
        #: True for a run finished by ``engine.run.recovery`` after its process ended.
        self.recovered = False
        #: Version id -> the round that pushed it.
        self.push_round: dict[str, int] = {}

    # -- the whole run ----------------------------------------------------------------------

    async def run(self) -> RunOutcome:
        """Prepare, work the rounds, then score, write the bundle and finish the run."""
        self.prepare()
        try:
            await self.score_given()
            async with self.client:
                await self.work_rounds()
        except RunCancelled:
            self.end(
                "cancelled",
                f"cancelled by the user during round {self.round}"
                if self.round
                else "cancelled by the user before round 1",
            )
        except asyncio.CancelledError:
            self.task_cancelled = True
            self.end(
                "cancelled",
                f"the run's task was cancelled during round {self.round}"
                if self.round
                else "the run's task was cancelled before round 1",
            )
        except AgentError as exc:
            self.end("failed", str(exc))
        except WorkspaceError as exc:  # a full disk, a locked file: its one plain sentence
            self.trace.add("note", text="workspace error", traceback=traceback.format_exc())
            self.end("failed", str(exc))
        except Exception as exc:  # a bug: record it, still write a bundle
            self.trace.add("note", text="internal error", traceback=traceback.format_exc())
            self.end("failed", f"internal error: {type(exc).__name__}: {exc}")
        finally:
            await _close_quietly(self.client)
        # Finalisation is synchronous so it also completes when the task was cancelled.
        outcome = self.finish()
        if self.task_cancelled:
            raise asyncio.CancelledError()
        return outcome

    def end(self, status: RunStatus, reason: str) -> None:
        """Set how the run ends (``finish`` records it)."""
        self.status, self.reason = status, reason

    # -- phase 1: prepare -------------------------------------------------------------------

    def prepare(self) -> None:
        """Record the run (``running``), emit ``RunStarted``, build client, tools and agent."""
        ws, doc_id = self.workspace, self.document_id
        self.handle.max_rounds = self.max_rounds
        self.doc = ws.document(doc_id)
        self.given = ws.head(doc_id)
        self.comments_before = ws.comments(doc_id)
        self.visible = [c.id for c in self.comments_before if c.status == "open" and c.actionable]
        self.run_id = ws.start_run(doc_id, self.config.model, safe_url(self.config.base_url))
        self.started_at = now_iso()
        self.emit(
            RunStarted(
                self.run_id,
                workspace=str(ws.path),
                document_id=doc_id,
                comments=len(self.comments_before),
                model=self.config.model,
                base_url=safe_url(self.config.base_url),
                max_rounds=self.max_rounds,
                key_source=self.key_source,
                url_note=url_note(self.config.base_url),
            )
        )
        self.client = ModelClient(
            self.config,
            self.trace,
            self.usage,
            on_call=self._on_call,
            check_cancel=self.handle.check,
        )
        self.tools = WorkspaceTools(ws, doc_id, self.visible)
        self.agent = make_agent(
            self.client,
            self.tools,
            emit_tool=self._emit_tool,
            emit_nudge=self._emit_nudge,
            emit_notice=self._emit_notice,
            check_cancel=self.handle.check,
        )
        self.trace.add(
            "note",
            text="run started",
            run_id=self.run_id,
            settings=self.config.public(),
            rounds=self.max_rounds,
            document_id=doc_id,
            given_version_id=self.given.version_id,
            scripted=self.scripted,
        )
        self.save_checkpoint()

    async def score_given(self) -> None:
        """Which comments are stale or unusable: a property of the given version alone."""
        from engine.score.scoring import score

        loop = asyncio.get_running_loop()
        given_version = await loop.run_in_executor(None, self.version_of, self.given)
        initial = await loop.run_in_executor(
            None,
            functools.partial(
                score,
                given_version,
                given_version,
                self.comments_before,
                given_version_id=self.given.version_id,
            ),
        )
        self.stale_ids = {v.comment_id for v in initial.verdicts if v.verdict == "stale_anchor"}
        self.unusable_ids = {cid for cid, _ in initial.unusable}

    # -- phase 2: the rounds ----------------------------------------------------------------

    async def work_rounds(self) -> None:
        """Work round after round until convergence, the round limit or the token limit."""
        for rnd in range(1, self.max_rounds + 1):
            self.handle.check()
            pending = self.open_actionable()
            if not pending and not (self.checks and self.checks.blocks_convergence()):
                self.converged_at = rnd - 1
                self.pushes_at_convergence = self.pushes
                break
            if await self.work_round(rnd, pending):
                break
        if self.converged_at is not None:
            self.reason = (
                "every actionable comment was resolved after "
                + plural(self.pushes_at_convergence, "push", "pushes")
                if self.converged_at
                else "no actionable comment was open"
            )
        else:
            self.reason = self.stop_reason or (
                f"the round limit of {self.max_rounds} was reached with "
                f"{plural(len(self.open_actionable()), 'comment')} unresolved"
            )
            if self.checks is not None and self.checks.blocks_convergence():
                self.reason += " and a declared check still failing"

    async def work_round(self, rnd: int, pending: list[str]) -> bool:
        """One round: the agent works and reports, the engine scores and checks integrity.
        Returns True when the run stops after it (converged or out of tokens)."""
        self.round = rnd
        self.handle.round = rnd
        self.handle.phase = "working"
        t_round = time.monotonic()
        model_before = self.client.model_seconds
        tokens_before, unreported_before = self.usage.known, self.usage.unreported
        head = self.workspace.head(self.document_id)
        self.emit(
            RoundStarted(
                self.run_id,
                round=rnd,
                max_rounds=self.max_rounds,
                version_id=head.version_id,
                unresolved=len(pending),
            )
        )
        work = await self.agent_turns(rnd, self.brief(rnd, head.version_id, pending))
        self.last_report = work.report
        self.claims_rounds.append(ClaimsRound(rnd, work.report, work.raw))
        self.emit(
            ReportReceived(
                self.run_id,
                round=rnd,
                usable=work.report.usable,
                problem=work.report.problem,
                claims={c.comment_id: c.claim for c in work.report.comments},
            )
        )
        self.handle.phase = "scoring"
        latest = self.workspace.head(self.document_id)
        result = await self.score_round(rnd, latest, work.report)
        await self.check_round(rnd, latest, result)
        self.reopened_last = self.integrity_control(rnd, result.verdicts, latest, work.report)
        converged = not self.open_actionable() and not (
            self.checks and self.checks.blocks_convergence()
        )
        seconds = time.monotonic() - t_round
        model_s = self.client.model_seconds - model_before
        self.round_times.append((seconds, model_s))
        round_tokens = (
            self.usage.known - tokens_before if self.usage.unreported == unreported_before else None
        )
        self.round_records[-1].tokens = round_tokens
        self.emit(
            RoundFinished(
                self.run_id,
                round=rnd,
                seconds=round(seconds, 4),
                model_seconds=round(model_s, 4),
                tokens=round_tokens,
                converged=converged,
                run_tokens=self.usage.total,
            )
        )
        self.save_checkpoint()
        if converged:
            self.converged_at = rnd
            self.pushes_at_convergence = self.pushes
            return True
        if work.budget_hit is not None:
            self.stop_reason = (
                f"the token limit of {work.budget_hit.budget} was reached in "
                f"round {rnd} ({work.budget_hit.used} tokens used)"
            )
            return True
        if work.interrupted:
            self.stop_reason = f"stopped in round {rnd}: {work.interrupted}"
            return True
        return False

    def brief(self, rnd: int, head: str, pending: list[str]) -> str:
        """The round's brief: the open comments, those reopened, and the declared checks'
        FAILs of the last round word for word."""
        by_id = {c.id: c for c in self.comments_before}
        return _round_brief(
            rnd,
            self.max_rounds,
            self.doc.title,
            self.doc.kind,
            head,
            [by_id[cid] for cid in pending],
            self.reopened_last,
            checks_brief(self.checks.last) if self.checks and self.checks.last else None,
        )

    async def agent_turns(self, rnd: int, brief: str) -> RoundWork:
        """The agent's part of a round: its tool turns, then its report (a separate call).
        A token-limit stop yields an unusable report naming the limit; so does a round the
        agent ended early after its push (``interrupted``), whose report is not asked."""
        try:
            work = await self.agent.work_round(rnd, brief)
            self.pushes = len(self.tools.pushed)
            self.trace.add(
                "note",
                round=rnd,
                text=f"round work ended: {work.stopped}",
                turns=work.turns,
                nudges=work.nudges,
            )
            if work.interrupted:  # the server just failed: no report is asked of it
                report = ClaimReport.unusable(f"the report was not asked for: {work.interrupted}")
                return RoundWork(report, "", interrupted=work.interrupted)
            self.handle.phase = "reporting"
            visible = set(self.visible)
            report_comments = [c for c in self.comments_before if c.id in visible]
            report, raw = await self.agent.report(rnd, report_comments)
            return RoundWork(*admit_report(report, raw))
        except TokenBudgetExceeded as exc:
            self.pushes = len(self.tools.pushed)
            report = ClaimReport.unusable(
                f"the token limit of the run ({exc.budget}) was reached before the report"
            )
            return RoundWork(report, "", exc)

    # -- phase 3: score ---------------------------------------------------------------------

    async def score_round(self, rnd: int, latest: VersionRow, report: ClaimReport) -> ScoreResult:
        """Score the given version against ``latest`` (in a worker thread); record the
        round and emit ``VerdictsComputed``."""
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(
            None, functools.partial(self.score_latest, latest, report, False)
        )
        round_json = result.to_json(extended=True)
        verdict_json = round_json["verdicts"]
        round_metrics = round_json["metrics"]
        self.round_records.append(
            RoundRecord(
                rnd,
                latest.version_id,
                verdict_json,
                round_metrics,
                unusable=round_json["unusable"],
                collateral=round_json["collateral"],
            )
        )
        self.emit(
            VerdictsComputed(
                self.run_id,
                round=rnd,
                version_id=latest.version_id,
                counts=result.counts(),
                verdicts=verdict_json,
                metrics=round_metrics,
                stale=sorted(self.stale_ids),
                unusable=[list(u) for u in result.unusable],
            )
        )
        return result

    async def check_round(self, rnd: int, latest: VersionRow, result: ScoreResult) -> None:
        """The declared checks on the given version and ``latest`` (in a worker thread);
        emit ``ChecksComputed``. Nothing when the run declares no checks."""
        if self.checks is None:
            return
        loop = asyncio.get_running_loop()
        checks = await loop.run_in_executor(
            None,
            self.checks.run,
            rnd,
            self.version_of(self.given),
            self.version_of(latest),
            result,
        )
        self.emit(
            ChecksComputed(
                self.run_id,
                round=rnd,
                version_id=latest.version_id,
                results=[r.to_json() for r in checks.revised],
                blocked=checks.gate().blocked,
                rate=checks.rate(),
            )
        )

    def version_of(self, row: VersionRow) -> Version:
        """The parsed ``Version`` of a stored row (the given version is parsed once)."""
        from engine.score.scoring import Version

        if self._v_given is None:
            self._v_given = Version.from_source(
                self.given.raw, self.doc.kind, self.given.version_id
            )
        if row.version_id == self.given.version_id:
            return self._v_given
        return Version.from_source(row.raw, self.doc.kind, row.version_id)

    def score_latest(
        self, latest: VersionRow, claims: ClaimReport | None, final: bool
    ) -> ScoreResult:
        """``engine.score.scoring.score`` of the given version against ``latest``. ``final``:
        rounds to converge is known (else N/A "the run has not finished")."""
        from engine.score.metrics import apply_no_revision, never_reached_reason, no_revision_reason
        from engine.score.scoring import score

        v_latest = self.version_of(latest)  # parses the given version first if needed
        rtc, why = self._rounds_to_converge() if final else (None, "the run has not finished")
        assert self._v_given is not None
        result = score(
            self._v_given,
            v_latest,
            self.comments_before,
            claims=claims,
            given_version_id=self.given.version_id,
            tokens=self.usage.total,
            tokens_reason=self.usage.reason(),
            rounds_to_converge=rtc,
            rounds_reason=why,
            never_reached=never_reached_reason(self.status, self.trace.entries) if final else "",
        )
        if final:  # cancelled or failed before any push: no revision to measure
            revised = latest.version_id != self.given.version_id
            apply_no_revision(result.metrics, no_revision_reason(self.status, revised))
        return result

    def run_tokens(self) -> int | None:
        """The run's tokens as its bundle and outcome state them: ``usage.total``, or None
        for a run that never reached the model (``never_reached_reason``: nothing was
        measured, which is not zero; the metrics carry the reason)."""
        from engine.score.metrics import never_reached_reason

        never = never_reached_reason(self.status, self.trace.entries)
        return None if never else self.usage.total

    def _rounds_to_converge(self) -> tuple[int | None, str]:
        if self.converged_at == 0:
            return None, (
                "no actionable comment was open when the run started, so there was "
                "nothing to converge"
            )
        if self.converged_at is not None:
            return self.pushes_at_convergence, ""
        if self.status == "cancelled":
            return None, "the run was cancelled before every comment was resolved"
        if self.status == "failed":
            return None, "the run failed before every comment was resolved"
        if self.stop_reason:
            return None, (
                f"did not converge: {self.stop_reason}, with "
                f"{plural(len(self.open_actionable()), 'comment')} still unresolved"
            )
        return None, (
            f"did not converge within the round limit of {self.max_rounds}: "
            f"{plural(len(self.open_actionable()), 'comment')} still unresolved"
        )

    def open_actionable(self) -> list[str]:
        """Ids of the run's comments still open (stale and unusable ones excluded)."""
        current = {c.id: c for c in self.workspace.comments(self.document_id)}
        return [
            cid
            for cid in self.visible
            if cid not in self.stale_ids
            and cid not in self.unusable_ids
            and current[cid].status == "open"
        ]

    # -- phase 4: integrity control ---------------------------------------------------------

    def integrity_control(
        self,
        rnd: int,
        verdicts: list[VerdictRecord],
        latest: VersionRow,
        report: ClaimReport | None = None,
    ) -> list[str]:
        """The VERIFICATION line for every comment the agent claimed addressed — by resolving
        it or in ``report`` — whose anchored text is unchanged (``engine.score.integrity.unchanged_claims``,
        docs/verdicts.md). A resolved one is reopened with a reply saying why
        (``CommentReopened``); a claim made only in the report has nothing to reopen and gets
        a ``ClaimUnchanged`` event. A resolved ``stale_anchor`` comment is reopened too (left
        unresolved by rule). Returns the reopened ids."""
        from engine.score.integrity import unchanged_claims

        by_id = {v.comment_id: v for v in verdicts}
        visible_set = set(self.visible)
        current = {c.id: c for c in self.workspace.comments(self.document_id)}
        resolved = {
            cid for cid, c in current.items() if cid in visible_set and c.status == "resolved"
        }
        reopened = []
        for u in unchanged_claims(verdicts, report, resolved):
            if u.comment_id not in visible_set:
                continue
            if u.comment_id not in resolved:
                self.emit(
                    ClaimUnchanged(
                        self.run_id,
                        round=rnd,
                        comment_id=u.comment_id,
                        lookalike_only=u.lookalike_only,
                        invisible_only=u.invisible_only,
                        hidden_only=u.hidden_only,
                    )
                )
                continue
            v, c = by_id[u.comment_id], current[u.comment_id]
            quote = (v.v2.text if v.v2 else c.anchor.quote) or ""
            short = quote if len(quote) <= 120 else quote[:117] + "..."
            looks = (
                " (the only change is look-alike characters, which a reader cannot see)"
                if u.lookalike_only
                else ""
            )
            if u.invisible_only:
                looks = (
                    " (the only change is invisible characters, which a reader cannot see)"
                    if not u.lookalike_only
                    else " (the only change is look-alike and invisible characters, which a "
                    "reader cannot see)"
                )
            if u.hidden_only:
                looks = " (the only change is in text hidden from the reader)"
            reason = (
                f"Reopened by {PROGRAM_AUTHOR_WORDS}: this comment was marked resolved, but "
                # the version as every view names it (the round's), not its workspace id
                f"its anchored text is unchanged after round {rnd} "
                f'("{short}"){looks}. Resolving needs an edit to the commented passage; if '
                "you did not change it, reply with the reason and leave it open."
            )
            self._reopen(rnd, u.comment_id, reason, VERIFICATION_MESSAGE)
            reopened.append(u.comment_id)
        for cid in sorted(resolved, key=self.visible.index):
            stale = by_id.get(cid)
            if stale is None or stale.verdict != "stale_anchor":
                continue
            reason = (
                f"Reopened by {PROGRAM_AUTHOR_WORDS}: the quoted text of this comment is not "
                "in the version the agent was given, so it cannot be checked and stays "
                "unresolved."
            )
            self._reopen(rnd, cid, reason, STALE_ANCHOR_MESSAGE)
            reopened.append(cid)
        return reopened

    def _reopen(self, rnd: int, comment_id: str, reason: str, message: str) -> None:
        self.workspace.set_status(
            self.document_id,
            comment_id,
            "open",
            reply=Reply(PROGRAM_AUTHOR, reason, now_iso(), "reopen"),
        )
        if self.round_records and self.round_records[-1].round == rnd:
            self.round_records[-1].reopened.append(
                {"comment_id": comment_id, "reason": reason, "message": message}
            )
        self.emit(
            CommentReopened(
                self.run_id, round=rnd, comment_id=comment_id, reason=reason, message=message
            )
        )

    # -- phase 5: final score, bundle, ending -----------------------------------------------

    def finish(self) -> RunOutcome:
        """Score the last version, write the bundle, record the ending, emit the last event.
        Synchronous, so it completes even when the task was cancelled."""
        self.handle.phase = "writing"
        self.reason = redact(self.reason)
        if getattr(self, "agent", None) is not None:
            self.agent.finish()  # the mode and the capabilities seen, into the trace
            self.settings_record = self.config.public() | {"agent_mode": self.agent.mode_info()}
            self.push_round = {vid: r for r, vid, _ in self.agent.push_summaries}
        final = self.final_score()
        bundle_path = self.write_bundle(self.bundle_content(final))
        try:
            self.workspace.finish_run(self.run_id, self.status, self.reason, str(bundle_path or ""))
        except WorkspaceError as exc:  # e.g. a full disk: the bundle is written already
            why = f"the workspace could not record the ending ({exc})"
            self.reason = f"{self.reason}; {why}".lstrip("; ")
            if self.status == "completed":
                self.status = "failed"
        if self.recovered:
            self.emit(RunRecovered(self.run_id, reason=self.reason, bundle=str(bundle_path or "")))
        elif self.status == "failed":
            self.emit(RunFailed(self.run_id, reason=self.reason, bundle=str(bundle_path or "")))
        else:
            self.emit(
                RunFinished(
                    self.run_id,
                    status=self.status,
                    reason=self.reason,
                    bundle=str(bundle_path or ""),
                    metrics=final.metrics,
                    tokens=self.usage.total,
                )
            )
        self.handle.phase = "done"
        return RunOutcome(
            self.run_id,
            self.status,
            self.reason,
            bundle_path,
            final.metrics,
            self.run_tokens(),
            self.round,
            self.round_times,
            checks_blocked=None if self.checks is None else self._final_blocked(),
        )

    def _final_blocked(self) -> bool:
        return self.final_checks is not None and self.final_checks.gate().blocked

    def final_score(self) -> FinalScore:
        """The final scoring; on failure every metric is N/A with the reason."""
        latest = self.workspace.head(self.document_id)
        try:
            final = self.score_latest(latest, self.last_report, True)
            self.final_checks_of(latest, final)
            final_json = final.to_json(extended=True)
            out = FinalScore(
                metrics=final_json["metrics"],
                verdicts=final_json["verdicts"],
                unusable=final_json["unusable"],
                collateral=final_json["collateral"],
            )
        except Exception as exc:
            self.trace.add("note", text="final scoring failed", traceback=traceback.format_exc())
            why = f"scoring failed: {type(exc).__name__}: {exc}"
            out = FinalScore({k: Metric.na(why).to_json() for k in METRIC_NAMES}, [], [], [])
        if self.usage.total is None and "cost_per_attributed_fix" in out.metrics:
            self.trace.add("note", text=self.usage.reason())
        return out

    def final_checks_of(self, latest: VersionRow, final: ScoreResult) -> None:
        """The declared checks of the final version: the last round's when it checked
        this version, else run now (never commands a second time for the same version)."""
        if self.checks is None:
            return
        if self.checks.last is not None and self.checks.last_version == latest.version_id:
            self.final_checks = self.checks.last
        else:
            self.final_checks = self.checks.run(
                0, self.version_of(self.given), self.version_of(latest), final
            )

    def bundle_content(self, final: FinalScore) -> BundleContent:
        """The bundle's content from the run's state and the workspace."""
        from engine.bundle.write import BundleContent

        versions = self.workspace.versions(self.document_id)
        run_versions = [v for v in versions if v.seq > self.given.seq]
        push_round = self.push_round
        config = self.config
        return BundleContent(
            run_id=self.run_id,
            status=self.status,
            reason=self.reason,
            app_version=self.app_version,
            created_at=self.started_at,
            finished_at=now_iso(),
            model=config.model,
            base_url=safe_url(config.base_url),
            document_title=self.doc.title,
            document_kind=self.doc.kind,
            given_version_id=self.given.version_id,
            v1=self.given.raw,
            rounds=[
                (v.version_id, v.raw, v.summary, push_round.get(v.version_id, self.round))
                for v in run_versions
            ],
            comments_before=[c.to_json() for c in self.comments_before],
            comments_after=[c.to_json() for c in self.workspace.comments(self.document_id)],
            claims=redact_json(
                {
                    "rounds": [r.to_json() for r in self.claims_rounds],
                    "final": self.last_report.to_json() if self.last_report is not None else None,
                }
            ),
            trace=redact_json(self.trace.to_json() | {"usage": self.usage.to_json()}),
            verdicts={
                "rounds": [r.to_json() for r in self.round_records],
                "final": final.verdicts,
                "unusable": final.unusable,
                "collateral": final.collateral,
            },
            metrics=final.metrics,
            tokens=self.run_tokens(),
            rounds_run=self.round,
            scripted=self.scripted,
            signing_key=self.signing_key,
            settings=self.settings_record or config.public(),
            secrets=[*known_secrets(), *([config.api_key] if config.api_key else [])],
            checks_toml=self.checks.config.text if self.checks is not None else None,
            checks=self.checks.to_json(
                self.final_checks, self.workspace.head(self.document_id).version_id
            )
            if self.checks is not None
            else None,
            word_versions=self.word_versions,
        )

    def write_bundle(self, content: BundleContent) -> Path | None:
        """Write the bundle; on failure the run is ``failed`` with the reason, None returned."""
        from engine.bundle.write import write_bundle

        try:
            return write_bundle(_bundle_dir(self.out_dir, self.run_id), content)
        except Exception as exc:
            why = redact(f"the evidence bundle could not be written: {exc}")
            self.reason = f"{self.reason}; {why}".lstrip("; ")
            if self.status == "completed":
                self.status = "failed"
            return None

    # -- checkpoint (read back by engine.run.recovery.restore) -----------------------------

    def checkpoint_state(self) -> dict[str, Any]:
        """What a bundle needs beyond the workspace's versions and comments (JSON);
        ``engine.run.recovery.restore`` reads it back."""
        agent = getattr(self, "agent", None)
        return {
            "checkpoint": 1,
            "given_version_id": self.given.version_id,
            "comments_before": [c.to_json() for c in self.comments_before],
            "visible": self.visible,
            "stale_ids": sorted(self.stale_ids),
            "unusable_ids": sorted(self.unusable_ids),
            "max_rounds": self.max_rounds,
            "round": self.round,
            "claims_rounds": [r.to_json() for r in self.claims_rounds],
            "round_records": [r.to_json() for r in self.round_records],
            "last_report": self.last_report.to_json() if self.last_report else None,
            "converged_at": self.converged_at,
            "pushes": self.pushes,
            "pushes_at_convergence": self.pushes_at_convergence,
            "stop_reason": self.stop_reason,
            "usage": vars(self.usage),
            "trace": self.trace.to_json(),
            "settings": self.config.public()
            | ({"agent_mode": agent.mode_info()} if agent is not None else {}),
            "push_round": {vid: r for r, vid, _ in agent.push_summaries} if agent else {},
            "model": self.config.model,
            "base_url": safe_url(self.config.base_url),
            "scripted": self.scripted,
            "app_version": self.app_version,
            "started_at": self.started_at,
            "out_dir": str(self.out_dir) if self.out_dir is not None else "",
            "checks": self.checks.checkpoint() if self.checks is not None else None,
        }

    def save_checkpoint(self) -> None:
        """Store ``checkpoint_state()`` in the workspace; a failure is only noted (the run
        goes on; the bundle is written at its end as always)."""
        try:
            self.workspace.save_checkpoint(self.run_id, self.checkpoint_state())
        except (WorkspaceError, TypeError, ValueError) as exc:
            self.trace.add("note", text=f"checkpoint not saved: {exc}")

    # -- events -----------------------------------------------------------------------------

    def emit(self, ev: RunEvent) -> None:
        """Log the event in the workspace and hand it to ``on_event`` (errors noted only).
        Secrets are redacted first (``engine.redact``): what the CLI prints, the GUI shows
        and the workspace stores is the redacted event."""
        ev = _redacted(ev)
        try:
            self.workspace.log_event(self.run_id, ev.to_json())
        except Exception as exc:  # the log is a convenience; the bundle has the trace
            self.trace.add("note", text=f"event log write failed: {exc}")
        if self.on_event is not None:
            try:
                self.on_event(ev)
            except Exception as exc:
                self.trace.add("note", text=f"event consumer raised {type(exc).__name__}: {exc}")

    def _on_call(self, purpose: str, res: Any) -> None:
        self.emit(
            ModelCalled(
                self.run_id,
                round=self.round,
                purpose=purpose,
                tokens=res.tokens,
                run_tokens=self.usage.total,
                seconds=round(res.seconds, 4),
                retries=res.retries,
            )
        )

    def _emit_tool(self, rnd: int, o: ToolOutcome) -> None:
        self.emit(
            ToolCalled(
                self.run_id,
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
            self.emit(
                VersionPushed(
                    self.run_id,
                    round=rnd,
                    version_id=row.version_id,
                    base_version_id=row.base_version_id or "",
                    characters=len(row.raw),
                    summary=row.summary,
                )
            )

    def _emit_notice(self, rnd: int, topic: str, text: str) -> None:
        self.emit(AgentNotice(self.run_id, round=rnd, topic=topic, text=text))

    def _emit_nudge(self, rnd: int, n: int, text: str) -> None:
        self.emit(
            NarrationNudged(
                self.run_id,
                round=rnd,
                nudge=n,
                max_nudges=self.config.max_nudges,
                narration=text[:500],
            )
        )


async def _close_quietly(client: ModelClient) -> None:
    try:
        await asyncio.shield(client.aclose())
    except BaseException:  # cancelled again while closing: the bundle matters more
        pass


def _redacted(ev: RunEvent) -> RunEvent:
    """The event with every secret redacted (the same object when nothing was)."""
    data = ev.to_json()
    clean = redact_json(data)
    return ev if clean == data else event_from_json(clean)


def _event_args(args: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in args.items():
        if isinstance(v, str) and len(v) > 300:
            v = v[:300] + "…"
        out[k] = v
    return out
