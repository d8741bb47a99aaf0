"""Secrets never printed or stored: one redaction applied at every boundary.

A server that echoes the request's ``Authorization`` header in an error body would
otherwise put the API key into an error message, and from there onto stdout, into the
workspace (run reason, event log), the trace, the bundle and the log file. Everything the
program prints or stores passes through ``redact`` (text) or ``redact_json`` (a JSON-shaped
value) first:

- every secret registered with ``remember`` (the API keys in use in this process;
  ``engine.agent.ModelClient`` registers its key, the key resolvers register theirs) is
  replaced by ``[REDACTED]``;
- so is any value that looks like a credential whoever's it is: what follows
  ``Authorization: Bearer|Basic|Token``, ``Bearer <token>`` and ``Authorization: <token>``
  (a token of 8 or more token characters with a digit in it, so "bearer instruments" stays),
  ``sk-`` followed by 12 or more key characters (OpenAI-style keys), and what follows
  ``api_key=`` / ``"api_key": "`` / ``access_token=``.

The boundaries: ``engine.run.ReviewRun.emit`` (events, hence the CLI's lines and the GUI's
log), the run's reason and bundle content (trace, claims), ``engine.workspace.Workspace``
writes (event log, run reason, replies), ``arl``'s error lines, and the desktop program's
log file (``RedactingFilter``).
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

MASK = "[REDACTED]"
_MIN_SECRET = 4

_lock = threading.Lock()
_secrets: set[str] = set()

_TOKEN = r"[A-Za-z0-9._~+/=:-]"
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # Authorization: <scheme> <credentials>  (a header echo, in any case)
    (
        re.compile(
            r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token)\s+)[^\s\"',;}]+"
        ),
        r"\1" + MASK,
    ),
    # Authorization: <credentials> with no scheme (8+ token characters, one a digit)
    (
        re.compile(
            rf"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?)(?=(?!bearer|basic|token){_TOKEN}*\d){_TOKEN}{{8,}}"
        ),
        r"\1" + MASK,
    ),
    (re.compile(rf"(?i)\b(bearer)\s+(?={_TOKEN}*\d){_TOKEN}{{8,}}"), r"\1 " + MASK),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{12,}"), "sk-" + MASK),
    (
        re.compile(r"(?i)(\b(?:api[_-]?key|access[_-]?token)[\"']?\s*[:=]\s*[\"']?)[^\s\"'&,;}]+"),
        r"\1" + MASK,
    ),
]


def remember(secret: str | None) -> None:
    """Register a secret (an API key) to redact everywhere from now on. Values shorter than
    4 characters are ignored (they would mask ordinary text)."""
    if secret and len(secret.strip()) >= _MIN_SECRET:
        with _lock:
            _secrets.add(secret.strip())


def forget_all() -> None:
    """Drop every registered secret (tests)."""
    with _lock:
        _secrets.clear()


def redact(text: str, extra: tuple[str, ...] | list[str] = ()) -> str:
    """``text`` with every registered secret, every ``extra`` one and every credential-like
    value replaced (see the module docstring). Idempotent."""
    if not text:
        return text
    with _lock:
        secrets = sorted(_secrets | {s for s in extra if s and len(s) >= _MIN_SECRET}, key=len)
    for s in reversed(secrets):  # longest first, so a key containing another is masked whole
        if s in text:
            text = text.replace(s, MASK)
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return text


def redact_json(value: Any, extra: tuple[str, ...] | list[str] = ()) -> Any:
    """A copy of a JSON-shaped value (dict, list, str, numbers...) with every string (keys
    included) passed through ``redact``. Other values are returned as they are."""
    if isinstance(value, str):
        return redact(value, extra)
    if isinstance(value, dict):
        return {
            redact(k, extra) if isinstance(k, str) else k: redact_json(v, extra)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact_json(v, extra) for v in value]
    return value


def known_secrets() -> list[str]:
    """The registered secrets (for a writer that scrubs bytes, e.g. the bundle)."""
    with _lock:
        return sorted(_secrets)


class RedactingFilter(logging.Filter):
    """A logging filter that redacts each record's formatted message (and its exception
    text) before any handler writes it. Install it on a handler."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            return True
        record.msg = redact(message)
        record.args = ()
        if record.exc_info:
            import traceback

            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
