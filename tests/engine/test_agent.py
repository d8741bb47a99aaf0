"""The revision agent's pieces: report validation, tools, client errors, usage, prompts."""

from __future__ import annotations

import json

import pytest

from engine.agent.client import ModelClient
from engine.agent.config import AgentConfig, AgentError, TokenBudgetExceeded, Usage, safe_url
from engine.agent.report import parse_report
from engine.agent.revision import SYSTEM_PROMPT
from engine.agent.tools import TOOLS, WorkspaceTools
from engine.models import Comment
from engine.score.scoring import Version
from engine.workspace import Workspace
from tests.helpers.scripted_server import (
    SAMPLE_HTML,
    FixEverything,
    ScriptedServer,
    sample_comments,
)

IDS = ["c1", "c2", "c3"]


@pytest.mark.parametrize(
    "text,problem",
    [
        (None, "empty"),
        ("", "empty"),
        ("Sure! All done.", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"notes": "x"}', 'no "comments" list'),
        ('{"comments": [{"comment_id": "c1", "claim": "fixed"}]}', "is not one of"),
        (
            '{"comments": [{"comment_id": "c1", "claim": "addressed"},'
            ' {"comment_id": "c1", "claim": "addressed"}]}',
            "twice",
        ),
        ('{"comments": [{"comment_id": "c9", "claim": "addressed"}]}', "do not exist: 'c9'"),
        ('{"comments": ["c1"]}', "not an object"),
    ],
)
def test_invalid_reports_are_unusable_with_a_reason(text, problem):
    rep = parse_report(text, IDS)
    assert not rep.usable and problem in rep.problem


def test_valid_report_and_code_fence():
    body = {
        "comments": [
            {"comment_id": "c1", "claim": "addressed", "change_summary": "x", "rationale": "y"},
            {"comment_id": "c2", "claim": "not_addressed"},
        ],
        "notes": "n",
    }
    for text in (json.dumps(body), "```json\n" + json.dumps(body) + "\n```"):
        rep = parse_report(text, IDS)
        assert rep.usable and rep.notes == "n"
        assert rep.by_comment()["c1"].claim == "addressed"
        assert rep.by_comment()["c2"].claim == "not_addressed"


def test_tools_schemas_and_prompt():
    names = [t["function"]["name"] for t in TOOLS]
    assert names == [
        "list_comments",
        "pull_document",
        "resolve_comment",
        "reply_comment",
        "push_version",
    ]
    for t in TOOLS:
        params = t["function"]["parameters"]
        assert params["type"] == "object" and "properties" in params
    assert "no comment points at" in SYSTEM_PROMPT
    assert "<comment id>: <what changed>" in SYSTEM_PROMPT
    assert "reply_comment" in SYSTEM_PROMPT and "resolve_comment" in SYSTEM_PROMPT


@pytest.fixture
def tools(tmp_path):
    ws = Workspace(tmp_path / "w.db")
    text = Version.from_source(SAMPLE_HTML).text
    doc, _ = ws.create_document("Memo", SAMPLE_HTML)
    ws.add_comments(doc, [Comment.from_json(c) for c in sample_comments(text)])
    yield WorkspaceTools(ws, doc, IDS)
    ws.close()


def test_tool_errors_go_back_as_strings(tools):
    cases = [
        ("resolve_comment", '{"comment_id": "zz"}', "no comment with id 'zz'"),
        ("resolve_comment", "{}", "comment_id is required"),
        ("reply_comment", '{"comment_id": "c1"}', "body is required"),
        ("reply_comment", "{oops", "not valid JSON"),
        ("push_version", '{"content": "x", "summary": ""}', "base_version_id is required"),
        (
            "push_version",
            '{"base_version_id": "v1", "content": " ", "summary": ""}',
            "content is required",
        ),
        ("delete_everything", "{}", "no tool named"),
        ("list_comments", "[1]", "must be a JSON object"),
    ]
    for name, args, needle in cases:
        out = tools.dispatch(name, args)
        assert not out.ok and out.result.startswith("error:") and needle in out.result, out


def test_push_conflict_and_summary_note(tools):
    pulled = json.loads(tools.dispatch("pull_document", "").result)
    assert pulled["version_id"] == "v1" and pulled["kind"] == "html"
    ok = tools.dispatch(
        "push_version",
        json.dumps({"base_version_id": "v1", "content": "<p>x</p>", "summary": "c1: changed"}),
    )
    assert ok.ok and "version v2" in ok.result and "no line for c2, c3" in ok.result
    assert ok.arguments["content"] == "<8 characters>"
    stale = tools.dispatch(
        "push_version", json.dumps({"base_version_id": "v1", "content": "<p>y</p>", "summary": ""})
    )
    assert not stale.ok and "conflict" in stale.result and "latest is v2" in stale.result


def test_list_comments_hides_resolved_unless_asked(tools):
    assert tools.dispatch("resolve_comment", '{"comment_id": "c1", "note": "done"}').ok
    listed = json.loads(tools.dispatch("list_comments", "{}").result)["comments"]
    assert [c["id"] for c in listed] == ["c2", "c3"]
    assert listed[0]["quote"] == "by the department head"
    every = json.loads(tools.dispatch("list_comments", '{"include_resolved": true}').result)
    assert [c["id"] for c in every["comments"]] == IDS


def test_safe_url_drops_credentials_and_query():
    assert (
        safe_url("https://user:sk-123@api.example.com:8443/v1?key=sk-9#x")
        == "https://api.example.com:8443/v1"
    )
    assert safe_url("http://127.0.0.1:8089/v1") == "http://127.0.0.1:8089/v1"


def test_config_repr_hides_the_key():
    cfg = AgentConfig(base_url="http://x/v1", model="m", api_key="sk-hidden")
    assert "sk-hidden" not in repr(cfg) and "sk-hidden" not in json.dumps(cfg.public())


def test_usage_none_when_any_call_is_unreported():
    class U:
        prompt_tokens, completion_tokens, total_tokens = 10, 5, 15

    u = Usage()
    u.add(U())
    assert u.total == 15
    u.add(None)
    assert u.total is None and "1 of 2" in u.reason()


async def test_token_budget_is_checked_before_a_call():
    with ScriptedServer(FixEverything()) as srv:
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model, max_tokens_per_run=100)
        async with ModelClient(cfg) as client:
            await client.chat(
                [{"role": "user", "content": "hi"}], purpose="work", round_no=1, conversation="a"
            )
            with pytest.raises(TokenBudgetExceeded):
                await client.chat(
                    [{"role": "user", "content": "hi"}],
                    purpose="work",
                    round_no=1,
                    conversation="a",
                )


async def test_unreachable_endpoint_is_a_network_error():
    cfg = AgentConfig(
        base_url="http://127.0.0.1:9/v1",
        model="m",
        max_retries=1,
        backoff_initial=0.01,
        request_timeout=2,
    )
    async with ModelClient(cfg) as client:
        with pytest.raises(AgentError) as err:
            await client.chat(
                [{"role": "user", "content": "hi"}], purpose="work", round_no=1, conversation="a"
            )
    assert err.value.kind == "network" and "did not answer after 2 attempt" in str(err.value)


async def test_trace_stores_only_new_messages_per_conversation():
    with ScriptedServer(FixEverything()) as srv:
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model)
        async with ModelClient(cfg) as client:
            msgs = [{"role": "user", "content": "one"}]
            await client.chat(msgs, purpose="work", round_no=1, conversation="a")
            msgs += [{"role": "assistant", "content": "x"}, {"role": "user", "content": "two"}]
            await client.chat(msgs, purpose="work", round_no=1, conversation="a")
        calls = [e for e in client.trace.entries if e["kind"] == "model_call"]
        assert calls[0]["request"]["new_messages"] == [{"role": "user", "content": "one"}]
        assert calls[1]["request"]["new_messages"] == msgs[1:]
        assert calls[1]["usage"]["total_tokens"] == 280  # the scripted author answer
