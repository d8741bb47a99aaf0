"""The revision agent: an OpenAI-compatible chat model driving five workspace tools.

Pieces:

- ``AgentConfig``: endpoint, model, key (kept out of every repr, trace and file), limits.
- ``ModelClient``: ``openai.AsyncOpenAI`` created inside the running loop (``async with``)
  and closed at the end; retries 429, 5xx, timeouts and connection errors with short
  exponential backoff (``backoff_initial`` doubling up to ``backoff_max`` seconds, at most
  ``max_retries`` retries; a ``Retry-After`` header is honoured up to ``backoff_max``);
  raises ``AgentError`` with a plain reason on a bad key (401/403), an unknown model (404)
  or an exhausted retry budget. Sums usage tokens of every call; records every request,
  response, timing and token count in a ``Trace``.
- ``WorkspaceTools``: ``list_comments``, ``pull_document``, ``resolve_comment``,
  ``reply_comment``, ``push_version`` (JSON schemas in ``TOOLS``), each a thin wrapper over
  ``engine.workspace.Workspace``. Bad arguments or unknown comment ids return an error
  string to the model; they never raise.
- ``RevisionAgent.work_round``: one round of tool use, with the narration-stall nudge
  (``tool_choice="required"``, at most ``max_nudges`` times a round), bounded by
  ``max_turns_per_round`` model turns.
- ``RevisionAgent.report``: the structured report, a separate call with
  ``response_format={"type": "json_object"}``; ``parse_report`` validates it and returns
  ``ClaimReport.unusable(reason)`` for anything invalid. Never trusted, never a crash.

Token accounting: ``Usage.total`` is the sum of ``usage.total_tokens`` of every call, or
``None`` as soon as one call came back without usage (the cost metric is then N/A with the
reason); never a zero standing for "unknown".
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from engine.comments_io import parse_claim_report
from engine.models import ClaimReport, Comment, Reply
from engine.workspace import ConflictError, Workspace, WorkspaceError, now_iso

SYSTEM_PROMPT = """\
You are a revision agent. Human reviewers selected exact passages of a document and left \
review comments anchored to them. Revise the document so that each open comment is \
addressed, using only your tools.

Rules:
1. Change only text that a comment points at: its quoted passage, and at most the rest of \
the same sentence when the fix needs it. Do not touch, reformat, reflow, re-indent or \
"improve" any text that no comment points at. Every character you change outside a \
commented passage is measured and reported as collateral change.
2. Call list_comments to read the open comments and pull_document to get the latest version \
and its version_id. Call push_version with the complete revised document in the same format \
you pulled (HTML stays HTML with the same markup, plain text stays plain text) and \
base_version_id set to the version_id you pulled.
3. The push_version summary has exactly one line per comment you addressed, in the form \
"<comment id>: <what changed>".
4. Every comment needs a visible disposition. Call resolve_comment for a comment once your \
pushed text addresses it. If you do not change its text (you disagree, you lack the \
information, or its quoted text no longer exists), call reply_comment on it with the reason \
and leave it open.
5. Never resolve a comment whose passage you did not change: every resolution is checked \
against the text and reopened if the anchored text is unchanged.
6. Do not add scripts, remote resources, or markup the document did not have.
When every comment has its disposition, answer with one short sentence and no tool call."""

NUDGE_PROMPT = """\
You answered without calling a tool, and no revision has been pushed yet. Do not describe \
the work: do it now with your tools. Call pull_document if you have not, then push_version \
with the complete revised document and a summary line per comment, then resolve_comment or \
reply_comment for each comment."""

REPEAT_HINT = (
    "ok: nothing changed since your last {name} call; its answer is above. Next step: call "
    "push_version with the complete revised document, then resolve_comment or reply_comment "
    "for each comment."
)

REPORT_SYSTEM_PROMPT = """\
You report on a revision you made to a document under review. Answer with one JSON object \
and nothing else, in exactly this shape:
{"comments": [{"comment_id": "<id>", "claim": "addressed" | "not_addressed" | "stale_anchor", \
"change_summary": "<what you changed, or empty>", "rationale": "<why>"}], "notes": "<anything else>"}
Use "addressed" for a comment whose passage you changed to address it, "not_addressed" for one \
you left unchanged, and "stale_anchor" for one whose quoted text was not in the document you \
were given. Give exactly one entry for each comment id listed, and no other ids."""

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "list_comments",
            "description": "List the open review comments: id, body, the quoted passage it is "
            "anchored to (quote, with prefix and suffix context), status and "
            "thread.",
            "parameters": {
                "type": "object",
                "properties": {
                    "include_resolved": {
                        "type": "boolean",
                        "description": "Also list resolved comments.",
                    }
                },
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "pull_document",
            "description": "Get the latest version of the document: its version_id, its kind "
            "(html or text) and its complete content.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "resolve_comment",
            "description": "Mark a comment resolved, once the pushed text addresses it.",
            "parameters": {
                "type": "object",
                "properties": {
                    "comment_id": {"type": "string"},
                    "note": {"type": "string", "description": "Optional: what you changed."},
                },
                "required": ["comment_id"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "reply_comment",
            "description": "Reply in a comment's thread, e.g. the reason you did not change "
            "its text. The comment stays open.",
            "parameters": {
                "type": "object",
                "properties": {"comment_id": {"type": "string"}, "body": {"type": "string"}},
                "required": ["comment_id", "body"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "push_version",
            "description": "Store a revised version: the complete document, in the same format "
            "as pulled. base_version_id must be the version you pulled; a stale "
            "base is refused as a conflict.",
            "parameters": {
                "type": "object",
                "properties": {
                    "base_version_id": {"type": "string"},
                    "content": {"type": "string", "description": "The complete revised document."},
                    "summary": {
                        "type": "string",
                        "description": "One line per comment: '<comment id>: <what changed>'.",
                    },
                },
                "required": ["base_version_id", "content", "summary"],
                "additionalProperties": False,
            },
        },
    },
]
TOOL_NAMES = tuple(t["function"]["name"] for t in TOOLS)

#: A pushed document longer than this many characters is refused (error to the model).
MAX_PUSH_CHARS = 20_000_000


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


TRACE_TOOL_CHARS = 1000


def _short_keep(text: str) -> str:
    """Tool arguments/results in ``tool_call`` trace entries: the first TRACE_TOOL_CHARS
    characters (the full text is in the next ``model_call``'s ``new_messages``, or in an
    ``unsent_messages`` entry when the round ended first)."""
    if len(text) <= TRACE_TOOL_CHARS:
        return text
    return text[:TRACE_TOOL_CHARS] + f"… [{len(text)} characters in all]"


def _short(text: str, n: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


# -- tools -----------------------------------------------------------------------------------


@dataclass
class ToolOutcome:
    """What one tool call did. ``result`` is the string the model gets back."""

    name: str
    arguments: dict[str, Any]
    ok: bool
    result: str
    comment_id: str | None = None
    pushed: Any = None  # VersionRow when push_version succeeded


class WorkspaceTools:
    """The five tools over one document of a workspace.

    ``visible``: the comment ids the agent may act on (the comments of this run); other
    ids are answered with an error listing the known ones. Every outcome is recorded in
    ``resolved``/``replied``/``pushed`` for the run's bookkeeping.
    """

    def __init__(
        self, workspace: Workspace, document_id: str, visible: list[str], agent_name: str = "agent"
    ):
        self.ws = workspace
        self.document_id = document_id
        self.visible = list(visible)
        self.agent_name = agent_name
        self.resolved: dict[str, str] = {}
        self.replied: dict[str, list[str]] = {}
        self.pushed: list[Any] = []

    def _unknown(self, cid: Any) -> str:
        known = ", ".join(self.visible[:30]) + (" ..." if len(self.visible) > 30 else "")
        return f"error: no comment with id {cid!r}. Known comment ids: {known}"

    def dispatch(self, name: str, raw_arguments: str | None) -> ToolOutcome:
        """Run one tool call. Never raises for bad input: errors go back as strings."""
        try:
            args = json.loads(raw_arguments) if raw_arguments and raw_arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return ToolOutcome(
                name,
                {"_raw": _short(raw_arguments or "", 200)},
                False,
                f"error: the arguments are not valid JSON ({exc.msg} at "
                f"character {exc.pos}); send a JSON object",
            )
        except RecursionError:
            return ToolOutcome(
                name,
                {"_raw": _short(raw_arguments or "", 200)},
                False,
                "error: the arguments are nested too deeply; send a flat JSON object",
            )
        if not isinstance(args, dict):
            return ToolOutcome(
                name,
                {"_raw": _short(str(raw_arguments), 200)},
                False,
                "error: the arguments must be a JSON object",
            )
        handler = getattr(self, f"_t_{name}", None) if name in TOOL_NAMES else None
        if handler is None:
            return ToolOutcome(
                name,
                args,
                False,
                f"error: there is no tool named {name!r}; the tools are {', '.join(TOOL_NAMES)}",
            )
        try:
            return handler(args)
        except ConflictError as exc:
            return ToolOutcome(name, _slim(args), False, f"error: {exc}")
        except WorkspaceError as exc:
            return ToolOutcome(name, _slim(args), False, f"error: {exc}")

    def _comment_arg(self, name: str, args: dict[str, Any]) -> tuple[str | None, str | None]:
        cid = args.get("comment_id")
        if not isinstance(cid, str) or not cid.strip():
            return None, "error: comment_id is required and must be a string"
        if cid not in self.visible:
            return None, self._unknown(cid)
        return cid, None

    def _t_list_comments(self, args: dict[str, Any]) -> ToolOutcome:
        include = bool(args.get("include_resolved", False))
        items = []
        for c in self.ws.comments(self.document_id):
            if c.id not in self.visible or (c.status != "open" and not include):
                continue
            items.append(
                {
                    "id": c.id,
                    "body": c.body,
                    "quote": c.anchor.quote,
                    "prefix": c.anchor.prefix,
                    "suffix": c.anchor.suffix,
                    "status": c.status,
                    "thread": [
                        {"author": r.author, "body": r.body, "kind": r.kind} for r in c.thread[-5:]
                    ],
                }
            )
        return ToolOutcome(
            "list_comments", args, True, json.dumps({"comments": items}, ensure_ascii=False)
        )

    def _t_pull_document(self, args: dict[str, Any]) -> ToolOutcome:
        head = self.ws.head(self.document_id)
        kind = self.ws.document(self.document_id).kind
        return ToolOutcome(
            "pull_document",
            args,
            True,
            json.dumps(
                {"version_id": head.version_id, "kind": kind, "content": head.raw},
                ensure_ascii=False,
            ),
        )

    def _t_resolve_comment(self, args: dict[str, Any]) -> ToolOutcome:
        cid, err = self._comment_arg("resolve_comment", args)
        if err:
            return ToolOutcome(
                "resolve_comment",
                args,
                False,
                err,
                args.get("comment_id") if isinstance(args.get("comment_id"), str) else None,
            )
        note = args.get("note")
        note = note if isinstance(note, str) else ""
        reply = Reply(self.agent_name, note or "Resolved.", now_iso(), "resolve")
        self.ws.set_status(self.document_id, cid, "resolved", reply=reply)
        self.resolved[cid] = note
        return ToolOutcome("resolve_comment", args, True, f"ok: comment {cid} resolved", cid)

    def _t_reply_comment(self, args: dict[str, Any]) -> ToolOutcome:
        cid, err = self._comment_arg("reply_comment", args)
        if err:
            return ToolOutcome(
                "reply_comment",
                args,
                False,
                err,
                args.get("comment_id") if isinstance(args.get("comment_id"), str) else None,
            )
        body = args.get("body")
        if not isinstance(body, str) or not body.strip():
            return ToolOutcome(
                "reply_comment",
                args,
                False,
                "error: body is required and must be a non-empty string",
                cid,
            )
        self.ws.add_reply(self.document_id, cid, Reply(self.agent_name, body, now_iso(), "reply"))
        self.replied.setdefault(cid, []).append(body)
        return ToolOutcome("reply_comment", args, True, f"ok: reply added to {cid}", cid)

    def _t_push_version(self, args: dict[str, Any]) -> ToolOutcome:
        base, content, summary = (
            args.get("base_version_id"),
            args.get("content"),
            args.get("summary", ""),
        )
        slim = _slim(args)
        if not isinstance(base, str) or not base.strip():
            return ToolOutcome(
                "push_version",
                slim,
                False,
                "error: base_version_id is required: the version_id you pulled",
            )
        if not isinstance(content, str) or not content.strip():
            return ToolOutcome(
                "push_version",
                slim,
                False,
                "error: content is required: the complete revised document",
            )
        if len(content) > MAX_PUSH_CHARS:
            return ToolOutcome(
                "push_version",
                slim,
                False,
                f"error: content is {len(content)} characters, over the limit of {MAX_PUSH_CHARS}",
            )
        if not isinstance(summary, str):
            summary = ""
        row = self.ws.push_version(
            self.document_id, content, base.strip(), summary=summary, author=self.agent_name
        )
        self.pushed.append(row)
        missing = [
            cid
            for cid in self.visible
            if not any(line.strip().startswith(cid) for line in summary.splitlines())
        ]
        note = ""
        if not summary.strip():
            note = " Warning: the summary is empty; it needs one line per comment."
        elif missing and len(missing) < len(self.visible):
            note = (
                " Note: the summary has no line for "
                + ", ".join(missing[:20])
                + ("..." if len(missing) > 20 else "")
                + "."
            )
        return ToolOutcome(
            "push_version", slim, True, f"ok: stored as version {row.version_id}.{note}"
        )


def _slim(args: dict[str, Any]) -> dict[str, Any]:
    """Arguments for events: a long ``content`` replaced by its length."""
    out = dict(args)
    if isinstance(out.get("content"), str):
        out["content"] = f"<{len(out['content'])} characters>"
    return out


# -- report ----------------------------------------------------------------------------------


def parse_report(text: str | None, known_ids: list[str]) -> ClaimReport:
    """Validate the report JSON. Any problem -> ``ClaimReport.unusable(reason)``.

    Accepted: an object with a ``comments`` list of ``{comment_id, claim, change_summary?,
    rationale?}`` with ``claim`` in ``addressed | not_addressed | stale_anchor``, each id
    among ``known_ids`` and listed once, and an optional string ``notes``.
    """
    if text is None or not text.strip():
        return ClaimReport.unusable("the report was empty")
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`")
        body = body[4:] if body.lower().startswith("json") else body
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as exc:
        what = exc.msg[0].lower() + exc.msg[1:]
        what = what[:-3] if what.endswith(" at") else what
        return ClaimReport.unusable(
            f"the report is not valid JSON: {what} at character {exc.pos} of {len(body)}"
        )
    except RecursionError:
        return ClaimReport.unusable("the report is JSON nested too deeply to be a report")
    report = parse_claim_report(obj)
    if not report.usable:
        return report
    known = set(known_ids)
    unknown = [c.comment_id for c in report.comments if c.comment_id not in known]
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:10]) + (" ..." if len(unknown) > 10 else "")
        return ClaimReport.unusable(f"the report names comment ids that do not exist: {shown}")
    return report


def report_token_cap(n_comments: int) -> int:
    """Completion-token cap of the report call: 400 + 250 per comment, at most 32,000. A
    report cut off by the cap is invalid JSON and so unusable, never trusted."""
    return min(400 + 250 * n_comments, 32_000)


# -- the agent -------------------------------------------------------------------------------


@dataclass
class RoundWork:
    """What one round of tool use did."""

    turns: int = 0
    nudges: int = 0
    pushed: list[Any] = field(default_factory=list)
    resolved: list[str] = field(default_factory=list)
    replied: list[str] = field(default_factory=list)
    final_text: str = ""
    stopped: str = ""  # why the round's loop ended, in words


class RevisionAgent:
    """Drives the model through one round of tool use, then asks for its report.

    ``emit_tool(ToolOutcome)`` and ``emit_nudge(nudge, narration)`` let the run turn steps
    into events; ``check_cancel()`` raises RunCancelled between steps.
    """

    def __init__(
        self,
        client: ModelClient,
        tools: WorkspaceTools,
        *,
        emit_tool: Callable[[int, ToolOutcome], None] | None = None,
        emit_nudge: Callable[[int, int, str], None] | None = None,
        check_cancel: Callable[[], None] | None = None,
        system_prompt: str = SYSTEM_PROMPT,
    ):
        self.client = client
        self.tools = tools
        self.config = client.config
        self.emit_tool = emit_tool or (lambda r, o: None)
        self.emit_nudge = emit_nudge or (lambda r, n, t: None)
        self.check_cancel = check_cancel or (lambda: None)
        self.system_prompt = system_prompt
        self.push_summaries: list[tuple[int, str, str]] = []  # (round, version id, summary)

    async def work_round(self, round_no: int, brief: str) -> RoundWork:
        """One round: the model calls tools until it ends its turn (after pushing, or after
        ``max_nudges`` nudges) or ``max_turns_per_round`` turns are spent."""
        cfg = self.config
        work = RoundWork()
        conv = f"work-{round_no}"
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.system_prompt},
            {"role": "user", "content": brief},
        ]
        force = False
        pushed_before = len(self.tools.pushed)
        seen_reads: dict[tuple[str, str], str] = {}
        while work.turns < cfg.max_turns_per_round:
            self.check_cancel()
            try:
                res = await self.client.chat(
                    messages,
                    purpose="nudge" if force else "work",
                    round_no=round_no,
                    conversation=conv,
                    tools=TOOLS,
                    tool_choice="required" if force else "auto",
                    max_tokens=cfg.max_output_tokens,
                )
            except AgentError as exc:
                # Some servers refuse tool_choice="required" (400): nudge with "auto".
                if not (force and exc.kind == "protocol" and exc.status in (400, 422)):
                    raise
                self.client.trace.add(
                    "note",
                    round=round_no,
                    text="the endpoint refused tool_choice=required; the nudge is sent with auto",
                    error=str(exc),
                )
                res = await self.client.chat(
                    messages,
                    purpose="nudge",
                    round_no=round_no,
                    conversation=conv,
                    tools=TOOLS,
                    tool_choice="auto",
                    max_tokens=cfg.max_output_tokens,
                )
            work.turns += 1
            force = False
            msg = res.message
            messages.append(msg)
            calls = msg.get("tool_calls") or []
            if calls:
                echoed: list[str] = []
                for call in calls:
                    self.check_cancel()
                    fn = call["function"]
                    t0 = time.monotonic()
                    outcome = self.tools.dispatch(fn["name"], fn["arguments"])
                    if outcome.ok and outcome.name in ("list_comments", "pull_document"):
                        # A read repeated with nothing changed in between: small models
                        # loop on these. Say so and name the next step instead.
                        key = (outcome.name, json.dumps(outcome.arguments, sort_keys=True))
                        if seen_reads.get(key) == outcome.result:
                            outcome.result = REPEAT_HINT.format(name=outcome.name)
                        else:
                            seen_reads[key] = outcome.result
                    self.client.trace.add(
                        "tool_call",
                        round=round_no,
                        call_id=call["id"],
                        name=fn["name"],
                        arguments=_short_keep(fn["arguments"]),
                        ok=outcome.ok,
                        result=_short_keep(outcome.result),
                        duration_s=round(time.monotonic() - t0, 4),
                    )
                    if outcome.name == "push_version" and outcome.ok:
                        row = self.tools.pushed[-1]
                        outcome.pushed = row
                        self.push_summaries.append((round_no, row.version_id, row.summary))
                    messages.append(
                        {"role": "tool", "tool_call_id": call["id"], "content": outcome.result}
                    )
                    echoed.append(f"Result of {fn['name']}:\n{outcome.result}")
                    self.emit_tool(round_no, outcome)
                if cfg.echo_tool_results:
                    messages.append({"role": "user", "content": "\n\n".join(echoed)})
                continue
            text = msg.get("content") or ""
            work.final_text = text
            if len(self.tools.pushed) == pushed_before and work.nudges < cfg.max_nudges:
                work.nudges += 1
                self.emit_nudge(round_no, work.nudges, text)
                messages.append({"role": "user", "content": NUDGE_PROMPT})
                force = True
                continue
            work.stopped = (
                "the model ended its turn"
                if len(self.tools.pushed) > pushed_before
                else f"the model ended its turn without pushing after {work.nudges} nudge(s)"
            )
            break
        else:
            work.stopped = f"the turn limit of {cfg.max_turns_per_round} was reached"
        work.pushed = self.tools.pushed[pushed_before:]
        unsent = self.client.unsent(conv, messages)
        if unsent:
            self.client.trace.add(
                "unsent_messages", round=round_no, conversation=conv, messages=unsent
            )
        return work

    async def report(self, round_no: int, comments: list[Comment]) -> tuple[ClaimReport, str]:
        """Ask for the structured report on ``comments``. Returns (report, raw text).

        Never raises for a bad report (it becomes ``ClaimReport.unusable``); raises
        AgentError/RunCancelled for a failed call like any other call.
        """
        self.check_cancel()
        ids = [c.id for c in comments]
        lines = ["Comments (id, reviewer's comment, quoted passage):"]
        for c in comments:
            lines.append(
                json.dumps(
                    {"comment_id": c.id, "comment": c.body, "quote": c.anchor.quote},
                    ensure_ascii=False,
                )
            )
        lines.append("")
        if self.push_summaries:
            lines.append("Your push summaries:")
            for r, vid, summary in self.push_summaries:
                lines.append(f"- round {r}, version {vid}:\n{summary}")
        else:
            lines.append("You pushed no revision.")
        resolved = [cid for cid in ids if cid in self.tools.resolved]
        replied = [cid for cid in ids if cid in self.tools.replied]
        lines.append(f"You resolved: {', '.join(resolved) or 'none'}.")
        lines.append(f"You replied to: {', '.join(replied) or 'none'}.")
        lines.append("")
        lines.append("Report on every comment id above, as the JSON object described.")
        messages = [
            {"role": "system", "content": REPORT_SYSTEM_PROMPT},
            {"role": "user", "content": "\n".join(lines)},
        ]
        res = await self.client.chat(
            messages,
            purpose="report",
            round_no=round_no,
            conversation=f"report-{round_no}",
            response_format={"type": "json_object"},
            max_tokens=report_token_cap(len(ids)),
        )
        raw = res.message.get("content") or ""
        report = parse_report(raw, ids)
        if not report.usable and res.finish_reason == "length":
            report = ClaimReport.unusable(
                f"the report was cut off at its limit of {report_token_cap(len(ids))} tokens "
                f"({report.problem})"
            )
        return report, raw


AsyncFn = Callable[..., Awaitable[Any]]
