"""What a view shows of a bundle's figures: the stated ones when the bundle passes its
checks, the re-derived ones when it does not.

A bundle whose files fail the manifest check, whose stated figures the same engine does
not re-derive (``engine.bundle.rederive``), or whose signature is bad (``engine.bundle.signing``) has
failed verification: its stated verdicts and metrics are not its findings. Every view
(the desktop program, ``arl bundle show``, the scorecard, Compare, Published) then shows
the figures this program re-derives from the bundle's own documents, each row whose stated
value differs marked in words ("the bundle says edited; recomputed from its documents:
untouched"). When they cannot be re-derived (yet, or at all), the stated figures are shown
marked *unverified*, never as findings.

``shown_figures(bundle, rederivation, signature) -> ShownFigures``; ``rederivation`` may
be None (not computed yet). Never raises; computes nothing itself (the re-derivation did).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Source = Literal["stated", "recomputed", "unverified"]

RECOMPUTED_HEADLINE = (
    "This bundle failed verification: the verdicts and metrics shown are recomputed from "
    "its own documents by this program, not the figures it states."
)
UNVERIFIED_HEADLINE = (
    "This bundle failed verification and its figures could not be recomputed: the "
    "verdicts and metrics shown are what it states, unverified."
)


@dataclass
class ShownFigures:
    """The figures a view shows. ``source``: ``stated`` (the bundle passed its checks, or
    they are not done yet and nothing failed), ``recomputed`` (it failed and these are
    this program's figures) or ``unverified`` (it failed and nothing could be recomputed).
    ``final``: verdict items (the verdict record of docs/verdicts.md); ``metrics``: name ->
    metric object; ``rounds``: the round records (``round``, ``verdicts``, ``metrics``,
    ...); ``unusable``, ``collateral``: as verdicts.json states them. ``row_notes``:
    comment id -> the line saying what the bundle states and what was recomputed, in words;
    ``row_terms``: the same with the exact field names and values (``Difference.line``, for a
    tooltip); ``metric_notes``: metric name -> the same for a metric."""

    source: Source
    final: list[dict[str, Any]]
    metrics: dict[str, Any]
    rounds: list[dict[str, Any]]
    unusable: list[Any]
    collateral: list[Any] | None
    row_notes: dict[str, str] = field(default_factory=dict)
    metric_notes: dict[str, str] = field(default_factory=dict)
    row_terms: dict[str, str] = field(default_factory=dict)

    @property
    def headline(self) -> str:
        """One sentence for the top of a view ("" when the figures are the stated ones)."""
        return {
            "recomputed": RECOMPUTED_HEADLINE,
            "unverified": UNVERIFIED_HEADLINE,
        }.get(self.source, "")


def failed_verification(bundle: Any, rederivation: Any, signature: Any) -> bool:
    """Files failing the manifest, figures the same engine does not re-derive, or a bad
    signature."""
    return bool(
        bundle.tampered
        or (rederivation is not None and rederivation.forged)
        or (signature is not None and signature.bad)
    )


def _word(x: Any) -> str:
    return x if isinstance(x, str) else repr(x)


def _clause(d: Any) -> tuple[str, str]:
    """One difference of a comment in words: (what the bundle says, what was recomputed)."""
    from engine.vocabulary import field_words, value_words

    s, r = d.stored, d.recomputed
    if d.field == "verdict":
        return value_words(s), value_words(r)
    if d.field == "claim_agrees" and isinstance(s, bool) and isinstance(r, bool):
        return (
            f"the agent's claim {'agreed' if s else 'did not agree'} with the text",
            f"the claim {'agrees' if r else 'does not agree'} with the text",
        )
    return f"{field_words(d.field)}: {value_words(s)}", f"{field_words(d.field)}: {value_words(r)}"


def _row_words(diffs: list[Any], verb: str) -> str:
    """A comment's differences in one line: "the bundle says the agent's claim agreed with
    the text; recomputed from its documents, it does not"; "the bundle says edited, and
    the agent's claim agreed with the text; recomputed from its documents: untouched, and
    the claim does not agree with the text"."""
    diffs = sorted(diffs, key=lambda d: d.field != "verdict")  # the verdict first
    if len(diffs) == 1 and diffs[0].field == "claim_agrees":
        said, _ = _clause(diffs[0])
        if isinstance(diffs[0].recomputed, bool):
            return f"the bundle says {said}; {verb}, it {'does' if diffs[0].recomputed else 'does not'}"
    pairs = [_clause(d) for d in diffs]
    said = ", and ".join(p[0] for p in pairs)
    again = ", and ".join(p[1] for p in pairs)
    return f"the bundle says {said}; {verb}: {again}"


def _notes(rederivation: Any, verb: str) -> tuple[dict[str, str], dict[str, str]]:
    """Per comment and per metric, the final differences in words."""
    rows: dict[str, list[Any]] = {}
    metrics: dict[str, str] = {}
    for d in getattr(rederivation, "differences", None) or []:
        if d.where != "final":
            continue
        if d.comment_id is not None:
            rows.setdefault(d.comment_id, []).append(d)
        elif d.field.startswith("metric "):
            metrics[d.field[len("metric ") :]] = (
                f"the bundle says {_word(d.stored)}; {verb}: {_word(d.recomputed)}"
            )
    return {cid: _row_words(ds, verb) for cid, ds in rows.items()}, metrics


def _terms(rederivation: Any) -> dict[str, str]:
    """Per comment, its final differences in the exact terms (``Difference.line``)."""
    out: dict[str, list[str]] = {}
    for d in getattr(rederivation, "differences", None) or []:
        if d.where == "final" and d.comment_id is not None:
            out.setdefault(d.comment_id, []).append(d.line())
    return {cid: "; ".join(lines) for cid, lines in out.items()}


def _stated(bundle: Any) -> tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    verdicts = bundle.verdicts if isinstance(bundle.verdicts, dict) else {}
    final = [v for v in verdicts.get("final") or [] if isinstance(v, dict)]
    rounds = [r for r in verdicts.get("rounds") or [] if isinstance(r, dict)]
    metrics = {k: m.to_json() for k, m in bundle.metrics.items()}
    return final, metrics, rounds


def shown_figures(bundle: Any, rederivation: Any = None, signature: Any = None) -> ShownFigures:
    """The figures to show of ``bundle`` (an ``engine.bundle.Bundle``); see the module
    docstring."""
    final, metrics, rounds = _stated(bundle)
    verdicts = bundle.verdicts if isinstance(bundle.verdicts, dict) else {}
    unusable = list(verdicts.get("unusable") or [])
    collateral = verdicts.get("collateral")
    failed = failed_verification(bundle, rederivation, signature)
    again = getattr(rederivation, "final", None)
    if failed and isinstance(again, dict):
        rows, mets = _notes(rederivation, "recomputed from its documents")
        stated_rounds = {r.get("round"): r for r in rounds}
        new_rounds = []
        for rnd, rec in sorted(
            rederivation.rounds.items(), key=lambda kv: (not isinstance(kv[0], int), kv[0])
        ):
            base = dict(stated_rounds.get(rnd) or {"round": rnd})
            base.update(
                verdicts=rec.get("verdicts", []),
                metrics=rec.get("metrics", {}),
                unusable=rec.get("unusable", []),
                collateral=rec.get("collateral", []),
            )
            new_rounds.append(base)
        return ShownFigures(
            "recomputed",
            list(again.get("verdicts") or []),
            dict(again.get("metrics") or {}),
            new_rounds,
            list(again.get("unusable") or []),
            list(again.get("collateral") or []),
            rows,
            mets,
            _terms(rederivation),
        )
    if failed:
        verdict_of = {str(v.get("comment_id")): v.get("verdict") for v in final}
        rows = {
            cid: f"the bundle says {v}; unverified: not recomputed from its documents"
            for cid, v in verdict_of.items()
        }
        mets = {name: "unverified: not recomputed from its documents" for name in metrics}
        return ShownFigures("unverified", final, metrics, rounds, unusable, collateral, rows, mets)
    # Passed, or not checked yet with nothing failed: the stated figures; an engine change
    # is named on the rows it touches.
    rows, mets = _notes(rederivation, "this program recomputes")
    _stub_notes(bundle, final, metrics, rows, mets)
    terms = _terms(rederivation)
    return ShownFigures("stated", final, metrics, rounds, unusable, collateral, rows, mets, terms)


STUB_NOTE = "unverified: member too large"


def _stub_notes(
    bundle: Any,
    final: list[dict[str, Any]],
    metrics: dict[str, Any],
    rows: dict[str, str],
    mets: dict[str, str],
) -> None:
    """Each figure that depends on a member written as a stub (``Bundle.stubbed``) noted
    ``STUB_NOTE`` (``engine.bundle.rederive.STUB_DEPENDENTS`` says which)."""
    stubbed = getattr(bundle, "stubbed", None) or {}
    if not stubbed:
        return  # (the re-derivation's modules are not imported for nothing: a first screen waits)
    from engine.bundle.rederive import STUB_DEPENDENTS

    every = any(name not in STUB_DEPENDENTS for name in stubbed)
    fields: set[str] = set()
    for name in stubbed:
        fields |= STUB_DEPENDENTS.get(name, (frozenset(), ""))[0]
    for name in metrics:
        if every or f"metric {name}" in fields:
            mets[name] = STUB_NOTE
    row_fields = sorted(f for f in fields if not f.startswith("metric "))
    for v in final:
        cid = str(v.get("comment_id"))
        if every:
            rows[cid] = STUB_NOTE
        elif row_fields and "claim" in fields:
            rows[cid] = f"claim {STUB_NOTE}"
