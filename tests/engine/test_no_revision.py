"""A run cancelled or failed before the agent pushed any revision has no revision to
measure: its attribution rate is N/A with that reason, never "0% (0 of N)", in the run's
bundle and in its re-derivation; a bundle written before, which stored 0%, still verifies."""

from __future__ import annotations

import asyncio

from engine.bundle.read import open_bundle, verify_bundle
from engine.bundle.rederive import _older_no_revision
from engine.events import RoundStarted
from engine.models import Metric
from engine.run.records import RunHandle
from engine.run.start import run_review
from engine.score.metrics import apply_no_revision, no_revision_reason
from tests.engine.test_run import _config, _setup
from tests.helpers.scripted_server import FixEverything, ScriptedServer

REASON = "no revision to measure: the run was cancelled before the agent pushed one"


def test_the_rule():
    assert no_revision_reason("cancelled", False) == REASON
    assert no_revision_reason("failed", False).endswith(
        "the run failed before the agent pushed one"
    )
    assert no_revision_reason("cancelled", True) == ""  # a revision was pushed: measured
    assert no_revision_reason("completed", False) == ""  # the agent finished and edited nothing
    metrics = {"attribution_rate": Metric.ratio(0, 4)}
    apply_no_revision(metrics, REASON)
    assert metrics["attribution_rate"].value is None
    assert metrics["attribution_rate"].reason == REASON
    kept = {"attribution_rate": Metric.na("there are no actionable comments")}
    apply_no_revision(kept, REASON)
    assert kept["attribution_rate"].reason == "there are no actionable comments"


def test_an_older_bundle_that_stored_zero_still_verifies():
    again = Metric.na(REASON).to_json()
    assert _older_no_revision("attribution_rate", Metric.ratio(0, 4).to_json(), again)
    assert not _older_no_revision("attribution_rate", Metric.ratio(1, 4).to_json(), again)
    assert not _older_no_revision("claim_accuracy", Metric.ratio(0, 4).to_json(), again)


async def test_a_run_cancelled_before_any_push_has_no_attribution_rate(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    handle = RunHandle()

    def on_event(e):
        if isinstance(e, RoundStarted):
            asyncio.get_running_loop().call_later(0.3, handle.cancel)

    with ScriptedServer(FixEverything(), latency=3.0) as srv:
        outcome = await run_review(
            ws,
            doc,
            _config(srv, request_timeout=30),
            out_dir=tmp_path / "b",
            handle=handle,
            on_event=on_event,
        )
    assert outcome.status == "cancelled"
    b = open_bundle(outcome.bundle)
    rate = b.metrics["attribution_rate"]
    assert rate.value is None and rate.reason == REASON  # not 0% (0 of N)
    res = verify_bundle(outcome.bundle)
    assert res.ok and not res.rederivation.differences, res.rederivation.differences
