"""An error a server sends inside an HTTP 200 event stream is the server's error, quoted:
the run does not read "completed" (docs/providers.md)."""

from __future__ import annotations

import pytest

from engine.agent.bodies import read_event_stream
from engine.bundle.read import verify_bundle
from tests.engine.test_agent_quirks import _quirk_run
from tests.helpers.scripted_server import Quirks


@pytest.mark.parametrize("style", ["chunk", "event"])
@pytest.mark.parametrize("mode", ["tools", "no-tools"])
async def test_an_error_inside_a_200_stream_fails_the_run_quoting_the_server(tmp_path, style, mode):
    said = "upstream model overloaded — 服务器过载"
    outcome, _, trace, _, _ = await _quirk_run(
        tmp_path, quirks=Quirks(sse=True, sse_error=said, sse_error_style=style), mode=mode
    )
    assert outcome.status == "failed", outcome.reason
    assert said in outcome.reason and "inside its event stream" in outcome.reason
    assert outcome.bundle is not None and verify_bundle(outcome.bundle).ok


def test_read_event_stream_keeps_the_first_error():
    text = (
        'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n'
        'data: {"error":{"message":"first","type":"server_error"}}\n\n'
        'data: {"error":{"message":"second"}}\n\n'
        "data: [DONE]\n\n"
    )
    body = read_event_stream(text)
    assert body["error"] == {"message": "first", "type": "server_error"}
    ok = 'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}\n\n'
    assert "error" not in read_event_stream(ok + 'data: {"error": null}\n\n')
    assert "error" not in read_event_stream("event: message\n" + ok)
