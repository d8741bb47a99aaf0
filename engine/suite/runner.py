"""Running a suite: its runs, at most K at once, within token, cost and time limits,
resumable after a kill without re-running what finished.

Each run is an ordinary review run (``engine.run``) in a workspace of its own under the
suite's output folder, and leaves its normal evidence bundle in ``<out>/bundles/``. The
results store (``engine.suite.store``) is updated as each run starts and ends, so a killed
suite resumes (``arl suite resume ID``) with exactly the runs that had not finished.

Limits apply to one invocation (``run`` or ``resume``) and are checked before each run
starts; a run in flight is capped so the total cannot pass them:

- tokens: a run starts only while spent + the caps of runs in flight < the limit, and its
  own token cap is what remains (the suite's per-run limit when that is smaller). A model
  call's usage is known only after it, so the total can pass the limit by the last call
  of each run in flight, never more;
- cost (needs prices for every model): the same, in currency, with the cap converted to
  tokens at the model's dearer price (and the same one-call margin);
- time (wall clock, for the operator's budget only; no verdict depends on it): no run
  starts after the deadline, and runs still going then are cancelled (their bundles say
  cancelled) and left to a resume.

A run that ended because a suite limit capped it, or that was cancelled by one, is
``stopped`` and does not count in the report; a run that failed on its own (the model's
server, the network) is ``failed`` and is reported with its reason.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import __version__, vocabulary
from engine.redact import redact
from engine.suite.store import ItemResult, SuiteRunRow, SuiteStore
from engine.suite.suite import Suite, SuiteError, SuiteItem, load_item_comments
from engine.suite.token_share import token_edit_counts
from engine.workspace import now_iso

__all__ = ["SuiteEvent", "SuiteExecution", "SuiteLimits", "execute_suite", "new_suite_run"]


@dataclass(frozen=True)
class SuiteLimits:
    """Limits of one invocation. Units: tokens; the models' currency; seconds."""

    max_total_tokens: int | None = None
    max_total_cost: float | None = None
    time_limit: float | None = None
    concurrency: int = 1


@dataclass(frozen=True)
class SuiteEvent:
    """Progress of a suite: ``status`` is ``queued`` | ``running`` | ``finished`` |
    ``failed`` | ``stopped`` for a run (``key``), or ``suite`` for the suite itself."""

    suite_id: str
    key: str
    status: str
    text: str

    def describe(self) -> str:
        return self.text


def item_result(it: SuiteItem, default_prompt: str) -> ItemResult:
    return ItemResult(
        key=it.key,
        document=it.document.name,
        size=it.document.size,
        model=it.model.name,
        model_id=it.model.model,
        base_url=_safe(it.model.base_url),
        variant=it.variant.name,
        instructions_hash=it.variant.instructions_hash(default_prompt),
        repeat=it.repeat,
        mode=it.model.mode or "",
    )


def _safe(url: str) -> str:
    from engine.agent.config import safe_url

    return safe_url(url)


def new_suite_run(
    store: SuiteStore,
    suite: Suite,
    items: list[SuiteItem],
    out_dir: Path,
    shard: tuple[int, int] | None,
    settings: dict[str, Any],
) -> str:
    """Record a new suite run with all its runs queued; returns its id
    (``S-YYYYmmdd-HHMMSS-xxxxxx``)."""
    from engine.agent.revision import SYSTEM_PROMPT

    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    suite_id = f"S-{stamp}-{uuid.uuid4().hex[:6]}"
    row = SuiteRunRow(
        id=suite_id,
        name=suite.name,
        suite_path=str(suite.path) if suite.path else None,
        fingerprint=suite.fingerprint(),
        seed=suite.seed,
        shard=f"{shard[0]}/{shard[1]}" if shard else None,
        app_version=__version__,
        started_at=now_iso(),
        finished_at=None,
        status="running",
        stop_reason="",
        out_dir=str(out_dir / suite_id),
        settings=settings,
    )
    store.create_run(row, [item_result(it, SYSTEM_PROMPT) for it in items])
    return suite_id


def _usage_from_bundle(bundle: Path | None) -> tuple[int | None, int | None]:
    """(prompt, completion) tokens from a bundle's trace, None when unreported."""
    if bundle is None:
        return None, None
    try:
        usage = json.loads((bundle / "trace.json").read_text(encoding="utf-8")).get("usage", {})
    except (OSError, ValueError, AttributeError):
        return None, None
    if usage.get("total_tokens") is None:
        return None, None
    p, c = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return (p if isinstance(p, int) else None), (c if isinstance(c, int) else None)


async def execute_suite(
    store: SuiteStore,
    suite: Suite,
    suite_id: str,
    items: list[SuiteItem],
    limits: SuiteLimits,
    *,
    key_for: Callable[[Any], str | None],
    on_event: Callable[[SuiteEvent], None] | None = None,
    start_run: Callable[..., Any] | None = None,
) -> str:
    """Run every item of ``items`` not yet finished or failed in suite run ``suite_id``.

    ``key_for(model_spec)`` gives the API key for a model (None: no key). ``start_run`` is
    the coroutine function that makes one review run (tests may pass their own; default
    ``engine.suite.runner.review_one``). Returns the suite run's final status:
    ``finished`` | ``stopped`` (a limit, with the reason in the store). Raises SuiteError
    when a cost limit is asked for unpriced models; re-raises ``asyncio.CancelledError``
    after marking the suite run ``interrupted``.
    """
    execution = SuiteExecution(
        store,
        suite,
        suite_id,
        items,
        limits,
        key_for=key_for,
        on_event=on_event,
        start_run=start_run or review_one,
    )
    return await execution.run()


class SuiteExecution:
    """One invocation of a suite run: the schedule, the limits and the bookkeeping of
    ``execute_suite`` (see the module docstring for the rules)."""

    def __init__(
        self,
        store: SuiteStore,
        suite: Suite,
        suite_id: str,
        items: list[SuiteItem],
        limits: SuiteLimits,
        *,
        key_for: Callable[[Any], str | None],
        on_event: Callable[[SuiteEvent], None] | None,
        start_run: Callable[..., Any],
    ):
        self.store, self.suite, self.suite_id, self.limits = store, suite, suite_id, limits
        self.key_for, self.start_run = key_for, start_run
        self.emit: Callable[[SuiteEvent], None] = on_event or (lambda ev: None)
        self.out = Path(store.run_row(suite_id).out_dir)
        self.results = {r.key: r for r in store.items(suite_id)}
        self.items = items
        self.todo = [
            it for it in items if self.results[it.key].status not in ("finished", "failed")
        ]
        self.models = {m.name: m for m in suite.models}
        if limits.max_total_cost is not None:
            if unpriced := sorted({it.model.name for it in self.todo if not it.model.priced}):
                raise SuiteError(
                    f"--max-total-cost needs prices for every model; none for "
                    f"{', '.join(unpriced)} (price_input/price_output in the suite)"
                )
        self.deadline = None if limits.time_limit is None else time.monotonic() + limits.time_limit
        self.spent_tokens = 0
        self.spent_cost = 0.0
        self.reserved: dict[str, tuple[int, float]] = {}  # key -> (token cap, cost cap)
        self.stop_reason = ""
        self.sem = asyncio.Semaphore(max(1, limits.concurrency))
        self.tasks: dict[asyncio.Task[Any], SuiteItem] = {}

    def say(self, key: str, status: str, text: str) -> None:
        self.emit(SuiteEvent(self.suite_id, key, status, text))

    async def run(self) -> str:
        self.store.set_run_status(self.suite_id, "running")
        self.say(
            "",
            "suite",
            f"Suite run {self.suite_id}: {vocabulary.plural(len(self.todo), 'run')} to make "
            f"of {len(self.items)}, at most {self.limits.concurrency} at once.",
        )
        dog = asyncio.create_task(self.watchdog())
        try:
            await self.schedule()
        except asyncio.CancelledError:
            for task in list(self.tasks):
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)
            self.store.set_run_status(
                self.suite_id,
                "interrupted",
                f"interrupted; resume it with arl suite resume {self.suite_id}",
            )
            raise
        finally:
            dog.cancel()
        return self.conclude()

    async def schedule(self) -> None:
        """Start each run when a slot is free and the limits allow; wait for them all."""
        for it in self.todo:
            await self.sem.acquire()
            cap, cost_cap, why = self.budget()
            if why:
                self.sem.release()
                self.stop_reason = why
                break
            self.reserved[it.key] = (cap or 0, cost_cap or 0.0)
            task = asyncio.create_task(self.run_item(it, cap, cost_cap))
            self.tasks[task] = it

            def done(tk: asyncio.Task[Any], key: str = it.key) -> None:
                self.reserved.pop(key, None)
                self.tasks.pop(tk, None)
                self.sem.release()

            task.add_done_callback(done)
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)

    def budget(self) -> tuple[int | None, float | None, str]:
        """(token cap, cost cap, stop reason) for the next run; caps None when unlimited."""
        lim = self.limits
        token_cap = None
        if lim.max_total_tokens is not None:
            left = (
                lim.max_total_tokens - self.spent_tokens - sum(r[0] for r in self.reserved.values())
            )
            if left <= 0:
                return 0, None, f"the token limit of {lim.max_total_tokens:,} was reached"
            token_cap = left
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return 0, None, f"the time limit of {lim.time_limit:g} s was reached"
        cost_cap = None
        if lim.max_total_cost is not None:
            cost_cap = (
                lim.max_total_cost - self.spent_cost - sum(r[1] for r in self.reserved.values())
            )
            if cost_cap <= 0:
                return 0, None, f"the cost limit of {lim.max_total_cost:g} was reached"
        return token_cap, cost_cap, ""

    def run_cap(
        self, it: SuiteItem, token_cap: int | None, cost_cap: float | None
    ) -> tuple[int | None, bool]:
        """The run's own token cap, and whether it comes from the suite's total limits
        (a run that reaches such a cap is stopped, not a result)."""
        cap = token_cap
        if cost_cap is not None:
            price = max(it.model.price_input or 0.0, it.model.price_output or 0.0)
            if price > 0:
                by_cost = int(cost_cap * 1e6 / price)
                cap = by_cost if cap is None else min(cap, by_cost)
        per_run = self.suite.max_tokens_per_run
        run_cap = per_run if cap is None else (cap if per_run is None else min(cap, per_run))
        return run_cap, cap is not None and (per_run is None or cap < per_run)

    async def run_item(self, it: SuiteItem, token_cap: int | None, cost_cap: float | None) -> None:
        res = self.results[it.key]
        res.status, res.started_at, res.reason = "running", now_iso(), ""
        self.store.put_item(self.suite_id, res)
        self.say(it.key, "running", f"  running  {it.key}")
        t = time.monotonic()
        run_cap, suite_capped = self.run_cap(it, token_cap, cost_cap)
        try:
            outcome = await self.start_run(
                it, self.suite, self.out / "runs", self.key_for(it.model), run_cap
            )
        except asyncio.CancelledError:
            res.status, res.reason = "stopped", "cancelled before it finished"
            res.bundle = _latest_bundle(self.out / "runs" / _slug(it.key))
            res.finished_at = now_iso()
            self.store.put_item(self.suite_id, res)
            self.say(it.key, "stopped", f"  stopped  {it.key}: cancelled")
            raise
        except SuiteError as exc:
            res.status, res.run_status, res.reason = "failed", "failed", redact(str(exc))
        else:
            self.record(it, res, outcome, run_cap, suite_capped)
        res.seconds = round(time.monotonic() - t, 3)
        res.finished_at = now_iso()
        self.spent_tokens += res.tokens or 0
        self.spent_cost += res.cost or 0.0
        self.store.put_item(self.suite_id, res)
        what = res.reason if res.status != "finished" else _brief(res)
        self.say(it.key, res.status, f"  {res.status:<8} {it.key}: {what}")

    def record(
        self, it: SuiteItem, res: ItemResult, outcome: Any, run_cap: int | None, suite_capped: bool
    ) -> None:
        """Fill ``res`` from a run's outcome: metrics, tokens, cost, and its status."""
        p, c = _usage_from_bundle(outcome.bundle)
        res.bundle = str(outcome.bundle) if outcome.bundle else None
        res.run_status, res.reason = outcome.status, redact(outcome.reason)
        res.metrics = outcome.metrics
        res.token_edits = token_edit_counts(outcome.bundle)
        res.tokens, res.prompt_tokens, res.completion_tokens = outcome.tokens, p, c
        model = self.models[it.model.name]
        res.cost = model.cost(p, c) if p is not None and c is not None else None
        hit_cap = (
            suite_capped
            and outcome.tokens is not None
            and run_cap is not None
            and outcome.tokens >= run_cap
        )
        if outcome.status == "cancelled" or hit_cap:
            res.status = "stopped"
            if hit_cap:
                res.reason = "stopped by the suite's total limit: " + res.reason
        else:
            res.status = "finished" if outcome.status == "completed" else "failed"

    async def watchdog(self) -> None:
        """At the time limit, cancel the runs still going (they keep their bundles)."""
        if self.deadline is None:
            return
        await asyncio.sleep(max(0.0, self.deadline - time.monotonic()))
        for task in list(self.tasks):
            task.cancel()

    def conclude(self) -> str:
        """Record the suite run's status and reason; returns the status."""
        sid = self.suite_id
        if (
            self.deadline is not None
            and time.monotonic() >= self.deadline
            and not self.stop_reason
            and any(r.status == "stopped" for r in self.store.items(sid))
        ):
            self.stop_reason = f"the time limit of {self.limits.time_limit:g} s was reached"
        unfinished = [r for r in self.store.items(sid) if r.status not in ("finished", "failed")]
        if unfinished and not self.stop_reason:
            self.stop_reason = f"{vocabulary.plural(len(unfinished), 'run')} did not finish"
        status = "stopped" if unfinished else "finished"
        self.store.set_run_status(sid, status, self.stop_reason, finished=not unfinished)
        tail = f" ({self.stop_reason}; resume with arl suite resume {sid})" if unfinished else ""
        self.say("", "suite", f"Suite run {sid} {status}{tail}.")
        return status


def _brief(res: ItemResult) -> str:
    m = res.metrics or {}
    a = m.get("attribution_rate", {})
    if a.get("value") is None:
        return f"attribution N/A, {res.tokens if res.tokens is not None else 'unreported'} tokens"
    return (
        f"attribution {vocabulary.metric_text('attribution_rate', a)}, "
        f"{res.tokens if res.tokens is not None else 'unreported'} tokens"
    )


def _latest_bundle(folder: Path) -> str | None:
    """The newest bundle folder a run left in ``folder`` (a cancelled run writes one
    before its cancellation reaches us), or None."""
    try:
        found = [p for p in folder.iterdir() if (p / "manifest.json").is_file()]
    except OSError:
        return None
    return str(max(found, key=lambda p: p.stat().st_mtime)) if found else None


def _slug(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", key)[:120]


async def review_one(
    it: SuiteItem, suite: Suite, runs_dir: Path, api_key: str | None, token_cap: int | None
) -> Any:
    """One ordinary review run for a suite item, in a workspace of its own
    (``<runs_dir>/<item>/workspace.sqlite``), its bundle in ``<runs_dir>/<item>/``.
    Returns the run's ``RunOutcome``. Raises SuiteError when its inputs cannot be read."""
    from engine.agent.config import AgentConfig
    from engine.agent.revision import SYSTEM_PROMPT
    from engine.checks.runner import suffix_for
    from engine.run.start import ReviewRequest, start_review
    from engine.text.titles import document_title
    from engine.workspace import WorkspaceError

    kind, raw, comments = load_item_comments(it)
    folder = runs_dir / _slug(it.key)
    folder.mkdir(parents=True, exist_ok=True)
    options: dict[str, Any] = {
        "max_tokens_per_run": token_cap,
        "echo_tool_results": it.model.echo_tool_results,
    }
    if suite.timeout is not None:
        options["request_timeout"] = suite.timeout
    if suite.turns_per_round is not None:
        options["max_turns_per_round"] = suite.turns_per_round
    if suite.max_output_tokens is not None:
        options["max_output_tokens"] = suite.max_output_tokens
    if it.model.mode:
        options["mode"] = it.model.mode
    prompt = it.variant.system_prompt(SYSTEM_PROMPT)
    config = AgentConfig(
        base_url=it.model.base_url,
        model=it.model.model,
        api_key=api_key,
        system_prompt=None if prompt == SYSTEM_PROMPT else prompt,
        **options,
    )
    request = ReviewRequest(
        config=config,
        title=document_title(it.document.doc, kind, raw),
        raw=raw,
        kind=kind,
        comments=comments,
        rounds=suite.rounds,
        out_dir=folder,
        workspace_path=folder / "workspace.sqlite",
        key_source="env" if it.model.api_key_env else "",
        checks=suite.checks,
        allow_commands=suite.allow_commands,
        doc_suffix=suffix_for(kind, str(it.document.doc)),
    )
    try:
        return await start_review(request)
    except WorkspaceError as exc:
        raise SuiteError(str(exc)) from None
