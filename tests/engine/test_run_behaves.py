"""Runs that behave: a model calling the same tool with the same arguments while nothing
changes is said to be looping (once, in plain words); Cancel stops the call in flight within
a second and makes no further model call; the run says where the document goes."""

from __future__ import annotations

import asyncio
import time

import pytest

from engine.agent.repeats import REPEAT_LIMIT, RepeatWatch
from engine.bundle.read import open_bundle
from engine.credentials import is_loopback_host, sent_to_words
from engine.events import AgentNotice, RoundStarted
from engine.run.records import RunHandle
from engine.run.start import run_review
from tests.engine.test_cli_loop import _run_args, inputs  # noqa: F401 (fixture)
from tests.engine.test_run import _config, _setup
from tests.helpers.scripted_server import FixEverything, ScriptedAgent, ScriptedServer


class Looper(ScriptedAgent):
    """Lists the comments and pulls the document, again and again, and never edits."""

    def work(self, body):
        return self.completion(tool_calls=[("list_comments", {}), ("pull_document", {})])


def test_repeat_watch_counts_calls_between_changes():
    w = RepeatWatch()
    seen = [w.see("list_comments", "{}", True) for _ in range(REPEAT_LIMIT - 1)]
    assert seen == [None] * (REPEAT_LIMIT - 1)
    assert w.see("list_comments", "{ }", True) == REPEAT_LIMIT  # the same JSON value
    assert w.see("list_comments", "{}", True) is None  # said once
    # Other arguments are another call; a change starts the count again.
    assert w.see("pull_document", '{"version_id": "v1"}', True) is None
    w.see("push_version", '{"content": "x"}', True)
    assert [w.see("list_comments", "{}", True) for _ in range(REPEAT_LIMIT)][-1] == REPEAT_LIMIT
    # A failed push changes nothing.
    w2 = RepeatWatch(limit=2)
    w2.see("list_comments", "{}", True)
    w2.see("push_version", "{}", False)
    assert w2.see("list_comments", "{}", True) == 2


async def test_a_looping_model_is_said_once_in_plain_words(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    events = []
    with ScriptedServer(Looper()) as srv:
        outcome = await run_review(
            ws,
            doc,
            _config(srv, max_turns_per_round=REPEAT_LIMIT + 3),
            out_dir=tmp_path / "b",
            rounds=1,
            on_event=events.append,
        )
    loops = [e for e in events if isinstance(e, AgentNotice) and e.topic.startswith("repeating:")]
    names = sorted(e.topic.split(":")[1] for e in loops)
    assert names == ["list_comments", "pull_document"]  # once each, not once per turn
    assert f"{REPEAT_LIMIT} times" in loops[0].text and "going round in circles" in loops[0].text
    trace = open_bundle(outcome.bundle).trace
    notes = [e for e in trace["entries"] if e.get("topic", "").startswith("repeating:")]
    assert len(notes) == 2 and notes[0]["times"] == REPEAT_LIMIT


async def test_cancel_stops_the_call_in_flight_within_a_second(tmp_path):
    ws, doc, _ = _setup(tmp_path)
    handle = RunHandle()
    box = {}

    def on_event(e):
        if isinstance(e, RoundStarted):  # the first model call is about to be made
            loop = asyncio.get_running_loop()
            loop.call_later(0.5, lambda: (box.setdefault("t", time.monotonic()), handle.cancel()))

    with ScriptedServer(FixEverything(), latency=8.0) as srv:
        outcome = await run_review(
            ws,
            doc,
            _config(srv, request_timeout=30),
            out_dir=tmp_path / "b",
            handle=handle,
            on_event=on_event,
        )
        ended = time.monotonic()
        sent = len(srv.requests)
    assert outcome.status == "cancelled"
    assert ended - box["t"] < 1.5, ended - box["t"]  # not the 8 s the answer would take
    assert sent == 1  # the call in flight; none after Cancel (no report asked)
    trace = open_bundle(outcome.bundle).trace
    calls = [e for e in trace["entries"] if e.get("kind", e.get("type")) == "model_call"]
    calls = calls or [e for e in trace["entries"] if "attempts" in e]
    assert len(calls) == 1 and calls[0]["attempts"][-1]["error"] == "cancelled"


@pytest.mark.parametrize(
    ("url", "stays"),
    [
        ("http://127.0.0.1:8089/v1", True),
        ("http://localhost:1234/v1", True),
        ("http://[::1]:8000/v1", True),
        ("https://api.example.com/v1", False),
        ("http://10.0.0.5:8000/v1", False),
        ("http://127.example.com/v1", False),
    ],
)
def test_the_run_says_where_the_document_goes(url, stays):
    from engine.credentials import key_host

    assert is_loopback_host(key_host(url)) is stays
    words = sent_to_words(url)
    if stays:
        assert "stay on this computer" in words
    else:
        assert f"are sent to {key_host(url)}" in words


def test_arl_run_prints_where_the_document_goes(inputs, tmp_path, capsys):  # noqa: F811
    from engine.cli.main import main as arl

    doc, comments = inputs
    with ScriptedServer(FixEverything()) as srv:
        assert arl(_run_args(srv, doc, comments, tmp_path, "--no-sign")) == 0
    out = capsys.readouterr().out
    assert (
        "The document and its comments stay on this computer (the model's server is 127.0.0.1:"
        in out
    )
