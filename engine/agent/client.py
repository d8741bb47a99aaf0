"""The model client: an OpenAI-compatible chat endpoint with retries, limits and usage.

- ``AgentConfig``: endpoint, model, key (kept out of every repr, trace and file), limits.
- ``ModelClient``: ``openai.AsyncOpenAI`` created inside the running loop (``async with``)
  and closed at the end; retries 429, 5xx, timeouts and connection errors with short
  exponential backoff (``backoff_initial`` doubling up to ``backoff_max`` seconds, at most
  ``max_retries`` retries; a ``Retry-After`` header is honoured up to ``backoff_max``);
  raises ``AgentError`` with a plain reason on a bad key (401/403), an unknown model (404)
  or an exhausted retry budget. Sums usage tokens of every call; records every request,
  response, timing and token count in a ``Trace``.

Token accounting: ``Usage.total`` is the sum of ``usage.total_tokens`` of every call, or
``None`` as soon as one call came back without usage (the cost metric is then N/A with the
reason); never a zero standing for "unknown".
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.workspace import now_iso


class AgentError(RuntimeError):
    """The model endpoint failed in a way the run cannot continue from.

    ``kind``: ``auth`` (key refused), ``model`` (unknown model), ``network`` (retries
    exhausted, unreachable), ``timeout`` (no answer in time, listing models), ``protocol`` (malformed answer, refused request), ``budget``
    (token limit of the run reached). ``str()`` is one plain sentence with the fix.
    """

    def __init__(self, kind: str, message: str, status: int | None = None):
        self.kind = kind
        self.status = status
        super().__init__(message)


class TokenBudgetExceeded(AgentError):
    def __init__(self, used: int, budget: int):
        self.used = used
        self.budget = budget
        super().__init__("budget", f"the run used {used} tokens, its limit is {budget}")


class RunCancelled(Exception):
    """Raised at a step boundary when the run's cancel handle was triggered."""


@dataclass
class AgentConfig:
    """Endpoint and limits. ``api_key`` None: no key (local servers); never logged.

    Units: ``request_timeout``, ``backoff_initial`` and ``backoff_max`` in seconds;
    ``max_tokens_per_run`` in usage tokens (None: no limit).
    """

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    request_timeout: float = 120.0
    max_retries: int = 3
    backoff_initial: float = 1.0
    backoff_max: float = 8.0
    max_turns_per_round: int = 16
    max_tokens_per_run: int | None = None
    max_nudges: int = 2
    temperature: float | None = 0.0
    max_output_tokens: int | None = None
    """Completion-token cap of each work call (sent as ``max_tokens``); None: the server's
    default. The report call is always capped (``report_token_cap``)."""
    echo_tool_results: bool = False
    """Compatibility switch for servers whose chat template drops ``tool`` messages (e.g.
    llama-cpp-python's ``chatml-function-calling``): after each batch of tool results, the
    same results are repeated in a ``user`` message so the model can read them."""

    def public(self) -> dict[str, Any]:
        """The settings that may be written to a trace or manifest (no key)."""
        return {
            "base_url": safe_url(self.base_url),
            "model": self.model,
            "request_timeout": self.request_timeout,
            "max_retries": self.max_retries,
            "max_turns_per_round": self.max_turns_per_round,
            "max_tokens_per_run": self.max_tokens_per_run,
            "max_nudges": self.max_nudges,
            "temperature": self.temperature,
            "max_output_tokens": self.max_output_tokens,
            "echo_tool_results": self.echo_tool_results,
            "api_key_set": bool(self.api_key),
        }


def safe_url(url: str) -> str:
    """``url`` without user info, query or fragment (where keys sometimes hide)."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return "(unparseable URL)"
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


class Usage:
    """Sums usage tokens. ``total`` is None once any call reported no usage."""

    def __init__(self) -> None:
        self.calls = 0
        self.known = 0
        self.prompt = 0
        self.completion = 0
        self.unreported = 0

    def add(self, usage: Any) -> int | None:
        """Add one call's ``usage`` object (or None); returns that call's total or None."""
        self.calls += 1
        total = getattr(usage, "total_tokens", None) if usage is not None else None
        if total is None:
            self.unreported += 1
            return None
        p = getattr(usage, "prompt_tokens", 0) or 0
        c = getattr(usage, "completion_tokens", 0) or 0
        self.prompt += p
        self.completion += c
        self.known += int(total)
        return int(total)

    @property
    def total(self) -> int | None:
        return None if self.unreported else self.known

    def reason(self) -> str:
        """Why ``total`` is None, in words ("" when it is known)."""
        if not self.unreported:
            return ""
        return (
            f"the provider reported no token usage for {self.unreported} of "
            f"{self.calls} model call(s)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "total_tokens": self.total,
            "prompt_tokens": self.prompt,
            "completion_tokens": self.completion,
            "calls_without_usage": self.unreported,
        }


class Trace:
    """Chronological record of a run: model calls, tool calls, notes.

    ``entries`` items are dicts with ``seq``, ``t`` (seconds since the trace started),
    ``kind`` (``model_call`` | ``tool_call`` | ``note``) and kind-specific fields. Holds no
    key: ``ModelClient`` never writes headers or client settings here.
    """

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.started_at = now_iso()
        self.entries: list[dict[str, Any]] = []

    def add(self, kind: str, **data: Any) -> dict[str, Any]:
        entry = {
            "seq": len(self.entries) + 1,
            "t": round(time.monotonic() - self.started, 4),
            "kind": kind,
        }
        entry.update(data)
        self.entries.append(entry)
        return entry

    def to_json(self) -> dict[str, Any]:
        return {"started_at": self.started_at, "entries": self.entries}


def _message_to_dict(msg: Any) -> dict[str, Any]:
    """The assistant message of a response as a plain chat message dict."""
    out: dict[str, Any] = {"role": "assistant", "content": getattr(msg, "content", None) or ""}
    calls = []
    for i, tc in enumerate(getattr(msg, "tool_calls", None) or []):
        fn = getattr(tc, "function", None)
        if fn is None:
            continue
        calls.append(
            {
                "id": getattr(tc, "id", None) or f"call_{i}",
                "type": "function",
                "function": {
                    "name": getattr(fn, "name", "") or "",
                    "arguments": getattr(fn, "arguments", "") or "",
                },
            }
        )
    if calls:
        out["tool_calls"] = calls
    return out


@dataclass
class CallResult:
    """One completed chat call: the assistant ``message`` dict, ``finish_reason``,
    ``tokens`` (None: no usage reported), ``seconds`` (wall time incl. retries), ``retries``."""

    message: dict[str, Any]
    finish_reason: str | None
    tokens: int | None
    seconds: float
    retries: int


class ModelClient:
    """``openai.AsyncOpenAI`` with retries, budget, usage and trace. Use ``async with``.

    ``on_call(purpose, CallResult)`` is called after each successful call (the run turns it
    into a ``ModelCalled`` event). ``check_cancel()`` is called before each attempt and may
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
        self.config = config
        self.trace = trace if trace is not None else Trace()
        self.usage = usage if usage is not None else Usage()
        self.on_call = on_call
        self.check_cancel = check_cancel or (lambda: None)
        self._client: Any = None
        self.model_seconds = 0.0
        self._sent: dict[str, int] = {}

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

    def _classify(self, exc: BaseException) -> tuple[bool, AgentError | None, float | None]:
        """(retryable, fatal error or None, retry-after seconds or None)."""
        import openai

        url = safe_url(self.config.base_url)
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return (
                False,
                AgentError(
                    "auth",
                    f"the endpoint {url} refused the API key "
                    f"({getattr(exc, 'status_code', 401)}); set the right key in the keyring "
                    "or OPENAI_API_KEY",
                ),
                None,
            )
        if isinstance(exc, openai.NotFoundError):
            return (
                False,
                AgentError(
                    "model",
                    f"the endpoint {url} does not know the model '{self.config.model}' "
                    "(404); check the model name (arl doctor lists the models it serves) and the "
                    "base URL",
                ),
                None,
            )
        if isinstance(exc, openai.RateLimitError | openai.InternalServerError):
            after = None
            resp = getattr(exc, "response", None)
            if resp is not None:
                try:
                    after = float(resp.headers.get("retry-after", ""))
                except (TypeError, ValueError):
                    after = None
            return True, None, after
        if isinstance(exc, openai.APITimeoutError | openai.APIConnectionError):
            return True, None, None
        if isinstance(exc, openai.APIStatusError):
            if exc.status_code >= 500:
                return True, None, None
            return (
                False,
                AgentError(
                    "protocol",
                    f"the endpoint {url} refused the request "
                    f"({exc.status_code}): {_short(str(exc))}",
                    exc.status_code,
                ),
                None,
            )
        return False, None, None

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
    ) -> CallResult:
        """One chat completion. Raises AgentError, TokenBudgetExceeded or RunCancelled.

        ``conversation`` names the message list so the trace stores only the messages new
        since the previous call of the same conversation (the full list can be rebuilt).
        """
        if self._client is None:
            raise RuntimeError("ModelClient used outside 'async with'")
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
        started = time.monotonic()
        retries = 0
        delay = cfg.backoff_initial
        while True:
            self.check_cancel()
            t0 = time.monotonic()
            try:
                resp = await self._client.chat.completions.create(**kwargs)
            except asyncio.CancelledError:
                self.model_seconds += time.monotonic() - t0
                entry["attempts"].append(
                    {"error": "cancelled", "seconds": round(time.monotonic() - t0, 4)}
                )
                raise
            except Exception as exc:  # classified below; unknown ones re-raised
                spent = time.monotonic() - t0
                self.model_seconds += spent
                retryable, fatal, after = self._classify(exc)
                entry["attempts"].append(
                    {
                        "error": f"{type(exc).__name__}: {_short(str(exc))}",
                        "status": getattr(exc, "status_code", None),
                        "seconds": round(spent, 4),
                    }
                )
                if fatal is not None:
                    entry["duration_s"] = round(time.monotonic() - started, 4)
                    raise fatal from None
                if not retryable:
                    entry["duration_s"] = round(time.monotonic() - started, 4)
                    raise AgentError(
                        "protocol",
                        f"the model call failed: {type(exc).__name__}: {_short(str(exc))}",
                    ) from None
                if retries >= cfg.max_retries:
                    entry["duration_s"] = round(time.monotonic() - started, 4)
                    raise AgentError(
                        "network",
                        f"the endpoint {safe_url(cfg.base_url)} did not answer "
                        f"after {retries + 1} attempt(s): {type(exc).__name__}: "
                        f"{_short(str(exc))}",
                    ) from None
                wait = min(after if after is not None else delay, cfg.backoff_max)
                retries += 1
                delay = min(delay * 2, cfg.backoff_max)
                entry["attempts"][-1]["retry_after_s"] = wait
                await asyncio.sleep(wait)
                continue
            self.model_seconds += time.monotonic() - t0
            break
        choices = getattr(resp, "choices", None) or []
        if not choices:
            entry["duration_s"] = round(time.monotonic() - started, 4)
            raise AgentError("protocol", "the endpoint answered with no choices")
        message = _message_to_dict(choices[0].message)
        usage_obj = getattr(resp, "usage", None)
        tokens = self.usage.add(usage_obj)
        seconds = time.monotonic() - started
        entry.update(
            response={
                "id": getattr(resp, "id", None),
                "model": getattr(resp, "model", None),
                "message": message,
                "finish_reason": choices[0].finish_reason,
            },
            usage=None
            if usage_obj is None
            else {
                "prompt_tokens": getattr(usage_obj, "prompt_tokens", None),
                "completion_tokens": getattr(usage_obj, "completion_tokens", None),
                "total_tokens": getattr(usage_obj, "total_tokens", None),
            },
            duration_s=round(seconds, 4),
            retries=retries,
        )
        result = CallResult(message, choices[0].finish_reason, tokens, seconds, retries)
        if self.on_call is not None:
            self.on_call(purpose, result)
        return result

    def unsent(self, conversation: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Messages of ``conversation`` appended after its last call (never sent)."""
        return messages[self._sent.get(conversation, 0) + 1 :] if messages else []

    async def list_models(self) -> list[str]:
        """Model ids the endpoint serves. Raises AgentError."""
        if self._client is None:
            raise RuntimeError("ModelClient used outside 'async with'")
        try:
            page = await self._client.models.list()
        except Exception as exc:
            import openai

            _, fatal, _ = self._classify(exc)
            if fatal is not None:
                raise fatal from None
            if isinstance(exc, openai.APITimeoutError):
                raise AgentError(
                    "timeout",
                    f"the endpoint {safe_url(self.config.base_url)} did "
                    f"not answer within {self.config.request_timeout:g} s "
                    "(busy or slow)",
                ) from None
            raise AgentError(
                "network",
                f"the endpoint {safe_url(self.config.base_url)} "
                f"cannot be reached: {type(exc).__name__}: "
                f"{_short(str(exc))}",
            ) from None
        return [m.id for m in getattr(page, "data", []) or []]


def _short(text: str, n: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"
