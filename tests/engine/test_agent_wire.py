"""Reading what servers really send (engine.agent.wire): the pieces the quirk runs use."""

from __future__ import annotations

import pytest

from engine.agent.bodies import context_limit, is_context_error, server_message
from engine.agent.jsonsafe import HugeInt, JSONProblem, dumps, load_json
from engine.agent.wire import read_answer, read_usage, strip_reasoning, text_tool_calls

TOOLS = {"pull_document", "push_version"}


@pytest.mark.parametrize(
    "content,text,reasoning",
    [
        ("<think>plan</think>\nanswer", "answer", "plan"),
        ("plan\n</think>\n\nanswer", "answer", "plan"),
        ("answer <think>never closed", "answer", "never closed"),
        ("<thinking>a</thinking>b", "b", "a"),
        ("no reasoning here", "no reasoning here", ""),
    ],
)
def test_strip_reasoning(content, text, reasoning):
    assert strip_reasoning(content) == (text, reasoning)


def test_text_tool_call_forms_and_what_is_not_a_call():
    hermes = '<tool_call>\n{"name": "pull_document", "arguments": {}}\n</tool_call>'
    assert text_tool_calls(hermes, TOOLS)[0] == [("pull_document", {})]
    mistral_v11 = '[TOOL_CALLS]pull_document[ARGS]{}[TOOL_CALLS]push_version[ARGS]{"a": 1}'
    calls, rest, form = text_tool_calls(mistral_v11, TOOLS)
    assert calls == [("pull_document", {}), ("push_version", {"a": 1})] and form == "mistral"
    llama = '<|python_tag|>{"name": "pull_document", "parameters": {}}<|eom_id|>'
    assert text_tool_calls(llama, TOOLS)[0] == [("pull_document", {})]
    bare = '{"name": "pull_document", "parameters": {}}'
    assert text_tool_calls(bare, TOOLS)[2] == "bare-json"
    # prose with a JSON example naming no tool of ours is prose
    example = 'For example:\n```json\n{"name": "Ada", "arguments": {"x": 1}}\n```'
    assert text_tool_calls(example, TOOLS) == ([], example, "")


def test_huge_integers_are_placeholders_and_written_back_verbatim():
    obj = load_json('{"a": [' + "7" * 5000 + "]}")
    assert isinstance(obj["a"][0], HugeInt) and obj["a"][0].digits == 5000
    assert dumps(obj) == '{"a": [' + "7" * 5000 + "]}"
    with pytest.raises(JSONProblem, match="nested too deeply"):
        load_json("[" * 100_000)


def test_usage_only_from_plain_integers():
    assert read_usage({"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}).total == 7
    assert read_usage({"prompt_tokens": 3, "completion_tokens": 4}).total == 7
    bad = read_usage({"total_tokens": "7"})
    assert bad.total is None and "total_tokens" in bad.problem
    assert read_usage({"total_tokens": True}).total is None
    assert read_usage({"total_tokens": -1}).total is None
    assert read_usage(None).total is None and read_usage([1]).total is None


def test_server_messages_and_context_limits():
    assert server_message({"error": {"message": "bad  thing"}}) == "bad thing"
    assert server_message({"error": "LM Studio says no"}) == "LM Studio says no"
    assert server_message({"detail": [{"msg": "field required"}]}) == "field required"
    assert server_message({"nothing": 1}) == ""
    msg = "This model's maximum context length is 8,192 tokens. However, you requested 9000"
    assert is_context_error(msg) and context_limit(msg) == 8192
    assert context_limit("exceeds the available context size", {"error": {"n_ctx": 2048}}) == 2048
    assert not is_context_error("tool_choice 'required' is not supported")


def test_read_answer_repairs_ids_arguments_and_null_content():
    seen: set[str] = set()
    body = {
        "choices": [
            {
                "message": {
                    "content": None,
                    "tool_calls": [
                        {"function": {"name": "pull_document", "arguments": {}}},
                        {"id": "x", "function": {"name": "push_version", "arguments": None}},
                        {"id": "x", "function": {"name": 7, "arguments": "{}"}},
                    ],
                },
                "finish_reason": "stop",
            }
        ],
        "usage": None,
    }
    a = read_answer(body, TOOLS, seen)
    calls = a.message["tool_calls"]
    assert a.message["content"] == ""
    assert [c["function"]["arguments"] for c in calls] == ["{}", "", "{}"]
    assert calls[2]["function"]["name"] == "7"
    ids = [c["id"] for c in calls]
    assert len(set(ids)) == 3 and all(ids) and ids[1] == "x"
    assert a.usage.total is None and "finish_reason 'stop' with tool calls" in a.quirks
    with pytest.raises(ValueError, match="no choices"):
        read_answer({"choices": []})
