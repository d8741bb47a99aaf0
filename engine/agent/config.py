"""The agent's settings, errors and accounting: ``AgentConfig``, ``AgentError`` (and
``TokenBudgetExceeded``, ``RunCancelled``), ``safe_url``, ``Usage`` (token accounting) and
``Trace`` (the run's chronological record). Split from ``client.py``, which uses them.

Token accounting: ``Usage.total`` is the sum of ``usage.total_tokens`` of every call, or
``None`` as soon as one call came back without usage (the cost metric is then N/A with the
reason); never a zero standing for "unknown".
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Any

from engine.agent.wire import UsageReading, read_usage
from engine.redact import clean_url
from engine.vocabulary import usage_reason
from engine.workspace import now_iso


class AgentError(RuntimeError):
    """The model endpoint failed in a way the run cannot continue from.

    ``kind``: ``auth`` (key refused), ``model`` (unknown model), ``network`` (retries
    exhausted, unreachable, no complete answer in time), ``timeout`` (no answer in time,
    listing models), ``protocol`` (malformed answer, refused request: the server's own
    message is quoted), ``context`` (the request does not fit the model's context: sizes
    and the fix are given), ``budget`` (token limit of the run reached). ``status``: the
    HTTP status when there was one. ``str()`` is one plain sentence with the fix.
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
    system_prompt: str | None = None
    """The work instructions (tools mode); None: the built-in ``SYSTEM_PROMPT``. Suites pass
    instruction variants this way. Recorded in ``public()`` as its SHA-256, not the text."""
    mode: str = "tools"
    """How the agent works: ``tools`` (the model calls the five tools), ``no-tools`` (one
    plain chat request per round for the revised document and a disposition per comment;
    the program does the tool work) or ``auto`` (tools, switching to no-tools when the
    server refuses tools or the model calls none in its first two turns). See
    ``engine.agent.modes``."""

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
            "mode": self.mode,
            "system_prompt_sha256": hashlib.sha256(self.system_prompt.encode("utf-8")).hexdigest()
            if self.system_prompt is not None
            else None,
            "api_key_set": bool(self.api_key),
        }


def safe_url(url: str) -> str:
    """``url`` as it may be stored or shown: no user info, query or fragment, and no API
    key in its path (``engine.redact.clean_url``, where keys sometimes hide)."""
    return clean_url(url)[0]


class Usage:
    """Sums usage tokens. ``total`` is None once any call reported no usage."""

    def __init__(self) -> None:
        self.calls = 0
        self.known = 0
        self.prompt = 0
        self.completion = 0
        self.unreported = 0
        self.not_whole = 0
        """Of ``unreported``: calls whose usage came as something else than whole numbers."""

    def add(self, usage: Any) -> int | None:
        """Add one call's usage: a ``wire.UsageReading``, a usage dict or object, or None.
        Returns that call's total, or None when it is unreported or not plain integers."""
        self.calls += 1
        if not isinstance(usage, UsageReading):
            if usage is not None and not isinstance(usage, dict):
                usage = {
                    k: getattr(usage, k, None)
                    for k in ("prompt_tokens", "completion_tokens", "total_tokens")
                }
            usage = read_usage(usage)
        if usage.total is None:
            self.unreported += 1
            self.not_whole += usage.not_whole
            return None
        self.prompt += usage.prompt
        self.completion += usage.completion
        self.known += usage.total
        return usage.total

    @property
    def total(self) -> int | None:
        return None if self.unreported else self.known

    def reason(self) -> str:
        """Why ``total`` is None, in words ("" when it is known)."""
        return usage_reason(self.calls, self.unreported - self.not_whole, self.not_whole)

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "total_tokens": self.total,
            "prompt_tokens": self.prompt,
            "completion_tokens": self.completion,
            "calls_without_usage": self.unreported,
            "calls_usage_not_whole_numbers": self.not_whole,
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
