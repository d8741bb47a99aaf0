"""Cross-check a bundle's round records and comment statuses against its ``trace.json``.

The round records in ``verdicts.json`` (each round's verdicts and the integrity control's
reopens) and the statuses in ``comments.after.json`` are the run's account of what
happened; ``trace.json`` is its record of every model and tool call. Deleting a round
record, or relabelling a run that did not converge as converged (statuses set to resolved,
reopens removed), leaves the trace saying otherwise. What is checked
(``cross_check_trace``), each failure a ``engine.bundle.rederive.Difference``:

- rounds: every round with a model call in the trace has a round record, and every record
  names such a round (a run that did not complete may lack the record of its last round:
  it stopped before that round was scored);
- reopens (``arl-bundle/2``): a comment the trace shows resolved (a ``resolve_comment``
  tool call that succeeded) in round N whose re-derived verdict there is ``untouched`` or
  ``stale_anchor`` is in round N's ``reopened`` (the integrity control, docs/verdicts.md);
- statuses (``arl-bundle/2``, a completed run): a comment's status in
  ``comments.after.json`` is the one the trace's resolve calls and the rounds' reopens
  leave it in (unchanged from ``comments.before.json`` when neither touched it); a run
  that did not complete may have been finished from a checkpoint whose trace ends before
  its last calls, so its statuses are not checked;
- the given version: ``given_version_id`` is the one the trace's "run started" note names;
- the run's identity: the manifest's ``model`` and ``base_url`` are those of the "run
  started" note's settings, its ``scripted`` the note's (runs recorded since it was
  added), and every model call asked for the manifest's model.

A trace cut to its model calls to fit the bundle's limits (it says so in its ``note``)
keeps no tool calls: the reopen and status checks are then skipped, and the result says so
in ``skipped``. A bundle whose every file is consistently forged (a fabricated trace too)
is not caught here: only a signature by a trusted key vouches for a run's account.
"""

from __future__ import annotations

import json
from typing import Any

from engine.bundle.differences import Difference


def _entries(trace: Any) -> list[dict[str, Any]]:
    entries = trace.get("entries") if isinstance(trace, dict) else None
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def _model_rounds(entries: list[dict[str, Any]]) -> set[int]:
    return {
        e["round"]
        for e in entries
        if e.get("kind") == "model_call" and isinstance(e.get("round"), int)
    }


def _resolves(entries: list[dict[str, Any]]) -> dict[int, list[str]]:
    """Round -> ids of the comments a successful ``resolve_comment`` call resolved."""
    out: dict[int, list[str]] = {}
    for e in entries:
        if e.get("kind") != "tool_call" or e.get("name") != "resolve_comment":
            continue
        if e.get("ok") is not True or not isinstance(e.get("round"), int):
            continue
        try:
            args = json.loads(str(e.get("arguments") or ""))
        except ValueError:
            args = None
        cid = args.get("comment_id") if isinstance(args, dict) else None
        if cid is not None:
            out.setdefault(e["round"], []).append(str(cid))
    return out


def _records(bundle: Any) -> list[dict[str, Any]]:
    verdicts = bundle.verdicts if isinstance(bundle.verdicts, dict) else {}
    return [r for r in verdicts.get("rounds") or [] if isinstance(r, dict)]


def cross_check_trace(
    bundle: Any, again_rounds: dict[int, list[dict[str, Any]]], diffs: list[Difference]
) -> list[str]:
    """Append a ``Difference`` to ``diffs`` for every way the bundle's round records,
    reopens, comment statuses and given version disagree with its trace (see the module
    docstring). ``again_rounds``: round -> the re-derived verdict items of that round
    (``engine.bundle.rederive``). Returns the checks skipped, as plain phrases."""
    trace = bundle.trace
    entries = _entries(trace)
    if not entries:
        return ["trace.json records no calls"]
    _check_given(bundle, entries, diffs)
    _check_identity(bundle, entries, diffs)
    records = _records(bundle)
    _check_rounds(bundle, records, entries, diffs)
    if bundle.old_format:
        return []  # an older bundle's round records carry no reopens
    if isinstance(trace, dict) and trace.get("note"):
        return ["the trace was cut to its model calls: reopens and statuses are not checked"]
    resolves = _resolves(entries)
    reopened = {
        r.get("round"): [
            str(x.get("comment_id")) for x in r.get("reopened") or [] if isinstance(x, dict)
        ]
        for r in records
    }
    _check_reopens(resolves, reopened, again_rounds, diffs)
    if bundle.status != "completed":
        # A run killed mid-round is finished from its last checkpoint: its trace may end
        # before the last resolve calls the workspace (and comments.after.json) holds.
        return ["the run did not complete: statuses are not checked against the trace"]
    _check_statuses(bundle, resolves, reopened, diffs)
    return []


def _check_given(bundle: Any, entries: list[dict[str, Any]], diffs: list[Difference]) -> None:
    started = next(
        (e for e in entries if e.get("kind") == "note" and "given_version_id" in e), None
    )
    stated = bundle.manifest.get("given_version_id")
    if started is not None and stated is not None and started["given_version_id"] != stated:
        diffs.append(
            Difference(
                "run", None, "given_version_id", stated, f"{started['given_version_id']} (trace)"
            )
        )


def _check_identity(bundle: Any, entries: list[dict[str, Any]], diffs: list[Difference]) -> None:
    """The manifest's model, endpoint and ``scripted`` against what the trace recorded: the
    "run started" note's settings (and, from this version, its ``scripted``) and every
    model call's requested model. An unsigned manifest is the bundle's own word; its trace
    is hashed beside it, so relabelling a scripted demonstration as a real model's run, or
    one model's run as another's, must change both."""
    m = bundle.manifest
    started = next(
        (e for e in entries if e.get("kind") == "note" and e.get("text") == "run started"), None
    )
    settings = started.get("settings") if isinstance(started, dict) else None
    if isinstance(settings, dict):
        for key in ("model", "base_url"):
            said, traced = m.get(key), settings.get(key)
            if isinstance(said, str) and isinstance(traced, str) and said != traced:
                diffs.append(Difference("run", None, key, said, f"{traced} (trace)"))
    if isinstance(started, dict) and isinstance(started.get("scripted"), bool):
        if bool(m.get("scripted", False)) != started["scripted"]:
            diffs.append(
                Difference(
                    "run", None, "scripted", m.get("scripted"), f"{started['scripted']} (trace)"
                )
            )
    models = {
        str(e["request"]["model"])
        for e in entries
        if e.get("kind") == "model_call"
        and isinstance(e.get("request"), dict)
        and isinstance(e["request"].get("model"), str)
    }
    said = m.get("model")
    if isinstance(said, str) and models and models != {said}:
        shown = ", ".join(sorted(models)[:3])
        diffs.append(Difference("run", None, "model", said, f"{shown} (the trace's model calls)"))


def _check_rounds(
    bundle: Any,
    records: list[dict[str, Any]],
    entries: list[dict[str, Any]],
    diffs: list[Difference],
) -> None:
    worked = _model_rounds(entries)
    recorded = [r.get("round") for r in records]
    for rnd in sorted({r for r in recorded if isinstance(r, int)} - worked):
        diffs.append(
            Difference(
                f"round {rnd}", None, "round record", "present", "no model call of it in the trace"
            )
        )
    dupes = sorted({r for r in recorded if isinstance(r, int) and recorded.count(r) > 1})
    for rnd in dupes:
        diffs.append(Difference(f"round {rnd}", None, "round record", "listed twice", "once"))
    missing = worked - set(recorded)
    if bundle.status != "completed" and worked:
        missing.discard(max(worked))  # stopped before its last round was scored
    for rnd in sorted(missing):
        diffs.append(
            Difference(
                f"round {rnd}", None, "round record", "missing", "the trace shows the round's work"
            )
        )


def _check_reopens(
    resolves: dict[int, list[str]],
    reopened: dict[Any, list[str]],
    again_rounds: dict[int, list[dict[str, Any]]],
    diffs: list[Difference],
) -> None:
    for rnd, ids in sorted(resolves.items()):
        again = again_rounds.get(rnd)
        if again is None:
            continue  # no record of the round: named by _check_rounds
        verdict = {str(v.get("comment_id")): v.get("verdict") for v in again}
        for cid in dict.fromkeys(ids):
            if verdict.get(cid) in ("untouched", "stale_anchor") and cid not in reopened.get(
                rnd, []
            ):
                diffs.append(
                    Difference(
                        f"round {rnd}",
                        cid,
                        "reopened",
                        "not reopened",
                        f"reopened (resolved in the trace, verdict {verdict.get(cid)})",
                    )
                )


def _check_statuses(
    bundle: Any,
    resolves: dict[int, list[str]],
    reopened: dict[Any, list[str]],
    diffs: list[Difference],
) -> None:
    status = {c.id: c.status for c in bundle.comments_before}
    rounds = sorted(set(resolves) | {r for r in reopened if isinstance(r, int)})
    for rnd in rounds:
        for cid in resolves.get(rnd, []):
            status[cid] = "resolved"
        for cid in reopened.get(rnd, []):
            status[cid] = "open"
    for c in bundle.comments_after:
        expected = status.get(c.id)
        if expected is not None and c.status != expected:
            diffs.append(
                Difference(
                    "final", c.id, "status in comments.after.json", c.status, f"{expected} (trace)"
                )
            )
