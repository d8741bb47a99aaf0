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

__all__ = ["metric_cells", "rank", "ranking_sentence"]


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
    adjusted = holm([d["p"] for _, _, d in raw])
    order = sorted(range(len(raw)), key=lambda i: (raw[i][2]["p"], i))
    pairs = []
    for i, (a, b, d) in enumerate(raw):
        step = order.index(i)
        level = 1 - ALPHA / (len(raw) - step)
        draws = d["_draws"]
        lo, hi = (float(x) for x in np.quantile(draws, [(1 - level) / 2, (1 + level) / 2]))
        a_first = (d["difference"] >= 0) == higher_is_better
        better, worse = (a, b) if a_first else (b, a)
        if not a_first:
            lo, hi = -hi, -lo
        if d["documents"] < MIN_DOCUMENTS:
            verdict = "too few documents"
        elif adjusted[i] < ALPHA and (lo > 0 or hi < 0):
            verdict = "ranked"
        else:
            verdict = "interval includes zero"
        pairs.append(
            {
                "better": better,
                "worse": worse,
                "difference": abs(d["difference"]),
                "low": lo,
                "high": hi,
                "level": level,
                "p": d["p"],
                "p_holm": adjusted[i],
                "documents": d["documents"],
                "repeats": d["repeats"],
                "verdict": verdict,
            }
        )
    ranked = [p for p in pairs if p["verdict"] == "ranked"]
    return {
        "pairs": pairs,
        "ranked": [[p["better"], p["worse"]] for p in ranked],
        "note": _note(cells, pairs),
    }


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
