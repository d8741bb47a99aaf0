"""A suite's ranking on one metric (docs/suites.md, "What a ranking means"): every pair of
combinations compared by the interval of their difference paired by document
(``engine.suite.stats.paired``), Holm-adjusted over the pairs compared; a pair is ranked
only when its adjusted interval excludes zero and the two share at least
``MIN_DOCUMENTS`` documents. Otherwise the ranking says, in words, that all pairwise
intervals include zero, or that there are too few documents to rank anything.

``rank(done, metric, seed, higher_is_better) -> {"pairs", "ranked", "note", ...}``:
``done``: combination name -> its finished (untampered) runs.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from engine.suite.stats import ALPHA, MIN_DOCUMENTS, holm, paired
from engine.suite.store import ItemResult

__all__ = ["holm_intervals", "metric_cells", "rank", "ranking_sentence"]


def metric_cells(rows: list[ItemResult], metric: str) -> dict[str, list[float]]:
    """document -> the metric's values of its finished runs, by repeat (N/A left out)."""
    cells: dict[str, list[float]] = {}
    for r in sorted(rows, key=lambda r: (r.document, r.repeat, r.key)):
        v = ((r.metrics or {}).get(metric) or {}).get("value")
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            cells.setdefault(r.document, []).append(float(v))
    return cells


def rank(
    done: dict[str, list[ItemResult]], metric: str, seed: int, higher_is_better: bool
) -> dict[str, Any]:
    """Every pair's paired difference (better minus worse by the point estimate), its
    interval at the pair's Holm level, p and Holm-adjusted p, and ``verdict``: "ranked",
    "interval includes zero" or "too few documents"."""
    cells = {name: c for name, rows in sorted(done.items()) if (c := metric_cells(rows, metric))}
    raw = []
    for a, b in combinations(sorted(cells), 2):
        d = paired(cells[a], cells[b], seed, f"{metric}|{a}|{b}")
        if d is not None:
            raw.append((a, b, d))
    judged = holm_intervals([d for _, _, d in raw])
    pairs = []
    for (a, b, d), j in zip(raw, judged):
        lo, hi = j["low"], j["high"]
        a_first = (d["difference"] >= 0) == higher_is_better
        better, worse = (a, b) if a_first else (b, a)
        if not a_first:
            lo, hi = -hi, -lo
        pairs.append(
            {
                "better": better,
                "worse": worse,
                "difference": abs(d["difference"]),
                "low": lo,
                "high": hi,
                "level": j["level"],
                "p": d["p"],
                "p_holm": j["p_holm"],
                "documents": d["documents"],
                "repeats": d["repeats"],
                "verdict": j["verdict"],
            }
        )
    ranked = [p for p in pairs if p["verdict"] == "ranked"]
    return {
        "pairs": pairs,
        "ranked": [[p["better"], p["worse"]] for p in ranked],
        "note": _note(cells, pairs),
    }


def holm_intervals(diffs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The paired differences compared together (``engine.suite.stats.paired`` results),
    each judged at its Holm step-down level: {"low", "high"} (the interval of the
    difference at that level, same sign as it), "level", "p_holm", and "verdict":
    "ranked" (the adjusted interval excludes zero on at least ``MIN_DOCUMENTS`` documents),
    "interval includes zero" or "too few documents". The one rule of rankings and of
    ``arl suite compare``."""
    adjusted = holm([d["p"] for d in diffs])
    order = sorted(range(len(diffs)), key=lambda i: (diffs[i]["p"], i))
    out = []
    for i, d in enumerate(diffs):
        level = 1 - ALPHA / (len(diffs) - order.index(i))
        lo, hi = (float(x) for x in np.quantile(d["_draws"], [(1 - level) / 2, (1 + level) / 2]))
        if d["documents"] < MIN_DOCUMENTS:
            verdict = "too few documents"
        elif adjusted[i] < ALPHA and (lo > 0 or hi < 0):
            verdict = "ranked"
        else:
            verdict = "interval includes zero"
        out.append(
            {"low": lo, "high": hi, "level": level, "p_holm": adjusted[i], "verdict": verdict}
        )
    return out


def _note(cells: dict[str, Any], pairs: list[dict[str, Any]]) -> str:
    if len(cells) < 2:
        return "fewer than two combinations measured it: nothing to rank"
    if not pairs:
        return "no document measured by two combinations: nothing to rank"
    most = max(p["documents"] for p in pairs)
    if all(p["verdict"] == "too few documents" for p in pairs):
        return (
            f"too few documents to rank anything ({most} in common; at least "
            f"{MIN_DOCUMENTS} are needed)"
        )
    if not any(p["verdict"] == "ranked" for p in pairs):
        return "all pairwise intervals include zero: no combination is ranked above another"
    return ""


def ranking_sentence(pair: dict[str, Any], fmt: Any) -> str:
    """One pair in words, with its interval and the documents and repeats it rests on.
    ``fmt``: value -> text in the metric's unit."""
    base = (
        f"{pair['better']} - {pair['worse']}: {fmt(pair['difference'])} "
        f"[{fmt(pair['low'])} to {fmt(pair['high'])}], "
        f"{pair['documents']} documents x {pair['repeats']} repeats"
    )
    if pair["verdict"] == "ranked":
        return f"{pair['better']} better than {pair['worse']} ({base})"
    if pair["verdict"] == "too few documents":
        return f"not ranked, too few documents ({base})"
    return f"not ranked, the interval includes zero ({base})"
