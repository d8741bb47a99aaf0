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
  - in any letter case (``KEY.upper()``, ``KEY.lower()``, swapped or mixed);
  - HTML character references for any of its characters: decimal ``&#115;`` and hex
    ``&#x73;`` (leading zeros, ``x`` in either case, the ``;`` optional), the named ones
    (``&period;``, ``&lowbar;``...), each possibly escaped again (``&amp;#115;``); and the
    escapes ``\u0073`` (JSON) and ``\x73`` (a bytes repr);
  - a run of ``FRAGMENT_MIN`` (12) or more of its characters as they are, for a secret
    of ``FRAGMENT_FROM`` (20) characters or more (half a key echoed back);
  - transformed whole: reversed, rot13, hex of its UTF-8 bytes (either case), base32 of
    its UTF-8 bytes; each of these in turn split, URL-encoded, entity-escaped or in any
    case as above;
  - with invisible characters (Default_Ignorable_Code_Point: U+200B, U+2060, U+FEFF, soft
    hyphen, tags...) between its characters: they are folded before matching (``redact``,
    every form above and every credential shape below; ``redact_known``, the plain form).

  The forms of each registered set of secrets are compiled into one regular expression
  once (cached); ``benchmarks/bench_redact.py`` measures the cost on 5 MB of trace-like
  text.
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

import functools
import re
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # logging and base64 are loaded where used: a score needs neither
    import logging

MASK = "[REDACTED]"
_MIN_SECRET = 4
#: Secrets shorter than this are masked only as they are, never split or encoded: a short
#: value spread over spaces or found inside base64 would mask ordinary text.
ENCODED_MIN = 8

_lock = threading.Lock()
_secrets: set[str] = set()

_TOKEN = r"[A-Za-z0-9._~+/=:-]"


@functools.cache
def _patterns() -> list[tuple[re.Pattern[str], str]]:
    """The credential-like values masked whoever's they are, with their replacements;
    compiled on first use (a command that redacts nothing, ``arl score``, never pays it)."""
    return [
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
            re.compile(
                r"(?i)(\b(?:api[_-]?key|access[_-]?token)[\"']?\s*[:=]\s*[\"']?)[^\s\"'&,;}]+"
            ),
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


@functools.lru_cache(maxsize=1)
def _invisible() -> re.Pattern[str]:
    """Unicode's Default_Ignorable_Code_Point characters (U+200B, U+200D, U+2060, U+FEFF,
    the bidi controls, variation selectors, tags...): a reader cannot see them, so a key
    echoed with them between its characters is still the key."""
    import regex

    return regex.compile(r"\p{Default_Ignorable_Code_Point}+")


def redact(text: str, extra: tuple[str, ...] | list[str] = ()) -> str:
    """``text`` with every registered secret, every ``extra`` one and every credential-like
    value replaced (see the module docstring). Idempotent.

    Invisible characters are folded before matching (as the verdicts fold them,
    docs/verdicts.md): each line holding any is matched with them removed, and a line in
    which that finds a secret is written with the secret masked and its invisible
    characters dropped; other lines keep theirs."""
    if not text:
        return text
    if _invisible().search(text) is not None:
        lines = text.splitlines(keepends=True)
        for i, line in enumerate(lines):
            folded = _invisible().sub("", line)
            if folded != line and _redact_plain(folded, extra) != folded:
                lines[i] = folded
        text = "".join(lines)
    return _redact_plain(text, extra)


def redact_known(text: str) -> str:
    """``text`` with every registered secret masked as it is, and also with invisible
    characters between its characters (U+200B, U+2060, ...), and nothing else: for a
    document the agent pushed, which may hold credential-like text of its own (a tutorial's
    ``Bearer ...`` example) that is not a secret of this run. Linear in ``len(text)``."""
    if not text:
        return text
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for s in secrets:
        if s in text:
            text = text.replace(s, MASK)
    if secrets and _invisible().search(text) is not None:
        text = _spread_known(tuple(secrets)).sub(MASK, text)
    return text


@functools.lru_cache(maxsize=8)
def _spread_known(secrets: tuple[str, ...]) -> re.Pattern[str]:
    gap = r"(?:\p{Default_Ignorable_Code_Point})*"
    import regex

    return regex.compile("|".join(gap.join(regex.escape(c) for c in s) for s in secrets))


def _redact_plain(text: str, extra: tuple[str, ...] | list[str] = ()) -> str:
    """``redact`` without folding invisible characters."""
    if not text:
        return text
    with _lock:
        secrets = sorted(_secrets | {s for s in extra if s and len(s) >= _MIN_SECRET}, key=len)
    for s in reversed(secrets):  # longest first, so a key containing another is masked whole
        if s in text:
            text = text.replace(s, MASK)
    text = mask_known(text, secrets)
    for pattern, repl in _patterns():
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
    spans = []
    for m in split_or_url.finditer(text):
        end = m.end()
        while end < len(text) and text[end] == "=":  # base32 padding
            end += 1
        spans.append((m.start(), end))
    spans += _fragments(text, long_enough)
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


# Between two characters of a split secret: whitespace, a NUL (UTF-16 read as bytes) or a
# JSON escape of a line break or tab.
_GAP = r"(?:\s|\x00|\\[nrt]|[\u00ad\u200b-\u200f\u2060-\u2064\ufeff])*"
_B64_SET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")


@functools.lru_cache(maxsize=1)
def _entity_names() -> dict[str, tuple[str, ...]]:
    """Character -> the HTML5 named references that stand for it alone (``html.entities``)."""
    from html.entities import html5

    names: dict[str, list[str]] = {}
    for name, ch in html5.items():
        if len(ch) == 1:
            names.setdefault(ch, []).append(name)
    return {ch: tuple(sorted(v, key=len, reverse=True)) for ch, v in names.items()}


def _cased(text: str) -> str:
    """``text`` as a pattern matching it in any letter case (``[aA]`` per cased letter;
    the patterns are compiled without ``re.IGNORECASE``, which would disable the regular
    expression engine's first-character scan)."""
    out = []
    for ch in text:
        low, up = ch.lower(), ch.upper()
        if len(low) == len(up) == 1 and low != up:
            out.append(f"[{re.escape(low)}{re.escape(up)}]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def _openings(c: str) -> list[tuple[str, str]]:
    """The forms of one character as (first character, pattern of the rest): itself in
    either case, URL-encoded (``%XX`` per UTF-8 byte), a ``\\xXX`` or JSON ``\\uXXXX``
    escape, an HTML character reference (decimal, hex or named, possibly escaped again as
    ``&amp;...``)."""
    raw = c.encode("utf-8")
    forms = [(x, "") for x in dict.fromkeys((c, c.lower(), c.upper())) if len(x) == 1]
    forms.append(("%", _cased("".join(f"%{b:02x}" for b in raw)[1:])))
    escapes = [_cased("".join(f"\\x{b:02x}" for b in raw)[1:])]
    if ord(c) < 0x10000:
        escapes.append(_cased(f"u{ord(c):04x}"))
    forms.append(("\\", "(?:" + "|".join(escapes) + ")"))
    refs = [f"#(?:0*{ord(c)}|[xX]0*{_cased(format(ord(c), 'x'))});?"]
    if names := _entity_names().get(c):
        refs.append("(?:" + "|".join(re.escape(n) for n in names) + ")")
    forms.append(("&", "(?:amp;)*(?:" + "|".join(refs) + ")"))
    return forms


def _char_form(c: str) -> str:
    """A pattern for any form of one character (``_openings``)."""
    return "(?:" + "|".join(re.escape(f) + rest for f, rest in _openings(c)) + ")"


def _shape_pattern(shape: str) -> tuple[set[str], str]:
    """(the characters a match of ``shape`` can start with, the pattern that follows that
    first character): the first character is consumed by a character class shared by all
    shapes and checked again here by a one-character look-behind, so the engine scans for
    that class at C speed instead of trying every form at every position."""
    first = _openings(shape[0])
    head = "(?:" + "|".join(f"(?<={re.escape(f)}){rest}" for f, rest in first) + ")"
    tail = "".join(_GAP + _char_form(c) for c in shape[1:])
    return {f for f, _ in first}, head + tail


#: A run of this many characters or more of a registered secret (of ``FRAGMENT_FROM``
#: characters or more), as they are, is masked: half a key echoed back. The usual display
#: of a key (its first 7 and last 4 characters, ``sk-proj...G0hJ``) stays.
FRAGMENT_MIN = 12
FRAGMENT_FROM = 20
_CHUNK = (FRAGMENT_MIN + 1) // 2  # any run of FRAGMENT_MIN holds one aligned chunk


def _fragments(text: str, secrets: tuple[str, ...]) -> list[tuple[int, int]]:
    """Spans of ``text`` holding ``FRAGMENT_MIN`` or more consecutive characters of a
    secret. Each secret is cut into aligned chunks of ``_CHUNK`` characters; every run of
    ``FRAGMENT_MIN`` characters contains a whole chunk, so only the chunks are searched
    (``str.find``) and each hit is widened while text and secret agree."""
    spans = []
    for secret in secrets:
        if len(secret) < FRAGMENT_FROM:
            continue
        for k in range(0, len(secret) - _CHUNK + 1, _CHUNK):
            chunk = secret[k : k + _CHUNK]
            at = text.find(chunk)
            while at != -1:
                left, right = at, at + _CHUNK
                j, r = k, k + _CHUNK
                while left > 0 and j > 0 and text[left - 1] == secret[j - 1]:
                    left, j = left - 1, j - 1
                while right < len(text) and r < len(secret) and text[right] == secret[r]:
                    right, r = right + 1, r + 1
                if right - left >= FRAGMENT_MIN:
                    spans.append((left, right))
                at = text.find(chunk, at + 1)
    return spans


def _transforms(secret: str) -> list[str]:
    """``secret`` and the whole-value transforms a server may echo it in: reversed, rot13,
    hex and base32 of its UTF-8 bytes (each matched in any case, see ``_encoded_forms``)."""
    import base64
    import codecs

    raw = secret.encode("utf-8")
    forms = [
        secret,
        secret[::-1],
        codecs.encode(secret, "rot13"),
        raw.hex(),
        base64.b32encode(raw).decode("ascii").rstrip("="),
    ]
    return list(dict.fromkeys(forms))


def _base64_cores(secret: str) -> set[str]:
    """The base64 characters that encode ``secret`` whatever the byte offset it starts at
    inside a longer value: for each of the three offsets, the characters fully determined
    by the secret's bytes (standard and URL-safe alphabets)."""
    import base64

    raw = secret.encode("utf-8")
    cores = set()
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + raw).decode("ascii")
        core = enc[-(-8 * k // 6) : (8 * (k + len(raw))) // 6]
        cores |= {core, core.replace("+", "-").replace("/", "_")}
    return cores


@functools.lru_cache(maxsize=32)
def _encoded_forms(secrets: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(split, URL-encoded, escaped, re-cased or transformed forms; base64 cores) of
    ``secrets``, longest first. Built once per set of secrets (cached)."""
    shapes = sorted({t for s in secrets for t in _transforms(s)}, key=len, reverse=True)
    firsts: set[str] = set()
    rests = []
    for shape in shapes:
        starts, rest = _shape_pattern(shape)
        firsts |= starts
        rests.append(rest)
    opening = "[" + "".join(re.escape(f) for f in sorted(firsts)) + "]"
    cores = sorted({c for s in secrets for c in _base64_cores(s)}, key=len, reverse=True)
    return (
        re.compile(opening + "(?:" + "|".join(rests) + ")"),
        re.compile("|".join(re.escape(c) for c in cores)),
    )


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


class RedactingFilter:
    """A logging filter that redacts each record's formatted message (and its exception
    text) before any handler writes it. Install it on a handler (``handler.addFilter``):
    logging takes any object with a ``filter(record)`` method, so this module does not
    import logging, which ``arl score`` never uses (docs/engine.md, "Speed")."""

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


#: Query parameter names that carry a credential (compared lower-case, ``-`` as ``_``);
#: a pattern's text, compiled by ``re`` on first use (and kept in ``re``'s cache).
_CREDENTIAL_PARAMS = (
    r"(?:^|_)(?:key|apikey|token|secret|password|passwd|pwd|auth|authorization|signature|"
    r"sig|credential|credentials|session|code)(?:$|_)"
)


def clean_url(url: str) -> tuple[str, list[str]]:
    """(``url`` as it may be stored or shown, what was removed from it in words).

    The one function every writer of a base URL uses (manifest, scorecard, workspace,
    events, ``endpoints.json``, suites; through ``engine.agent.safe_url``). Removed:

    - user info (``https://user:key@host``): "user name and password";
    - the query and fragment, each parameter named ("query parameter key"); a value of a
      credential-like name (``key``, ``api_key``, ``token``, ``access_token``, ``sig``...)
      of ``ENCODED_MIN`` characters or more is registered with ``remember`` (so is a
      password) so an echo of it is masked too;
    - a path segment holding a registered secret or a credential-shaped value (``redact``
      changes it, as given or percent-decoded): replaced by ``[REDACTED]``, "an API key in
      the path".

    Scheme, host, port and the rest of the path are kept. Unparseable: ``("(unparseable
    URL)", ["the whole URL (unparseable)"])``. Never raises.
    """
    from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "(unparseable URL)", ["the whole URL (unparseable)"]
    removed: list[str] = []
    if parts.username is not None or parts.password is not None:
        removed.append("user name and password" if parts.password else "user name")
        remember(parts.password)
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    if port:
        host = f"{host}:{port}"
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        removed.append(f"query parameter {redact(name)}")
        if (
            re.search(_CREDENTIAL_PARAMS, name.lower().replace("-", "_"))
            and len(value) >= ENCODED_MIN
        ):
            remember(value)
    if parts.fragment:
        removed.append("fragment")
    segments = parts.path.split("/")
    for i, seg in enumerate(segments):
        if seg and (redact(seg) != seg or redact(unquote(seg)) != unquote(seg)):
            segments[i] = MASK
            if "an API key in the path" not in removed:
                removed.append("an API key in the path")
            remember(unquote(seg))
    return urlunsplit((parts.scheme, host, "/".join(segments), "", "")), removed


def url_note(url: str) -> str:
    """One sentence for the run log when ``clean_url`` removed something from ``url``
    ("" when nothing was removed): what was removed, and that the request still uses it."""
    _, removed = clean_url(url)
    if not removed:
        return ""
    return (
        "removed from the base URL before it was stored or shown: "
        + ", ".join(removed)
        + " (requests still use the URL as given)"
    )
