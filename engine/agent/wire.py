"""Reading what a chat-completions server really sends, tolerantly.

Servers bend the protocol (see ``docs/providers.md``). This module turns one response body
into the plain assistant message the agent works with, and says which quirks it met:

- ``load_json``, ``HugeInt``, ``dumps`` and friends (bounded JSON) are in ``jsonsafe.py``.
- ``read_answer(body, tool_names, seen_ids)``: the first choice's message as ``Answer``:
  ``content`` (always a str: ``null`` and ``""`` alike), reasoning removed from it
  (``<think>…</think>``, ``reasoning_content``, ``reasoning``) and kept in ``reasoning``,
  tool calls with string ``arguments`` (an object is re-encoded) and unique non-empty ids,
  tool calls written into the content as text (Hermes/Qwen ``<tool_call>``, Mistral
  ``[TOOL_CALLS]``, Llama ``<|python_tag|>``, a fenced or bare JSON object naming a tool)
  turned into real ones, arguments encoded twice decoded once, an answer that is only in
  a reasoning field (content empty, no tool call, not cut off) read from there, and usage
  read only when its fields are plain integers.
- Bodies that are not one JSON chat completion (an event stream, an HTML page) and the
  ``Retry-After`` header are read in ``bodies.py``.
- Error bodies (``server_message``, ``context_limit`` and the context-length reason) are
  read in ``bodies.py``.

Nothing here raises for a malformed answer except ``JSONProblem`` from ``load_json`` and
``ValueError`` from ``read_answer`` for a body with no usable choice.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from engine.agent.jsonsafe import DECODER, HugeInt, JSONProblem, dumps, load_json, plain

# -- reasoning --------------------------------------------------------------------------------

_THINK = re.compile(r"<(think|thinking|reasoning)>(.*?)</\1>\s*", re.S | re.I)
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>(.*)$", re.S | re.I)
_THINK_CLOSE = re.compile(r"</(?:think|thinking|reasoning)>\s*", re.I)


def strip_reasoning(content: str) -> tuple[str, str]:
    """(content without reasoning, the reasoning removed). Handles ``<think>…</think>``
    anywhere, a lone ``</think>`` (templates that open the block in the prompt: all before
    it is reasoning) and an unclosed ``<think>`` (all of the rest is reasoning). Also
    ``<thinking>`` and ``<reasoning>``."""
    parts: list[str] = []

    def cut(m: re.Match[str]) -> str:
        parts.append(m.group(2).strip())
        return ""

    text = _THINK.sub(cut, content)
    m = _THINK_CLOSE.search(text)
    if m:
        parts.insert(0, text[: m.start()].strip())
        text = text[m.end() :]
    m = _THINK_OPEN.search(text)
    if m:
        parts.append(m.group(2).strip())
        text = text[: m.start()]
    if text == content:
        return content, ""
    return text.strip(), "\n\n".join(p for p in parts if p)


# -- tool calls written as text ----------------------------------------------------------------

_NAME_KEYS = ("name", "tool", "tool_name", "function")
_ARG_KEYS = ("arguments", "parameters", "args", "input")


def _call_from_obj(obj: Any, tool_names: set[str] | None) -> tuple[str, Any] | None:
    """(name, arguments) from ``{"name": ..., "arguments"|"parameters": ...}`` (also
    ``{"function": {"name", "arguments"}}``); None when ``obj`` is not such a call or,
    with ``tool_names`` given, names no known tool."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str)), None)
    if not name:
        return None
    if tool_names is not None and name not in tool_names:
        return None
    args: Any = next((obj[k] for k in _ARG_KEYS if k in obj), {})
    return name, args


def _decode_at(text: str, pos: int) -> tuple[Any, int] | None:
    """The JSON value starting at ``text[pos:]`` (after blanks) and its end, or None."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    try:
        return DECODER.raw_decode(text, pos)
    except (json.JSONDecodeError, RecursionError):
        return None


def _calls_in(value: Any, tool_names: set[str] | None) -> list[tuple[str, Any]]:
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        call = _call_from_obj(item, tool_names)
        if call is None:
            return []
        out.append(call)
    return out


_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_FENCE = re.compile(r"```[a-zA-Z_]*[ \t]*\n(.*?)\n?```", re.S)
_MISTRAL_ARGS = re.compile(r"\s*([A-Za-z_][\w.-]*)\s*(?:\[CALL_ID\]\s*\w+\s*)?\[ARGS\]")


def text_tool_calls(content: str, tool_names: set[str]) -> tuple[list[tuple[str, Any]], str, str]:
    """Tool calls a server left in ``content`` as text: (calls as (name, arguments), the
    content without them, the form's name: ``hermes`` | ``mistral`` | ``llama`` |
    ``fenced-json`` | ``bare-json`` | ""). The tagged forms accept any tool name (an
    unknown one is refused by the tool dispatcher); the fenced and bare JSON forms must
    name one of ``tool_names``, so a JSON example in prose is not executed."""
    if "<tool_call>" in content:
        calls: list[tuple[str, Any]] = []
        for hit in _HERMES.finditer(content):
            dec = _decode_at(hit.group(1), 0)
            if dec is not None:
                calls += _calls_in(dec[0], None)
        if calls:
            return calls, _HERMES.sub("", content).strip(), "hermes"
    if "[TOOL_CALLS]" in content:
        head, _, rest = content.partition("[TOOL_CALLS]")
        dec = _decode_at(rest, 0)
        if dec is not None:
            calls = _calls_in(dec[0], None)
            if calls:
                return calls, (head + rest[dec[1] :]).strip(), "mistral"
        calls, pos = [], 0
        while True:  # [TOOL_CALLS]name[ARGS]{...}[TOOL_CALLS]name[ARGS]{...}
            m = _MISTRAL_ARGS.match(rest, pos)
            if not m:
                break
            dec = _decode_at(rest, m.end())
            if dec is None:
                break
            calls.append((m.group(1), dec[0]))
            pos = dec[1]
            if rest.startswith("[TOOL_CALLS]", pos):
                pos += len("[TOOL_CALLS]")
        if calls:
            return calls, (head + rest[pos:]).strip(), "mistral"
    if "<|python_tag|>" in content:
        head, _, rest = content.partition("<|python_tag|>")
        for tag in ("<|eom_id|>", "<|eot_id|>"):
            rest = rest.replace(tag, "")
        calls, pos = [], 0
        while True:  # one call, or several separated by ";"
            dec = _decode_at(rest, pos)
            if dec is None:
                break
            found = _calls_in(dec[0], None)
            if not found:
                break
            calls += found
            pos = dec[1]
            while pos < len(rest) and rest[pos] in "; \n\t":
                pos += 1
        if calls:
            return calls, (head + rest[pos:]).strip(), "llama"
    for m in _FENCE.finditer(content):
        dec = _decode_at(m.group(1), 0)
        if dec is None or m.group(1)[dec[1] :].strip():
            continue
        calls = _calls_in(dec[0], tool_names)
        if calls:
            rest_text = (content[: m.start()] + content[m.end() :]).strip()
            return calls, rest_text, "fenced-json"
    stripped = content.strip()
    if stripped[:1] in "{[":
        dec = _decode_at(stripped, 0)
        if dec is not None and not stripped[dec[1] :].strip():
            calls = _calls_in(dec[0], tool_names)
            if calls:
                return calls, "", "bare-json"
    return [], content, ""


# -- one answer ------------------------------------------------------------------------------


@dataclass
class UsageReading:
    """One call's usage: ``total`` None when unreported or unreadable (``problem`` says
    why when fields were present but not plain integers; ``not_whole`` is True when they
    came as something else than whole numbers: strings, decimals, negatives, a usage that
    is not an object; an integer too long to be real is not counted there)."""

    total: int | None
    prompt: int = 0
    completion: int = 0
    problem: str = ""
    not_whole: bool = False


def _count(v: Any) -> int | None:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        return None
    return v


def read_usage(usage: Any) -> UsageReading:
    """Usage from a response's ``usage`` (a dict, None, or anything else)."""
    if usage is None:
        return UsageReading(None)
    if not isinstance(usage, dict):
        return UsageReading(
            None, problem=f"usage is a {type(usage).__name__}, not an object", not_whole=True
        )
    fields = {k: usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
    present = {k: v for k, v in fields.items() if v is not None}
    bad = [k for k, v in present.items() if _count(v) is None]
    if bad:
        return UsageReading(
            None,
            problem=f"{'usage field' if len(bad) == 1 else 'usage fields'} {', '.join(bad)} "
            f"{'is not a non-negative integer' if len(bad) == 1 else 'are not non-negative integers'}",
            not_whole=any(not isinstance(present[k], HugeInt) for k in bad),
        )
    p = _count(fields["prompt_tokens"]) or 0
    c = _count(fields["completion_tokens"]) or 0
    total = _count(fields["total_tokens"])
    if total is None:
        if fields["prompt_tokens"] is None or fields["completion_tokens"] is None:
            return UsageReading(None, problem="usage has no total_tokens" if present else "")
        total = p + c
    return UsageReading(total, p, c)


def _text_of(content: Any) -> str:
    """Message content as text: a string, ``null`` (""), or a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for part in content:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                out.append(part["text"])
        return "".join(out)
    return str(plain(content))


@dataclass
class Answer:
    """The assistant's answer, normalised.

    ``message``: ``{"role": "assistant", "content": str, "tool_calls"?: [...]}`` with each
    call's ``arguments`` a string and its ``id`` unique and non-empty (ready to send back).
    ``raw_content``: the content as sent (None when identical to ``message["content"]``).
    ``reasoning``: reasoning text removed from the answer ("" when none).
    ``quirks``: what was repaired, one short phrase each (for the trace).
    """

    message: dict[str, Any]
    finish_reason: str | None
    usage: UsageReading
    reasoning: str = ""
    raw_content: str | None = None
    quirks: list[str] = field(default_factory=list)
    text_call_form: str = ""


def read_answer(
    body: Any, tool_names: set[str] | None = None, seen_ids: set[str] | None = None
) -> Answer:
    """Normalise a chat-completions response body (already parsed by ``load_json``).

    ``tool_names``: the tools offered in the request (None: no tools, so text is never read
    as a tool call). ``seen_ids``: tool-call ids already used in this conversation; ids
    that are missing, empty, not strings or repeated are replaced (and added to the set).
    Raises ValueError when the body has no usable first choice."""
    msg, finish = _first_choice(body)
    quirks: list[str] = []
    content, text, reasoning = _content_and_reasoning(msg, quirks)
    calls_in = _calls_sent(msg, quirks)
    if not calls_in and not text.strip() and reasoning and finish != "length":
        text = _answer_in_reasoning(msg, quirks) or text
    form = ""
    if not calls_in and tool_names and text:
        found, rest, form = text_tool_calls(text, tool_names)
        if found:
            calls_in = [(None, n, a) for n, a in found]
            text = rest
            quirks.append(f"tool calls read from the content ({form} form)")
    seen = seen_ids if seen_ids is not None else set()
    calls = _normalised_calls(calls_in, seen, from_text=bool(form), quirks=quirks)
    if calls and finish not in (None, "tool_calls", "function_call"):
        quirks.append(f"finish_reason {finish!r} with tool calls")

    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    usage = read_usage(body.get("usage"))
    if usage.problem:
        quirks.append(usage.problem)
    return Answer(
        message=message,
        finish_reason=finish,
        usage=usage,
        reasoning=reasoning,
        raw_content=None if content == text else content,
        quirks=quirks,
        text_call_form=form,
    )


def _first_choice(body: Any) -> tuple[dict[str, Any], str | None]:
    """(the first choice's message, its ``finish_reason``). A message that is a string is
    its content; without a message, the completions API's ``text`` is; anything else
    reads as empty. Raises ValueError when there is no usable first choice."""
    if not isinstance(body, dict):
        raise ValueError(f"the answer is a JSON {type(body).__name__}, not an object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("the answer has no choices")
    choice = choices[0]
    msg = choice.get("message")
    if isinstance(msg, str):  # the message as its text
        msg = {"role": "assistant", "content": msg}
    elif not isinstance(msg, dict):
        text = choice.get("text")  # the completions API's shape
        msg = {"role": "assistant", "content": text} if isinstance(text, str) else {}
    finish = choice.get("finish_reason")
    return msg, (finish if isinstance(finish, str) else None)


def _content_and_reasoning(msg: dict[str, Any], quirks: list[str]) -> tuple[str, str, str]:
    """(content as sent, as text; the content without reasoning; the reasoning), from
    ``content`` and the ``reasoning_content`` / ``reasoning`` fields. Appends to
    ``quirks`` what it met."""
    raw = msg.get("content")
    if raw is None and "content" in msg:
        quirks.append("content null")
    content = _text_of(raw)
    parts = []
    for key in ("reasoning_content", "reasoning"):
        r = msg.get(key)
        if isinstance(r, str) and r.strip():
            parts.append(r.strip())
            quirks.append(f"reasoning in '{key}'")
    text, think = strip_reasoning(content)
    if think or text != content:
        parts.append(think)
        quirks.append("<think> block stripped")
    return content, text, "\n\n".join(p for p in parts if p)


def _answer_in_reasoning(msg: dict[str, Any], quirks: list[str]) -> str:
    """The text of a reasoning field (``reasoning_content``, else ``reasoning``) for an
    answer whose content is empty: a reasoning parser that never saw the end of the
    reasoning (vLLM, llama.cpp) puts the whole answer there. "" when there is none."""
    for key in ("reasoning_content", "reasoning"):
        r = msg.get(key)
        if isinstance(r, str) and r.strip():
            quirks.append(f"the answer was only in '{key}'; read from there")
            return r.strip()
    return ""


def _decoded_once(text: str, quirks: list[str]) -> str:
    """Arguments encoded twice (a JSON string whose text is a JSON object) as the object's
    text; anything else as sent."""
    if not text.lstrip().startswith('"'):
        return text
    try:
        inner = load_json(text)
        if isinstance(inner, str) and isinstance(load_json(inner), dict):
            note = "arguments encoded twice (a JSON string holding the object); decoded"
            if note not in quirks:
                quirks.append(note)
            return inner
    except JSONProblem:
        pass
    return text


def _calls_sent(msg: dict[str, Any], quirks: list[str]) -> list[tuple[Any, Any, Any]]:
    """The tool calls in ``tool_calls`` (or the legacy ``function_call``) as (id, name,
    arguments), as sent. A call that is not an object is dropped (a quirk is noted)."""
    calls: list[tuple[Any, Any, Any]] = []
    raw_calls = msg.get("tool_calls")
    if isinstance(raw_calls, list):
        for tc in raw_calls:
            if not isinstance(tc, dict):
                quirks.append("a tool call that is not an object was dropped")
                continue
            fn = tc["function"] if isinstance(tc.get("function"), dict) else tc
            name = fn.get("name")
            if name is None and isinstance(tc.get("function"), str):
                name = tc["function"]  # the tool's name where its object belongs
            calls.append((tc.get("id"), name, fn.get("arguments")))
    elif isinstance(msg.get("function_call"), dict):  # the legacy single-call field
        fc = msg["function_call"]
        calls.append((None, fc.get("name"), fc.get("arguments")))
        quirks.append("legacy function_call")
    return calls


def _normalised_calls(
    calls_in: list[tuple[Any, Any, Any]], seen: set[str], *, from_text: bool, quirks: list[str]
) -> list[dict[str, Any]]:
    """Tool calls ready to send back: name and ``arguments`` strings (other JSON
    re-encoded), each id unique and non-empty (new ones made; ``seen`` updated).
    ``from_text``: the calls were read from the content (their made ids are no quirk)."""
    calls = []
    for i, (cid, name, args) in enumerate(calls_in):
        if not isinstance(name, str):
            name = "" if name is None else str(plain(name))
        if isinstance(args, str):
            arg_text = _decoded_once(args, quirks)
        elif args is None:
            arg_text = ""
        else:
            arg_text = dumps(args)
            if isinstance(args, dict) and "arguments sent as a JSON object" not in quirks:
                quirks.append("arguments sent as a JSON object")
        if not isinstance(cid, str) or not cid.strip() or cid in seen:
            if "tool-call id missing, empty or repeated; replaced" not in quirks and not from_text:
                quirks.append("tool-call id missing, empty or repeated; replaced")
            cid = f"call_{uuid.uuid4().hex[:12]}_{i}"
        seen.add(cid)
        calls.append(
            {"id": cid, "type": "function", "function": {"name": name, "arguments": arg_text}}
        )
    return calls
