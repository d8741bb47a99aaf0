"""Bounded reading of files a user names: regular files only, size caps, a JSON budget.

Every path the program reads because a person named it (a document, a comments or claims
file, W3C annotations, a bundle's JSON) goes through here, so a bad or hostile file is one
line naming it and the problem, never a hang, a memory blow-up or a traceback:

- :func:`read_regular_file` refuses anything that is not a regular file (a directory, a
  FIFO, a socket, a device such as ``/dev/zero`` or ``/dev/urandom``), checked on the open
  descriptor (``O_NONBLOCK``, so opening a FIFO never waits for a writer), and any file
  over its size cap, before and while reading;
- :func:`load_json` parses within a budget: a size cap before parsing, integers of at most
  ``max_int_digits`` digits (CPython refuses to convert over 4,300 digits with a
  ``ValueError``; a count, id or offset here never needs more than 18), no ``NaN`` or
  ``Infinity`` and no float that overflows, and a nesting depth cap checked after parsing
  (the C parser's own recursion limit stops anything deeper first): a cheap bound from the
  text's brackets first, the walk of the parsed value only where the bound is over the cap;
  the number rules are checked by hooks per number only where a pass over the bytes finds a
  long digit run or a three-digit exponent (``_numbers_are_plain``);
- :func:`mask_url` is the one way to print a URL: user info and key-like query values are
  masked.

Errors are :class:`BoundedInputError` (a ``ValueError``): ``str()`` is
``"<source>: <problem>"`` on one line.

No Qt import here: this module belongs to ``engine/`` (its bottom layer: stdlib only).
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import stat
from array import array
from itertools import accumulate
from typing import Any

__all__ = [
    "JSON_MAX_BYTES",
    "JSON_MAX_DEPTH",
    "JSON_MAX_INT_DIGITS",
    "BoundedInputError",
    "load_json",
    "mask_url",
    "read_json_file",
    "read_regular_file",
]

#: Size cap of a JSON file a person gives (comments, claims, annotations): 50 MB. A
#: thousand comments take about 1 MB.
JSON_MAX_BYTES = 50 * 1024 * 1024
#: Deepest nesting of arrays and objects accepted in such a file (native comments nest 4
#: deep, W3C annotations 6, a bundle's files under 10).
JSON_MAX_DEPTH = 64
#: Most digits an integer may have (no count, id or offset needs more than 18).
JSON_MAX_INT_DIGITS = 30

_READ_CHUNK = 1 << 20


class BoundedInputError(ValueError):
    """A file or text outside what the program reads. ``str()``: ``"source: problem"``."""

    def __init__(self, source: str | os.PathLike, problem: str) -> None:
        self.source = os.fspath(source) if source else ""
        self.problem = problem
        super().__init__(f"{self.source}: {problem}" if self.source else problem)


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "is a pipe (FIFO), not a regular file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a regular file"
    return "is not a regular file"


def _os_problem(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "file not found"
    if isinstance(exc, NotADirectoryError):
        return "file not found (a part of the path is not a folder)"
    if isinstance(exc, IsADirectoryError):
        return "is a folder, not a file"
    if isinstance(exc, PermissionError):
        return "unreadable (permission denied)"
    return f"unreadable ({(exc.strerror or type(exc).__name__).lower()})"


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MB" if n >= 1024 * 1024 else f"{n:,} bytes"


def read_regular_file(path: str | os.PathLike, *, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` bytes.

    Raises :class:`BoundedInputError` (source: the path as given) when the path does not
    exist, is not a regular file (folder, FIFO, socket, device), cannot be read, or holds
    more than ``max_bytes`` bytes (by its size, or by what reading finds if it grew).
    Symbolic links are followed; the check is on the opened descriptor, so the file
    cannot be swapped between the check and the read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise BoundedInputError(path, _os_problem(exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise BoundedInputError(path, _kind_of(info.st_mode))
        if info.st_size > max_bytes:
            raise BoundedInputError(
                path, f"too large ({_size(info.st_size)}; the limit is {_size(max_bytes)})"
            )
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(_READ_CHUNK, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise BoundedInputError(
                    path, f"too large (grew past the limit of {_size(max_bytes)} while read)"
                )
        return b"".join(chunks)
    except OSError as exc:
        raise BoundedInputError(path, _os_problem(exc)) from None
    finally:
        os.close(fd)


class _Refused(Exception):
    """Raised from inside the JSON parser's hooks: the text is outside the budget."""


def _decoder(max_int_digits: int) -> json.JSONDecoder:
    def parse_int(text: str) -> int:
        digits = len(text) - (text[0] == "-")
        if digits > max_int_digits:
            raise _Refused(
                f"an integer of {digits:,} digits (at most {max_int_digits} are accepted)"
            )
        return int(text)

    def parse_float(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise _Refused(f"the number {text[:40]} is too large")
        return value

    def parse_constant(name: str) -> float:
        raise _Refused(f"{name} is not a JSON number")

    return json.JSONDecoder(
        parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant
    )


def _plain_decoder() -> json.JSONDecoder:
    """The decoder of a text whose numbers ``_numbers_are_plain`` cleared: C integers and
    floats (no Python call per number); ``NaN``/``Infinity`` still refused."""

    def parse_constant(name: str) -> float:
        raise _Refused(f"{name} is not a JSON number")

    return json.JSONDecoder(parse_constant=parse_constant)


#: Digits to ``0``, ``e``/``E`` to ``e``, signs to ``+``, every other byte to a space.
_NUMBER_SHAPE = bytes(
    ord("0")
    if c in b"0123456789"
    else ord("e")
    if c in b"eE"
    else ord("+")
    if c in b"+-"
    else ord(" ")
    for c in range(256)
)


def _numbers_are_plain(utf8: bytes, max_int_digits: int) -> bool:
    """True when no number of the JSON text ``utf8`` can break ``_decoder``'s rules, told
    from its bytes in a few C passes (no Python call per number): an integer of more than
    ``max_int_digits`` digits is a run of that many digits, and a float that overflows
    (1.8e308 and up) has an exponent of three digits or more, or an integer part of over
    200 digits (JSON writes no leading zeros; with an exponent under 100). Such a run or an
    ``e123`` inside a string only sends the text to the hooked decoder, which decides."""
    if max_int_digits >= 200:
        return False  # a run that reveals an overflowing float would pass as an integer
    shape = utf8.translate(_NUMBER_SHAPE)
    return (
        b"0" * (max_int_digits + 1) not in shape
        and b"e000" not in shape
        and (b"e+000" not in shape)
    )


def _too_deep(obj: Any, max_depth: int) -> bool:
    """True when arrays/objects nest more than ``max_depth`` deep (iterative walk)."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > max_depth:
            return True
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False


#: Every byte but the four brackets and the double quote (deleted by ``_depth_bound``).
_NOT_STRUCTURE = bytes(range(256)).translate(None, b'[]{}"')
#: ``[`` and ``{`` to +1, ``]`` and ``}`` to -1 (as signed bytes).
_STEP = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


def _depth_bound(utf8: bytes) -> int:
    """An upper bound on the nesting depth ``_too_deep`` walks (root array or object: 1),
    from the text of a document the JSON parser accepted, in a few C passes over the bytes
    (about a third of the walk's time on a 10 MB bundle file; docs/engine.md, "Speed").

    Inside strings only: ``\\\\`` pairs are dropped (so a run of backslashes keeps its
    parity), then each escaped quote ``\\"``; every byte but ``[]{}"`` is deleted (no
    UTF-8 multi-byte sequence holds an ASCII byte); an empty pair ``""`` is dropped (an empty
    string, or the gap between two strings with no bracket in it: no remaining bracket
    changes side); then what lies between the remaining quotes, pairwise, is string text and
    dropped. The peak running sum of what is left is the depth of the accepted document.
    A bound that came out high only costs the exact walk (``load_json`` runs it then)."""
    s = utf8.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    s = s.replace(b'""', b"")
    if b'"' in s:
        s = b"".join(s.split(b'"')[::2])
    if not s:
        return 0
    return max(0, max(accumulate(array("b", s.translate(_STEP)))))


_JSON_MISTAKES = {
    "Expecting property name enclosed in double quotes": "a name in double quotes was expected",
    "Expecting value": "a value was expected",
    "Expecting ',' delimiter": "a comma was expected",
    "Expecting ':' delimiter": "a colon was expected",
    "Extra data": "more text follows the end",
    "Unterminated string starting at": "a text in quotes is not closed",
    "Invalid control character at": "a control character stands inside a text in quotes",
    "Invalid \\escape": "a backslash is followed by a letter JSON does not allow",
    "Invalid \\uXXXX escape": "a \\u is not followed by four hexadecimal digits",
}
"""The messages of Python's ``json`` decoder (``json.decoder``), in words."""


def json_mistake(exc: json.JSONDecodeError) -> str:
    """``exc`` said in words, with where: "not a JSON file this program can read: at line
    1, column 2, a name in double quotes was expected"; a message not listed keeps its own
    words."""
    what = _JSON_MISTAKES.get(exc.msg, exc.msg)
    return (
        f"not a JSON file this program can read: at line {exc.lineno}, column {exc.colno}, {what}"
    )


def load_json(
    data: bytes | str,
    source: str | os.PathLike = "",
    *,
    max_bytes: int = JSON_MAX_BYTES,
    max_depth: int = JSON_MAX_DEPTH,
    max_int_digits: int = JSON_MAX_INT_DIGITS,
) -> Any:
    """Parse JSON text within a budget. ``source`` names it in errors.

    ``data`` is UTF-8 bytes (a leading BOM is allowed) or a str. Raises
    :class:`BoundedInputError` when it is longer than ``max_bytes`` (bytes, or characters
    for a str), empty, not UTF-8, not JSON, holds an integer of more than
    ``max_int_digits`` digits, ``NaN``/``Infinity`` or a float that overflows, or nests
    arrays and objects more than ``max_depth`` deep.
    """
    if len(data) > max_bytes:
        raise BoundedInputError(
            source, f"too large ({_size(len(data))}; the limit is {_size(max_bytes)})"
        )
    utf8: bytes | None = None
    if isinstance(data, (bytes, bytearray)):
        utf8 = bytes(data)
        try:
            text = utf8.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise BoundedInputError(source, f"not UTF-8 text (byte {exc.start})") from None
    else:
        text = data[1:] if data.startswith("\ufeff") else data
    if not text.strip():
        raise BoundedInputError(source, "empty file")
    try:
        plain = utf8 is not None and _numbers_are_plain(utf8, max_int_digits)
        obj = (_plain_decoder() if plain else _decoder(max_int_digits)).decode(text)
    except _Refused as exc:
        raise BoundedInputError(source, f"not usable JSON: {exc}") from None
    except json.JSONDecodeError as exc:
        raise BoundedInputError(source, json_mistake(exc)) from None
    except RecursionError:
        raise BoundedInputError(
            source, f"JSON nested too deeply (more than {max_depth} levels)"
        ) from None
    except ValueError as exc:  # any conversion limit the hooks did not anticipate
        raise BoundedInputError(source, f"not usable JSON: {exc}") from None
    if utf8 is None:
        utf8 = text.encode("utf-8", "surrogatepass")
    if _depth_bound(utf8) > max_depth and _too_deep(obj, max_depth):
        raise BoundedInputError(source, f"JSON nested too deeply (more than {max_depth} levels)")
    return obj


def read_json_file(
    path: str | os.PathLike,
    *,
    max_bytes: int = JSON_MAX_BYTES,
    max_depth: int = JSON_MAX_DEPTH,
    max_int_digits: int = JSON_MAX_INT_DIGITS,
) -> Any:
    """:func:`read_regular_file` then :func:`load_json`, with the same limits."""
    data = read_regular_file(path, max_bytes=max_bytes)
    return load_json(
        data, path, max_bytes=max_bytes, max_depth=max_depth, max_int_digits=max_int_digits
    )


# --------------------------------------------------------------------------------------
# URLs for printing
# --------------------------------------------------------------------------------------

MASK = "***"


@functools.cache
def _url_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(secret parameter name, user info, query pair), compiled on first use: reading a
    file never needs them (docs/engine.md, "Speed"). Query parameter names whose values are
    secrets: ASCII case-insensitive, anywhere in the name (``api_key``,
    ``X-Amz-Signature``, ``access_token``, ``sig``...); the user info runs to the last
    "@" of the authority."""
    return (
        re.compile(
            r"key|token|secret|passw|pwd|auth|sig|credential|session|cookie|bearer|code",
            re.IGNORECASE,
        ),
        re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:)?//([^/?#]*)@"),
        re.compile(r"([?&;])([^=&;#]*)=([^&;#]*)"),
    )


def mask_url(url: str) -> str:
    """``url`` for printing: user info and key-like query values replaced by ``***``, a
    key in the path by ``[REDACTED]`` (``engine.redact.redact``). What is stored goes
    through ``engine.redact.clean_url`` instead (it drops the query).

    ``https://user:pw@host/v1?api_key=sk-1&x=2`` -> ``https://***@host/v1?api_key=***&x=2``.
    Works on text, not a parsed URL, so a malformed URL (``http://[::1``) is masked too
    and this never raises. Non-str input is returned as ``str()``.
    """
    if not isinstance(url, str):
        return str(url)
    secret_param, userinfo, query_pair = _url_patterns()
    masked = userinfo.sub(lambda m: f"{m.group(1) or ''}//{MASK}@", url, count=1)

    def pair(m: re.Match) -> str:
        name = m.group(2)
        if secret_param.search(name):
            return f"{m.group(1)}{name}={MASK}"
        return m.group(0)

    from engine.redact import redact  # here: reading a file never needs it (nor threading)

    head, sep, query = masked.partition("?")
    head = redact(head)  # a registered or credential-shaped key in the path
    if not sep:
        return head
    return head + query_pair.sub(pair, "?" + query)
