"""Running a suite: its runs, at most K at once, within token, cost and time limits,
resumable after a kill without re-running what finished.

Each run is an ordinary review run (``engine.run``) in a workspace of its own under the
suite's output folder, and leaves its normal evidence bundle in ``<out>/bundles/``. The
results store (``engine.suite_store``) is updated as each run starts and ends, so a killed
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

from engine import __version__
from engine.redact import redact
from engine.suite import Suite, SuiteError, SuiteItem, load_item_comments
from engine.suite_store import ItemResult, SuiteRunRow, SuiteStore
from engine.workspace import now_iso

__all__ = ["SuiteEvent", "SuiteLimits", "execute_suite", "new_suite_run"]


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
    from engine.agent import safe_url

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
    from engine.agent import SYSTEM_PROMPT

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
    ``engine.suite_runner.review_one``). Returns the suite run's final status:
    ``finished`` | ``stopped`` (a limit, with the reason in the store). Re-raises
    ``asyncio.CancelledError`` after marking the suite run ``interrupted``.
    """
    emit = on_event or (lambda ev: None)
    start_run = start_run or review_one
    row = store.run_row(suite_id)
    out = Path(row.out_dir)
    results = {r.key: r for r in store.items(suite_id)}
    todo = [it for it in items if results[it.key].status not in ("finished", "failed")]
    models = {m.name: m for m in suite.models}
    if limits.max_total_cost is not None:
        if unpriced := sorted({it.model.name for it in todo if not it.model.priced}):
            raise SuiteError(
                f"--max-total-cost needs prices for every model; none for "
                f"{', '.join(unpriced)} (price_input/price_output in the suite)"
            )
    t0 = time.monotonic()
    deadline = None if limits.time_limit is None else t0 + limits.time_limit
    spent_tokens = 0
    spent_cost = 0.0
    reserved: dict[str, tuple[int, float]] = {}  # key -> (token cap, cost cap) in flight
    stop_reason = ""
    sem = asyncio.Semaphore(max(1, limits.concurrency))
    tasks: dict[asyncio.Task[Any], SuiteItem] = {}
    store.set_run_status(suite_id, "running")
    emit(
        SuiteEvent(
            suite_id,
            "",
            "suite",
            f"Suite run {suite_id}: {len(todo)} run(s) to make "
            f"of {len(items)}, at most {limits.concurrency} at once.",
        )
    )

    def budget_left() -> tuple[int | None, str]:
        """Token cap for the next run (None: unlimited) and a stop reason when none."""
        caps: list[int] = []
        if limits.max_total_tokens is not None:
            left = limits.max_total_tokens - spent_tokens - sum(r[0] for r in reserved.values())
            if left <= 0:
                return 0, f"the token limit of {limits.max_total_tokens:,} was reached"
            caps.append(left)
        if deadline is not None and time.monotonic() >= deadline:
            return 0, f"the time limit of {limits.time_limit:g} s was reached"
        return (min(caps) if caps else None), ""

    async def one(it: SuiteItem, token_cap: int | None, cost_cap: float | None) -> None:
        nonlocal spent_tokens, spent_cost
        res = results[it.key]
        res.status, res.started_at = "running", now_iso()
        res.reason = ""
        store.put_item(suite_id, res)
        emit(SuiteEvent(suite_id, it.key, "running", f"  running  {it.key}"))
        t = time.monotonic()
        cap = token_cap
        if cost_cap is not None:
            price = max(it.model.price_input or 0.0, it.model.price_output or 0.0)
            by_cost = int(cost_cap * 1e6 / price) if price > 0 else None
            if by_cost is not None:
                cap = by_cost if cap is None else min(cap, by_cost)
        per_run = suite.max_tokens_per_run
        run_cap = per_run if cap is None else (cap if per_run is None else min(cap, per_run))
        suite_capped = cap is not None and (per_run is None or cap < per_run)
        try:
            outcome = await start_run(it, suite, out / "runs", key_for(it.model), run_cap)
        except asyncio.CancelledError:
            res.status, res.reason = "stopped", "cancelled before it finished"
            res.bundle = _latest_bundle(out / "runs" / _slug(it.key))
            res.finished_at = now_iso()
            store.put_item(suite_id, res)
            emit(SuiteEvent(suite_id, it.key, "stopped", f"  stopped  {it.key}: cancelled"))
            raise
        except SuiteError as exc:
            outcome = None
            res.status, res.run_status, res.reason = "failed", "failed", redact(str(exc))
        if outcome is not None:
            p, c = _usage_from_bundle(outcome.bundle)
            res.bundle = str(outcome.bundle) if outcome.bundle else None
            res.run_status, res.reason = outcome.status, redact(outcome.reason)
            res.metrics = outcome.metrics
            res.tokens, res.prompt_tokens, res.completion_tokens = outcome.tokens, p, c
            res.cost = models[it.model.name].cost(p, c) if p is not None and c is not None else None
            hit_cap = (
                suite_capped
                and outcome.tokens is not None
                and run_cap is not None
                and outcome.tokens >= run_cap
            )
            if outcome.status == "cancelled" or hit_cap:
                res.status = "stopped"
                if hit_cap:
                    res.reason = "stopped by the suite's total limit: " + outcome.reason
            else:
                res.status = "finished" if outcome.status == "completed" else "failed"
        res.seconds = round(time.monotonic() - t, 3)
        res.finished_at = now_iso()
        spent_tokens += res.tokens or 0
        spent_cost += res.cost or 0.0
        store.put_item(suite_id, res)
        what = res.reason if res.status != "finished" else _brief(res)
        emit(SuiteEvent(suite_id, it.key, res.status, f"  {res.status:<8} {it.key}: {what}"))

    async def watchdog() -> None:
        if deadline is None:
            return
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        for task in list(tasks):
            task.cancel()

    dog = asyncio.create_task(watchdog())
    try:
        for it in todo:
            await sem.acquire()
            cap, why = budget_left()
            cost_cap = None
            if not why and limits.max_total_cost is not None:
                left = limits.max_total_cost - spent_cost - sum(r[1] for r in reserved.values())
                if left <= 0:
                    why = f"the cost limit of {limits.max_total_cost:g} was reached"
                cost_cap = left
            if why:
                sem.release()
                stop_reason = why
                break
            reserved[it.key] = (cap or 0, cost_cap or 0.0)
            task = asyncio.create_task(one(it, cap, cost_cap))
            tasks[task] = it

            def done(tk: asyncio.Task[Any], key: str = it.key) -> None:
                reserved.pop(key, None)
                tasks.pop(tk, None)
                sem.release()

            task.add_done_callback(done)
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
    except asyncio.CancelledError:
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        store.set_run_status(
            suite_id, "interrupted", f"interrupted; resume it with arl suite resume {suite_id}"
        )
        raise
    finally:
        dog.cancel()
    if deadline is not None and time.monotonic() >= deadline and not stop_reason:
        if any(r.status == "stopped" for r in store.items(suite_id)):
            stop_reason = f"the time limit of {limits.time_limit:g} s was reached"
    unfinished = [r for r in store.items(suite_id) if r.status not in ("finished", "failed")]
    if unfinished and not stop_reason:
        stop_reason = f"{len(unfinished)} run(s) did not finish"
    status = "stopped" if unfinished else "finished"
    store.set_run_status(suite_id, status, stop_reason, finished=not unfinished)
    tail = f" ({stop_reason}; resume with arl suite resume {suite_id})" if unfinished else ""
    emit(SuiteEvent(suite_id, "", "suite", f"Suite run {suite_id} {status}{tail}."))
    return status


def _brief(res: ItemResult) -> str:
    m = res.metrics or {}
    a = m.get("attribution_rate", {})
    if a.get("value") is None:
        return f"attribution N/A, {res.tokens if res.tokens is not None else 'unreported'} tokens"
    return (
        f"attribution {a['value']:.0%} ({a['numerator']:g} of {a['denominator']:g}), "
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
    from engine.agent import SYSTEM_PROMPT, AgentConfig
    from engine.documents import document_title
    from engine.run import ReviewRequest, start_review
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
    )
    try:
        return await start_review(request)
    except WorkspaceError as exc:
        raise SuiteError(str(exc)) from None
