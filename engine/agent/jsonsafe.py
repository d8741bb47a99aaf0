"""JSON from model servers, bounded: huge integers become placeholders, deep nesting a
reason. Used for answers, tool arguments, the report and the endpoint memory.

- ``load_json(text)``: JSON with a bound on nesting (``RecursionError`` becomes
  ``JSONProblem``) and integers of more than ``MAX_INT_DIGITS`` digits read as ``HugeInt``
  placeholders instead of Python's ``ValueError`` (CPython refuses int strings over 4,300
  digits). ``find_huge(obj)`` names the first one; ``plain(obj)`` describes them;
  ``dumps(obj)`` writes them back as their digits.
"""

from __future__ import annotations

import json
from typing import Any

#: Integers with more digits than this are read as ``HugeInt`` (no real count, id or
#: offset of this program needs more than 18 digits; CPython's own limit is 4,300).
MAX_INT_DIGITS = 30


class HugeInt:
    """Placeholder for a JSON integer too long to be a real value. ``digits``: its length."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    @property
    def digits(self) -> int:
        return len(self.text.lstrip("-"))

    def __repr__(self) -> str:
        return f"<integer of {self.digits} digits>"


class JSONProblem(ValueError):
    """A text that is not JSON the program can read; ``str()`` says why in words."""


def _parse_int(text: str) -> int | HugeInt:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        return HugeInt(text)
    return int(text)


DECODER = json.JSONDecoder(parse_int=_parse_int)
"""A decoder whose integers over ``MAX_INT_DIGITS`` digits are ``HugeInt``."""


def load_json(text: str | bytes) -> Any:
    """Parse JSON; huge integers become ``HugeInt``. Raises ``JSONProblem`` with a reason."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONProblem(f"not UTF-8 (byte {exc.start})") from None
    try:
        return DECODER.decode(text)
    except json.JSONDecodeError as exc:
        what = exc.msg[0].lower() + exc.msg[1:]
        raise JSONProblem(f"not valid JSON: {what} at character {exc.pos}") from None
    except RecursionError:
        raise JSONProblem("JSON nested too deeply") from None


def find_huge(obj: Any, _depth: int = 0) -> HugeInt | None:
    """The first ``HugeInt`` inside ``obj`` (dicts, lists), or None."""
    if isinstance(obj, HugeInt):
        return obj
    if _depth > 200:
        return None
    if isinstance(obj, dict):
        items: Any = obj.values()
    elif isinstance(obj, list):
        items = obj
    else:
        return None
    for v in items:
        found = find_huge(v, _depth + 1)
        if found is not None:
            return found
    return None


def plain(obj: Any, _depth: int = 0) -> Any:
    """``obj`` with every ``HugeInt`` replaced by a short description (for traces)."""
    if isinstance(obj, HugeInt):
        return repr(obj)
    if _depth > 200:
        return "<nested too deeply>"
    if isinstance(obj, dict):
        return {str(k): plain(v, _depth + 1) for k, v in obj.items()}
    if isinstance(obj, list):
        return [plain(v, _depth + 1) for v in obj]
    return obj


def dumps(obj: Any) -> str:
    """JSON text of ``obj``; a ``HugeInt`` is written back as its digits (so the tool that
    reads it sees the same integer the server sent)."""
    marks: dict[str, str] = {}

    def swap(o: Any, depth: int = 0) -> Any:
        if isinstance(o, HugeInt):
            key = f"\x00huge{len(marks)}\x00"
            marks[key] = o.text
            return key
        if depth > 200:
            return None
        if isinstance(o, dict):
            return {str(k): swap(v, depth + 1) for k, v in o.items()}
        if isinstance(o, list):
            return [swap(v, depth + 1) for v in o]
        return o

    text = json.dumps(swap(obj), ensure_ascii=False)
    for key, digits in marks.items():
        text = text.replace(json.dumps(key), digits)
    return text
