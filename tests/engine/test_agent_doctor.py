"""``arl doctor``'s capability probes against quirky scripted servers: one line per
capability, PASS/FAIL/UNVERIFIED, each FAIL saying what the program does or the user
should do; the findings are remembered and a later run writes them into its trace."""

from __future__ import annotations

import pytest

from engine.agent import capabilities
from engine.doctor import CLI_KEY_FIX, ENDPOINT_CHECKS, GUI_KEY_FIX, check_endpoint
from tests.helpers.scripted_server import (
    FixEverything,
    Quirks,
    ScriptedServer,
    Silent,
)


async def _doctor(agent=None, **quirks):
    with ScriptedServer(agent or FixEverything(), quirks=Quirks(**quirks)) as srv:
        checks = await check_endpoint(srv.base_url, srv.model, None, timeout=5)
    return {c.name: c for c in checks}, srv


async def test_a_well_behaved_server_passes_every_probe():
    c, _ = await _doctor()
    assert [n for n in c] == [
        "endpoint reachable",
        "model present",
        "tool calls",
        "tool_choice required",
        "json_object",
        "json_schema",
        "reasoning output",
        "usage reported",
        "context length",
    ]
    assert all(x.status == "PASS" for n, x in c.items() if n != "context length")
    assert c["context length"].status == "UNVERIFIED"


async def test_lm_studio_llamacpp_and_usage_quirks_each_say_what_happens():
    c, srv = await _doctor(
        refuse_json_object=True, required_status=500, usage="null", reasoning="think"
    )
    jo = c["json_object"]
    assert jo.status == "FAIL" and jo.handled
    assert "must be 'json_schema' or 'text'" in jo.detail and "json_schema" in jo.fix
    assert c["json_schema"].status == "PASS"
    req = c["tool_choice required"]
    assert req.status == "FAIL" and req.handled and "Unexpected empty grammar stack" in req.detail
    assert "tool_choice=auto" in req.fix
    assert c["usage reported"].status == "FAIL" and "N/A" in c["usage reported"].fix
    assert c["reasoning output"].status == "PASS" and "stripped" in c["reasoning output"].detail
    assert "the program:" in req.line() and "fix:" not in req.line()
    # not retried: one request per probe
    assert len(srv.requests) == 4
    known = capabilities.recall(srv.url, srv.model)["findings"]
    assert known["json_object"]["status"] == "FAIL" and known["json_object"]["source"] == "doctor"


async def test_ollama_without_tools_and_a_model_that_ignores_them():
    c, _ = await _doctor(refuse_tools=True)
    t = c["tool calls"]
    assert t.status == "FAIL" and "does not support tools" in t.detail
    assert "--mode no-tools" in t.fix and not t.handled
    c, _ = await _doctor(Silent())
    t = c["tool calls"]
    assert t.status == "FAIL" and "text instead of a tool call" in t.detail
    assert "--mode auto" in t.fix


def test_an_unreadable_endpoint_memory_is_ignored_and_replaced(arl_home):
    import os

    path = arl_home / capabilities.FILE_NAME
    for bad in ("[" * 500 + "]" * 500, '{"endpoints": {"x": ' + "9" * 5000 + "}}", "not json"):
        capabilities.forget_all()
        path.write_text(bad)
        assert capabilities.recall("http://127.0.0.1:1/v1", "m") == {}
    path.unlink()
    os.mkfifo(path)  # a FIFO would block a plain read: refused as not a regular file
    capabilities.forget_all()
    assert capabilities.report_format("http://127.0.0.1:1/v1", "m") is None
    path.unlink()
    capabilities.remember_report_format("http://127.0.0.1:1/v1", "m", "text")
    capabilities.forget_all()
    assert capabilities.report_format("http://127.0.0.1:1/v1", "m") == "text"


async def test_a_web_page_where_the_model_list_should_be_is_named():
    """A base URL that points at a web application (a chat UI, a proxy's page) answers
    GET /models with HTML: the line names the page and the fix, not 'not valid JSON'."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    page = b"<!DOCTYPE html><html><head><title>Open WebUI</title></head><body>app</body></html>"

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        checks = {c.name: c for c in await check_endpoint(url, "m", None, timeout=5)}
    finally:
        httpd.shutdown()
        httpd.server_close()
    line = checks["endpoint reachable"]
    assert line.status == "FAIL"
    assert 'an HTML page ("Open WebUI")' in line.detail and "not valid JSON" not in line.detail
    assert "/v1" in line.fix


async def _wrong_key(**kw):
    quirks = Quirks(open_model_list=kw.pop("open_model_list", False))
    with ScriptedServer(FixEverything(), api_key="sk-the-right-one-0000000", quirks=quirks) as srv:
        checks = await check_endpoint(srv.base_url, srv.model, "sk-a-wrong-one-00000000", 5, **kw)
    return checks


@pytest.mark.parametrize("open_model_list", [False, True])
async def test_a_refused_key_is_one_fail_and_the_rest_say_not_checked(open_model_list):
    """The server answered (it refused the key): never "could not be reached" after it.
    The key is refused on the model list, or (a gateway with an open model list) on the
    first chat request."""
    checks = await _wrong_key(open_model_list=open_model_list)
    assert [c.name for c in checks] == list(ENDPOINT_CHECKS)
    failed = [c for c in checks if c.status == "FAIL"]
    assert len(failed) == 1 and "refused the API key" in failed[0].detail
    assert failed[0].name == ("tool calls" if open_model_list else "endpoint reachable")
    assert failed[0].fix == CLI_KEY_FIX and "OPENAI_API_KEY" in failed[0].fix
    assert "OPENAI_API_KEY" not in failed[0].detail  # the fix is said once, in context
    after = checks[checks.index(failed[0]) + 1 :]
    assert after and all(
        c.status == "UNVERIFIED" and c.detail == "not checked: the server refused the API key"
        for c in after
    )
    assert not any("could not be reached" in c.line() for c in checks)


async def test_the_wizard_names_its_key_box_when_the_key_is_refused():
    checks = await _wrong_key(key_fix=GUI_KEY_FIX)
    assert checks[0].status == "FAIL" and checks[0].fix == GUI_KEY_FIX
    assert "key box above" in checks[0].line() and "OPENAI_API_KEY" not in checks[0].line()


async def test_an_endpoint_that_is_not_there_says_could_not_be_reached():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    checks = await check_endpoint(f"http://127.0.0.1:{port}/v1", "m", None, 5)
    assert checks[0].status == "FAIL" and "base URL" in checks[0].fix
    assert {c.detail for c in checks[1:]} == {"not checked: the endpoint could not be reached"}


async def test_the_usage_line_uses_the_shared_wording():
    from engine.vocabulary import USAGE_NOT_WHOLE_NUMBERS

    c, _ = await _doctor(usage="strings")
    line = c["usage reported"]
    assert line.status == "FAIL" and USAGE_NOT_WHOLE_NUMBERS in line.detail
    c, _ = await _doctor(usage="absent")
    assert "the provider reported no token usage for" in c["usage reported"].detail
