"""Runs survive the quirks real model servers have (docs/providers.md), one scripted-server
flag each (``tests.helpers.scripted_server.Quirks``), and several at once.

The document and comments are ``tests/data/provider-quirks`` (the shared real-world case):
an honest agent changes ``utilize`` -> ``use`` and ``30 days`` -> ``14 days``; expected for
every quirk: the run completes, both comments ``edited``, attribution 2/2, a bundle that
verifies.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from engine.agent import capabilities
from engine.agent.client import ModelClient
from engine.agent.config import AgentConfig, AgentError
from engine.bundle.read import verify_bundle
from engine.models import Comment
from engine.run.start import prepare_document, run_review
from engine.workspace import Workspace
from tests.helpers.scripted_server import (
    FixEverything,
    Quirks,
    ScriptedAgent,
    ScriptedServer,
)

DATA = Path(__file__).parent.parent / "data" / "provider-quirks"


class PlainEnglish(ScriptedAgent):
    """The honest agent of the provider-quirks case."""

    def edit(self, content, comments):
        return content.replace("utilize", "use").replace("30 days", "14 days")


class NarrateFirst(PlainEnglish):
    """Its first ``n`` work answers are narration (N10: 'First I will read the comments')."""

    def __init__(self, n: int = 1):
        super().__init__()
        self.n = n
        self.narrated = 0

    def narrate(self, body):
        if self.narrated < self.n:
            self.narrated += 1
            return self.completion("First I will read the comments, then fix them.")
        return None


class Mistyped(PlainEnglish):
    """Its first answer is a batch of broken tool calls, then it works."""

    def __init__(self):
        super().__init__()
        self.sent = False

    def work(self, body):
        if not self.sent:
            self.sent = True
            return self.completion(
                tool_calls=[
                    ("resolve_comment", {}),
                    ("push_version", {}),
                    ("list_comments", {}),
                    ("reply_comment", {}),
                    ("pull_document", {}),
                ],
                raw_args=[
                    json.dumps({"comment_id": 5}),
                    json.dumps({"base_version_id": "v1", "content": ["x"], "summary": 3}),
                    json.dumps({"include_resolved": "yes"}),
                    '{"comment_id": "c1", "body": ',
                    "[]",
                ],
            )
        return super().work(body)


class ReportWith(PlainEnglish):
    """Answers the report call with ``text``."""

    def __init__(self, text: str):
        super().__init__()
        self.text = text

    def report(self, ids, body):
        return self.completion(self.text)


class ReportFails(PlainEnglish):
    """The report call always fails (HTTP 500 from the server)."""

    def report(self, ids, body):
        raise RuntimeError("the report model is down")


def _comments():
    return [Comment.from_json(c) for c in json.loads((DATA / "comments.json").read_text())]


async def _quirk_run(tmp_path, agent=None, quirks=None, rounds=2, **cfg):
    ws = Workspace(tmp_path / "ws.sqlite3")
    doc = prepare_document(ws, "Filing memo", (DATA / "doc.html").read_text(), "html", _comments())
    events = []
    with ScriptedServer(agent or PlainEnglish(), quirks=quirks) as srv:
        config = AgentConfig(
            base_url=srv.base_url,
            model=srv.model,
            request_timeout=10,
            max_retries=2,
            backoff_initial=0.01,
            backoff_max=0.05,
            **cfg,
        )
        outcome = await run_review(
            ws, doc, config, rounds=rounds, out_dir=tmp_path / "b", on_event=events.append
        )
    trace = json.loads((outcome.bundle / "trace.json").read_text())["entries"]
    verdicts = json.loads((outcome.bundle / "verdicts.json").read_text())["final"]
    ws.close()
    return outcome, srv, trace, {v["comment_id"]: v["verdict"] for v in verdicts}, events


def _assert_fixed(outcome, verdicts):
    assert outcome.status == "completed", outcome.reason
    assert verdicts == {"c1": "edited", "c2": "edited"}
    att = outcome.metrics["attribution_rate"]
    assert (att["numerator"], att["denominator"]) == (2, 2)
    assert verify_bundle(outcome.bundle).ok


def _quirks_in(trace):
    out = []
    for e in trace:
        if e["kind"] == "model_call" and e.get("response"):
            out += e["response"].get("quirks", [])
    return out


def _tool_results(trace):
    return [(e["name"], e["ok"], e["result"]) for e in trace if e["kind"] == "tool_call"]


# -- section 1, one quirk at a time -----------------------------------------------------------


async def test_n08_arguments_sent_as_a_json_object(tmp_path):
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(args_as_object=True)
    )
    _assert_fixed(outcome, verdicts)
    assert outcome.metrics["claim_accuracy"]["value"] == 1.0
    assert "arguments sent as a JSON object" in _quirks_in(trace)
    # the conversation sent back carries string arguments again
    sent = [
        tc["function"]["arguments"]
        for r in srv.requests
        for m in r["messages"]
        for tc in m.get("tool_calls") or []
    ]
    assert sent and all(isinstance(a, str) for a in sent)


async def test_invalid_and_mistyped_arguments_go_back_to_the_model(tmp_path):
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, Mistyped())
    _assert_fixed(outcome, verdicts)
    results = _tool_results(trace)[:5]
    assert [ok for _, ok, _ in results] == [False] * 5
    texts = [r for _, _, r in results]
    assert "comment_id must be a string, not a number" in texts[0]
    assert "content must be a string, not an array" in texts[1]
    assert "summary must be a string, not a number" in texts[1]
    assert "include_resolved must be a boolean, not a string" in texts[2]
    assert "not valid JSON" in texts[3]
    assert "must be a JSON object" in texts[4]
    # each error reached the model as that call's tool result
    second = srv.requests[1]["messages"]
    assert [m["content"] for m in second if m["role"] == "tool"] == texts


@pytest.mark.parametrize("status", [500, 400, 422])
async def test_required_tool_choice_refused_falls_back_to_auto_for_the_run(tmp_path, status):
    outcome, srv, trace, verdicts, events = await _quirk_run(
        tmp_path, NarrateFirst(2), quirks=Quirks(required_status=status)
    )
    _assert_fixed(outcome, verdicts)
    required = [r for r in srv.requests if r.get("tool_choice") == "required"]
    assert len(required) == 1  # not retried, and never sent again in the run
    assert srv.statuses.count(status) == 1
    notes = [e for e in trace if e["kind"] == "note" and e.get("topic") == "tool_choice"]
    assert len(notes) == 1 and "tool_choice=auto for the rest of the run" in notes[0]["text"]
    if status == 500:  # the server's own words are quoted
        assert "Unexpected empty grammar stack" in notes[0]["text"]


async def test_json_object_refused_uses_json_schema_and_remembers_it(tmp_path):
    capabilities.forget_all()
    q = Quirks(refuse_json_object=True)
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path / "a", quirks=q)
    _assert_fixed(outcome, verdicts)
    assert outcome.metrics["claim_accuracy"]["value"] == 1.0
    assert capabilities.report_format(srv.url, srv.model) == "json_schema"
    formats = [(r.get("response_format") or {}).get("type") for r in srv.requests]
    assert formats.count("json_object") == 1 and "json_schema" in formats
    schema = next(r for r in srv.requests if (r.get("response_format") or {}).get("type"))
    assert schema["response_format"]["type"] == "json_object"
    # the server's own message (LM Studio's string error) is quoted once in the trace
    notes = [e["text"] for e in trace if e.get("topic") == "report_format:json_object"]
    assert len(notes) == 1 and "must be 'json_schema' or 'text'" in notes[0]


async def test_a_remembered_report_format_is_tried_first(tmp_path):
    capabilities.forget_all()
    with ScriptedServer(PlainEnglish(), quirks=Quirks(refuse_json_object=True)) as srv:
        capabilities.remember_report_format(srv.base_url, srv.model, "json_schema")
        ws = Workspace(tmp_path / "w.sqlite3")
        doc = prepare_document(ws, "m", (DATA / "doc.html").read_text(), "html", _comments())
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model, backoff_initial=0.01)
        outcome = await run_review(ws, doc, cfg, out_dir=tmp_path / "b")
    assert outcome.status == "completed"
    formats = [(r.get("response_format") or {}).get("type") for r in srv.requests]
    assert "json_object" not in formats and "json_schema" in formats
    # remembered on disk too: a fresh process reads it back
    capabilities.forget_all()
    assert capabilities.report_format(srv.url, srv.model) == "json_schema"


async def test_both_json_modes_refused_asks_for_json_in_plain_text(tmp_path):
    capabilities.forget_all()
    q = Quirks(refuse_json_object=True, refuse_json_schema=True)
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, quirks=q)
    _assert_fixed(outcome, verdicts)
    assert outcome.metrics["claim_accuracy"]["value"] == 1.0
    last_report = [r for r in srv.requests if "report" in r["messages"][0]["content"]][-1]
    assert "response_format" not in last_report
    assert "one JSON object" in last_report["messages"][0]["content"]
    assert capabilities.report_format(srv.url, srv.model) == "text"


async def test_a_failing_report_call_never_fails_a_run_whose_work_is_done(tmp_path):
    capabilities.forget_all()
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, ReportFails())
    _assert_fixed(outcome, verdicts)
    claim = outcome.metrics["claim_accuracy"]
    assert claim["value"] is None
    assert "the report call failed" in claim["reason"] and "report model is down" in claim["reason"]


@pytest.mark.parametrize("style", ["think", "think_only_close", "reasoning_content", "reasoning"])
async def test_reasoning_is_stripped_before_reading_and_kept_in_the_trace(tmp_path, style):
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, quirks=Quirks(reasoning=style))
    _assert_fixed(outcome, verdicts)
    assert outcome.metrics["claim_accuracy"]["value"] == 1.0  # the report was read
    calls = [e for e in trace if e["kind"] == "model_call"]
    assert all(e["response"]["reasoning"] == "First the comments, then the edit." for e in calls)
    assert all("<think>" not in (e["response"]["message"]["content"] or "") for e in calls)
    if style.startswith("think"):
        assert "</think>" in calls[0]["response"]["content_as_sent"]


@pytest.mark.parametrize("form", ["hermes", "mistral", "llama", "fenced"])
async def test_tool_calls_written_into_the_content_are_executed(tmp_path, form):
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(text_tool_calls=form)
    )
    _assert_fixed(outcome, verdicts)
    names = {"fenced": "fenced-json"}.get(form, form)
    assert f"tool calls read from the content ({names} form)" in _quirks_in(trace)
    assert [n for n, ok, _ in _tool_results(trace) if ok][:3] == [
        "list_comments",
        "pull_document",
        "push_version",
    ]


@pytest.mark.parametrize(
    "quirks",
    [
        Quirks(tool_call_ids="missing"),
        Quirks(tool_call_ids="empty"),
        Quirks(tool_call_ids="repeated"),
        Quirks(finish_reason="stop"),
        Quirks(finish_reason="length"),
        Quirks(content="empty"),
        Quirks(content="absent"),
    ],
    ids=lambda q: next(f"{k}={v}" for k, v in vars(q).items() if v not in (None, False, "openai")),
)
async def test_odd_ids_finish_reasons_and_contents(tmp_path, quirks):
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, quirks=quirks)
    _assert_fixed(outcome, verdicts)
    ids = [
        tc["id"]
        for r in srv.requests
        for m in r["messages"]
        if m["role"] == "assistant"
        for tc in m.get("tool_calls") or []
    ]
    assert ids and all(isinstance(i, str) and i for i in ids)
    tool_ids = [m["tool_call_id"] for m in srv.requests[-2]["messages"] if m["role"] == "tool"]
    assert len(set(tool_ids)) == len(tool_ids)  # every result answers its own call


@pytest.mark.parametrize("usage", ["null", "absent", "strings", "huge"])
async def test_usage_null_strings_or_huge_is_unreported_not_a_crash(tmp_path, usage):
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, quirks=Quirks(usage=usage))
    _assert_fixed(outcome, verdicts)
    assert outcome.tokens is None
    cost = outcome.metrics["cost_per_attributed_fix"]
    calls = sum(1 for e in trace if e["kind"] == "model_call" and e.get("response") is not None)
    # Usage sent as strings is said plainly for what it is (re-derivation agrees: the
    # bundle verifies in _assert_fixed); absent, null or absurd usage is "reported no".
    if usage == "strings":
        assert cost["value"] is None and cost["reason"] == (
            f"token usage came in a form that is not whole numbers for {calls} of {calls} "
            "model call(s)"
        )
        assert all(e.get("usage_not_whole") is True for e in trace if e["kind"] == "model_call")
    else:
        assert cost["value"] is None and cost["reason"] == (
            f"the provider reported no token usage for {calls} of {calls} model call(s)"
        )


@pytest.mark.parametrize("style", ["openai", "llamacpp"])
async def test_a_context_length_error_stops_with_sizes_and_the_fix(tmp_path, style):
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(context_limit=300, context_style=style)
    )
    assert outcome.status == "failed"
    r = outcome.reason
    assert "does not fit the model's context" in r
    assert "the document is about 55 tokens (219 characters; estimate" in r
    assert "the model's limit is 300 tokens, as the server says" in r
    assert "larger context" in r
    assert len(srv.requests) == 1  # not retried
    assert verify_bundle(outcome.bundle).ok


async def test_http_errors_quote_the_servers_own_message(tmp_path):
    ws = Workspace(tmp_path / "w.sqlite3")
    doc = prepare_document(ws, "m", (DATA / "doc.html").read_text(), "html", _comments())
    with ScriptedServer(PlainEnglish(), fail_first=[403]) as srv:
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model, api_key="sk-abcdef123456")
        outcome = await run_review(ws, doc, cfg, out_dir=tmp_path / "b")
    assert outcome.status == "failed"
    assert '"scripted 403"' in outcome.reason and "Error code" not in outcome.reason
    with ScriptedServer(PlainEnglish(), fail_first=[409]) as srv:
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model)
        outcome = await run_review(ws, doc, cfg, out_dir=tmp_path / "b")
    assert outcome.status == "failed"
    assert 'refused the request (HTTP 409): "scripted 409"' in outcome.reason


class ErrorIn200(PlainEnglish):
    """Answers work with an error object in a 200 body (OpenRouter does on some routes)."""

    def work(self, body):
        return {"error": {"message": "Provider returned error", "code": 502}}


async def test_an_error_in_a_200_answer_is_read_as_the_error(tmp_path):
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, ErrorIn200())
    assert outcome.status == "failed"
    assert 'answered with an error: "Provider returned error"' in outcome.reason
    assert verify_bundle(outcome.bundle).ok


async def test_huge_integers_in_tool_arguments_go_back_as_an_error(tmp_path):
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, quirks=Quirks(huge_in_args=True))
    _assert_fixed(outcome, verdicts)
    name, ok, result = _tool_results(trace)[0]
    assert not ok and "an integer of 5000 digits" in result


async def test_huge_integers_in_the_report_make_it_unusable(tmp_path):
    text = '{"comments": [{"comment_id": "c1", "claim": "addressed", "n": ' + "9" * 5000 + "}]}"
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, ReportWith(text))
    _assert_fixed(outcome, verdicts)
    claim = outcome.metrics["claim_accuracy"]
    assert claim["value"] is None and "an integer of 5000 digits" in claim["reason"]


# -- the whole-call deadline -------------------------------------------------------------------


async def test_a_dripping_server_cannot_hold_a_call_open():
    with ScriptedServer(FixEverything(), quirks=Quirks(drip_seconds=2.0)) as srv:
        cfg = AgentConfig(
            base_url=srv.base_url,
            model=srv.model,
            request_timeout=1.0,
            max_retries=1,
            backoff_initial=0.01,
        )
        async with ModelClient(cfg) as client:
            t0 = time.monotonic()
            with pytest.raises(AgentError) as err:
                await client.chat(
                    [{"role": "user", "content": "hi"}],
                    purpose="work",
                    round_no=1,
                    conversation="a",
                )
            spent = time.monotonic() - t0
            assert spent < 4.0  # two attempts of 1 s each, not one byte per 2 s
            assert "no complete answer within 1 s" in str(err.value)
            t0 = time.monotonic()
            with pytest.raises(AgentError) as err:
                await client.list_models()
            assert time.monotonic() - t0 < 2.5 and err.value.kind == "timeout"


# -- several at once ---------------------------------------------------------------------------


async def test_several_quirks_at_once(tmp_path):
    capabilities.forget_all()
    q = Quirks(
        args_as_object=True,
        required_status=500,
        refuse_json_object=True,
        reasoning="think",
        tool_call_ids="missing",
        finish_reason="stop",
        content="absent",
        usage="strings",
    )
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, NarrateFirst(2), quirks=q)
    _assert_fixed(outcome, verdicts)
    assert outcome.metrics["claim_accuracy"]["value"] == 1.0
    assert outcome.metrics["cost_per_attributed_fix"]["value"] is None
    seen = set(_quirks_in(trace))
    assert {"arguments sent as a JSON object", "<think> block stripped"} <= seen
    assert sum(r.get("tool_choice") == "required" for r in srv.requests) == 1


async def test_several_text_quirks_at_once(tmp_path):
    q = Quirks(text_tool_calls="hermes", reasoning="reasoning_content", usage="null")
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, NarrateFirst(1), quirks=q)
    _assert_fixed(outcome, verdicts)
