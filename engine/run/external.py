"""Checking a revision made elsewhere: the reviewed version and its comments, the revised
version, and what the agent said, scored and written as an evidence bundle, exactly as a
run's (docs/agent.md, "A revision made elsewhere"; docs/bundle.md).

The agent ran outside this program (Copilot, ChatGPT, Claude, an in-house agent), so:

- the manifest's ``agent_mode`` is ``{"requested": "external", "ran": "external", "reason"}``
  and the trace holds no model call (one with a model call is tampered, on verify);
- what the agent said is stored word for word as ``agent/message.txt``; its claims are read
  from it by :func:`engine.agent_message.claims_from_message`, here and again on verify;
- tokens are N/A: :data:`engine.vocabulary.EXTERNAL_USAGE` ("the agent ran elsewhere: no
  usage was reported"), the manifest's ``tokens`` null, unless the user typed a figure:
  it is kept as ``agent_mode.typed_tokens`` (under the run's signature) and shown as
  "typed, not measured", never as measured (``engine.bundle.typed_tokens``);
- the revision is the run's one round. After it, a comment is resolved when the agent
  claimed it addressed and its verdict agrees (edited or deleted), else it stays open (the
  integrity control over one revision); rounds to converge is 1 when no actionable comment
  is left open, else N/A with the number left open.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine import __version__
from engine.agent_message import claims_from_message, resolved_after
from engine.bundle.typed_tokens import typed_tokens_problem
from engine.bundle.write import BundleContent, write_bundle
from engine.models import ClaimReport, Comment
from engine.score.scoring import ScoreResult, Version, score
from engine.vocabulary import EXTERNAL_USAGE, DocumentKind, plural
from engine.workspace import Workspace, WorkspaceError, default_home, now_iso

log = logging.getLogger(__name__)

__all__ = [
    "EXTERNAL_MODE",
    "ExternalRevision",
    "check_revision",
    "statuses_after",
]

#: The manifest's ``agent_mode`` record of a revision made elsewhere.
EXTERNAL_MODE: dict[str, str] = {
    "requested": "external",
    "ran": "external",
    "reason": "the revision was made outside this program",
}


@dataclass
class ExternalRevision:
    """A revision made elsewhere. ``v1``/``v2``: the reviewed and the revised version's
    source, of ``kind``; ``comments``: made on v1 (offsets into its text, UTF-16 units);
    ``message``: what the agent said, word for word ("" when it said nothing)."""

    title: str
    kind: DocumentKind
    v1: str
    v2: str
    comments: list[Comment]
    message: str = ""
    given_version_id: str = "v1"
    revised_version_id: str = "revised"
    #: A token figure the user typed (never measured), or None.
    typed_tokens: int | None = None
    #: The revised Word file's own tracked changes on ``v2``'s text (TrackedChange as
    #: JSON, ``engine.word_review.tracked_changes_json``); None: not a Word revision.
    tracked_changes: list[dict[str, Any]] | None = None
    #: The versions read from Word files (.docx): "v1" (reviewed), "v2" (revised); () none.
    word_versions: tuple[str, ...] = ()


def word_versions_of(reviewed: Any, revised: Any) -> tuple[str, ...]:
    """Which of two opened documents (``engine.text.documents.open_document``: ``word``
    set for a ``.docx``) were Word files: ("v1", "v2"), one of them, or ()."""
    return tuple(
        name
        for name, doc in (("v1", reviewed), ("v2", revised))
        if getattr(doc, "word", None) is not None
    )


def statuses_after(
    comments: list[Comment], result: ScoreResult, claims: ClaimReport | None
) -> list[Comment]:
    """The comments after the revision (copies): resolved when claimed ``addressed`` and
    the verdict agrees (edited or deleted), else as they were."""
    resolved = resolved_after(claims, {v.comment_id: v.verdict for v in result.verdicts})
    out = []
    for c in comments:
        copy = Comment.from_json(c.to_json())
        if c.id in resolved:
            copy.status = "resolved"
        out.append(copy)
    return out


def _rounds_to_converge(
    comments: list[Comment], after: list[Comment], result: ScoreResult
) -> tuple[int | None, str]:
    counted = result.actionable_ids
    left = [c.id for c in after if c.id in counted and c.status == "open"]
    if left:
        return None, (
            f"{plural(len(left), 'actionable comment')} left open after the revision, so it did not "
            "converge"
        )
    return 1, ""


def _trace(rev: ExternalRevision, stamp: str) -> dict[str, Any]:
    """The trace of a check: one note, no model call (a model call in an external
    bundle's trace is tampering)."""
    return {
        "entries": [
            {
                "seq": 1,
                "t": stamp,
                "kind": "note",
                "text": "a revision made elsewhere, checked here",
                "given_version_id": rev.given_version_id,
            }
        ],
        "usage": {"calls": 0, "total_tokens": None, "calls_without_usage": 0},
    }


def _verdicts(
    rev: ExternalRevision, round_json: dict[str, Any], final_json: dict[str, Any]
) -> dict[str, Any]:
    """``verdicts.json`` of a check: its one round (the revision) and the final part."""
    return {
        "rounds": [
            {
                "round": 1,
                "version_id": rev.revised_version_id,
                "tokens": None,
                "verdicts": round_json["verdicts"],
                "metrics": round_json["metrics"],
                "unusable": round_json["unusable"],
                "collateral": round_json["collateral"],
                "reopened": [],
            }
        ],
        "final": final_json["verdicts"],
        "unusable": final_json["unusable"],
        "collateral": final_json["collateral"],
    }


def check_revision(
    rev: ExternalRevision,
    out_dir: Path | None = None,
    signing_key: bytes | None = None,
    folder: Path | None = None,
    workspace: Workspace | None = None,
) -> tuple[Path, ScoreResult]:
    """Score ``rev`` and write its bundle into ``folder``, else under ``out_dir`` (default
    ``<workspace home>/bundles``) as ``<UTC stamp>-check-<12 hex>``. Returns the bundle
    folder and the final scoring. Raises ValueError on an unknown kind, BundleError when it
    cannot be written, or on a typed token figure out of range.

    ``workspace``: the check is recorded there too, once its bundle is written
    (``Workspace.record_check``: the document, both versions, the comments as they stand
    after the check, the run under the bundle's run id), so the bundle opens as the
    user's own run and its threads can be answered. A workspace that cannot take it
    leaves the bundle as written and the check out of the workspace (logged)."""
    problem = typed_tokens_problem(rev.typed_tokens)
    if problem:
        raise ValueError(problem)
    v1 = Version.from_source(rev.v1, rev.kind, rev.given_version_id)
    v2 = Version.from_source(rev.v2, rev.kind, rev.revised_version_id)
    claims = claims_from_message(rev.message, [c.id for c in rev.comments])
    common: dict[str, Any] = dict(
        claims=claims,
        given_version_id=rev.given_version_id,
        tokens=None,
        tokens_reason=EXTERNAL_USAGE,
    )
    first = score(v1, v2, rev.comments, **common, rounds_reason="the run has not finished")
    after = statuses_after(rev.comments, first, claims)
    rounds = _rounds_to_converge(rev.comments, after, first)
    final = score(
        v1, v2, rev.comments, **common, rounds_to_converge=rounds[0], rounds_reason=rounds[1]
    )
    round_json, final_json = first.to_json(extended=True), final.to_json(extended=True)
    run_id = f"check-{uuid.uuid4().hex[:12]}"
    stamp = now_iso()
    report = claims.to_json() if claims is not None else None
    content = BundleContent(
        run_id=run_id,
        status="completed",
        reason="the revision was made elsewhere and checked here",
        app_version=__version__,
        created_at=stamp,
        finished_at=stamp,
        model="",
        base_url="",
        document_title=rev.title,
        document_kind=rev.kind,
        given_version_id=rev.given_version_id,
        v1=rev.v1,
        rounds=[(rev.revised_version_id, rev.v2, rev.message, 1)],
        comments_before=[c.to_json() for c in rev.comments],
        comments_after=[c.to_json() for c in after],
        claims={
            "rounds": [{"round": 1, "report": report, "raw": rev.message}] if report else [],
            "final": report,
        },
        trace=_trace(rev, stamp),
        verdicts=_verdicts(rev, round_json, final_json),
        metrics=final_json["metrics"],
        tokens=None,
        rounds_run=1,
        signing_key=signing_key,
        agent_mode=dict(EXTERNAL_MODE)
        if rev.typed_tokens is None
        else {**EXTERNAL_MODE, "typed_tokens": rev.typed_tokens},
        agent_message=rev.message,
        tracked_changes=rev.tracked_changes,
        word_versions=rev.word_versions,
    )
    if folder is None:
        parent = Path(out_dir) if out_dir is not None else default_home() / "bundles"
        folder = parent / f"{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-{run_id}"
    path = write_bundle(folder, content)
    if workspace is not None:
        _record(workspace, rev, run_id, after, path)
    return path, final


def _record(
    ws: Workspace, rev: ExternalRevision, run_id: str, after: list[Comment], path: Path
) -> None:
    """The check in the workspace (``check_revision``'s ``workspace``); never raises for
    the workspace: the bundle, already written, is the record."""
    try:
        ws.record_check(
            run_id,
            rev.title,
            rev.kind,
            ((rev.given_version_id, rev.v1), (rev.revised_version_id, rev.v2)),
            after,
            "the revision was made elsewhere and checked here",
            str(path),
        )
    except WorkspaceError as exc:
        log.warning("the check %s is not recorded in the workspace: %s", run_id, exc)
