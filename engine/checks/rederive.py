"""Re-deriving a stored set of declared-check results (docs/checks.md, "In the bundle").

``rederive_set(config, stored, v1, v2, verdict_items)`` runs the built-in checks again on
the two versions (the commented spans from the re-derived verdict items, UTF-16 offsets)
and compares every stored result with its recomputation; a command's result is taken as
recorded (it is never re-run on verify or open) and only its binding to the version is
checked. The gate is recomputed from the results and the policy of ``checks.toml``, so a
forged ``blocked`` or policy is caught too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.checks.builtin import Finding
from engine.checks.config import ChecksConfig
from engine.checks.results import BUILTIN_KINDS, CheckResult, CheckSet
from engine.checks.runner import Pair, checkset_of, run_builtin
from engine.score.scoring import Version
from engine.text import utf16

_COMPARED = ("status", "summary", "output", "findings", "already", "version_id", "sha256")


@dataclass(frozen=True)
class CheckDifference:
    """One stored field that differs from the re-derivation."""

    name: str
    role: str
    field: str
    stored: Any
    recomputed: Any


def _spans(items: list[dict[str, Any]], text: str, side: str) -> list[tuple[int, int]]:
    omap = utf16.OffsetMap(text)
    out = []
    for item in items:
        span = item.get(side)
        if isinstance(span, dict) and isinstance(span.get("start"), int):
            s, e = span["start"], span.get("end", span["start"])
            if isinstance(e, int) and 0 <= s <= e <= omap.utf16_length:
                out.append((omap.to_codepoint(s, "floor"), omap.to_codepoint(e, "ceil")))
    return out


def _recorded(stored: dict[str, Any], name: str, role: str) -> Finding:
    """A command's stored result on one version, as it was recorded."""
    for r in stored.get(role) or []:
        if isinstance(r, dict) and r.get("name") == name:
            try:
                res = CheckResult.from_json(r)
            except ValueError:
                break
            return Finding(res.status, res.summary, res.output, res.findings, res.exit_code)
    return Finding("unverified", "no recorded result")


def rederive_set(
    config: ChecksConfig,
    stored: dict[str, Any],
    v1: Version,
    v2: Version,
    verdict_items: list[dict[str, Any]],
) -> tuple[CheckSet, list[CheckDifference]]:
    """The recomputed set and every difference from ``stored`` (a ``CheckSetJson``)."""
    spans1 = _spans(verdict_items, v1.text, "v1")
    spans2 = _spans(verdict_items, v2.text, "v2")
    pairs: list[Pair] = run_builtin(config, v1, v2, spans1, spans2)
    for spec in config.commands:
        name = f"command:{spec.name}"
        pairs.append(
            (
                name,
                "command",
                _recorded(stored, name, "reviewed"),
                _recorded(stored, name, "revised"),
            )
        )
    again = checkset_of(config, v1, v2, pairs)
    diffs: list[CheckDifference] = []
    for role, results in (("reviewed", again.reviewed), ("revised", again.revised)):
        listed = {str(r.get("name")): r for r in stored.get(role) or [] if isinstance(r, dict)}
        for r in results:
            mine = r.to_json()
            theirs = listed.pop(r.name, None)
            if theirs is None:
                diffs.append(CheckDifference(r.name, role, "result", None, r.status))
                continue
            for key in _COMPARED:
                if r.kind not in BUILTIN_KINDS and key not in ("version_id", "sha256", "already"):
                    continue  # recorded, not re-run
                if theirs.get(key) != mine[key]:
                    diffs.append(CheckDifference(r.name, role, key, theirs.get(key), mine[key]))
        for name in listed:
            diffs.append(CheckDifference(name, role, "result", "stated", "not declared"))
    policy = {"unverified": config.unverified, "preexisting": config.preexisting}
    if stored.get("policy") != policy:
        diffs.append(CheckDifference("", "", "policy", stored.get("policy"), policy))
    if stored.get("blocked") != again.gate().blocked:
        diffs.append(
            CheckDifference("", "", "blocked", stored.get("blocked"), again.gate().blocked)
        )
    return again, diffs
