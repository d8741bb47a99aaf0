"""Re-deriving a revision made elsewhere (``agent_mode.ran == "external"``;
``engine.run.external``): what its bundle says, checked against its own members.

- The trace holds no model call: one that shows a model call is not a revision made
  elsewhere, so the bundle is tampered ("agent mode").
- The claims are read again from ``agent/message.txt`` (``engine.agent_message``) and must
  be the ones ``claims.json`` states.
- Each comment's status in ``comments.after.json`` is the one the revision leaves it in
  (``engine.agent_message.resolved_after``: claimed addressed and edited or deleted).

Each failure is a ``Difference`` (docs/bundle.md, "A revision made elsewhere").
"""

from __future__ import annotations

from typing import Any

from engine.agent_message import claims_from_message, resolved_after
from engine.bundle.differences import Difference
from engine.vocabulary import plural

__all__ = ["check_external", "is_external"]


def is_external(bundle: Any) -> bool:
    """Whether the bundle records a revision made outside this program."""
    mode = bundle.manifest.get("agent_mode") if isinstance(bundle.manifest, dict) else None
    return isinstance(mode, dict) and mode.get("ran") == "external"


def check_external(
    bundle: Any, final_verdicts: list[dict[str, Any]], diffs: list[Difference]
) -> list[str]:
    """Append a ``Difference`` for each way an external bundle disagrees with itself (see
    the module docstring). ``final_verdicts``: the re-derived final verdict items.
    Returns the checks skipped (the trace's calls: there are none to check)."""
    entries = bundle.trace.get("entries") if isinstance(bundle.trace, dict) else None
    calls = [
        e
        for e in entries or []
        if isinstance(e, dict) and e.get("kind") in ("model_call", "tool_call")
    ]
    if calls:
        diffs.append(
            Difference(
                "run",
                None,
                "agent mode",
                "external (no model call)",
                f"the trace shows {plural(len(calls), 'model or tool call')}",
            )
        )
    ids = [c.id for c in bundle.comments_before]
    message = bundle.agent_message
    if message is None:
        diffs.append(Difference("run", None, "agent/message.txt", "absent", "required"))
        message = ""
    claims = claims_from_message(message, ids)
    again = claims.to_json() if claims is not None else None
    stored = bundle.claims.get("final") if isinstance(bundle.claims, dict) else None
    if stored != again:
        diffs.append(Difference("final", None, "claims read from agent/message.txt", stored, again))
    resolved = resolved_after(
        claims, {str(v.get("comment_id")): str(v.get("verdict")) for v in final_verdicts}
    )
    before = {c.id: c.status for c in bundle.comments_before}
    for c in bundle.comments_after:
        expected = "resolved" if c.id in resolved else before.get(c.id, c.status)
        if c.status != expected:
            diffs.append(
                Difference("final", c.id, "status in comments.after.json", c.status, expected)
            )
    return ["the trace's calls (the agent ran elsewhere: none were recorded)"]
