"""The model client: an OpenAI-compatible chat endpoint with retries, limits and usage.

- ``ModelClient``: ``openai.AsyncOpenAI`` created inside the running loop (``async with``)
  and closed at the end; retries 429, 5xx, timeouts and connection errors with short
  exponential backoff (``backoff_initial`` doubling up to ``backoff_max`` seconds, at most
  ``max_retries`` retries; a ``Retry-After`` header, seconds or HTTP-date, is honoured as
  said up to ``bodies.RETRY_AFTER_LIMIT`` seconds, and a longer one fails the call at
  once); an HTML page or an empty body in a 200 answer is retried like a gateway error; an event stream
  sent unasked is assembled (``bodies.py``);
  raises ``AgentError`` quoting the server (bad key, unknown model, refusal, context,
  retries spent). Sums usage; records every call in a ``Trace`` (both in ``config.py``).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.agent.bodies import (
    html_title,
    is_context_error,
    is_event_stream,
    read_event_stream,
    server_message,
)
from engine.agent.config import (
    AgentConfig,
    AgentError,
    RunCancelled,
    TokenBudgetExceeded,
    Trace,
    Usage,
    safe_url,
)
from engine.agent.failures import CallFailures, NotAnAnswer, _short, exception_text
from engine.agent.jsonsafe import JSONProblem, load_json, plain
from engine.agent.wire import Answer, read_answer
from engine.vocabulary import plural

#: How often a model call in flight looks at the user's cancel (seconds): Cancel stops
#: the call within this time, whatever the server's pace.
CANCEL_POLL_S = 0.2


@dataclass
class CallResult:
    """One completed chat call: the assistant ``message`` dict (normalised by
    ``wire.read_answer``: reasoning stripped, tool-call ids unique, arguments strings),
    ``finish_reason``, ``tokens`` (None: no usage reported), ``seconds`` (wall time incl.
    retries), ``retries``, ``reasoning`` (removed from the answer, "" when none) and
    ``quirks`` (what was repaired)."""

    message: dict[str, Any]
    finish_reason: str | None
    tokens: int | None
    seconds: float
    retries: int
    reasoning: str = ""
    quirks: list[str] = field(default_factory=list)


class ModelClient(CallFailures):
    """``openai.AsyncOpenAI`` with retries, budget, usage and trace. Use ``async with``.

    ``on_call(purpose, CallResult)`` is called after each successful call (the run turns it
    into a ``ModelCalled`` event). ``check_cancel()`` is called before each call, before
    each attempt and every ``CANCEL_POLL_S`` while an answer is awaited, and may
    raise ``RunCancelled``.
    """

    def __init__(
        self,
        config: AgentConfig,
        trace: Trace | None = None,
        usage: Usage | None = None,
        on_call: Callable[[str, CallResult], None] | None = None,
        check_cancel: Callable[[], None] | None = None,
    ):
        from engine.redact import remember

        remember(config.api_key)  # never printed or stored (engine/redact.py)
        self.config = config
        self.trace = trace if trace is not None else Trace()
        self.usage = usage if usage is not None else Usage()
        self.on_call = on_call
        self.check_cancel = check_cancel or (lambda: None)
        self._client: Any = None
        self.model_seconds = 0.0
        self._sent: dict[str, int] = {}
        self._ids: dict[str, set[str]] = {}
        self.document_chars: int | None = None
        """Characters of the document under review (set by the agent): the context-length
        error states its size in tokens."""
        self.quirks_seen: dict[str, int] = {}
        """Each quirk repaired in this client's answers (``wire.Answer.quirks``) -> count."""
        self.reasoning_seen = 0
        self.context_limit: int | None = None
        """The model's context size in tokens when an error said it."""
        self.usage_problems: list[str] = []

    async def __aenter__(self) -> ModelClient:
        import openai

        self._client = openai.AsyncOpenAI(
            base_url=self.config.base_url,
            api_key=self.config.api_key or "no-key",
            timeout=self.config.request_timeout,
            max_retries=0,
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            try:
                await client.close()
            except Exception:  # closing a broken connection must not mask the real error
                pass

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        purpose: str,
        round_no: int,
        conversation: str,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        retry_server_errors: bool = True,
    ) -> CallResult:
        """One chat completion. Raises AgentError, TokenBudgetExceeded or RunCancelled.

        ``conversation``: the trace stores only the messages new since its previous call.
        ``request_timeout`` bounds each attempt as a whole (a dripping server cannot hold
        it). ``retry_server_errors=False``: a 5xx is raised at once as a ``protocol``
        AgentError (for features the caller can drop, e.g. ``tool_choice="required"``).
        A context-length refusal is an AgentError of kind ``context``."""
        if self._client is None:
            raise RuntimeError("ModelClient used outside 'async with'")
        self.check_cancel()  # once cancelled: no call, and no trace entry of one
        cfg = self.config
        total = self.usage.total
        if (
            cfg.max_tokens_per_run is not None
            and total is not None
            and total >= cfg.max_tokens_per_run
        ):
            raise TokenBudgetExceeded(total, cfg.max_tokens_per_run)
        kwargs: dict[str, Any] = {"model": cfg.model, "messages": messages}
        if cfg.temperature is not None:
            kwargs["temperature"] = cfg.temperature
        if tools is not None:
            kwargs["tools"] = tools
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
        if response_format is not None:
            kwargs["response_format"] = response_format
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        first_new = self._sent.get(conversation, 0)
        self._sent[conversation] = len(messages)
        entry = self.trace.add(
            "model_call",
            round=round_no,
            purpose=purpose,
            conversation=conversation,
            request={
                "model": cfg.model,
                "message_count": len(messages),
                "new_messages": messages[first_new:],
                "tools": [t["function"]["name"] for t in tools] if tools else None,
                "tool_choice": tool_choice,
                "response_format": response_format,
                "max_tokens": max_tokens,
                "temperature": cfg.temperature,
            },
            attempts=[],
            response=None,
            usage=None,
            duration_s=None,
        )
        request_chars = sum(len(json.dumps(m, ensure_ascii=False)) for m in messages)
        started = time.monotonic()
        body_bytes, retries = await self._attempts(
            kwargs, entry, started, retry_server_errors, request_chars
        )
        entry["duration_s"] = round(time.monotonic() - started, 4)
        answer = self._read(body_bytes, tools, conversation, request_chars)
        result = self._record(answer, entry, started, retries)
        if self.on_call is not None:
            self.on_call(purpose, result)
        return result

    async def _attempts(
        self,
        kwargs: dict[str, Any],
        entry: dict[str, Any],
        started: float,
        retry_server_errors: bool,
        request_chars: int,
    ) -> tuple[bytes, int]:
        """Send the request until an answer body arrives: (body, retries). Each attempt is
        bounded as a whole by ``request_timeout``; retryable failures wait with backoff.
        Raises AgentError (fatal, or the retry budget spent)."""
        cfg = self.config
        assert self._client is not None
        retries = 0
        delay = cfg.backoff_initial
        while True:
            self.check_cancel()
            t0 = time.monotonic()
            try:
                raw = await self._call_or_cancel(kwargs, cfg.request_timeout)
                body = self._body_of(raw.http_response)
                self.model_seconds += time.monotonic() - t0
                return body, retries
            except (asyncio.CancelledError, RunCancelled):
                self.model_seconds += time.monotonic() - t0
                entry["attempts"].append(
                    {"error": "cancelled", "seconds": round(time.monotonic() - t0, 4)}
                )
                raise
            except Exception as exc:  # classified below; unknown ones re-raised
                spent = time.monotonic() - t0
                self.model_seconds += spent
                retryable, fatal, after = self._classify(
                    exc, retry_server_errors=retry_server_errors, request_chars=request_chars
                )
                entry["attempts"].append(
                    {
                        "error": self._describe_failure(exc),
                        # Python's own words, for whoever reads the trace (never on screen).
                        "exception": exception_text(exc, self._redact),
                        "status": getattr(exc, "status_code", None),
                        "seconds": round(spent, 4),
                    }
                )
                if fatal is not None or not retryable or retries >= cfg.max_retries:
                    entry["duration_s"] = round(time.monotonic() - started, 4)
                if fatal is not None:
                    raise fatal from None
                if not retryable:
                    raise AgentError(
                        "protocol", f"the model call failed: {self._describe_failure(exc)}"
                    ) from None
                if retries >= cfg.max_retries:
                    raise AgentError(
                        "network",
                        f"the endpoint {safe_url(cfg.base_url)} did not answer "
                        f"after {plural(retries + 1, 'attempt')}: {self._describe_failure(exc)}",
                        getattr(exc, "status_code", None),
                    ) from None
                # A server's Retry-After is honoured as said (up to RETRY_AFTER_LIMIT);
                # otherwise the exponential backoff, capped at backoff_max.
                wait = after if after is not None else min(delay, cfg.backoff_max)
                retries += 1
                delay = min(delay * 2, cfg.backoff_max)
                entry["attempts"][-1]["retry_after_s"] = wait
                await self._wait(wait)

    async def _call_or_cancel(self, kwargs: dict[str, Any], timeout: float) -> Any:
        """The model call, bounded by ``timeout``, and abandoned within ``CANCEL_POLL_S``
        of the user's cancel (the connection is closed and RunCancelled raised): a Cancel
        never waits for a slow answer."""
        assert self._client is not None
        call = asyncio.ensure_future(
            asyncio.wait_for(
                self._client.chat.completions.with_raw_response.create(**kwargs), timeout=timeout
            )
        )
        try:
            while not call.done():
                await asyncio.wait({call}, timeout=CANCEL_POLL_S)
                if not call.done():
                    self.check_cancel()
        except BaseException:
            call.cancel()
            try:
                await call  # let it unwind (its connection closes)
            except BaseException:
                pass
            raise
        return call.result()

    def _body_of(self, response: Any) -> bytes:
        """The body of a 200 answer; raises NotAnAnswer (retried like a gateway error) for
        an empty body or an HTML page (a proxy's, gateway's or login page)."""
        body: bytes = response.content
        if not body.strip():
            raise NotAnAnswer(
                f"HTTP {response.status_code} with an empty body instead of a chat completion"
            )
        title = html_title(body)
        if title is not None:
            raise NotAnAnswer(
                f"HTTP {response.status_code} with an HTML page"
                + (f' ("{_short(self._redact(title), 120)}")' if title else "")
                + " instead of a chat completion: a proxy, gateway or login page "
                "may be in between; check the base URL"
            )
        return body

    async def _wait(self, seconds: float) -> None:
        """Sleep ``seconds`` in slices of at most one second, checking for cancellation
        between them (a long Retry-After does not delay the user's stop)."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            await asyncio.sleep(min(left, 1.0))
            self.check_cancel()

    def _record(
        self, answer: Answer, entry: dict[str, Any], started: float, retries: int
    ) -> CallResult:
        """Count the answer's usage and quirks, complete its trace entry, make the result."""
        tokens = self.usage.add(answer.usage)
        seconds = time.monotonic() - started
        for q in answer.quirks:
            self.quirks_seen[q] = self.quirks_seen.get(q, 0) + 1
        if answer.reasoning:
            self.reasoning_seen += 1
        if answer.usage.problem:
            self.usage_problems.append(answer.usage.problem)
        response: dict[str, Any] = {
            "message": answer.message,
            "finish_reason": answer.finish_reason,
        }
        if answer.raw_content is not None:
            response["content_as_sent"] = answer.raw_content
        if answer.reasoning:
            response["reasoning"] = answer.reasoning
        if answer.quirks:
            response["quirks"] = answer.quirks
        entry.update(
            response=response,
            usage=None
            if answer.usage.total is None
            else {
                "prompt_tokens": answer.usage.prompt,
                "completion_tokens": answer.usage.completion,
                "total_tokens": answer.usage.total,
            },
            duration_s=round(seconds, 4),
            retries=retries,
        )
        if answer.usage.problem:
            entry["usage_problem"] = answer.usage.problem
        if answer.usage.not_whole:
            entry["usage_not_whole"] = True  # re-derivation words the reason from it
        return CallResult(
            answer.message,
            answer.finish_reason,
            tokens,
            seconds,
            retries,
            answer.reasoning,
            answer.quirks,
        )

    def _read(
        self,
        body_bytes: bytes,
        tools: list[dict[str, Any]] | None,
        conversation: str,
        request_chars: int,
    ) -> Answer:
        """The answer in a 200 response body, or AgentError (``protocol``/``context``)."""
        url = safe_url(self.config.base_url)
        streamed = False
        try:
            body = load_json(body_bytes)
        except JSONProblem as exc:
            if not is_event_stream(body_bytes):
                raise AgentError(
                    "protocol", f"the endpoint {url} answered with something unreadable: {exc}"
                ) from None
            try:
                body = read_event_stream(body_bytes.decode("utf-8", "replace"))
            except ValueError as why:
                raise AgentError(
                    "protocol", f"the endpoint {url} answered with an unreadable stream: {why}"
                ) from None
            streamed = True
        if isinstance(body, dict) and "error" in body and (streamed or not body.get("choices")):
            # In a stream the error may follow some content: it is the answer all the same.
            said = self._redact(server_message(body))
            if is_context_error(said):
                raise self._context_error(said, body, None, request_chars)
            where = " inside its event stream (HTTP 200)" if streamed else ""
            raise AgentError(
                "protocol",
                f"the endpoint {url} answered with an error{where}: "
                + (f'"{said}"' if said else "no explanation in the answer"),
            )
        names = {t["function"]["name"] for t in tools} if tools else None
        try:
            answer = read_answer(body, names, self._ids.setdefault(conversation, set()))
        except ValueError as exc:
            raise AgentError("protocol", f"the endpoint {url} answered badly: {exc}") from None
        if streamed:
            answer.quirks.insert(0, "answer sent as an event stream (not asked for)")
        return answer

    def unsent(self, conversation: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Messages of ``conversation`` appended after its last call (never sent)."""
        return messages[self._sent.get(conversation, 0) + 1 :] if messages else []

    async def list_models(self) -> list[str]:
        """Model ids the endpoint serves. Raises AgentError (``timeout`` when no complete
        answer came within ``request_timeout`` seconds)."""
        return [m["id"] for m in await self.list_models_detail()]

    async def list_models_detail(self) -> list[dict[str, Any]]:
        """The endpoint's model list entries (dicts with a string ``id``; other fields as
        the server sends them, huge integers replaced by descriptions). Raises AgentError."""
        if self._client is None:
            raise RuntimeError("ModelClient used outside 'async with'")
        url = safe_url(self.config.base_url)
        try:
            raw = await asyncio.wait_for(
                self._client.models.with_raw_response.list(), timeout=self.config.request_timeout
            )
            body_bytes = raw.http_response.content
        except Exception as exc:
            import openai

            _, fatal, _ = self._classify(exc)
            if fatal is not None:
                raise fatal from None
            if isinstance(exc, openai.APITimeoutError | TimeoutError):
                raise AgentError(
                    "timeout",
                    f"the endpoint {url} did not answer within "
                    f"{self.config.request_timeout:g} s (busy or slow)",
                ) from None
            raise AgentError(
                "network", f"the endpoint {url} cannot be reached: {self._describe_failure(exc)}"
            ) from None
        title = html_title(body_bytes)
        if title is not None:
            raise AgentError(
                "protocol",
                f"the endpoint {url} answered with an HTML page"
                + (f' ("{_short(self._redact(title), 120)}")' if title else "")
                + " instead of its model list: the base URL points at a web page, not an "
                "OpenAI-compatible API",
            )
        try:
            body = load_json(body_bytes)
        except JSONProblem as exc:
            raise AgentError(
                "protocol", f"the endpoint {url} lists its models unreadably: {exc}"
            ) from None
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list) and isinstance(body, dict):
            data = body.get("models")
        out = []
        for m in data if isinstance(data, list) else []:
            if not isinstance(m, dict):
                continue
            mid = m.get("id") or m.get("name")
            if isinstance(mid, str):
                out.append(plain(m) | {"id": mid})
        return out
