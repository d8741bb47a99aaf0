"""The five workspace tools the revision agent calls.

``list_comments``, ``pull_document``, ``resolve_comment``, ``reply_comment``,
``push_version`` (JSON schemas in ``TOOLS``), each a thin wrapper over
``engine.workspace.Workspace``. Bad arguments or unknown comment ids return an error string
to the model; they never raise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.agent.failures import _short
from engine.agent.intake import argument_refusal, shown_name
from engine.agent.jsonsafe import JSONProblem, dumps, find_huge, load_json, plain
from engine.models import Reply
from engine.vocabulary import AGENT_AUTHOR
from engine.workspace import ConflictError, Workspace, WorkspaceError, WorkspaceFull, now_iso

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
            "(html, markdown or text) and its complete content.",
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


@dataclass
class ToolOutcome:
    """What one tool call did. ``result`` is the string the model gets back."""

    name: str
    arguments: dict[str, Any]
    ok: bool
    result: str
    comment_id: str | None = None
    pushed: Any = None  # VersionRow when push_version succeeded
    oversized: bool = False
    """Refused at intake for its size (``engine.agent.intake``): the call's arguments are
    then kept only in part (``intake.kept_arguments``)."""


class WorkspaceTools:
    """The five tools over one document of a workspace.

    ``visible``: the comment ids the agent may act on (the comments of this run); other
    ids are answered with an error listing the known ones. Every outcome is recorded in
    ``resolved``/``replied``/``pushed`` for the run's bookkeeping.
    """

    def __init__(
        self,
        workspace: Workspace,
        document_id: str,
        visible: list[str],
        agent_name: str = AGENT_AUTHOR,
    ):
        self.ws = workspace
        self.document_id = document_id
        self.visible = list(visible)
        self.agent_name = agent_name
        self.resolved: dict[str, str] = {}
        self.replied: dict[str, list[str]] = {}
        self.pushed: list[Any] = []
        self._given_size: int | None = None  # bytes of the version the run started from

    def _bundle_refusal(self, content: str) -> str | None:
        """Why this push would not fit the run's evidence bundle (the limits the bundle
        reader applies, ``engine.caps.push_refusal``), or None."""
        from engine.caps import push_refusal, stored_size

        doc = self.ws.document(self.document_id)
        kind = doc.kind
        if self._given_size is None:
            self._given_size = stored_size(self.ws.head(self.document_id).raw, kind)
        so_far = self._given_size + sum(stored_size(r.raw, kind) for r in self.pushed)
        return push_refusal(content, kind, so_far)

    def document_chars(self) -> int:
        """Characters of the document's latest version."""
        return len(self.ws.head(self.document_id).raw)

    def _unknown(self, cid: Any) -> str:
        known = ", ".join(self.visible[:30]) + (" ..." if len(self.visible) > 30 else "")
        return f"error: no comment with id {cid!r}. Known comment ids: {known}"

    def dispatch(self, name: Any, raw_arguments: Any) -> ToolOutcome:
        """Run one tool call. Never raises for bad input: errors go back as strings.

        ``raw_arguments``: the JSON text the model sent (a dict or list is accepted too:
        some servers send the arguments as a JSON object). Arguments that are not a JSON
        object, hold an integer too long to be a value (``wire.MAX_INT_DIGITS``), or give
        a property of the wrong type are refused with the reason."""
        if not isinstance(name, str):
            name = str(name)
        name = shown_name(name)
        if isinstance(raw_arguments, dict | list):
            raw_arguments = dumps(raw_arguments)
        elif raw_arguments is not None and not isinstance(raw_arguments, str):
            raw_arguments = dumps(raw_arguments) if _is_jsonish(raw_arguments) else ""
        shown = {"_raw": _short(raw_arguments or "", 200)}
        try:
            args = load_json(raw_arguments) if raw_arguments and raw_arguments.strip() else {}
        except JSONProblem as exc:
            return ToolOutcome(
                name,
                shown,
                False,
                f"error: the arguments are {exc}; send one JSON object with the parameters",
            )
        if not isinstance(args, dict):
            return ToolOutcome(name, shown, False, "error: the arguments must be a JSON object")
        huge = find_huge(args)
        if huge is not None:
            return ToolOutcome(
                name,
                {"_raw": _short(str(plain(args)), 200)},
                False,
                f"error: the arguments contain an integer of {huge.digits} digits; no "
                "parameter takes a number that long",
            )
        handler = getattr(self, f"_t_{name}", None) if name in TOOL_NAMES else None
        if handler is None:
            return ToolOutcome(
                name,
                _slim(args),
                False,
                f"error: there is no tool named {name!r}; the tools are {', '.join(TOOL_NAMES)}",
            )
        wrong = _type_errors(name, args)
        if wrong:
            return ToolOutcome(name, _slim(args), False, "error: " + "; ".join(wrong))
        too_long = argument_refusal(name, args)
        if too_long is not None:
            return ToolOutcome(name, shown, False, too_long, oversized=True)
        try:
            return handler(args)
        except ConflictError as exc:
            return ToolOutcome(name, _slim(args), False, f"error: {exc}")
        except WorkspaceFull:
            raise  # not the model's to fix: the run ends, saying the disk is full
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
        if err or cid is None:
            return ToolOutcome(
                "resolve_comment",
                args,
                False,
                err or "error: comment_id is required and must be a string",
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
        if err or cid is None:
            return ToolOutcome(
                "reply_comment",
                args,
                False,
                err or "error: comment_id is required and must be a string",
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
                oversized=True,
            )
        refusal = self._bundle_refusal(content)
        if refusal is not None:
            return ToolOutcome("push_version", slim, False, f"error: {refusal}", oversized=True)
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


#: Characters of an argument's string kept in events; a longer one is shown by its length.
EVENT_ARG_CHARS = 2_000


def _slim(args: dict[str, Any]) -> dict[str, Any]:
    """Arguments for events: ``content``, and any string over ``EVENT_ARG_CHARS``
    characters, replaced by its length."""
    out = dict(args)
    for key, value in out.items():
        if isinstance(value, str) and (key == "content" or len(value) > EVENT_ARG_CHARS):
            out[key] = f"<{len(value)} characters>"
    return out


_JSON_TYPES = {"string": str, "boolean": bool, "object": dict, "array": list}


def _is_jsonish(v: Any) -> bool:
    return isinstance(v, int | float | bool | str)


def _type_errors(name: str, args: dict[str, Any]) -> list[str]:
    """Properties of ``args`` whose JSON type differs from the tool's schema, in words.
    Unknown properties are ignored (small models add some); missing required ones are
    left to the tool, which names what it needs."""
    schema = next(t["function"]["parameters"] for t in TOOLS if t["function"]["name"] == name)
    out = []
    for key, prop in schema.get("properties", {}).items():
        if key not in args or args[key] is None:
            continue
        want = _JSON_TYPES.get(prop.get("type", ""))
        if want is not None and not isinstance(args[key], want):
            got = _json_type(args[key])
            out.append(f"{key} must be a {prop['type']}, not {got}")
    return out


def _json_type(v: Any) -> str:
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int | float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return "null"
