"""An opened bundle's round records, as lines for the Run tab's log (``verdicts.json``
rounds as stored: version, tokens, verdicts per kind, unusable reports, reopened
comments). Nothing is scored here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.present import verdict_label
from engine.events import comment_called
from engine.vocabulary import EXTERNAL_FACT_WORDS, message_sentence, plain_reason


def round_lines(
    rounds: list[dict[str, Any]], external: bool = False, names: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """``(icon name, text)`` per line, in order. ``external``: a revision made elsewhere,
    whose tokens are N/A with that reason, not "not reported". ``names``: comment id ->
    what the program calls it ("comment 3", ``engine.vocabulary.comment_names``), never the raw
    id on screen."""
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
        # a revision made elsewhere was checked, not made in a round of this program's
        head = "The revision checked" if external else f"Round {n}"
        line = f"{head}: version {r.get('version_id') or '?'}"
        line += (
            f" \u00b7 tokens {tok:,}"
            if isinstance(tok, int)
            else f" \u00b7 tokens {EXTERNAL_FACT_WORDS['tokens']}"
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
                        f"  {_upper_first(comment_called(str(u.get('comment_id')), names))}: "
                        "the agent's report on it was unusable: "
                        f"{plain_reason(str(u.get('reason') or ''))}",
                    )
                )
        for item in r.get("reopened") or []:
            if isinstance(item, dict):
                called = comment_called(str(item.get("comment_id")), names)
                msg = message_sentence(str(item.get("message") or ""), called)
                why = str(item.get("reason") or "")
                out.append(("warning", f"  Reopened {called}: {msg or why}"))
    return out


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]
