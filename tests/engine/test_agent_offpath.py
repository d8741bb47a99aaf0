"""The agent loop's off-path: a server that misbehaves at the worst moment.

A run must never fail on a server's quirk after the agent did its work (pushed a
revision); before that, it stops with one line that says what the server did. Each quirk
is one ``tests.helpers.scripted_server.Quirks`` flag (docs/providers.md, "Off the happy
path"); the case is ``tests/data/provider-quirks``, as in ``test_agent_quirks.py``.
"""

from __future__ import annotations

import email.utils
import json
import time

import pytest
from hypothesis import given, strategies as st

from engine.agent.bodies import read_event_stream, retry_after_seconds
from engine.agent.client import ModelClient
from engine.agent.config import AgentConfig, AgentError
from engine.agent.wire import read_answer
from tests.engine.test_agent_quirks import DATA, PlainEnglish, _assert_fixed, _quirk_run, _quirks_in
from tests.helpers.scripted_server import (
    FixEverything,
    Quirks,
    ScriptedServer,
    as_sse,
    call_kind,
)

# -- the connection closes in the middle of an answer ------------------------------------------


@pytest.mark.parametrize("style", ["body", "early"])
async def test_a_report_call_cut_off_leaves_the_verdicts_and_claims_na(tmp_path, style):
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(cut="report", cut_style=style)
    )
    _assert_fixed(outcome, verdicts)
    claim = outcome.metrics["claim_accuracy"]
    assert claim["value"] is None and "the report call failed" in claim["reason"]
    if style == "body":  # the cause is said, not just "Connection error."
        assert "broke off before an answer" in claim["reason"]
        assert "Error" not in claim["reason"]  # plain words; Python's own in the trace
        attempts = [a for e in trace if e.get("kind") == "model_call" for a in e["attempts"]]
        assert any("peer closed connection" in a.get("exception", "") for a in attempts)


async def test_a_failure_before_any_push_still_fails_the_run(tmp_path):
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(cut="work", cut_style="early")
    )
    assert outcome.status == "failed"
    assert "did not answer after 3 attempts" in outcome.reason
    assert verdicts == {"c1": "untouched", "c2": "untouched"}


# -- HTTP 200 with an HTML page ------------------------------------------------------------------


async def test_an_html_page_in_a_200_answer_is_named_and_retried(tmp_path):
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, quirks=Quirks(html_200="work"))
    assert outcome.status == "failed"
    assert "an HTML page" in outcome.reason and '"502 Bad Gateway"' in outcome.reason
    assert "proxy" in outcome.reason and "after 3 attempts" in outcome.reason
    assert len(srv.requests) == 3  # retried like a gateway error


async def test_an_html_page_for_the_report_makes_claims_na(tmp_path):
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, quirks=Quirks(html_200="report"))
    _assert_fixed(outcome, verdicts)
    assert "an HTML page" in outcome.metrics["claim_accuracy"]["reason"]


async def test_an_empty_200_answer_is_named_and_retried(tmp_path):
    outcome, srv, trace, verdicts, _ = await _quirk_run(tmp_path, quirks=Quirks(empty_200="work"))
    assert outcome.status == "failed"
    assert "HTTP 200 with an empty body" in outcome.reason
    assert len(srv.requests) == 3  # retried like a gateway error


# -- 429 with Retry-After ------------------------------------------------------------------------


def test_retry_after_in_seconds_and_as_an_http_date():
    now = 1_000_000_000.0
    assert retry_after_seconds("2", now) == 2.0
    assert retry_after_seconds(" 1.5 ", now) == 1.5
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert retry_after_seconds(date, now) == 30.0
    assert retry_after_seconds(email.utils.formatdate(now - 30, usegmt=True), now) == 0.0
    for bad in ("", "soon", "-3", "nan", "inf", None):
        assert retry_after_seconds(bad, now) is None


async def test_retry_after_seconds_is_honoured(tmp_path):
    t0 = time.monotonic()
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(rate_limited=1, retry_after="1")
    )
    _assert_fixed(outcome, verdicts)
    assert time.monotonic() - t0 >= 1.0  # not the test's 0.05 s backoff cap
    first = next(e for e in trace if e["kind"] == "model_call")
    assert first["attempts"][0]["retry_after_s"] == 1.0


async def test_retry_after_as_an_http_date_is_honoured(tmp_path):
    date = email.utils.formatdate(time.time() + 3, usegmt=True)
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(rate_limited=1, retry_after=date)
    )
    _assert_fixed(outcome, verdicts)
    first = next(e for e in trace if e["kind"] == "model_call")
    assert 1.5 < first["attempts"][0]["retry_after_s"] <= 3.0  # not the 0.01 s backoff


async def test_a_huge_retry_after_stops_at_once_saying_how_long(tmp_path):
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(rate_limited=5, retry_after="99999999")
    )
    assert outcome.status == "failed"
    assert len(srv.requests) == 1  # not hammered while told to wait
    assert "asks to wait" in outcome.reason and "Retry-After: 99999999" in outcome.reason
    assert '"Rate limit reached"' in outcome.reason


# -- tool-call arguments encoded twice -------------------------------------------------------------


def test_arguments_encoded_twice_are_decoded_once():
    body = {
        "choices": [
            {
                "message": {
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "a",
                            "function": {
                                "name": "pull_document",
                                "arguments": '"{\\"x\\": 1}"',
                            },
                        },
                        {"id": "b", "function": {"name": "pull_document", "arguments": '"hi"'}},
                    ],
                }
            }
        ]
    }
    ans = read_answer(body, {"pull_document"})
    args = [c["function"]["arguments"] for c in ans.message["tool_calls"]]
    assert args == ['{"x": 1}', '"hi"']  # a string that holds no object stays as sent
    assert "arguments encoded twice (a JSON string holding the object); decoded" in ans.quirks


async def test_a_run_with_arguments_encoded_twice_does_the_work(tmp_path):
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(args_double_encoded=True)
    )
    _assert_fixed(outcome, verdicts)
    assert outcome.metrics["claim_accuracy"]["value"] == 1.0


# -- the answer only in reasoning_content ----------------------------------------------------------


def test_an_answer_only_in_the_reasoning_field_is_read_from_there():
    body = {"choices": [{"message": {"content": None, "reasoning_content": '{"a": 1}'}}]}
    ans = read_answer(body)
    assert ans.message["content"] == '{"a": 1}'
    assert ans.reasoning == '{"a": 1}'
    assert "the answer was only in 'reasoning_content'; read from there" in ans.quirks
    # with content beside it, the reasoning field stays reasoning
    body = {"choices": [{"message": {"content": "ok", "reasoning_content": "hmm"}}]}
    assert read_answer(body).message["content"] == "ok"


@pytest.mark.parametrize("mode", ["tools", "no-tools"])
async def test_a_run_whose_answers_are_only_in_reasoning_content(tmp_path, mode):
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(reasoning_only=True), mode=mode
    )
    _assert_fixed(outcome, verdicts)
    assert outcome.metrics["claim_accuracy"]["value"] == 1.0


# -- an event stream nobody asked for ----------------------------------------------------------------


def test_an_event_stream_is_assembled_into_one_answer():
    answer = FixEverything().completion(
        "Hello there", tool_calls=[("pull_document", {}), ("resolve_comment", {"comment_id": "c1"})]
    )
    body = read_event_stream(as_sse(answer).decode())
    msg = body["choices"][0]["message"]
    assert msg["content"] == "Hello there"
    assert [c["function"]["name"] for c in msg["tool_calls"]] == [
        "pull_document",
        "resolve_comment",
    ]
    assert msg["tool_calls"][1]["function"]["arguments"] == '{"comment_id": "c1"}'
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    assert body["usage"]["total_tokens"] == 120


def test_a_real_servers_event_stream_is_read():
    text = (DATA / "stream-llama-cpp-python.txt").read_text(encoding="utf-8")
    ans = read_answer(read_event_stream(text))
    assert ans.message["content"] == (
        "The sky is my own self-destruction, a cruel merciless blow that I will not rest "
        "until it has consumed me."
    )
    assert ans.finish_reason == "stop" and ans.usage.total is None  # it sends no usage


@pytest.mark.parametrize("mode", ["tools", "no-tools"])
async def test_a_server_that_streams_unasked_is_read(tmp_path, mode):
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(sse=True), mode=mode
    )
    _assert_fixed(outcome, verdicts)
    assert outcome.metrics["claim_accuracy"]["value"] == 1.0
    assert outcome.tokens is not None  # usage came in the last chunk
    assert "answer sent as an event stream (not asked for)" in _quirks_in(trace)
    assert all(not r.get("stream") for r in srv.requests)  # the client never asks for one


async def test_a_client_call_never_asks_for_a_stream():
    with ScriptedServer(PlainEnglish()) as srv:
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model)
        async with ModelClient(cfg) as client:
            await client.chat(
                [{"role": "user", "content": "hi"}], purpose="work", round_no=1, conversation="a"
            )
    assert "stream" not in srv.requests[0]


async def test_a_body_cut_short_says_the_cause():
    with ScriptedServer(PlainEnglish(), quirks=Quirks(cut="all", cut_style="body")) as srv:
        cfg = AgentConfig(
            base_url=srv.base_url, model=srv.model, max_retries=1, backoff_initial=0.01
        )
        async with ModelClient(cfg) as client:
            with pytest.raises(AgentError) as err:
                await client.chat(
                    [{"role": "user", "content": "hi"}],
                    purpose="work",
                    round_no=1,
                    conversation="a",
                )
    assert err.value.kind == "network" and "broke off before an answer" in str(err.value)


@pytest.mark.parametrize("style", ["body", "early"])
async def test_a_work_call_cut_off_after_the_push_ends_the_run_with_the_work_kept(tmp_path, style):
    outcome, srv, trace, verdicts, events = await _quirk_run(
        tmp_path, quirks=Quirks(cut="after_push", cut_style=style), rounds=3
    )
    assert outcome.status == "completed", outcome.reason
    assert verdicts == {"c1": "edited", "c2": "edited"}
    assert "round 1" in outcome.reason and "after the agent's push" in outcome.reason
    # the report is not asked of a server that just failed; the run stops there
    claim = outcome.metrics["claim_accuracy"]
    assert claim["value"] is None and "after the agent's push" in claim["reason"]
    assert [call_kind(r) for r in srv.requests].count("report") == 0
    rounds = [e for e in trace if e["kind"] == "note" and e.get("topic") == "interrupted"]
    assert len(rounds) == 1


async def test_an_html_page_after_the_push_keeps_the_work(tmp_path):
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(html_200="after_push")
    )
    assert outcome.status == "completed", outcome.reason
    assert verdicts == {"c1": "edited", "c2": "edited"}
    assert "an HTML page" in outcome.reason


# -- the quirk proxy (for trying these against a real server) ------------------------------------


async def test_the_quirk_proxy_bends_a_servers_answers(tmp_path):
    from engine.run.start import prepare_document, run_review
    from engine.workspace import Workspace
    from tests.engine.test_agent_quirks import _comments
    from tests.helpers.quirk_proxy import QuirkProxy

    ws = Workspace(tmp_path / "ws.sqlite3")
    doc = prepare_document(ws, "m", (DATA / "doc.html").read_text(), "html", _comments())
    with ScriptedServer(PlainEnglish()) as srv:
        proxy = QuirkProxy(srv.base_url, Quirks(sse=True, cut="report")).start()
        try:
            cfg = AgentConfig(
                base_url=proxy.base_url, model=srv.model, max_retries=1, backoff_initial=0.01
            )
            outcome = await run_review(ws, doc, cfg, out_dir=tmp_path / "b")
        finally:
            proxy.stop()
    ws.close()
    final = json.loads((outcome.bundle / "verdicts.json").read_text())["final"]
    _assert_fixed(outcome, {v["comment_id"]: v["verdict"] for v in final})
    assert outcome.metrics["claim_accuracy"]["value"] is None
    assert "broke off before an answer" in outcome.metrics["claim_accuracy"]["reason"]
    assert [call_kind(r) for r in proxy.requests].count("report") == 2  # the call and a retry


# -- strings where objects are expected -----------------------------------------------------------


def test_strings_where_the_protocol_has_objects_are_read():
    # "function" as the tool's name, not an object (its arguments beside it)
    body = {
        "choices": [
            {
                "message": {
                    "tool_calls": [
                        {"id": "a", "function": "pull_document", "arguments": {"x": 1}},
                    ]
                }
            }
        ]
    }
    call = read_answer(body, {"pull_document"}).message["tool_calls"][0]
    assert call["function"] == {"name": "pull_document", "arguments": '{"x": 1}'}
    # a message that is a string, and the completions API's "text"
    for choice in ({"message": "plain answer"}, {"text": "plain answer"}):
        assert read_answer({"choices": [choice]}).message["content"] == "plain answer"


class NoToolsThenDown(PlainEnglish):
    """No-tools mode: round 1 pushes and addresses c1 only (c2 stays open); every later
    request fails (HTTP 500 from the server)."""

    def no_tools(self, body):
        if self.work_calls > 1:
            raise RuntimeError("the model server went away")
        answer = super().no_tools(body)
        msg = answer["choices"][0]["message"]
        msg["content"] = msg["content"].replace(
            "c2: addressed | rewrote the passage", "c2: not addressed | next round"
        )
        return answer


async def test_the_no_tools_mode_keeps_its_work_when_a_later_round_fails(tmp_path):
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, NoToolsThenDown(), rounds=3, mode="no-tools"
    )
    assert outcome.status == "completed", outcome.reason
    assert outcome.reason.startswith("stopped in round 2: a model call failed after the agent's")
    assert verdicts == {"c1": "edited", "c2": "edited"}
    assert outcome.rounds == 2


# -- nothing answers at the address ----------------------------------------------------------


async def test_a_dead_endpoint_is_said_in_plain_words_and_python_s_in_the_trace(tmp_path):
    """Nothing listens at the address: the reason names the host and port in words
    ("could not connect to 127.0.0.1:PORT (nothing answered)"), never Python's
    "APIConnectionError: Connection error."; the exception stays in the trace."""
    from urllib.parse import urlsplit

    from engine.run.start import prepare_document, run_review
    from engine.workspace import Workspace
    from tests.engine.test_agent_quirks import _comments

    srv = ScriptedServer(FixEverything()).start()
    url = srv.base_url
    srv.stop()  # the address of a server that no longer runs
    port = urlsplit(url).port
    ws = Workspace(tmp_path / "ws.sqlite3")
    doc = prepare_document(ws, "Filing memo", (DATA / "doc.html").read_text(), "html", _comments())
    config = AgentConfig(
        base_url=url, model="m", request_timeout=5, max_retries=1, backoff_initial=0.01
    )
    outcome = await run_review(ws, doc, config, rounds=2, out_dir=tmp_path / "b")
    ws.close()
    assert outcome.status == "failed"
    assert f"could not connect to 127.0.0.1:{port} (nothing answered)" in outcome.reason
    assert "Error" not in outcome.reason and "(s)" not in outcome.reason
    trace = json.loads((outcome.bundle / "trace.json").read_text())["entries"]
    attempts = [a for e in trace if e.get("kind") == "model_call" for a in e["attempts"]]
    assert attempts and all("APIConnectionError" in a["exception"] for a in attempts)


@given(
    host=st.sampled_from(["127.0.0.1", "localhost", "例え.jp", "[::1]", "models.example.org"]),
    port=st.integers(1, 65535),
    why=st.sampled_from(["refused", "name", "dropped", "other"]),
)
def test_connection_words_name_the_host_and_port_never_python(host, port, why):
    import socket

    import httpx2 as httpx  # the HTTP library the openai package here uses
    import openai

    from engine.agent.failures import connection_words

    url = f"http://{host}:{port}/v1"
    exc = openai.APIConnectionError(request=httpx.Request("POST", url))
    exc.__cause__ = {
        "refused": ConnectionRefusedError(111, "Connection refused"),
        "name": socket.gaierror(-2, "Name or service not known"),
        "dropped": httpx.RemoteProtocolError("peer closed connection without response"),
        "other": OSError("something odd"),
    }[why]
    words = connection_words(exc, url)
    where = f"{host.strip('[]')}:{port}"
    assert where in words and "Error" not in words and "Connection error" not in words
    assert ("nothing answered" in words) == (why == "refused")
    assert ("was not found" in words) == (why == "name")
    assert ("broke off" in words) == (why == "dropped")
    assert connection_words(ValueError("x"), url) == ""
    assert connection_words(openai.APITimeoutError(request=exc.request), url) == ""


async def test_a_run_that_never_reached_the_model_has_every_metric_na_and_verifies(tmp_path):
    """No model answer at all: every metric N/A "the model was never reached: <why>"
    (never 0%, never 0 tokens per fix), the same when the bundle re-derives them."""
    from engine.bundle.read import verify_bundle
    from engine.run.start import prepare_document, run_review
    from engine.workspace import Workspace
    from tests.engine.test_agent_quirks import _comments

    srv = ScriptedServer(FixEverything()).start()
    url = srv.base_url
    srv.stop()
    ws = Workspace(tmp_path / "ws.sqlite3")
    doc = prepare_document(ws, "Filing memo", (DATA / "doc.html").read_text(), "html", _comments())
    config = AgentConfig(
        base_url=url, model="m", request_timeout=5, max_retries=1, backoff_initial=0.01
    )
    outcome = await run_review(ws, doc, config, rounds=2, out_dir=tmp_path / "b")
    ws.close()
    assert outcome.status == "failed"
    for name, m in outcome.metrics.items():
        assert m["value"] is None, name
        assert m["reason"].startswith("the model was never reached: could not connect to"), m
    stored = json.loads((outcome.bundle / "metrics.json").read_text())
    assert "never reached" in json.dumps(stored)
    # Nothing was measured, which is not zero: the manifest and the outcome say null.
    manifest = json.loads((outcome.bundle / "manifest.json").read_text())
    assert "tokens" in manifest and manifest["tokens"] is None
    assert outcome.tokens is None
    result = verify_bundle(outcome.bundle)
    assert result.ok, result
    # Every reader says it: arl bundle show (tokens N/A, not 0), the scorecard.
    import contextlib
    import io

    from engine.cli.main import main as arl

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        arl(["bundle", "show", str(outcome.bundle)])
    shown = out.getvalue()
    assert "tokens N/A \u2014 the model was never reached" in shown, shown
    assert "0 tokens" not in shown and "0%" not in shown and "(0 of" not in shown
    card = (outcome.bundle / "scorecard.html").read_text()
    assert "the model was never reached" in card and ">0%" not in card and "(0 of" not in card


async def test_an_older_never_reached_bundle_that_stored_zero_tokens_still_verifies(tmp_path):
    """Bundles written before tokens were null for a run that never reached the model say
    0 for the same fact: they verify and read N/A; any other count is a difference."""
    from engine.bundle.read import verify_bundle
    from engine.run.start import prepare_document, run_review
    from engine.workspace import Workspace
    from tests.engine.test_agent_quirks import _comments

    srv = ScriptedServer(FixEverything()).start()
    url = srv.base_url
    srv.stop()
    ws = Workspace(tmp_path / "ws.sqlite3")
    doc = prepare_document(ws, "Filing memo", (DATA / "doc.html").read_text(), "html", _comments())
    config = AgentConfig(base_url=url, model="m", max_retries=1, backoff_initial=0.01)
    outcome = await run_review(ws, doc, config, rounds=1, out_dir=tmp_path / "b")
    ws.close()
    path = outcome.bundle / "manifest.json"
    manifest = json.loads(path.read_text())
    (outcome.bundle / "signature.json").unlink(missing_ok=True)  # the manifest is edited
    for stated, ok in ((0, True), (None, True), (7, False)):
        path.write_text(json.dumps(manifest | {"tokens": stated}))
        result = verify_bundle(outcome.bundle)
        assert result.ok is ok, (stated, result)


async def test_a_failure_after_the_agent_worked_keeps_its_measured_figures(tmp_path):
    """The model answered (it pushed) and a later call failed: the metrics measure what
    was done, not "never reached"."""
    outcome, srv, trace, verdicts, _ = await _quirk_run(
        tmp_path, quirks=Quirks(cut="after_push", cut_style="early"), rounds=3
    )
    assert outcome.metrics["attribution_rate"]["value"] is not None
    assert "never reached" not in json.dumps(outcome.metrics)


def test_never_reached_reason_needs_a_failed_run_without_any_answer():
    from engine.score.metrics import never_reached_reason

    failed_call = {"kind": "model_call", "response": None, "attempts": [{"error": "x"}]}
    answered = {"kind": "model_call", "response": {"ok": 1}, "attempts": []}
    assert never_reached_reason("failed", [failed_call]) == "the model was never reached: x"
    assert never_reached_reason("failed", []) == (
        "the model was never reached: no model call was made"
    )
    assert never_reached_reason("failed", [answered, failed_call]) == ""
    assert never_reached_reason("completed", [failed_call]) == ""
    assert never_reached_reason("cancelled", [failed_call]) == ""
    assert never_reached_reason("failed", None).startswith("the model was never reached")


@given(
    status=st.sampled_from(["failed", "completed", "cancelled", "stopped"]),
    calls=st.lists(
        st.tuples(st.booleans(), st.text(alphabet="ab 接続 اتصال ไม่ 🔌", max_size=20)),
        max_size=5,
    ),
)
def test_never_reached_holds_exactly_for_a_failed_run_without_an_answer(status, calls):
    from engine.score.metrics import never_reached_reason

    entries = [
        {"kind": "model_call", "response": {"x": 1} if ok else None, "attempts": [{"error": w}]}
        for ok, w in calls
    ] + [{"kind": "note", "text": "n"}]
    got = never_reached_reason(status, entries)
    assert bool(got) == (status == "failed" and not any(ok for ok, _ in calls))
    if got:
        errors = [w for _, w in calls if w]
        assert got == "the model was never reached: " + (
            errors[-1] if errors else "no model call was made"
        )
