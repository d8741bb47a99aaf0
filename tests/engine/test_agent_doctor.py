"""``arl doctor``'s capability probes against quirky scripted servers: one line per
capability, PASS/FAIL/UNVERIFIED, each FAIL saying what the program does or the user
should do; the findings are remembered and a later run writes them into its trace."""

from __future__ import annotations

from engine.agent import capabilities
from engine.doctor import check_endpoint
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
