"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for the agent and run tests.

Speaks ``POST /v1/chat/completions`` (non-streaming, tool calls, usage) and
``GET /v1/models``. The client under test is the real ``openai.AsyncOpenAI`` talking HTTP,
exactly as it talks to OpenAI. Answers come from a *policy* object (``ScriptedAgent`` and
its subclasses) that reads the conversation (tool results) and plays an agent: fixes
everything; claims fixes without editing; churns unanchored text; stalls with narration;
answers its report with prose; invents comment ids...

Usage::

    with ScriptedServer(FixEverything()) as srv:
        config = AgentConfig(base_url=srv.base_url, model=srv.model, ...)

Extras: ``fail_first=[429, 500]`` answers the first requests with those statuses
(``Retry-After: 0``); ``latency`` seconds of delay per answer; ``api_key`` makes any
other bearer token a 401; an unknown model is a 404; ``usage=False`` omits usage;
``echo_headers=True`` puts the request's headers (``Authorization`` included) into every
error body's message, as a careless server does (the secrets-redaction tests);
``echo_headers="encoded"`` sends the ``Authorization`` value back base64-encoded,
URL-encoded, split across lines and spaced out instead, and the bare key as hex, in other
letter cases, as HTML character references, reversed, rot13 and base32
(``encoded_echoes``).
"""

from __future__ import annotations

import base64
import json
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "scripted-model"


def _tool_results(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], str]]:
    """(tool name, parsed arguments, result string) for every tool result in order."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    out = []
    for m in messages:
        if m.get("role") == "assistant":
            for tc in m.get("tool_calls") or []:
                try:
                    args = json.loads(tc["function"].get("arguments") or "{}")
                except ValueError:  # not JSON, or an integer too long for Python
                    args = {}
                calls[tc["id"]] = (tc["function"]["name"], args)
        elif m.get("role") == "tool":
            name, args = calls.get(m.get("tool_call_id"), ("?", {}))
            out.append((name, args, m.get("content") or ""))
    return out


def rewrite(quote: str) -> str:
    """The scripted agents' edit of a quoted passage: clearly different text."""
    return quote.upper() if quote.upper() != quote else quote.lower()


def apply_fix(content: str, comment: dict[str, Any], fn=rewrite) -> str:
    """Replace the comment's quote in the raw source, preferring the copy with context."""
    q = comment.get("quote") or ""
    if not q:
        return content
    ctx = (comment.get("prefix") or "") + q + (comment.get("suffix") or "")
    i = content.find(ctx) if ctx != q else -1
    if i >= 0:
        i += len(comment.get("prefix") or "")
    else:
        i = content.find(q)
    if i < 0:
        return content
    return content[:i] + fn(q) + content[i + len(q) :]


AUTHORED_HTML = (
    "<!DOCTYPE html><html><head><title>Hybrid work</title></head><body>"
    "<h1>Hybrid work</h1><p>Teams meet in the office on Tuesdays and "
    "Thursdays.</p></body></html>"
)


class ScriptedAgent:
    """Base policy: fixes every comment it can find, resolves them, reports honestly.

    Hooks for subclasses: ``edit(content, comments)``, ``dispositions(comments, content)``,
    ``report(ids, body)``, ``narrate(body)``.
    """

    usage = True

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.work_calls = 0

    # -- response builders --------------------------------------------------------------
    def completion(
        self,
        content: str | None = None,
        tool_calls: list[tuple[str, dict[str, Any]]] | None = None,
        raw_args: list[str] | None = None,
        prompt_tokens: int = 100,
        completion_tokens: int = 20,
    ) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_calls:
            self._n = getattr(self, "_n", 0)
            calls = []
            for i, (name, args) in enumerate(tool_calls):
                self._n += 1
                arg_text = raw_args[i] if raw_args and i < len(raw_args) else json.dumps(args)
                calls.append(
                    {
                        "id": f"call_{self._n}",
                        "type": "function",
                        "function": {"name": name, "arguments": arg_text},
                    }
                )
            msg["tool_calls"] = calls
        out: dict[str, Any] = {
            "id": f"chatcmpl-{int(time.time() * 1000)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": msg,
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                }
            ],
        }
        if self.usage:
            out["usage"] = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            }
        return out

    # -- policy -------------------------------------------------------------------------
    def respond(self, body: dict[str, Any]) -> dict[str, Any]:
        tools = [t["function"]["name"] for t in body.get("tools") or []]
        system = next(
            (m.get("content") or "" for m in body["messages"] if m.get("role") == "system"), ""
        )
        if tools == ["record_number"]:  # arl doctor's tool-calling probe
            return self.tool_probe(body)
        if body.get("response_format") or system.startswith("You report on a revision"):
            user = body["messages"][-1]["content"]
            ids = [
                json.loads(line)["comment_id"]
                for line in user.splitlines()
                if line.startswith('{"comment_id"')
            ]
            return self.report(ids, body)
        if not tools and "<<<DISPOSITIONS>>>" in system:  # the no-tools mode
            with self.lock:
                self.work_calls += 1
            return self.no_tools(body)
        if not tools:  # arl author, doctor's plain probes
            return self.completion(
                "Here you go:\n```html\n" + AUTHORED_HTML + "\n```",
                prompt_tokens=80,
                completion_tokens=200,
            )
        with self.lock:
            self.work_calls += 1
        return self.work(body)

    def tool_probe(self, body: dict[str, Any]) -> dict[str, Any]:
        """The answer to arl doctor's tool-calling probe."""
        return self.completion(tool_calls=[("record_number", {"n": 7})])

    def no_tools(self, body: dict[str, Any]) -> dict[str, Any]:
        """Answer a no-tools request in its fixed format: the edit of ``edit()`` and a
        disposition per comment (``addressed`` where the quote was found)."""
        user = body["messages"][-1]["content"]
        comments = []
        for line in user.splitlines():
            if line.startswith('{"id"'):
                c = json.loads(line)
                comments.append({**c, "prefix": c.get("before"), "suffix": c.get("after")})
        doc = user.split("<<<DOCUMENT>>>\n", 1)[1].split("\n<<<END DOCUMENT>>>", 1)[0]
        new = self.edit(doc, comments)
        lines = []
        for c in comments:
            if c.get("quote") and c["quote"] in doc:
                lines.append(f"{c['id']}: addressed | rewrote the passage")
            else:
                lines.append(f"{c['id']}: not addressed | the quoted text is not in the document")
        text = (
            "<<<DISPOSITIONS>>>\n" + "\n".join(lines) + "\n<<<END DISPOSITIONS>>>\n"
            "<<<DOCUMENT>>>\n" + new + "\n<<<END DOCUMENT>>>"
        )
        return self.completion(text, prompt_tokens=300, completion_tokens=200)

    def narrate(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """Return a talk-only answer to stall, or None to work."""
        return None

    def edit(self, content: str, comments: list[dict[str, Any]]) -> str:
        for c in comments:
            content = apply_fix(content, c)
        return content

    def dispositions(
        self, comments: list[dict[str, Any]], content: str, new: str
    ) -> list[tuple[str, dict[str, Any]]]:
        calls = []
        for c in comments:
            if c.get("quote") and c["quote"] in content:
                calls.append(("resolve_comment", {"comment_id": c["id"], "note": "rewritten"}))
            else:
                calls.append(
                    (
                        "reply_comment",
                        {"comment_id": c["id"], "body": "The quoted text is not in the document."},
                    )
                )
        return calls

    def work(self, body: dict[str, Any]) -> dict[str, Any]:
        stall = self.narrate(body)
        if stall is not None:
            return stall
        results = _tool_results(body["messages"])
        names = [r[0] for r in results]
        listed = next(
            (json.loads(r[2]) for r in results if r[0] == "list_comments" and r[2].startswith("{")),
            None,
        )
        pulled = next(
            (json.loads(r[2]) for r in results if r[0] == "pull_document" and r[2].startswith("{")),
            None,
        )
        if listed is None or pulled is None:
            return self.completion(tool_calls=[("list_comments", {}), ("pull_document", {})])
        comments = listed["comments"]
        if not comments:
            return self.completion("Nothing is open.")
        if "push_version" not in names:
            new = self.edit(pulled["content"], comments)
            summary = "\n".join(f"{c['id']}: rewrote the passage" for c in comments)
            return self.completion(
                tool_calls=[
                    (
                        "push_version",
                        {
                            "base_version_id": pulled["version_id"],
                            "content": new,
                            "summary": summary,
                        },
                    )
                ]
            )
        if not any(n in ("resolve_comment", "reply_comment") for n in names):
            calls = self.dispositions(comments, pulled["content"], "")
            if calls:
                return self.completion(tool_calls=calls)
        return self.completion("All comments have their disposition.")

    def claim_for(self, cid: str) -> str:
        return "addressed"

    def report(self, ids: list[str], body: dict[str, Any]) -> dict[str, Any]:
        rep = {
            "comments": [
                {
                    "comment_id": i,
                    "claim": self.claim_for(i),
                    "change_summary": "rewrote the passage",
                    "rationale": "asked",
                }
                for i in ids
            ],
            "notes": "",
        }
        return self.completion(json.dumps(rep), prompt_tokens=50, completion_tokens=30)


class FixEverything(ScriptedAgent):
    """Rewrites every quoted passage, resolves every comment, claims all addressed."""


class ClaimWithoutEditing(ScriptedAgent):
    """Pushes the document unchanged, resolves every comment, claims all addressed."""

    def edit(self, content: str, comments: list[dict[str, Any]]) -> str:
        return content


class Churner(ScriptedAgent):
    """Fixes every comment and also rewrites text no comment points at."""

    def __init__(self, old: str, new: str):
        super().__init__()
        self.old, self.new = old, new

    def edit(self, content: str, comments: list[dict[str, Any]]) -> str:
        return super().edit(content, comments).replace(self.old, self.new)


class Staller(ScriptedAgent):
    """Answers with narration (no tool call) until the request forces a tool call."""

    def __init__(self) -> None:
        super().__init__()
        self.forced_seen = 0

    def narrate(self, body: dict[str, Any]) -> dict[str, Any] | None:
        if body.get("tool_choice") == "required":
            self.forced_seen += 1
            return None
        if not any(m.get("role") == "tool" for m in body["messages"]):
            return self.completion(
                "I will now carefully revise the document so that every "
                "review comment is addressed."
            )
        return None


class ProseReport(ScriptedAgent):
    """Does the work; answers the report call with prose, not JSON."""

    def report(self, ids: list[str], body: dict[str, Any]) -> dict[str, Any]:
        return self.completion("Sure! I addressed all of the review comments.")


class Inventor(ScriptedAgent):
    """Resolves a comment id that does not exist (and sends bad JSON arguments), then works;
    its report names the invented id."""

    def __init__(self) -> None:
        super().__init__()
        self.invented = False

    def work(self, body: dict[str, Any]) -> dict[str, Any]:
        if not self.invented:
            self.invented = True
            return self.completion(
                tool_calls=[("resolve_comment", {"comment_id": "c-999"}), ("reply_comment", {})],
                raw_args=[json.dumps({"comment_id": "c-999"}), "{not json"],
            )
        return super().work(body)

    def report(self, ids: list[str], body: dict[str, Any]) -> dict[str, Any]:
        rep = {"comments": [{"comment_id": i, "claim": "addressed"} for i in ids + ["c-999"]]}
        return self.completion(json.dumps(rep))


class StaleAware(ScriptedAgent):
    """Fixes what it can find; replies on comments whose quote is absent; claims
    stale_anchor for those."""

    def __init__(self) -> None:
        super().__init__()
        self.absent: set[str] = set()

    def dispositions(self, comments, content, new):
        for c in comments:
            if not c.get("quote") or c["quote"] not in content:
                self.absent.add(c["id"])
        return super().dispositions(comments, content, new)

    def claim_for(self, cid: str) -> str:
        return "stale_anchor" if cid in self.absent else "addressed"


class Silent(ScriptedAgent):
    """Talks forever and never calls a tool, even when forced (a broken model)."""

    def work(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.completion("Let me think about this document.")

    def tool_probe(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.completion("The number is 7.")


class QuietHTTPServer(ThreadingHTTPServer):
    """A client that hung up (a cancelled or timed-out test request) is normal here: no
    traceback on stderr for it, so a green test run ends quietly."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return  # BrokenPipeError, ConnectionResetError, ConnectionAbortedError
        super().handle_error(request, client_address)


HUGE = "__HUGE_INT__"
"""A string that the server writes out as a 5,000-digit JSON integer (Python cannot
``json.dumps`` one: CPython refuses int-to-str over 4,300 digits)."""
HUGE_DIGITS = "9" * 5000


@dataclass
class Quirks:
    """Publicly reported server quirks, one flag each (see docs/providers.md).

    - ``args_as_object``: tool-call ``arguments`` as a JSON object, not a string
      (llama.cpp, https://github.com/ggml-org/llama.cpp/issues/20198).
    - ``required_status``: every request with ``tool_choice: "required"`` answered with
      this HTTP status (500: llama.cpp's grammar error,
      https://github.com/ggml-org/llama.cpp/issues/26737; 400/422: others).
    - ``refuse_json_object``: ``response_format`` ``json_object`` refused with LM Studio's
      400 (``{"error": "'response_format.type' must be 'json_schema' or 'text'"}``);
      ``refuse_json_schema``: ``json_schema`` refused too.
    - ``reasoning``: ``think`` (a ``<think>…</think>`` block before the content),
      ``think_only_close`` (reasoning then ``</think>``, the opening tag in the template),
      ``reasoning_content`` (DeepSeek, vLLM) or ``reasoning`` (OpenRouter, Ollama).
    - ``text_tool_calls``: tool calls written into ``content``: ``hermes``
      (``<tool_call>``), ``mistral`` (``[TOOL_CALLS]``), ``llama`` (``<|python_tag|>``),
      ``fenced`` (a fenced JSON block naming the tool).
    - ``tool_call_ids``: ``missing``, ``empty`` or ``repeated`` (every id ``call_0``).
    - ``finish_reason``: sent instead of ``tool_calls`` when there are tool calls.
    - ``content``: with tool calls, ``empty`` (``""``) or ``absent`` (no key); default null.
    - ``usage``: ``null``, ``absent``, ``strings`` (numbers as strings) or ``huge``
      (a 5,000-digit total).
    - ``context_limit``: requests over this many tokens (4 characters each) answered with
      a 400 context-length error, worded as ``context_style`` says (``openai`` or
      ``llamacpp``).
    - ``refuse_tools``: any request offering tools answered like Ollama for a model
      without tool support (400 "... does not support tools").
    - ``drip_seconds``: the answer body written one byte per this many seconds.
    - ``huge_in_args``: the first tool call's arguments carry a 5,000-digit integer.
    - ``cut``: which calls the server breaks off (``report``: every report call;
      ``after_push``: every work call after the conversation holds a push; ``all``), in
      the way ``cut_style`` says: ``body`` (the headers and half the body, then the
      connection closes) or ``early`` (the connection closes before any answer).
    - ``html_200``: which calls (as for ``cut``) are answered with HTTP 200 and an HTML
      page (a proxy's or captive portal's error page), ``Content-Type: text/html``.
    - ``empty_200``: which calls (as for ``cut``) are answered with HTTP 200 and an empty
      body.
    - ``rate_limited`` / ``retry_after``: the first ``rate_limited`` chat requests are
      answered 429 with ``Retry-After: <retry_after>`` (seconds, or an HTTP-date).
    - ``args_double_encoded``: tool-call ``arguments`` encoded twice (a JSON string
      whose text is the JSON object).
    - ``reasoning_only``: the whole answer in ``reasoning_content``, ``content`` null (a
      reasoning parser that never saw the end of the reasoning).
    - ``sse``: every answer sent as a server-sent-events stream (``text/event-stream``,
      ``data: {chunk}`` lines, ``data: [DONE]``) although no stream was asked for.
    - ``open_model_list``: the model list answers without checking the key (as some
      gateways do); only chat requests are refused for a wrong ``api_key``.
    - ``sse_error``: with ``sse``, the stream carries this error after the content, before
      ``[DONE]`` (still HTTP 200), as ``sse_error_style``: ``chunk`` (a ``data:`` chunk
      ``{"error": {...}}``, as OpenAI and vLLM send) or ``event`` (``event: error`` and a
      plain-text ``data:``).
    """

    args_as_object: bool = False
    sse_error: str | None = None
    sse_error_style: str = "chunk"
    required_status: int | None = None
    refuse_json_object: bool = False
    refuse_json_schema: bool = False
    reasoning: str | None = None
    text_tool_calls: str | None = None
    tool_call_ids: str | None = None
    finish_reason: str | None = None
    content: str | None = None
    usage: str | None = None
    context_limit: int | None = None
    context_style: str = "openai"
    refuse_tools: bool = False
    drip_seconds: float | None = None
    huge_in_args: bool = False
    cut: str | None = None
    cut_style: str = "body"
    html_200: str | None = None
    empty_200: str | None = None
    rate_limited: int = 0
    retry_after: str = "1"
    args_double_encoded: bool = False
    reasoning_only: bool = False
    sse: bool = False
    open_model_list: bool = False


PROXY_PAGE = (
    "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>"
    "<h1>Bad Gateway</h1><p>The upstream server did not answer. nginx</p></body></html>"
)


def call_kind(body: dict[str, Any]) -> str:
    """``report`` (a report call), ``after_push`` (a work call after a push) or ``work``."""
    system = next(
        (m.get("content") or "" for m in body["messages"] if m.get("role") == "system"), ""
    )
    if body.get("response_format") or system.startswith("You report on a revision"):
        return "report"
    if any(name == "push_version" for name, _, _ in _tool_results(body["messages"])):
        return "after_push"
    return "work"


def _targeted(which: str | None, body: dict[str, Any]) -> bool:
    return which is not None and which in ("all", call_kind(body))


def as_sse(answer: dict[str, Any]) -> bytes:
    """``answer`` (a chat completion) as the chunks of a stream: the role, the content in
    two pieces, each tool call, the finish reason, the usage, then ``[DONE]``."""
    choice = answer["choices"][0]
    msg = choice["message"]
    base = {k: answer[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        c = base | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]} | extra
        return "data: " + json.dumps(c) + "\n\n"

    out = [chunk({"role": "assistant", "content": ""})]
    text = msg.get("content") or ""
    if text:
        half = len(text) // 2
        out += [chunk({"content": text[:half]}), chunk({"content": text[half:]})]
    for i, tc in enumerate(msg.get("tool_calls") or []):
        args = tc["function"]["arguments"]
        head = {"index": i, "id": tc.get("id"), "type": "function"}
        out.append(
            chunk(
                {
                    "tool_calls": [
                        head | {"function": {"name": tc["function"]["name"], "arguments": ""}}
                    ]
                }
            )
        )
        out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": args}}]}))
    out.append(chunk({}, choice.get("finish_reason") or "stop"))
    if answer.get("usage"):
        out.append("data: " + json.dumps(base | {"choices": [], "usage": answer["usage"]}) + "\n\n")
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()


REQUIRED_500 = {
    "error": {
        "code": 500,
        "message": "Unexpected empty grammar stack after accepting piece: <tool_call> (14)",
        "type": "server_error",
    }
}


def _refusal(q: Quirks, body: dict[str, Any], model: str) -> tuple[int, Any] | None:
    """The error a quirky server answers ``body`` with, or None."""
    if q.context_limit is not None:
        tokens = len(json.dumps(body.get("messages"), ensure_ascii=False)) // 4
        if tokens > q.context_limit:
            if q.context_style == "llamacpp":
                return 400, {
                    "error": {
                        "code": 400,
                        "message": "the request exceeds the available context size, try "
                        "increasing it",
                        "type": "exceed_context_size_error",
                        "n_prompt_tokens": tokens,
                        "n_ctx": q.context_limit,
                    }
                }
            return 400, {
                "error": {
                    "message": f"This model's maximum context length is {q.context_limit} "
                    f"tokens. However, your messages resulted in {tokens} tokens. Please "
                    "reduce the length of the messages.",
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
            }
    if q.refuse_tools and body.get("tools"):
        return 400, {
            "error": {
                "message": f"registry.ollama.ai/library/{model}:latest does not support tools",
                "type": "api_error",
            }
        }
    if q.required_status and body.get("tool_choice") == "required":
        if q.required_status >= 500:
            return q.required_status, REQUIRED_500
        return q.required_status, {
            "error": {
                "message": "tool_choice 'required' is not supported",
                "type": "invalid_request_error",
            }
        }
    rf = (body.get("response_format") or {}).get("type")
    if rf == "json_object" and q.refuse_json_object:
        return 400, {"error": "'response_format.type' must be 'json_schema' or 'text'"}
    if rf == "json_schema" and q.refuse_json_schema:
        return 400, {"error": {"message": "response_format json_schema is not supported"}}
    return None


def _apply_quirks(q: Quirks, answer: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """Bend a well-formed answer the way a quirky server does."""
    if "choices" not in answer:  # a policy that answers with an error body
        return answer
    msg = answer["choices"][0]["message"]
    calls = msg.get("tool_calls") or []
    if calls and q.huge_in_args and not state.get("huge_sent"):
        state["huge_sent"] = True
        calls[0]["function"]["arguments"] = json.dumps({"comment_id": HUGE, "note": "x"})
        calls[0]["function"]["name"] = "resolve_comment"
    if calls and q.args_as_object:
        for c in calls:
            c["function"]["arguments"] = json.loads(c["function"]["arguments"])
    if calls and q.args_double_encoded:
        for c in calls:
            c["function"]["arguments"] = json.dumps(c["function"]["arguments"])
    if calls and q.tool_call_ids:
        for c in calls:
            if q.tool_call_ids == "missing":
                del c["id"]
            elif q.tool_call_ids == "empty":
                c["id"] = ""
            else:
                c["id"] = "call_0"
    if calls and q.text_tool_calls:
        objs = [
            (c["function"]["name"], json.loads(c["function"]["arguments"]))
            if isinstance(c["function"]["arguments"], str)
            else (c["function"]["name"], c["function"]["arguments"])
            for c in calls
        ]
        if q.text_tool_calls == "hermes":
            text = "\n".join(
                "<tool_call>\n" + json.dumps({"name": n, "arguments": a}) + "\n</tool_call>"
                for n, a in objs
            )
        elif q.text_tool_calls == "mistral":
            text = "[TOOL_CALLS]" + json.dumps([{"name": n, "arguments": a} for n, a in objs])
        elif q.text_tool_calls == "llama":
            text = "<|python_tag|>" + "; ".join(
                json.dumps({"name": n, "parameters": a}) for n, a in objs
            )
        else:
            text = (
                "I will call the tools now:\n```json\n"
                + json.dumps([{"name": n, "arguments": a} for n, a in objs])
                + "\n```"
            )
        msg["content"] = text
        del msg["tool_calls"]
        answer["choices"][0]["finish_reason"] = "stop"
        calls = []
    if calls and q.finish_reason:
        answer["choices"][0]["finish_reason"] = q.finish_reason
    if calls and q.content == "empty":
        msg["content"] = ""
    elif calls and q.content == "absent":
        msg.pop("content", None)
    if q.reasoning == "think":
        msg["content"] = "<think>First the comments, then the edit.</think>\n" + (
            msg.get("content") or ""
        )
    elif q.reasoning == "think_only_close":
        msg["content"] = "First the comments, then the edit.\n</think>\n\n" + (
            msg.get("content") or ""
        )
    elif q.reasoning in ("reasoning_content", "reasoning"):
        msg[q.reasoning] = "First the comments, then the edit."
    if q.reasoning_only and msg.get("content"):
        msg["reasoning_content"] = msg["content"]
        msg["content"] = None
    if q.usage == "null":
        answer["usage"] = None
    elif q.usage == "absent":
        answer.pop("usage", None)
    elif q.usage == "strings" and answer.get("usage"):
        answer["usage"] = {k: str(v) for k, v in answer["usage"].items()}
    elif q.usage == "huge" and answer.get("usage"):
        answer["usage"]["total_tokens"] = HUGE
    return answer


def encoded_echoes(value: str) -> list[str]:
    """The forms ``echo_headers="encoded"`` sends a header value back in: base64 (alone
    and with a ``user:`` prefix, as in a Basic header), URL-encoded, split across lines,
    spaced out; and the bare key transformed (``transformed_echoes``)."""
    raw = value.encode("utf-8")
    key = value.removeprefix("Bearer ")
    return [
        "b64 " + base64.b64encode(raw).decode(),
        "basic " + base64.b64encode(b"user:" + raw).decode(),
        "url " + urllib.parse.quote(value, safe=""),
        "url-every-byte " + "".join(f"%{b:02X}" for b in raw),
        "lines " + value[: len(value) // 2] + "\n" + value[len(value) // 2 :],
        "spaced " + " ".join(value),
        *(name + " " + form for name, form in transformed_echoes(key).items()),
    ]


def transformed_echoes(key: str) -> dict[str, str]:
    """The whole-value transforms a hostile or careless server has echoed a key in (the
    bare key, no ``Bearer``): hex of its UTF-8 bytes in either case, upper/lower/swapped
    case, HTML character references (decimal, hex, double-escaped ``&amp;#``), reversed,
    rot13, base32, ``\\x`` escapes."""
    import codecs

    raw = key.encode("utf-8")
    return {
        "hex": raw.hex(),
        "HEX": raw.hex().upper(),
        "upper": key.upper(),
        "lower": key.lower(),
        "swapcase": key.swapcase(),
        "html-decimal": "".join(f"&#{ord(c)};" for c in key),
        "html-hex": "".join(f"&#x{ord(c):X};" for c in key),
        "html-double-escaped": "".join(f"&amp;#{ord(c)};" for c in key),
        "reversed": key[::-1],
        "rot13": codecs.encode(key, "rot13"),
        "base32": base64.b32encode(raw).decode(),
        "bytes-repr": "".join(f"\\x{b:02x}" for b in raw),
    }


class ScriptedServer:
    """The HTTP server. ``requests``: every chat request body received, in order.

    ``quirks``: a ``Quirks`` (each flag one publicly reported server quirk).
    ``reject_required=True`` is ``Quirks(required_status=400)``."""

    def __init__(
        self,
        agent: ScriptedAgent,
        *,
        latency: float = 0.0,
        fail_first: list[int] | None = None,
        api_key: str | None = None,
        model: str = MODEL,
        usage: bool = True,
        reject_required: bool = False,
        quirks: Quirks | None = None,
        echo_headers: bool | str = False,
    ):
        self.agent = agent
        self.echo_headers = echo_headers
        self.agent.usage = usage
        self.latency = latency
        self.fail_first = list(fail_first or [])
        self.api_key = api_key
        self.model = model
        self.quirks = quirks or Quirks()
        if reject_required:
            self.quirks.required_status = 400
        self._quirk_state: dict[str, Any] = {}
        self.url = ""
        """The base URL, still readable after ``stop()``."""
        self.requests: list[dict[str, Any]] = []
        self.auth_headers: list[str] = []
        self.statuses: list[int] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        return self.url

    def start(self) -> ScriptedServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:  # quiet
                pass

            def _send(
                self,
                status: int,
                obj: Any,
                headers: dict[str, str] | None = None,
                drip: float | None = None,
            ):
                if server.echo_headers and status >= 400 and isinstance(obj, dict):
                    echo = "; ".join(f"{k}: {v}" for k, v in self.headers.items())
                    if server.echo_headers == "encoded":
                        echo = "; ".join(encoded_echoes(self.headers.get("Authorization", "")))
                    err = obj.setdefault("error", {})
                    err["message"] = f"{err.get('message', '')} (request headers: {echo})"
                    err["request_headers"] = dict(self.headers.items())
                text = json.dumps(obj).replace(json.dumps(HUGE), HUGE_DIGITS)
                data = text.replace('\\"' + HUGE + '\\"', HUGE_DIGITS).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                server.statuses.append(status)
                if not drip:
                    self.wfile.write(data)
                    return
                try:
                    for i in range(len(data)):
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                        time.sleep(drip)
                except OSError:  # the client gave up: that is the point
                    pass

            def _send_raw(self, status: int, data: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                server.statuses.append(status)
                self.wfile.write(data)

            def _cut(self, answer: Any) -> None:
                """Break the answer off as ``cut_style`` says, then close the connection."""
                self.close_connection = True
                if server.quirks.cut_style == "early":
                    server.statuses.append(0)
                    return
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                server.statuses.append(200)
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()

            def _auth_ok(self) -> bool:
                auth = self.headers.get("Authorization", "")
                server.auth_headers.append(auth)
                if server.api_key is not None and auth != f"Bearer {server.api_key}":
                    self._send(
                        401,
                        {
                            "error": {
                                "message": "Incorrect API key provided",
                                "type": "invalid_request_error",
                                "code": "invalid_api_key",
                            }
                        },
                    )
                    return False
                return True

            def do_GET(self) -> None:
                if not server.quirks.open_model_list and not self._auth_ok():
                    return
                if self.path.rstrip("/").endswith("/models"):
                    self._send(
                        200,
                        {
                            "object": "list",
                            "data": [{"id": server.model, "object": "model", "owned_by": "tests"}],
                        },
                        drip=server.quirks.drip_seconds,
                    )
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self._auth_ok():
                    return
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found"}})
                    return
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    self._send(400, {"error": {"message": "bad json"}})
                    return
                server.requests.append(body)
                q = server.quirks
                if q.rate_limited > 0:
                    q.rate_limited -= 1
                    self._send(
                        429,
                        {"error": {"message": "Rate limit reached", "type": "rate_limit"}},
                        {"Retry-After": q.retry_after},
                    )
                    return
                if _targeted(q.html_200, body):
                    self._send_raw(200, PROXY_PAGE.encode(), "text/html")
                    return
                if _targeted(q.empty_200, body):
                    self._send_raw(200, b"", "application/json")
                    return
                if server.fail_first:
                    status = server.fail_first.pop(0)
                    self._send(
                        status, {"error": {"message": f"scripted {status}"}}, {"Retry-After": "0"}
                    )
                    return
                if body.get("model") != server.model:
                    self._send(
                        404,
                        {
                            "error": {
                                "message": f"The model `{body.get('model')}` does not exist",
                                "code": "model_not_found",
                            }
                        },
                    )
                    return
                refusal = _refusal(server.quirks, body, server.model)
                if refusal is not None:
                    self._send(*refusal)
                    return
                if server.latency:
                    time.sleep(server.latency)
                try:
                    answer = server.agent.respond(body)
                    answer = _apply_quirks(server.quirks, answer, server._quirk_state)
                except Exception as exc:  # a bug in a script: make it visible
                    self._send(500, {"error": {"message": f"script error: {exc!r}"}})
                    return
                if _targeted(server.quirks.cut, body):
                    self._cut(answer)
                    return
                if server.quirks.sse:
                    data = as_sse(answer)
                    if server.quirks.sse_error:
                        said = server.quirks.sse_error
                        err = (
                            "event: error\ndata: " + said + "\n\n"
                            if server.quirks.sse_error_style == "event"
                            else "data: "
                            + json.dumps({"error": {"message": said, "type": "server_error"}})
                            + "\n\n"
                        )
                        data = data.replace(b"data: [DONE]", err.encode() + b"data: [DONE]")
                    self._send_raw(200, data, "text/event-stream")
                    return
                self._send(200, answer, drip=server.quirks.drip_seconds)

        self._httpd = QuietHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        self.url = self.base_url
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_forever(
    agent_name: str = "FixEverything", latency: float = 0.0, quirks: Quirks | None = None
) -> None:
    """Run a server in the foreground and print its base URL (for subprocess tests)."""
    agent = globals()[agent_name]()
    srv = ScriptedServer(agent, latency=latency, quirks=quirks).start()
    print(srv.base_url, flush=True)  # the first stdout line: subprocess tests read it
    print(
        f"scripted server: base URL {srv.base_url}, model {srv.model!r} (agent {agent_name}); "
        "Ctrl-C stops it",
        file=sys.stderr,
        flush=True,
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()


def main(argv: list[str] | None = None) -> int:
    """``python tests/helpers/scripted_server.py [AGENT] [LATENCY] [--quirk NAME[=VALUE]]...``:
    a scripted OpenAI-compatible server on 127.0.0.1 for trying the program by hand.
    AGENT is one of the ScriptedAgent classes (FixEverything, ClaimWithoutEditing,
    Churner, Staller, Silent, ...); each --quirk switches on one Quirks flag (see the class's
    docstring; e.g. --quirk args_as_object --quirk required_status=500 --quirk usage=strings)."""
    import argparse
    import dataclasses

    agents = sorted(
        n
        for n, v in globals().items()
        if isinstance(v, type) and issubclass(v, ScriptedAgent) and v is not ScriptedAgent
    )
    fields = {f.name: f for f in dataclasses.fields(Quirks)}
    p = argparse.ArgumentParser(description=main.__doc__)
    p.add_argument("agent", nargs="?", default="FixEverything", choices=agents)
    p.add_argument("latency", nargs="?", type=float, default=0.0, help="seconds per answer")
    p.add_argument(
        "--quirk",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="one of: " + ", ".join(sorted(fields)),
    )
    args = p.parse_args(argv)
    values: dict[str, Any] = {}
    for q in args.quirk:
        name, _, raw = q.partition("=")
        if name not in fields:
            p.error(f"unknown quirk {name!r} (one of: {', '.join(sorted(fields))})")
        kind = str(fields[name].type)
        if "bool" in kind:
            values[name] = raw.lower() not in ("0", "false", "no") if raw else True
        elif "int" in kind:
            values[name] = int(raw)
        elif "float" in kind:
            values[name] = float(raw)
        else:
            values[name] = raw
    serve_forever(args.agent, args.latency, Quirks(**values) if values else None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


# -- sample material for the loop tests ------------------------------------------------------

SAMPLE_HTML = """<!DOCTYPE html><html><head><title>Remote work policy</title></head><body>
<h1>Remote work policy</h1>
<p>Employees may work remotely up to two days per week.</p>
<p>Requests must be approved by the department head in writing.</p>
<p>Equipment is provided by the company and remains company property.</p>
<p>This policy takes effect on the first of next month.</p>
</body></html>"""

SAMPLE_QUOTES = {
    "c1": "up to two days per week",
    "c2": "by the department head",
    "c3": "remains company property",
}


def make_comment(
    text: str, quote: str, cid: str, body: str = "Please revise this.", **extra: object
) -> dict:
    """A native comment anchored on the first occurrence of ``quote`` in ``text`` (the
    version's textContent), offsets in UTF-16 units."""
    from engine.text import utf16

    i = text.index(quote)
    j = i + len(quote)
    obj = {
        "id": cid,
        "body": body,
        "author": "reviewer",
        "anchor": {
            "quote": quote,
            "prefix": text[max(0, i - 32) : i],
            "suffix": text[j : j + 32],
            "dom_path": "body",
            "start_offset": utf16.to_utf16(text, i),
            "end_offset": utf16.to_utf16(text, j),
        },
    }
    obj.update(extra)
    return obj


def sample_comments(text: str) -> list[dict]:
    return [
        make_comment(text, q, cid, f"Comment {cid}: please make this clearer.")
        for cid, q in SAMPLE_QUOTES.items()
    ]
