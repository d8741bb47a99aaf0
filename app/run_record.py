"""An opened bundle's round records, as lines for the Run tab's log (``verdicts.json``
rounds as stored: version, tokens, verdicts per kind, unusable reports, reopened
comments). Nothing is scored here."""

from __future__ import annotations

from typing import Any

from app.present import verdict_label
from engine.vocabulary import EXTERNAL_USAGE, message_sentence


def round_lines(rounds: list[dict[str, Any]], external: bool = False) -> list[tuple[str, str]]:
    """``(icon name, text)`` per line, in order. ``external``: a revision made elsewhere,
    whose tokens are N/A with that reason, not "not reported"."""
    out: list[tuple[str, str]] = []
    if not rounds:
        out.append(("step", "The bundle holds no round records (no round was finished)."))
    for i, r in enumerate(rounds, 1):
        n = r.get("round", i)
        kinds: dict[str, int] = {}
        for v in r.get("verdicts") or []:
            if isinstance(v, dict):
                kinds[str(v.get("verdict"))] = kinds.get(str(v.get("verdict")), 0) + 1
        parts = [f"{verdict_label(k)}: {c}" for k, c in kinds.items()]
        tok = r.get("tokens")
        line = f"Round {n}: version {r.get('version_id') or '?'}"
        line += (
            f" \u00b7 tokens {tok:,}"
            if isinstance(tok, int)
            else f" \u00b7 tokens N/A ({EXTERNAL_USAGE})"
            if external
            else " \u00b7 tokens not reported"
        )
        if parts:
            line += " \u00b7 " + ", ".join(parts)
        out.append(("round", line))
        for u in r.get("unusable") or []:
            if isinstance(u, dict):
                out.append(
                    (
                        "warning",
                        f"  comment {u.get('comment_id')}: the agent's report was unusable: "
                        f"{u.get('reason')}",
                    )
                )
        for item in r.get("reopened") or []:
            if isinstance(item, dict):
                cid = str(item.get("comment_id"))
                msg = message_sentence(str(item.get("message") or ""), cid)
                why = str(item.get("reason") or "")
                out.append(("warning", f"  reopened {cid}: {msg or why}"))
    return out
