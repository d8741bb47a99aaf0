"""Secrets never printed or stored: one redaction applied at every boundary.

A server that echoes the request's ``Authorization`` header in an error body would
otherwise put the API key into an error message, and from there onto stdout, into the
workspace (run reason, event log), the trace, the bundle and the log file. Everything the
program prints or stores passes through ``redact`` (text) or ``redact_json`` (a JSON-shaped
value) first:

- every secret registered with ``remember`` (the API keys in use in this process;
  ``engine.agent.ModelClient`` registers its key, the key resolvers register theirs) is
  replaced by ``[REDACTED]``, and so are the forms a server may echo it in, for a secret of
  ``ENCODED_MIN`` (8) characters or more (``mask_known``):

  - split: whitespace (spaces, tabs, line breaks) or the JSON escapes ``\n``, ``\r``,
    ``\t`` between any of its characters;
  - URL-encoded: any of its characters as ``%XX`` (UTF-8 bytes, hex in either case), mixed
    with plain ones (``quote``, ``quote_plus`` and partial encodings);
  - base64 (standard or URL-safe alphabet, on one line): on its own or inside a longer
    base64 value at any byte offset (``base64("user:" + key)`` in a Basic header, a
    base64-encoded request echoed back); the whole base64 run holding it is masked;
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

import base64
import functools
import logging
import re
import threading
from typing import Any

MASK = "[REDACTED]"
_MIN_SECRET = 4
#: Secrets shorter than this are masked only as they are, never split or encoded: a short
#: value spread over spaces or found inside base64 would mask ordinary text.
ENCODED_MIN = 8

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
    text = mask_known(text, secrets)
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return text


def mask_known(text: str, secrets: list[str] | tuple[str, ...], mask: str = MASK) -> str:
    """``text`` with the split, URL-encoded and base64 forms of each secret of
    ``ENCODED_MIN`` characters or more replaced by ``mask`` (the forms are listed in the
    module docstring). The plain form is left to the caller (``redact`` replaces it first).
    Linear in ``len(text)``: a base64 run is widened around a found secret, never scanned
    from every position."""
    long_enough = tuple(sorted({s for s in secrets if len(s) >= ENCODED_MIN}))
    if not text or not long_enough:
        return text
    split_or_url, b64 = _encoded_forms(long_enough)
    spans = [m.span() for m in split_or_url.finditer(text)]
    for m in b64.finditer(text):
        start, end = m.span()
        while start > 0 and text[start - 1] in _B64_SET:
            start -= 1
        while end < len(text) and text[end] in _B64_SET:
            end += 1
        while end < len(text) and text[end] == "=":
            end += 1
        spans.append((start, end))
    if not spans:
        return text
    out, pos = [], 0
    for start, end in sorted(spans):
        if end <= pos:
            continue
        out.append(text[pos:start] if start > pos else "")
        if start >= pos:
            out.append(mask)
        pos = max(pos, end)
    out.append(text[pos:])
    return "".join(out)


# Between two characters of a split secret: whitespace or a JSON escape of it.
_GAP = r"(?:\s|\\[nrt])*"
_B64_SET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")


def _char_form(c: str) -> str:
    """One character as itself or URL-encoded (``%XX`` per UTF-8 byte, either case)."""
    encoded = "".join(f"%{b:02x}" for b in c.encode("utf-8"))
    return f"(?:{re.escape(c)}|(?i:{re.escape(encoded)}))"


def _base64_cores(secret: str) -> set[str]:
    """The base64 characters that encode ``secret`` whatever the byte offset it starts at
    inside a longer value: for each of the three offsets, the characters fully determined
    by the secret's bytes (standard and URL-safe alphabets)."""
    raw = secret.encode("utf-8")
    cores = set()
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + raw).decode("ascii")
        core = enc[-(-8 * k // 6) : (8 * (k + len(raw))) // 6]
        cores |= {core, core.replace("+", "-").replace("/", "_")}
    return cores


@functools.lru_cache(maxsize=32)
def _encoded_forms(secrets: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(split or URL-encoded forms, base64 cores) of ``secrets``, longest secret first."""
    ordered = sorted(secrets, key=len, reverse=True)
    split_or_url = "|".join(_GAP.join(_char_form(c) for c in s) for s in ordered)
    cores = sorted({c for s in ordered for c in _base64_cores(s)}, key=len, reverse=True)
    return re.compile(split_or_url), re.compile("|".join(re.escape(c) for c in cores))


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
