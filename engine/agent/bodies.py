"""HTTP answers that are not one JSON chat completion, and the ``Retry-After`` header.

- ``read_event_stream(text)``: a server-sent-events stream of chat-completion chunks
  (``stream=True``'s form, sent by some servers and proxies although the client never
  asks for a stream) assembled into one chat-completion body.
- ``html_title(body)``: whether a body is an HTML page (a proxy's, gateway's or captive
  portal's page where a chat completion was due) and its title.
- ``retry_after_seconds(value, now)``: the wait a ``Retry-After`` header asks for, in
  either form; ``RETRY_AFTER_LIMIT`` the most the client waits.
- Error bodies: ``server_message(body)``, the server's own ``error.message``;
  ``is_context_error``, ``context_limit`` (the model's context size when an error says
  it) and ``context_error_text`` (the one-line reason for a request over the context).

See docs/providers.md ("Off the happy path") for what the client does with each.
"""

from __future__ import annotations

import re
from typing import Any

from engine.agent.jsonsafe import JSONProblem, load_json
from engine.redact import redact

# -- error bodies ----------------------------------------------------------------------------


def server_message(body: Any, limit: int = 400) -> str:
    """The server's own explanation in an error body: ``error.message`` (or ``message``,
    ``detail``, a string ``error``, or the body itself when it is short text). ""
    when there is none. Redacted (``engine.redact``), then cut to ``limit`` characters."""
    msg: Any = None
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("detail") or err.get("msg")
        elif isinstance(err, str):
            msg = err
        if msg is None:
            msg = body.get("message") or body.get("detail")
    elif isinstance(body, str):
        msg = body
    if isinstance(msg, list):  # FastAPI-style {"detail": [{"msg": ...}]}
        msg = "; ".join(str(m.get("msg", m)) if isinstance(m, dict) else str(m) for m in msg)
    if not isinstance(msg, str):
        return ""
    # Redacted before it is shortened: a cut would leave the start of an echoed key in a
    # form the redaction no longer recognises.
    msg = redact(" ".join(msg.split()))
    return msg if len(msg) <= limit else msg[: limit - 1] + "…"


_CONTEXT_WORDS = re.compile(
    r"context[ _-]?length|maximum context|context (?:size|window)|too many tokens|"
    r"exceeds? (?:the )?(?:available )?context|n_ctx|context_length_exceeded|"
    r"prompt is too long|input is too long|reduce the length of the messages",
    re.I,
)
_LIMIT = re.compile(
    r"(?:maximum context length|context length|context size|context window|n_ctx"
    r"|context of|max(?:imum)? (?:of )?tokens?)"
    r"(?: is| of| =|:)?\s*(?:only\s*)?\(?(\d[\d,]{2,9})",
    re.I,
)


def is_context_error(text: str) -> bool:
    """True when an error message says the request did not fit the model's context."""
    return bool(_CONTEXT_WORDS.search(text or ""))


def context_limit(text: str, body: Any = None) -> int | None:
    """The model's context size in tokens when the error says it (``n_ctx`` in a llama.cpp
    error body, or "maximum context length is 8192 tokens" and the like), else None."""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            for key in ("n_ctx", "context_length", "max_context_length"):
                v = err.get(key)
                if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                    return v
    m = _LIMIT.search(text or "")
    if m:
        try:
            return int(m.group(1).replace(",", ""))
        except ValueError:
            return None
    return None


def estimate_tokens(chars: int) -> int:
    """A token estimate for ``chars`` characters: 4 characters per token (the rule of thumb
    OpenAI gives for English; labelled as an estimate wherever it is shown)."""
    return (chars + 3) // 4


def context_error_text(
    said: str, limit: int | None, document_chars: int | None, request_chars: int
) -> str:
    """The one-line reason for a request that did not fit the model's context: the
    document's size in tokens and the whole request's (estimates, labelled so), the model's
    limit when the server said it, the server's words and what to do."""
    parts = []
    if document_chars is not None:
        parts.append(
            f"the document is about {estimate_tokens(document_chars):,} tokens "
            f"({document_chars:,} characters; estimate at 4 characters per token)"
        )
    parts.append(f"the whole request about {estimate_tokens(request_chars):,} tokens (estimate)")
    parts.append(
        f"the model's limit is {limit:,} tokens, as the server says"
        if limit
        else "the server did not say the model's limit"
    )
    return (
        f"the request does not fit the model's context: {'; '.join(parts)}. The server "
        f'said: "{said}". Use a model with a larger context window, start the server '
        "with a larger context (llama.cpp: -c 32768; Ollama: num_ctx; LM Studio: the "
        "model's context length), or review a shorter document."
    )


# -- bodies that are not one chat completion --------------------------------------------------

RETRY_AFTER_LIMIT = 60.0
"""Seconds of ``Retry-After`` the client waits at the most; a server asking for more gets
no retry (the call fails at once, saying how long it asked for)."""


def retry_after_seconds(value: Any, now: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delay-seconds (``"2"``, also a
    decimal) or an HTTP-date (RFC 9110, section 10.2.3; a date in the past is 0).
    ``now``: the current time, Unix seconds. None when absent or unreadable (negative,
    NaN, infinite, neither form)."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    try:
        secs = float(text)
    except ValueError:
        import email.utils

        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            return None
        return max(0.0, round(when.timestamp() - now, 3))
    return secs if 0 <= secs < float("inf") else None


def html_title(body: bytes | str) -> str | None:
    """The title (or first heading) of an HTML page, or "" for a page with neither; None
    when ``body`` is not an HTML page. A proxy, gateway or captive portal answers with
    one where a chat completion was due."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    head = text.lstrip()[:2000].lower()
    if not head.startswith(("<!doctype html", "<html", "<head", "<body", "<title", "<h1")):
        return None
    for pattern in (r"<title[^>]*>(.*?)</title>", r"<h1[^>]*>(.*?)</h1>"):
        m = re.search(pattern, text[:20000], re.S | re.I)
        if m:
            title = " ".join(re.sub(r"<[^>]+>", " ", m.group(1)).split())
            if title:
                return title[:120]
    return ""


def is_event_stream(body: bytes | str) -> bool:
    """True when ``body`` is a server-sent-events stream of chat-completion chunks."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    return text.lstrip().startswith("data:")


def read_event_stream(text: str) -> dict[str, Any]:
    """A chat-completion body assembled from a server-sent-events stream of chunks (the
    ``stream=True`` form, which a server or proxy may send although it was not asked
    for): the deltas' content and tool calls joined in order (tool calls by ``index``),
    the last ``finish_reason`` and ``usage``. Chunks that are not JSON objects are
    skipped; raises ValueError when no chunk was readable.

    An error the server sent inside the stream (a chunk with an ``error`` member, as OpenAI
    and vLLM send one after a 200 status, or the data of an ``event: error``) is kept as the
    body's ``error`` (the first one), so the caller raises it quoting the server instead
    of reading what came before it as the answer."""
    content: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish: str | None = None
    usage: Any = None
    error: Any = None
    chunks = 0
    event = ""
    for line in text.splitlines():
        if line.startswith("event:"):
            event = line[6:].strip().lower()
            continue
        if not line.strip():
            event = ""  # an empty line ends the event
            continue
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if not data or data == "[DONE]":
            continue
        try:
            chunk = load_json(data)
        except JSONProblem:
            if event == "error" and error is None:
                error, chunks = {"message": data[:2000]}, chunks + 1
            continue
        if not isinstance(chunk, dict):
            continue
        chunks += 1
        if error is None and chunk.get("error") not in (None, "", {}):
            error = chunk["error"]
        elif error is None and event == "error":
            error = chunk
        if chunk.get("usage") is not None:
            usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            if isinstance(choice.get("finish_reason"), str):
                finish = choice["finish_reason"]
            delta = choice.get("delta")
            if isinstance(delta, dict):
                _add_delta(delta, content, reasoning, calls)
    if not chunks:
        raise ValueError("the event stream holds no readable chunk")
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content) or None}
    if reasoning:
        message["reasoning_content"] = "".join(reasoning)
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    body: dict[str, Any] = {"choices": [{"index": 0, "message": message, "finish_reason": finish}]}
    if usage is not None:
        body["usage"] = usage
    if error is not None:
        body["error"] = error
    return body


def _add_delta(
    delta: dict[str, Any],
    content: list[str],
    reasoning: list[str],
    calls: dict[int, dict[str, Any]],
) -> None:
    """One chunk's ``delta`` joined to what came before."""
    if isinstance(delta.get("content"), str):
        content.append(delta["content"])
    for key in ("reasoning_content", "reasoning"):
        if isinstance(delta.get(key), str):
            reasoning.append(delta[key])
    for i, tc in enumerate(delta.get("tool_calls") or []):
        if not isinstance(tc, dict):
            continue
        index = tc.get("index", i)
        index = index if isinstance(index, int) else i
        call = calls.setdefault(
            index, {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
        )
        if isinstance(tc.get("id"), str) and tc["id"]:
            call["id"] = tc["id"]
        fn = tc.get("function")
        if isinstance(fn, dict):
            if isinstance(fn.get("name"), str):
                call["function"]["name"] += fn["name"]
            if isinstance(fn.get("arguments"), str):
                call["function"]["arguments"] += fn["arguments"]
