"""How the model client reads a failed call: retry it or not, and the one-line reason.

``CallFailures`` is the model client's half that classifies an exception from a call
(``classify``: retryable, or the fatal ``AgentError`` quoting the server's own words, and
the wait a ``Retry-After`` asks for) and describes it (``describe_failure``). Mixed into
``client.ModelClient``; it reads the client's ``config``, ``document_chars`` and sets its
``context_limit``.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

from engine.agent.bodies import (
    RETRY_AFTER_LIMIT,
    context_error_text,
    context_limit,
    is_context_error,
    retry_after_seconds,
    server_message,
)
from engine.agent.config import AgentConfig, AgentError, safe_url
from engine.agent.jsonsafe import JSONProblem, load_json
from engine.redact import redact

KEY_ADVICE = "set the right key in the keyring or OPENAI_API_KEY"
"""The advice that ends an ``auth`` AgentError's message (the command line's fix; the
doctor swaps it for the caller's, e.g. the wizard's key box)."""


class CallFailures:
    """Classifying and describing a failed call (see the module docstring)."""

    config: AgentConfig
    document_chars: int | None
    context_limit: int | None

    def _redact(self, text: str) -> str:
        """``text`` without the API key or anything shaped like one (``engine.redact``)."""
        return redact(text, [self.config.api_key] if self.config.api_key else [])

    def _server_says(self, exc: Any) -> str:
        """The server's own message for an HTTP error (``error.message`` of the body, else
        the body's text), redacted and shortened; "" when there is none."""
        msg = server_message(getattr(exc, "body", None))
        if not msg:
            resp = getattr(exc, "response", None)
            try:
                text = resp.text if resp is not None else ""
            except Exception:
                text = ""
            try:
                msg = server_message(load_json(text)) if text.strip() else ""
            except JSONProblem:
                msg = server_message(text)
        return self._redact(msg)

    def _context_error(
        self, said: str, body: Any, status: int | None, request_chars: int
    ) -> AgentError:
        """The AgentError for a request that did not fit the model's context."""
        limit = context_limit(said, body)
        self.context_limit = limit or self.context_limit
        text = context_error_text(said, limit, self.document_chars, request_chars)
        return AgentError("context", text, status)

    def _classify(
        self, exc: BaseException, *, retry_server_errors: bool = True, request_chars: int = 0
    ) -> tuple[bool, AgentError | None, float | None]:
        """(retryable, fatal error or None, retry-after seconds or None)."""
        import openai

        url = safe_url(self.config.base_url)
        if isinstance(exc, TimeoutError):
            return True, None, None
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            said = self._server_says(exc)
            return (
                False,
                AgentError(
                    "auth",
                    f"the endpoint {url} refused the API key "
                    f"({getattr(exc, 'status_code', 401)}"
                    + (f': "{said}"' if said else "")
                    + "); "
                    + KEY_ADVICE,
                    getattr(exc, "status_code", 401),
                ),
                None,
            )
        if isinstance(exc, openai.NotFoundError):
            said = self._server_says(exc)
            return (
                False,
                AgentError(
                    "model",
                    f"the endpoint {url} does not know the model '{self.config.model}' "
                    "(404" + (f': "{said}"' if said else "") + "); check the model name "
                    "(arl doctor lists the models it serves) and the base URL",
                    404,
                ),
                None,
            )
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            said = self._server_says(exc)
            if is_context_error(said):
                body = getattr(exc, "body", None)
                return False, self._context_error(said, body, status, request_chars), None
            if isinstance(exc, openai.RateLimitError) or (status >= 500 and retry_server_errors):
                after = retry_after_seconds(_retry_after_header(exc), time.time())
                if after is not None and after > RETRY_AFTER_LIMIT:
                    return False, self._wait_refused(exc, after), None
                return True, None, after
            return (
                False,
                AgentError(
                    "protocol",
                    f"the endpoint {url} refused the request (HTTP {status}): "
                    + (f'"{said}"' if said else "no explanation in the answer"),
                    status,
                ),
                None,
            )
        if isinstance(exc, openai.APITimeoutError | openai.APIConnectionError | NotAnAnswer):
            return True, None, None
        return False, None, None

    def _wait_refused(self, exc: Any, after: float) -> AgentError:
        """The AgentError for a server that asks to wait longer than ``RETRY_AFTER_LIMIT``
        seconds: no retry, the wait it asked for and its own words."""
        said = self._server_says(exc)
        return AgentError(
            "network",
            f"the endpoint {safe_url(self.config.base_url)} asks to wait {_duration(after)} "
            f"before the next request (HTTP {exc.status_code}, Retry-After: "
            f"{_retry_after_header(exc)})"
            + (f': "{said}"' if said else "")
            + f"; the program waits {RETRY_AFTER_LIMIT:g} s at the most: try again later",
            exc.status_code,
        )

    def _describe_failure(self, exc: BaseException) -> str:
        if isinstance(exc, TimeoutError):
            return (
                f"no complete answer within {self.config.request_timeout:g} s "
                "(the time limit of a whole call)"
            )
        if isinstance(exc, NotAnAnswer):
            return str(exc)
        said = self._server_says(exc) if hasattr(exc, "status_code") else ""
        if said:
            return f'HTTP {getattr(exc, "status_code", "?")}: "{said}"'
        plain = connection_words(exc, self.config.base_url)
        if plain:
            return plain
        text = f"{type(exc).__name__}: {self._redact(str(exc))}"
        cause = exc.__cause__
        if cause is not None and str(cause) and str(cause) not in text:
            text += f" ({self._redact(str(cause))})"  # e.g. "peer closed connection ..."
        return _short(text)


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions behind it (``__cause__``, else ``__context__``), at most
    ten, nearest first."""
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and len(out) < 10 and cur not in out:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def connection_words(exc: BaseException, base_url: str) -> str:
    """A failed connection in plain words, naming the host and port of ``base_url``
    (``http://127.0.0.1:36877/v1`` -> ``127.0.0.1:36877``): "could not connect to
    127.0.0.1:36877 (nothing answered)" for a refused connection, "(the name ... was not
    found)" for an unknown host, "the connection to ... broke off before an answer" for
    a dropped one, "could not connect to ..." for any other connection error; "" when
    ``exc`` is no connection error (the openai client's ``APIConnectionError`` or an
    ``OSError`` behind it; timeouts are said elsewhere). The exception's own text stays
    in the trace (the model call's attempts, ``exception``). Never raises."""
    try:
        import socket

        import openai

        chain = _causes(exc)
        if isinstance(exc, openai.APITimeoutError | TimeoutError):
            return ""
        if not any(isinstance(e, openai.APIConnectionError | ConnectionError) for e in chain):
            return ""
        parts = urlsplit(base_url)
        host = parts.hostname or base_url
        port = parts.port or (443 if parts.scheme == "https" else 80)
        where = f"{host}:{port}"
        texts = " ".join(str(e) for e in chain).lower()
        if any(isinstance(e, ConnectionRefusedError) for e in chain) or "refused" in texts:
            return f"could not connect to {where} (nothing answered)"
        if any(isinstance(e, socket.gaierror) for e in chain) or any(
            w in texts
            for w in (
                "name or service not known",
                "nodename nor servname",
                "getaddrinfo failed",
                "name resolution",
            )
        ):
            return f"could not connect to {where} (the name {host} was not found)"
        if any(w in texts for w in ("peer closed", "disconnected", "reset by peer", "broken pipe")):
            return f"the connection to {where} broke off before an answer"
        return f"could not connect to {where}"
    except Exception:
        return ""


def exception_text(exc: BaseException, redactor: Any = None) -> str:
    """The exception as Python names it, with the one behind it: ``APIConnectionError:
    Connection error. (All connection attempts failed)``, for the trace and the log only
    (never on screen). ``redactor``: a function that takes the API key out of text."""
    clean = redactor or (lambda t: t)
    text = f"{type(exc).__name__}: {clean(str(exc))}"
    cause = exc.__cause__
    if cause is not None and str(cause) and str(cause) not in text:
        text += f" ({clean(str(cause))})"
    return _short(text)


class NotAnAnswer(Exception):
    """A 200 answer that is no chat completion (an HTML page): retried like a gateway
    error; ``str()`` says what came."""


def _retry_after_header(exc: Any) -> str | None:
    resp = getattr(exc, "response", None)
    headers = getattr(resp, "headers", None)
    return headers.get("retry-after") if headers is not None else None


def _duration(seconds: float) -> str:
    """``seconds`` in words: "90 s", "25 min", "27.8 h", "3.2 days"."""
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def _short(text: str, n: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"
