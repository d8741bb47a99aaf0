"""A reviewer's answers in a comment's thread: reply, resolve, reopen, kept by the
workspace, so the agent sees them in the next round (its tools read the comments, threads
included, from the workspace).

An evidence bundle is a record of a finished run and never changes; the thread goes on in
the workspace the run came from: ``run_document(ws, run_id)`` finds that document (the
bundle's ``run_id`` is the workspace's run id), None for a run this workspace does not
hold (a bundle from elsewhere: its threads can then only be read).

``answer(ws, document_id, comment_id, action, body, author) -> Comment`` with ``action``
in ``ACTIONS``: ``reply`` appends the body (required); ``resolve`` / ``reopen`` set the
status and add a ``resolve`` / ``reopen`` entry (the body, or a plain default). Raises
ValueError for an empty reply, an unknown action or a body over ``MAX_BODY`` characters,
``engine.workspace.WorkspaceError`` (``UnknownComment``) from the workspace.

``send_back_with_replies(bundle, decided)``: the next round of a reviewed bundle with the
reviewer's replies after its run, for the desktop program and ``arl bundle send-back``.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any, Literal, get_args

from engine.models import Comment, Reply

if TYPE_CHECKING:
    from engine.bundle.decisions import Decision
    from engine.bundle.sendback import SendBack

ThreadAction = Literal["reply", "resolve", "reopen"]
ACTIONS: tuple[ThreadAction, ...] = get_args(ThreadAction)
MAX_BODY = 20_000
_DEFAULT = {"resolve": "resolved by the reviewer", "reopen": "reopened by the reviewer"}


def run_document(ws: Any, run_id: str) -> str | None:
    """The workspace document the run ``run_id`` reviewed, or None when the workspace
    does not hold that run."""
    from engine.workspace import WorkspaceError

    if not run_id:
        return None
    try:
        return str(ws.run(run_id).document_id)
    except WorkspaceError:
        return None


def answer(
    ws: Any, document_id: str, comment_id: str, action: str, body: str, author: str
) -> Comment:
    """Reply in, resolve or reopen the comment's thread (see the module docstring);
    returns the comment as the workspace now holds it."""
    from engine.workspace import now_iso

    text = body.strip()
    if action not in ACTIONS:
        raise ValueError(f"{action!r} is not one of {', '.join(ACTIONS)}")
    if len(text) > MAX_BODY:
        raise ValueError(f"a reply is at most {MAX_BODY:,} characters")
    who = " ".join(author.split()) or "reviewer"
    if action == "reply":
        if not text:
            raise ValueError("write the reply first")
        ws.add_reply(document_id, comment_id, Reply(who, text, now_iso(), "reply"))
    else:
        status = "resolved" if action == "resolve" else "open"
        reply = Reply(who, text or _DEFAULT[action], now_iso(), action)
        ws.set_status(document_id, comment_id, status, reply=reply)
    return ws.comment(document_id, comment_id)


def replies_after(ws: Any, run_id: str, comments: list[Comment]) -> dict[str, list[Reply]]:
    """The reviewer's replies (``reply`` entries) the workspace holds on each of
    ``comments`` (a bundle's, as the run left them) that their bundle thread does not:
    what the reviewer said after the run. comment id -> replies, oldest first; {} for a
    run this workspace does not hold. Never raises for a comment the workspace lacks."""
    from engine.workspace import WorkspaceError

    document_id = run_document(ws, run_id)
    if document_id is None:
        return {}
    out: dict[str, list[Reply]] = {}
    for c in comments:
        try:
            held = ws.comment(document_id, c.id)
        except WorkspaceError:
            continue
        known = {(r.author, r.body, r.created_at) for r in c.thread}
        new = [
            r
            for r in held.thread
            if r.kind == "reply" and (r.author, r.body, r.created_at) not in known
        ]
        if new:
            out[c.id] = new
    return out


def send_back_with_replies(
    bundle: Any, decided: dict[str, Decision], workspace: str | os.PathLike[str] | None = None
) -> SendBack:
    """``engine.bundle.sendback.send_back(bundle, decided, replies)`` (a ``SendBack``) with
    the reviewer's replies after the bundle's run (``replies_after``) read from the
    workspace file ``workspace`` (None: the user's, ``engine.workspace.default_path()``):
    the one way the desktop program's Send back and ``arl bundle send-back`` make the next
    round. No workspace file there, or one that cannot be opened, adds no reply (the
    bundle's threads alone; logged) and none is created. ``decided``: comment id ->
    ``Decision`` (``DecisionsCheck.latest()``)."""
    from pathlib import Path

    from engine.bundle.sendback import send_back
    from engine.workspace import Workspace, WorkspaceError, default_path

    path = Path(workspace) if workspace is not None else default_path()
    replies: dict[str, list[Reply]] = {}
    if path.is_file():
        try:
            with Workspace(path) as ws:
                run_id = str(bundle.manifest.get("run_id") or "")
                replies = replies_after(ws, run_id, bundle.comments_after)
        except (OSError, WorkspaceError) as exc:
            logging.getLogger(__name__).info("send back without the workspace's replies: %s", exc)
    return send_back(bundle, decided, replies)
