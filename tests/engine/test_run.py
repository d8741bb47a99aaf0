"""The review loop against the scripted OpenAI-compatible server (tests/helpers/scripted_server.py)."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from engine.agent.config import AgentConfig
from engine.bundle.read import open_bundle, verify_bundle
from engine.events import (
    CommentReopened,
    NarrationNudged,
    RoundStarted,
    RunFailed,
    RunFinished,
    ToolCalled,
    VerdictsComputed,
    VersionPushed,
)
from engine.models import Comment
from engine.run.records import RunHandle
from engine.run.start import prepare_document, run_review
from engine.score.scoring import Version
from engine.vocabulary import STALE_ANCHOR_MESSAGE, VERIFICATION_MESSAGE
from engine.workspace import Workspace
from tests.helpers.scripted_server import (
    SAMPLE_HTML,
    Churner,
    ClaimWithoutEditing,
    FixEverything,
    Inventor,
    ProseReport,
    ScriptedServer,
    Silent,
    StaleAware,
    Staller,
    make_comment,
    sample_comments,
)


def _config(srv: ScriptedServer, **kw) -> AgentConfig:
    base = dict(
        base_url=srv.base_url,
        model=srv.model,
        api_key=None,
        request_timeout=10,
        max_retries=2,
        backoff_initial=0.01,
        backoff_max=0.05,
    )
    base.update(kw)
    return AgentConfig(**base)


def _setup(tmp_path, comments=None, raw=SAMPLE_HTML, kind="html"):
    ws = Workspace(tmp_path / "ws.sqlite3")
    text = Version.from_source(raw, kind).text
    objs = comments if comments is not None else sample_comments(text)
    doc = prepare_document(
        ws, "Remote work policy", raw, kind, [Comment.from_json(o) for o in objs]
    )
    return ws, doc, text


async def _run(ws, doc, srv, tmp_path, **kw):
    events = []
    cfg_kw = kw.pop("config", {})
    outcome = await run_review(
        ws, doc, _config(srv, **cfg_kw), out_dir=tmp_path / "bundles", on_event=events.append, **kw
    )
    return outcome, events


async def test_fix_everything_converges_in_one_round(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(FixEverything()) as srv:
        outcome, events = await _run(ws, doc, srv, tmp_path, rounds=3)
    assert outcome.status == "completed", outcome.reason
    m = outcome.metrics
    assert m["attribution_rate"] == {"value": 1.0, "numerator": 3, "denominator": 3}
    assert m["claim_accuracy"]["value"] == 1.0
    assert m["rounds_to_converge"]["value"] == 1
    assert m["collateral_churn"]["value"] == 0
    assert outcome.tokens and outcome.tokens > 0
    # Every token of the run, divided by the three edited comments.
    assert m["cost_per_attributed_fix"] == {
        "value": outcome.tokens / 3,
        "numerator": outcome.tokens,
        "denominator": 3,
    }
    kinds = [type(e).__name__ for e in events]
    assert kinds[:2] == ["RunStarted", "RoundStarted"] and kinds[-1] == "RunFinished"
    assert any(isinstance(e, VersionPushed) for e in events)
    assert sum(isinstance(e, RoundStarted) for e in events) == 1
    assert not any(isinstance(e, CommentReopened) for e in events)
    assert all(c.status == "resolved" for c in ws.comments(doc))
    assert verify_bundle(outcome.bundle).ok
    b = open_bundle(outcome.bundle)
    assert b.status == "completed" and not b.tampered and not b.problems
    assert b.version("v2").source != b.version("v1").source
    assert b.version("round-1").source == b.version("v2").source
    # The event log is in the workspace too.
    logged = ws.events(outcome.run_id)
    assert [e["type"] for e in logged] == kinds


async def test_claims_without_editing_are_reopened(tmp_path, capsys):
    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(ClaimWithoutEditing()) as srv:
        outcome, events = await _run(ws, doc, srv, tmp_path, rounds=2)
    assert outcome.status == "completed"
    reopened = [e for e in events if isinstance(e, CommentReopened)]
    assert len(reopened) == 6  # three comments, two rounds
    assert {e.message for e in reopened} == {VERIFICATION_MESSAGE}
    assert all(VERIFICATION_MESSAGE in e.describe() for e in reopened)
    for c in ws.comments(doc):
        assert c.status == "open"
        assert any(r.kind == "reopen" and "unchanged" in r.body for r in c.thread)
        # the version is named by its round, as every view names it, never its id ("v3")
        reopens = [r.body for r in c.thread if r.kind == "reopen"]
        assert [("after round 1" in b, "after round 2" in b) for b in reopens] == [
            (True, False),
            (False, True),
        ]
        assert not any(re.search(r"\bversion v\d", b) for b in reopens)
        # the program signs its own reopens by name, never "review harness"
        assert {r.author for r in c.thread if r.kind == "reopen"} == {"Agent Review Loop"}
        assert not any("harness" in b for b in reopens)
    m = outcome.metrics
    assert m["attribution_rate"] == {"value": 0.0, "numerator": 0, "denominator": 3}
    assert m["claim_accuracy"] == {"value": 0.0, "numerator": 0, "denominator": 3}
    assert m["rounds_to_converge"]["value"] is None
    assert "round limit" in m["rounds_to_converge"]["reason"]
    assert m["cost_per_attributed_fix"]["value"] is None
    assert m["collateral_churn"]["value"] is None  # nothing changed
    card = open_bundle(outcome.bundle).scorecard_html
    assert VERIFICATION_MESSAGE in card


async def test_churn_outside_anchors_is_measured(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(
        Churner(
            "This policy takes effect on the first of next month.",
            "The policy starts next month, on the first day.",
        )
    ) as srv:
        outcome, _ = await _run(ws, doc, srv, tmp_path)
    churn = outcome.metrics["collateral_churn"]
    # The rewritten sentence is outside every anchor: 45 of the 183 changed characters
    # (the diff keeps its shared words " policy ", " on the first " as they are).
    assert churn["value"] is not None and churn["value"] > 0.2
    assert outcome.metrics["attribution_rate"]["value"] == 1.0
    # The bundle keeps each round's metrics and where v2 changed outside every anchor.
    b = open_bundle(outcome.bundle)
    (r1,) = b.verdicts["rounds"]
    assert r1["metrics"]["collateral_churn"] == churn
    assert r1["metrics"]["rounds_to_converge"]["value"] is None
    v2 = b.version("v2").to_version().text
    from engine.text import utf16

    om = utf16.OffsetMap(v2)
    pieces = [
        v2[om.to_codepoint(c["v2_start"]) : om.to_codepoint(c["v2_end"])]
        for c in b.verdicts["collateral"]
    ]
    assert pieces and all(p == c["inserted"] for p, c in zip(pieces, b.verdicts["collateral"]))
    assert any(
        "starts next month" in c["inserted"] or "day" in c["inserted"]
        for c in b.verdicts["collateral"]
    )


async def test_narration_stall_is_nudged_then_works(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    agent = Staller()
    with ScriptedServer(agent) as srv:
        outcome, events = await _run(ws, doc, srv, tmp_path)
        forced = [r for r in srv.requests if r.get("tool_choice") == "required"]
    nudges = [e for e in events if isinstance(e, NarrationNudged)]
    assert len(nudges) == 1 and nudges[0].nudge == 1
    assert len(forced) == 1
    # the nudge continued the same conversation: the narration is in the forced request
    assert any("carefully revise" in (m.get("content") or "") for m in forced[0]["messages"])
    assert outcome.status == "completed"
    assert outcome.metrics["attribution_rate"]["value"] == 1.0


async def test_silent_model_is_nudged_a_bounded_number_of_times(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(Silent()) as srv:
        outcome, events = await _run(ws, doc, srv, tmp_path, rounds=1, config={"max_nudges": 2})
    assert sum(isinstance(e, NarrationNudged) for e in events) == 2
    assert outcome.status == "completed"
    assert outcome.metrics["attribution_rate"]["value"] == 0.0


async def test_report_that_is_not_json_makes_claim_accuracy_na(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(ProseReport()) as srv:
        outcome, _ = await _run(ws, doc, srv, tmp_path)
    ca = outcome.metrics["claim_accuracy"]
    assert ca["value"] is None and "not valid JSON" in ca["reason"]
    assert outcome.metrics["attribution_rate"]["value"] == 1.0
    claims = json.loads((outcome.bundle / "claims.json").read_text())
    assert claims["final"]["usable"] is False
    assert claims["rounds"][0]["raw"].startswith("Sure!")


async def test_invented_ids_and_bad_arguments_go_back_to_the_model(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(Inventor()) as srv:
        outcome, events = await _run(ws, doc, srv, tmp_path)
        tool_msgs = [
            m["content"] for r in srv.requests for m in r["messages"] if m.get("role") == "tool"
        ]
    refused = [e for e in events if isinstance(e, ToolCalled) and not e.ok]
    assert len(refused) == 2
    assert any("no comment with id 'c-999'" in m for m in tool_msgs)
    assert any("not valid JSON" in m for m in tool_msgs)
    assert outcome.status == "completed"
    ca = outcome.metrics["claim_accuracy"]
    assert ca["value"] is None and "do not exist" in ca["reason"] and "c-999" in ca["reason"]


async def test_stale_anchor_is_excluded_and_left_unresolved(tmp_path):
    raw = SAMPLE_HTML
    text = Version.from_source(raw).text
    comments = sample_comments(text)
    stale = make_comment(
        "An older draft said: staff may never work from home at all.",
        "may never work from home",
        "c-stale",
        created_on_version_id="v0",
    )
    comments.append(stale)
    ws, doc, _ = _setup(tmp_path, comments)
    with ScriptedServer(StaleAware()) as srv:
        outcome, events = await _run(ws, doc, srv, tmp_path)
    assert outcome.status == "completed"
    assert outcome.metrics["attribution_rate"] == {"value": 1.0, "numerator": 3, "denominator": 3}
    assert outcome.metrics["rounds_to_converge"]["value"] == 1
    vc = [e for e in events if isinstance(e, VerdictsComputed)][-1]
    assert vc.stale == ["c-stale"]
    assert STALE_ANCHOR_MESSAGE in vc.describe()
    final = json.loads((outcome.bundle / "verdicts.json").read_text())["final"]
    st = next(v for v in final if v["comment_id"] == "c-stale")
    assert st["verdict"] == "stale_anchor" and st["message"] == STALE_ANCHOR_MESSAGE
    assert st["claim"] == "stale_anchor" and st["claim_agrees"] is True
    assert ws.comment(doc, "c-stale").status == "open"


async def test_429_then_success(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(FixEverything(), fail_first=[429, 503]) as srv:
        outcome, events = await _run(ws, doc, srv, tmp_path)
        assert srv.statuses[:2] == [429, 503]
    assert outcome.status == "completed"
    first_call = json.loads((outcome.bundle / "trace.json").read_text())["entries"]
    calls = [e for e in first_call if e["kind"] == "model_call"]
    assert calls[0]["retries"] == 2 and len(calls[0]["attempts"]) == 2


async def test_retries_exhausted_fail_the_run_with_a_bundle(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(FixEverything(), fail_first=[500, 500, 500, 500]) as srv:
        outcome, events = await _run(ws, doc, srv, tmp_path)
    assert outcome.status == "failed"
    assert "did not answer after 3 attempt" in outcome.reason
    assert isinstance(events[-1], RunFailed)
    b = open_bundle(outcome.bundle)
    assert b.status == "failed" and b.reason == outcome.reason and b.ok


async def test_bad_key_and_unknown_model_are_clear_failures(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(FixEverything(), api_key="sk-right") as srv:
        outcome, _ = await _run(ws, doc, srv, tmp_path, config={"api_key": "sk-wrong-123456"})
        assert outcome.status == "failed" and "refused the API key" in outcome.reason
        outcome2, _ = await _run(
            ws, doc, srv, tmp_path, config={"api_key": "sk-right", "model": "no-such-model"}
        )
        assert outcome2.status == "failed"
        assert "does not know the model 'no-such-model'" in outcome2.reason
    for o in (outcome, outcome2):
        for p in o.bundle.rglob("*"):
            if p.is_file():
                data = p.read_bytes()
                assert b"sk-wrong-123456" not in data and b"sk-right" not in data


async def test_the_key_never_reaches_the_bundle(tmp_path):
    key = "sk-test-SECRET-abcdef0123456789"
    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(FixEverything(), api_key=key) as srv:
        outcome, _ = await _run(ws, doc, srv, tmp_path, config={"api_key": key})
        assert srv.auth_headers[0] == f"Bearer {key}"
    assert outcome.status == "completed"
    for p in outcome.bundle.rglob("*"):
        if p.is_file():
            assert key.encode() not in p.read_bytes(), p
    assert key.encode() not in ws.path.read_bytes()


async def test_no_usage_reported_means_cost_is_na_not_zero(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(FixEverything(), usage=False) as srv:
        outcome, _ = await _run(ws, doc, srv, tmp_path)
    assert outcome.tokens is None
    cost = outcome.metrics["cost_per_attributed_fix"]
    assert cost["value"] is None and cost["reason"]
    manifest = json.loads((outcome.bundle / "manifest.json").read_text())
    assert manifest["tokens"] is None


async def test_cancel_handle_mid_run_leaves_a_cancelled_bundle(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    handle = RunHandle()
    events = []

    def on_event(e):
        events.append(e)
        if isinstance(e, VersionPushed):
            handle.cancel()

    with ScriptedServer(FixEverything()) as srv:
        outcome = await run_review(
            ws, doc, _config(srv), out_dir=tmp_path / "b", handle=handle, on_event=on_event
        )
    assert outcome.status == "cancelled"
    assert isinstance(events[-1], RunFinished) and events[-1].status == "cancelled"
    b = open_bundle(outcome.bundle)
    assert b.ok and b.status == "cancelled"
    assert b.version("v2").source != b.version("v1").source  # the push is kept
    assert verify_bundle(outcome.bundle).ok


async def test_task_cancel_leaves_a_cancelled_bundle(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    events = []
    with ScriptedServer(FixEverything(), latency=0.3) as srv:
        task = asyncio.create_task(
            run_review(ws, doc, _config(srv), out_dir=tmp_path / "b", on_event=events.append)
        )
        while not any(isinstance(e, ToolCalled) for e in events):
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    fin = events[-1]
    assert isinstance(fin, RunFinished) and fin.status == "cancelled"
    b = open_bundle(fin.bundle)
    assert b.ok and b.status == "cancelled"
    assert ws.run(b.manifest["run_id"]).status == "cancelled"


async def test_token_limit_stops_the_run(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(ClaimWithoutEditing()) as srv:
        outcome, _ = await _run(
            ws, doc, srv, tmp_path, rounds=5, config={"max_tokens_per_run": 500}
        )
    assert outcome.status == "completed"
    assert "token limit" in outcome.reason
    assert outcome.rounds < 5
    rtc = outcome.metrics["rounds_to_converge"]
    assert rtc["value"] is None and "token limit" in rtc["reason"]


async def test_plain_text_document_scores_identically_when_reopened(tmp_path):
    raw = "Line one has 😀 an emoji.\nEmployees may work remotely up to two days per week.\n"
    text = raw
    comments = [make_comment(text, "up to two days per week", "c1")]
    ws, doc, _ = _setup(tmp_path, comments, raw=raw, kind="text")
    with ScriptedServer(FixEverything()) as srv:
        outcome, _ = await _run(ws, doc, srv, tmp_path)
    b = open_bundle(outcome.bundle)
    assert b.document_kind == "text"
    assert b.version("v1").source == raw
    assert Version.from_source(b.version("v1").html).text == raw
    again = b.rescore().to_json(extended=True)
    stored = json.loads((outcome.bundle / "verdicts.json").read_text())["final"]
    assert again["verdicts"] == [
        {k: v for k, v in x.items() if k != "reopen_reason"} for x in stored
    ]
    assert again["metrics"] == outcome.metrics


class _ResolveAll(FixEverything):
    def dispositions(self, comments, content, new):
        return [("resolve_comment", {"comment_id": c["id"]}) for c in comments]


async def test_a_resolved_stale_comment_is_reopened_with_the_stale_message(tmp_path):
    text = Version.from_source(SAMPLE_HTML).text
    comments = sample_comments(text) + [
        make_comment(
            "An older draft said: staff may never work from home at all.",
            "may never work from home",
            "c-stale",
            created_on_version_id="v0",
        )
    ]
    ws, doc, _ = _setup(tmp_path, comments)
    with ScriptedServer(_ResolveAll()) as srv:
        outcome, events = await _run(ws, doc, srv, tmp_path, rounds=1)
    reopened = [e for e in events if isinstance(e, CommentReopened)]
    assert [(e.comment_id, e.message) for e in reopened] == [("c-stale", STALE_ANCHOR_MESSAGE)]
    assert ws.comment(doc, "c-stale").status == "open"
    # the stale comment is outside every denominator, so the run still converged
    assert outcome.metrics["rounds_to_converge"]["value"] == 1


async def test_tokens_are_summed_per_round_and_per_run(tmp_path):
    from engine.events import ModelCalled, RoundFinished

    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(ClaimWithoutEditing()) as srv:
        outcome, events = await _run(ws, doc, srv, tmp_path, rounds=2)
    calls = [e for e in events if isinstance(e, ModelCalled)]
    finished = [e for e in events if isinstance(e, RoundFinished)]
    assert {c.purpose for c in calls} >= {"work", "report"}
    for f in finished:
        assert f.tokens == sum(c.tokens for c in calls if c.round == f.round)
    assert sum(f.tokens for f in finished) == outcome.tokens == finished[-1].run_tokens
    rounds = json.loads((outcome.bundle / "verdicts.json").read_text())["rounds"]
    assert [r["tokens"] for r in rounds] == [f.tokens for f in finished]


async def test_a_server_refusing_required_tool_choice_still_gets_nudged(tmp_path):
    class StallOnce(Staller):
        def narrate(self, body):
            if (
                body.get("tool_choice") == "auto"
                and sum(m.get("role") == "user" for m in body["messages"]) > 1
            ):
                return None  # the nudge arrived (as auto): work
            return super().narrate(body)

    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(StallOnce(), reject_required=True) as srv:
        outcome, events = await _run(ws, doc, srv, tmp_path)
        assert 400 in srv.statuses
    assert outcome.status == "completed", outcome.reason
    assert outcome.metrics["attribution_rate"]["value"] == 1.0
    notes = [
        e
        for e in json.loads((outcome.bundle / "trace.json").read_text())["entries"]
        if e["kind"] == "note" and "tool_choice=required" in e.get("text", "")
    ]
    assert notes


async def test_nothing_open_at_the_start_is_not_convergence(tmp_path):
    """No actionable open comment: rounds to converge is N/A with the reason, never 0."""
    text = Version.from_source(SAMPLE_HTML).text
    comments = [dict(c, actionable=False) for c in sample_comments(text)]
    ws, doc, _ = _setup(tmp_path, comments)
    with ScriptedServer(FixEverything()) as srv:
        outcome, _ = await _run(ws, doc, srv, tmp_path)
    r = outcome.metrics["rounds_to_converge"]
    assert r["value"] is None and "nothing to converge" in r["reason"]
    assert outcome.metrics["attribution_rate"]["value"] is None


async def test_claims_in_the_report_alone_still_print_the_verification_line(tmp_path):
    """docs/verdicts.md (claims): an agent that reports "addressed" for every comment but
    pushes and resolves nothing gets the VERIFICATION line for each, every round."""
    from engine.events import ClaimUnchanged

    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(Silent()) as srv:
        outcome, events = await _run(ws, doc, srv, tmp_path, rounds=2, config={"max_nudges": 1})
    unchanged = [e for e in events if isinstance(e, ClaimUnchanged)]
    assert [(e.round, e.comment_id) for e in unchanged] == [
        (r, c) for r in (1, 2) for c in ("c1", "c2", "c3")
    ]
    assert all(e.message == VERIFICATION_MESSAGE in e.describe() for e in unchanged)
    assert not any(isinstance(e, CommentReopened) for e in events)  # nothing was resolved
    assert outcome.metrics["claim_accuracy"] == {"value": 0.0, "numerator": 0, "denominator": 3}
    logged = [e["type"] for e in ws.events(outcome.run_id)]
    assert logged.count("ClaimUnchanged") == 6


async def test_a_resolved_and_reported_comment_gets_one_line_not_two(tmp_path):
    from engine.events import ClaimUnchanged

    ws, doc, _ = _setup(tmp_path)
    with ScriptedServer(ClaimWithoutEditing()) as srv:
        _, events = await _run(ws, doc, srv, tmp_path, rounds=1)
    lines = [e.describe() for e in events if isinstance(e, (CommentReopened, ClaimUnchanged))]
    assert len(lines) == 3 and all(VERIFICATION_MESSAGE in line for line in lines)
    assert not any(isinstance(e, ClaimUnchanged) for e in events)  # all three were reopened
