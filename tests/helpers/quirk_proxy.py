"""A quirk proxy: puts the scripted server's quirks in front of a real model server.

``python -m tests.helpers.quirk_proxy http://127.0.0.1:8089/v1 --quirk cut=report``
prints a base URL on 127.0.0.1; requests to it go to the real server, and its answers
come back bent the way the ``--quirk`` flags say (the ``Quirks`` of
``tests/helpers/scripted_server.py``: ``cut``, ``cut_style``, ``html_200``,
``rate_limited``, ``retry_after``, ``sse``, and every flag that bends an answer, such as
``reasoning_only`` or ``args_double_encoded``). For trying the off-path with the local
model (docs/providers.md); loopback only.
"""

from __future__ import annotations

import json
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.helpers.scripted_server import (
    PROXY_PAGE,
    QuietHTTPServer,
    Quirks,
    _apply_quirks,
    _targeted,
    as_sse,
)


class QuirkProxy:
    """The proxy (``start()``/``stop()``, ``base_url``); ``requests``: the chat request
    bodies seen, in order."""

    def __init__(self, upstream: str, quirks: Quirks, timeout: float = 600.0):
        self.upstream = upstream.rstrip("/")
        self.quirks = quirks
        self.timeout = timeout
        self.requests: list[dict[str, Any]] = []
        self._state: dict[str, Any] = {}
        self._httpd: QuietHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def _forward(self, method: str, path: str, data: bytes | None, auth: str) -> tuple[int, bytes]:
        url = self.upstream + path[len("/v1") :] if path.startswith("/v1") else self.upstream + path
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if auth:
            req.add_header("Authorization", auth)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def start(self) -> QuirkProxy:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:
                pass

            def _send(self, status: int, data: bytes, ctype: str, extra: dict | None = None):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                for k, v in (extra or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                status, data = proxy._forward("GET", self.path, None, "")
                self._send(status, data, "application/json")

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw)
                proxy.requests.append(body)
                q = proxy.quirks
                if q.rate_limited > 0:
                    q.rate_limited -= 1
                    err = {"error": {"message": "Rate limit reached", "type": "rate_limit"}}
                    self._send(
                        429,
                        json.dumps(err).encode(),
                        "application/json",
                        {"Retry-After": q.retry_after},
                    )
                    return
                if _targeted(q.html_200, body):
                    self._send(200, PROXY_PAGE.encode(), "text/html")
                    return
                status, data = proxy._forward(
                    "POST", self.path, raw, self.headers.get("Authorization", "")
                )
                if status != 200:
                    self._send(status, data, "application/json")
                    return
                answer = _apply_quirks(q, json.loads(data), proxy._state)
                out = json.dumps(answer).encode()
                if _targeted(q.cut, body):
                    self.close_connection = True
                    if q.cut_style == "body":
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(out)))
                        self.end_headers()
                        self.wfile.write(out[: len(out) // 2])
                    return
                if q.sse:
                    self._send(200, as_sse(answer), "text/event-stream")
                    return
                self._send(200, out, "application/json")

        self._httpd = QuietHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None


def main(argv: list[str]) -> int:
    import argparse
    import dataclasses
    import time

    fields = {f.name: f for f in dataclasses.fields(Quirks)}
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("upstream", help="the real server's base URL, e.g. http://127.0.0.1:8089/v1")
    p.add_argument("--quirk", action="append", default=[], metavar="NAME[=VALUE]")
    args = p.parse_args(argv)
    values: dict[str, Any] = {}
    for item in args.quirk:
        name, _, value = item.partition("=")
        if name not in fields:
            p.error(f"unknown quirk {name!r} (one of: {', '.join(sorted(fields))})")
        kind = str(fields[name].type)
        values[name] = (
            (value.lower() not in ("0", "false", "no") if value else True)
            if "bool" in kind
            else int(value)
            if kind.startswith("int")
            else value
        )
    proxy = QuirkProxy(args.upstream, Quirks(**values)).start()
    print(proxy.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        proxy.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
