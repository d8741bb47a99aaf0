"""A suite's report: per model and variant, each of the five metrics as the mean over its
runs with the spread between repeats; tokens and cost per attributed fix; failures and
their reasons; the same split by document size; a ranking that refuses to rank what the
spread cannot separate; and the CI gate.

The statistics (``docs/suites.md``, "Statistics"; ``engine.suite.stats``): every metric
is reported with its 95% interval from a seeded hierarchical bootstrap over documents x
repeats (a single run's rates: their Wilson interval); combinations are compared by the
interval of their difference paired by document, Holm-adjusted over the pairs compared
(``engine.suite.ranking``), and ranked only where it excludes zero. A run whose bundle is
TAMPERED is left out of the statistics and counted as a failure with its reason.

The gate: a threshold is PASS when the whole interval meets it; FAIL when the whole
interval misses it; UNVERIFIED when the metric is N/A or the threshold lies inside the
interval. Only PASS passes: an UNVERIFIED threshold exits 4 like a FAIL, and says why.

Everything here is computed from ``ItemResult`` rows sorted by key, so a report made from
merged shards equals the report of one machine running the whole suite.

Why this file is over 500 lines: the report, its ranking, the gate, the comparison and the
words both the CLI and the desktop tab print stay together, so they cannot drift apart.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from engine.suite.ranking import holm_intervals, metric_cells, rank, ranking_sentence
from engine.suite.stats import interval, wilson
from engine.suite.store import ItemResult
from engine.suite.token_share import token_edit_share, token_share_text
from engine.vocabulary import percent, plain_reason

__all__ = [
    "HIGHER_IS_BETTER",
    "METRICS",
    "REPORT_ROWS",
    "GateResult",
    "build_report",
    "combination_cell",
    "compare_line",
    "compare_runs",
    "gate",
    "mark_tampered",
    "noise_notes",
    "parse_thresholds",
    "render_report",
    "run_cells",
    "trend_note",
    "trend_points",
]

METRICS = (
    "attribution_rate",
    "collateral_churn",
    "claim_accuracy",
    "cost_per_attributed_fix",
    "rounds_to_converge",
)
HIGHER_IS_BETTER = {
    "attribution_rate": True,
    "collateral_churn": False,
    "claim_accuracy": True,
    "cost_per_attributed_fix": False,
    "rounds_to_converge": False,
}
LABELS = {
    "attribution_rate": "attribution",
    "collateral_churn": "collateral churn",
    "claim_accuracy": "claim accuracy",
    "cost_per_attributed_fix": "tokens per fix (run mean)",
    "rounds_to_converge": "rounds to converge",
}
RATIO = {"attribution_rate", "collateral_churn", "claim_accuracy"}


def _stats(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0, "mean": None, "min": None, "max": None, "stdev": None}
    return {
        "n": len(values),
        "mean": statistics.fmean(values),
        "min": min(values),
        "max": max(values),
        "stdev": statistics.stdev(values) if len(values) > 1 else None,
    }


def _interval(rows: list[ItemResult], name: str, seed: int, key: str) -> dict[str, Any] | None:
    """The metric's 95% interval over documents x repeats (``engine.suite.stats``); for a
    single run's rate, its Wilson interval; None when nothing was measured."""
    cells = metric_cells(rows, name)
    if not cells:
        return None
    measured = [r for r in rows if ((r.metrics or {}).get(name) or {}).get("value") is not None]
    if len(measured) == 1 and name in RATIO:
        m = (measured[0].metrics or {})[name]
        w = wilson(float(m.get("numerator") or 0), float(m.get("denominator") or 0))
        if w is not None:
            return {
                "mean": float(m["value"]),
                "low": w[0],
                "high": w[1],
                "documents": 1,
                "repeats": 1,
                "method": "wilson",
            }
    return interval(cells, seed, key)


def _metric_block(
    rows: list[ItemResult], name: str, seed: int = 0, key: str = ""
) -> dict[str, Any]:
    values = []
    na: Counter[str] = Counter()
    by_repeat: dict[int, list[float]] = {}
    for r in rows:
        m = (r.metrics or {}).get(name) or {}
        v = m.get("value")
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            values.append(float(v))
            by_repeat.setdefault(r.repeat, []).append(float(v))
        else:
            na[plain_reason(str(m.get("reason") or "not measured"))] += 1
    out = _stats(values)
    repeat_means = [statistics.fmean(v) for _, v in sorted(by_repeat.items())]
    out["repeat_means"] = repeat_means
    out["spread"] = (max(repeat_means) - min(repeat_means)) if len(repeat_means) > 1 else None
    out["na"] = sum(na.values())
    out["na_reasons"] = [{"reason": k, "runs": n} for k, n in na.most_common(3)]
    out["interval"] = _interval(rows, name, seed, f"{key}|{name}")
    return out


def na_summary(block: dict[str, Any]) -> str:
    """Why a metric is N/A across a combination's runs, counted: "in all 8 runs: the
    provider reported no token usage" (or the commonest reasons with their counts)."""
    reasons = block.get("na_reasons") or []
    if not reasons:
        return "no finished run"
    total = block.get("na", 0)
    first = reasons[0]
    if len(reasons) == 1:
        return f"in {'all ' if total > 1 else ''}{plural_runs(total)}: {first['reason']}"
    rest = sum(r["runs"] for r in reasons[1:])
    return f"in {plural_runs(total)}; {first['runs']}: {first['reason']}; {rest} for other reasons"


def plural_runs(n: int) -> str:
    return f"{n} run" + ("" if n == 1 else "s")


def _combo_key(r: ItemResult) -> tuple[str, str]:
    return r.model, r.variant


def mark_tampered(items: list[ItemResult], tampered: dict[str, str]) -> list[ItemResult]:
    """``items`` sorted by key, each run in ``tampered`` (key -> why) made a failure whose
    reason reads "TAMPERED: why"."""
    return [
        replace(r, status="failed", reason=f"TAMPERED: {tampered[r.key]}")
        if r.key in tampered
        else r
        for r in sorted(items, key=lambda r: r.key)
    ]


def build_report(
    items: list[ItemResult],
    *,
    name: str = "",
    fingerprint: str = "",
    seed: int = 0,
    tampered: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The report as JSON-ready data. ``items``: every run of the suite (any status);
    ``seed``: the suite's seed, which seeds every interval (``engine.suite.stats``);
    ``tampered``: run key -> why its bundle fails its checks; such a run is left out of
    the statistics and counted as a failure with that reason."""
    items = mark_tampered(items, tampered or {})
    combos: dict[tuple[str, str], list[ItemResult]] = {}
    for r in items:
        combos.setdefault(_combo_key(r), []).append(r)
    out_combos = [
        _combination(model, variant, rows, seed)
        for (model, variant), rows in sorted(combos.items())
    ]
    done = {
        f"{m} / {v}": [r for r in rows if r.status == "finished"]
        for (m, v), rows in sorted(combos.items())
    }
    return {
        "suite": name,
        "fingerprint": fingerprint,
        "seed": seed,
        "runs": len(items),
        "documents": len({r.document for r in items}),
        "combinations": out_combos,
        "ranking": {m: rank(done, m, seed, HIGHER_IS_BETTER[m]) for m in METRICS},
    }


def _combination(model: str, variant: str, rows: list[ItemResult], seed: int = 0) -> dict[str, Any]:
    """One model and variant's block of the report: counts, failures, the five metrics,
    tokens and cost per fix, and the split by document size."""
    done = [r for r in rows if r.status == "finished"]
    failed = [r for r in rows if r.status == "failed"]
    other = [r for r in rows if r.status not in ("finished", "failed")]
    block: dict[str, Any] = {
        "model": model,
        "model_id": rows[0].model_id,
        "base_url": rows[0].base_url,
        "variant": variant,
        "instructions_hash": sorted({r.instructions_hash for r in rows}),
        "runs": len(rows),
        "finished": len(done),
        "failed": len(failed),
        "not_run": len(other),
        "failures": [
            {"reason": k, "runs": n}
            for k, n in Counter(r.reason or r.run_status for r in failed).most_common()
        ],
        "metrics": {m: _metric_block(done, m, seed, f"{model} / {variant}") for m in METRICS},
    }
    edited = sum(
        int(((r.metrics or {}).get("attribution_rate") or {}).get("numerator") or 0) for r in done
    )
    tok_known = [r for r in done if r.tokens is not None]
    tokens = sum(r.tokens or 0 for r in tok_known)
    block["tokens"] = tokens
    block["tokens_unreported_runs"] = len(done) - len(tok_known)
    block["edited"] = edited
    block["tokens_per_fix"] = _tokens_per_fix(done, tokens, edited, block["tokens_unreported_runs"])
    block["cost_per_fix"] = _cost_per_fix(done, edited)
    block["by_size"] = _by_size(rows, done)
    block["token_edit_share"] = token_edit_share(done)
    return block


def _tokens_per_fix(
    done: list[ItemResult], tokens: int, edited: int, unreported: int
) -> dict[str, Any]:
    """Tokens of the finished runs per attributed fix, or N/A with the reason."""
    if not done:
        return {"value": None, "reason": "no finished run"}
    if unreported:
        return {
            "value": None,
            "reason": f"the provider reported no usage for {plural_runs(unreported)}",
        }
    if not edited:
        return {"value": None, "reason": "no attributed fix"}
    return {"value": tokens / edited, "numerator": tokens, "denominator": edited}


def _cost_per_fix(done: list[ItemResult], edited: int) -> dict[str, Any]:
    """Money of the finished runs per attributed fix, or N/A with the reason."""
    costs = [r.cost for r in done]
    if done and all(c is not None for c in costs) and edited:
        total = sum(c or 0.0 for c in costs)
        return {"value": total / edited, "numerator": total, "denominator": edited}
    why = (
        "no attributed fix"
        if done and edited == 0
        else "no prices given for this model, or usage unreported"
        if done
        else "no finished run"
    )
    return {"value": None, "reason": why}


def _by_size(rows: list[ItemResult], done: list[ItemResult]) -> dict[str, Any]:
    """Each metric's mean over the finished runs of each document size present."""
    return {
        size: {
            m: _stats(
                [
                    float(v)
                    for r in done
                    if r.size == size
                    for v in [((r.metrics or {}).get(m) or {}).get("value")]
                    if isinstance(v, (int, float))
                ]
            )["mean"]
            for m in METRICS
        }
        | {"runs": sum(1 for r in done if r.size == size)}
        for size in ("small", "medium", "large")
        if any(r.size == size for r in rows)
    }


def _fmt(metric: str, v: float | None) -> str:
    if v is None:
        return "N/A"
    if metric in RATIO:
        return percent(v)
    if metric == "cost_per_attributed_fix":
        return f"{v:,.0f}"
    return f"{v:.1f}"


def interval_text(metric: str, iv: dict[str, Any] | None) -> str:
    """ "72% [61% to 80%] over 8 documents x 3 repeats", or the Wilson interval of one run."""
    if iv is None:
        return "N/A"
    body = f"{_fmt(metric, iv['mean'])} [{_fmt(metric, iv['low'])} to {_fmt(metric, iv['high'])}]"
    if iv["method"] == "wilson":
        return body + " (one run: Wilson interval of its rate)"
    return body + f" over {iv['documents']} documents x {iv['repeats']} repeats"


def diff_text(metric: str, v: float) -> str:
    """A difference in the metric's unit (percentage points for rates)."""
    if metric in RATIO:
        return f"{v * 100:+.0f} points"
    return f"{v:+,.1f}"


def instructions_names(reports: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """What people call each set of instructions in ``reports`` (``build_report`` outputs,
    oldest first): ``(variant, instructions hash) -> words``. A variant's instructions are
    called by the variant's name ("the “terse” instructions"; the program's own for
    ``default``); when the same variant gave the agent other instructions later (its file
    was edited), each later set is "changed, version N", N counted from 1 in order of
    first use. The hash itself stays in the JSON report, never on screen."""
    seen: dict[str, list[str]] = {}
    for rep in reports:
        for c in rep.get("combinations") or []:
            got = seen.setdefault(str(c.get("variant")), [])
            for h in c.get("instructions_hash") or []:
                if h not in got:
                    got.append(h)
    out: dict[tuple[str, str], str] = {}
    for variant, hashes in seen.items():
        base = (
            "the program's own instructions"
            if variant == "default"
            else f"the \u201c{variant}\u201d instructions"
        )
        for n, h in enumerate(hashes, 1):
            out[(variant, h)] = base if n == 1 else f"{base}, changed (version {n})"
    return out


def instructions_text(c: dict[str, Any], names: dict[tuple[str, str], str]) -> str:
    """A combination's instructions in words (``instructions_names``), several joined by
    "and" when they changed within the report."""
    variant = str(c.get("variant"))
    return " and ".join(
        names.get((variant, h), f"the \u201c{variant}\u201d instructions")
        for h in c.get("instructions_hash") or []
    )


def render_report(report: dict[str, Any]) -> str:
    """The plain-words report ``arl suite report`` prints."""
    lines = [f"Suite {report['suite']}: {plural_runs(report['runs'])}."]
    names = instructions_names([report])
    for c in report["combinations"]:
        changed = len(c["instructions_hash"]) > 1
        lines += [
            "",
            f"{c['model']} ({c['model_id']}) / variant {c['variant']}"
            + (f" ({instructions_text(c, names)})" if changed else "")
            + ": "
            f"{c['finished']} finished, {c['failed']} failed, {c['not_run']} not run",
        ]
        for m in METRICS:
            b = c["metrics"][m]
            if b["mean"] is None:
                lines.append(f"  {LABELS[m]:<26} N/A — {na_summary(b)}")
                continue
            na = f"; N/A in {plural_runs(b['na'])}" if b["na"] else ""
            lines.append(
                f"  {LABELS[m]:<26} {interval_text(m, b['interval'])} "
                f"(min {_fmt(m, b['min'])}, max {_fmt(m, b['max'])}{na})"
            )
        tpf = c["tokens_per_fix"]
        lines.append(
            "  tokens per fix (all runs): "
            + (
                f"{tpf['value']:,.0f} ({tpf['numerator']:,} tokens / {tpf['denominator']} fixes)"
                if tpf["value"] is not None
                else f"N/A — {tpf['reason']}"
            )
        )
        cpf = c["cost_per_fix"]
        lines.append(
            "  cost per attributed fix: "
            + (
                f"{cpf['value']:.4f} ({cpf['numerator']:.4f} / {cpf['denominator']} fixes)"
                if cpf["value"] is not None
                else f"N/A — {cpf['reason']}"
            )
        )
        lines.append("  token edits: " + token_share_text(c.get("token_edit_share") or {}))
        for f in c["failures"]:
            lines.append(f"  failed ({plural_runs(f['runs'])}): {f['reason']}")
        for size, s in c["by_size"].items():
            a = _fmt("attribution_rate", s["attribution_rate"])
            ch = _fmt("collateral_churn", s["collateral_churn"])
            lines.append(
                f"  {size} documents ({plural_runs(s['runs'])}): attribution {a}, churn {ch}"
            )
    lines.append("")
    lines.append(
        f"Rankings (95% intervals of paired differences, Holm-adjusted over the pairs "
        f"compared; bootstrap seed {report.get('seed', 0)}):"
    )
    for m in METRICS:
        r = report["ranking"][m]
        said = [ranking_sentence(p, lambda v, m=m: diff_text(m, v)) for p in r["pairs"]]
        if r["note"]:
            said.insert(0, r["note"])
        lines.append(f"  {LABELS[m]}: " + "; ".join(said))
    return "\n".join(lines)


# -- the CI gate ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GateResult:
    combination: str
    metric: str
    threshold: float
    direction: str  # "under" | "over"
    outcome: str  # PASS | FAIL | UNVERIFIED
    why: str

    def line(self) -> str:
        return f"{self.outcome:<10} {self.combination}: {LABELS[self.metric]} {self.why}"


def parse_thresholds(text: str | None) -> dict[str, float]:
    """``"attribution=0.6,claim_accuracy=0.8"`` -> {metric: value}. Short names
    (attribution, churn, claims, cost, rounds) are accepted. Raises ValueError."""
    if not text:
        return {}
    alias = {
        "attribution": "attribution_rate",
        "churn": "collateral_churn",
        "claims": "claim_accuracy",
        "cost": "cost_per_attributed_fix",
        "rounds": "rounds_to_converge",
    }
    out = {}
    for part in text.split(","):
        if "=" not in part:
            raise ValueError(f"{part!r}: write metric=value, e.g. attribution=0.6")
        k, v = (s.strip() for s in part.split("=", 1))
        k = alias.get(k, k)
        if k not in METRICS:
            raise ValueError(f"{k!r} is not a metric ({', '.join(METRICS)})")
        try:
            out[k] = float(v)
        except ValueError:
            raise ValueError(f"{v!r} is not a number") from None
    return out


def gate(
    report: dict[str, Any], under: dict[str, float], over: dict[str, float] | None = None
) -> list[GateResult]:
    """PASS / FAIL / UNVERIFIED per combination and threshold (see the module docstring).
    ``under``: fail when the mean is under the value; ``over``: when it is over."""
    out = []
    for c in report["combinations"]:
        name = f"{c['model']} / {c['variant']}"
        for direction, table in (("under", under), ("over", over or {})):
            for metric, thr in table.items():
                b = c["metrics"][metric]
                mean = b["mean"]
                if mean is None:
                    why = b["na_reasons"][0]["reason"] if b["na_reasons"] else "no finished run"
                    out.append(
                        GateResult(
                            name,
                            metric,
                            thr,
                            direction,
                            "UNVERIFIED",
                            f"N/A — {why}; the threshold {thr:g} cannot be checked",
                        )
                    )
                    continue
                out.append(_judge(name, metric, thr, direction, b["interval"]))
    return out


def _judge(name: str, metric: str, thr: float, direction: str, iv: dict[str, Any]) -> GateResult:
    """PASS when the whole 95% interval meets the threshold, FAIL when the whole interval
    misses it, UNVERIFIED when the threshold lies inside it (the data cannot tell)."""
    low, high = iv["low"], iv["high"]
    where = f"over {iv['documents']} documents x {iv['repeats']} repeats"
    span = f"[{low:.3g} to {high:.3g}] {where}"
    good, bad = (low >= thr, high < thr) if direction == "under" else (high <= thr, low > thr)
    if good:
        return GateResult(name, metric, thr, direction, "PASS", f"interval {span} meets {thr:g}")
    if bad:
        return GateResult(
            name, metric, thr, direction, "FAIL", f"interval {span} is wholly {direction} {thr:g}"
        )
    return GateResult(
        name,
        metric,
        thr,
        direction,
        "UNVERIFIED",
        f"mean {iv['mean']:.3g}, but the interval {span} contains {thr:g}: cannot tell",
    )


def compare_runs(a: list[ItemResult], b: list[ItemResult], seed: int = 0) -> list[dict[str, Any]]:
    """Two suite runs side by side, per combination present in both and per metric: the
    means, ``delta`` (b - a) and the paired method of the ranking (``engine.suite.stats.
    paired``): the interval of b - a paired by document (the documents both measured, the
    same documents drawn for both), Holm-adjusted over the combinations compared on that
    metric, ``verdict`` "better"/"worse" only where the adjusted interval excludes zero on
    at least ``MIN_DOCUMENTS`` documents. ``a``/``b``: finished, untampered runs of each
    suite run; ``seed``: the later suite run's seed."""
    from engine.suite.stats import MIN_DOCUMENTS, paired

    def by_combo(rows: list[ItemResult]) -> dict[str, list[ItemResult]]:
        out: dict[str, list[ItemResult]] = {}
        for r in sorted(rows, key=lambda r: r.key):
            if r.status == "finished":
                out.setdefault(f"{r.model} / {r.variant}", []).append(r)
        return out

    ca, cb = by_combo(a), by_combo(b)
    rows: list[dict[str, Any]] = []
    for m in METRICS:
        measured = []
        for name in sorted(set(ca) & set(cb)):
            xa, xb = metric_cells(ca[name], m), metric_cells(cb[name], m)
            d = paired(xb, xa, seed, f"compare|{m}|{name}") if xa and xb else None
            row = {
                "combination": name,
                "metric": m,
                "a": _point(xa),
                "b": _point(xb),
                "delta": None if d is None else d["difference"],
                "low": None,
                "high": None,
                "documents": 0 if d is None else d["documents"],
                "repeats": 0 if d is None else d["repeats"],
                "verdict": "N/A" if not (xa and xb) else "no document measured by both",
            }
            rows.append(row)
            if d is not None:
                measured.append((row, d))
        for (row, d), j in zip(measured, holm_intervals([d for _, d in measured])):
            row["low"], row["high"] = j["low"], j["high"]
            if j["verdict"] == "too few documents":
                row["verdict"] = (
                    f"too few documents in common to tell ({d['documents']}; at least "
                    f"{MIN_DOCUMENTS} are needed)"
                )
            elif j["verdict"] == "ranked":
                row["verdict"] = "better" if (j["low"] > 0) == HIGHER_IS_BETTER[m] else "worse"
            else:
                row["verdict"] = "the paired interval includes zero: cannot tell"
    return sorted(rows, key=lambda r: (r["combination"], METRICS.index(r["metric"])))


def _point(cells: dict[str, list[float]]) -> float | None:
    """The mean over documents of each document's repeat mean (as the intervals)."""
    if not cells:
        return None
    return statistics.fmean(statistics.fmean(v) for v in cells.values())


def compare_line(row: dict[str, Any]) -> str:
    """One row of ``compare_runs`` in words: "attribution 60% -> 80% (+20 points [+5 to
    +35 points] over 8 documents x 3 repeats: better)"."""
    m = row["metric"]
    head = f"{row['combination']}: {LABELS[m]} {_fmt(m, row['a'])} -> {_fmt(m, row['b'])}"
    if row["delta"] is None:
        return f"{head} ({row['verdict']})"
    span = (
        ""
        if row["low"] is None
        else f" [{diff_text(m, row['low'])} to {diff_text(m, row['high'])}]"
    )
    return (
        f"{head} ({diff_text(m, row['delta'])}{span} over {row['documents']} documents x "
        f"{row['repeats']} repeats: {row['verdict']})"
    )


# -- words for tables (the CLI's report and the desktop tab say the same) -------------------

REPORT_ROWS = (*METRICS, "tokens_per_fix", "token_edit_share", "runs")
"""Rows of the report table: the five metrics, tokens per fix over all runs, the token-edit
share, run counts."""
ROW_LABELS = {
    **LABELS,
    "tokens_per_fix": "tokens per fix (all runs)",
    "token_edit_share": "token edits",
    "runs": "runs",
}
RUN_STATUS_WORDS = {
    "queued": "waiting",
    "running": "running…",
    "finished": "finished",
    "failed": "failed",
    "stopped": "stopped (resumable)",
}


def combination_cell(combo: dict[str, Any], row: str) -> str:
    """One report-table cell: a metric's mean with its spread, or N/A with the reason."""
    if row == "tokens_per_fix":
        t = combo["tokens_per_fix"]
        return f"{t['value']:,.0f}" if t["value"] is not None else f"N/A — {t['reason']}"
    if row == "token_edit_share":
        return token_share_text(combo.get("token_edit_share") or {})
    if row == "runs":
        return f"{combo['finished']} finished, {combo['failed']} failed, {combo['not_run']} not run"
    b = combo["metrics"][row]
    if b["mean"] is None:
        return "N/A — " + na_summary(b)
    return interval_text(row, b["interval"])


def noise_notes(report: dict[str, Any]) -> list[str]:
    """Plain sentences on what the ranking can and cannot say, per metric."""
    notes = []
    for m in METRICS:
        r = report["ranking"].get(m, {})
        if r.get("note"):
            notes.append(f"{LABELS[m]}: {r['note']}.")
        for p in r.get("pairs", []):
            if p["verdict"] == "ranked":
                notes.append(f"{LABELS[m]}: {ranking_sentence(p, lambda v, m=m: diff_text(m, v))}.")
    return notes


def run_cells(it: ItemResult) -> list[str]:
    """A run's row: document, model / variant, repeat, status, attribution, tokens."""
    from engine import vocabulary

    att = (it.metrics or {}).get("attribution_rate") or {}
    if it.status != "finished":
        att_text = "—"
    elif vocabulary.metric_is_na(att):
        att_text = "N/A"
    else:
        att_text = vocabulary.metric_text("attribution_rate", att)
    tokens = "unreported" if it.tokens is None else f"{it.tokens:,}"
    if vocabulary.never_reached_of(it.metrics):  # nothing measured, not "unreported"
        tokens = f"N/A: {vocabulary.NEVER_REACHED}"
    if it.status not in ("finished", "failed"):
        tokens = "—"
    status = RUN_STATUS_WORDS.get(it.status, it.status)
    if it.status == "failed" and it.reason:
        status = f"failed: {it.reason}"
    return [it.document, f"{it.model} / {it.variant}", str(it.repeat), status, att_text, tokens]


def trend_note(point: dict[str, Any]) -> str:
    """What a trend point (``trend_points``) leaves out, in words: "" when every bundle
    passed its checks, else e.g. "1 run left out of the figures: its bundle is TAMPERED
    (a figure was changed)" (the first run's reason)."""
    bad = point.get("tampered") or {}
    if not bad:
        return ""
    why = bad[sorted(bad)[0]]
    whose = "its bundle is" if len(bad) == 1 else "their bundles are"
    return f"{plural_runs(len(bad))} left out of the figures: {whose} TAMPERED ({why})"


def trend_points(
    results: dict[str, Any], items: list[ItemResult], tampered: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The trend's points, oldest first: every suite run of the same suite name in the
    user's results store, and the one shown (``results``: its results-file data, with
    ``suite``, ``suite_id``, ``started_at``, ``app_version``, ``fingerprint``, ``seed``;
    ``items``: its runs; ``tampered``: its runs already checked, run key -> why, or None to
    check them here).

    Every point's runs are checked as ``arl suite report`` checks them
    (``engine.suite.tamper.tampered_runs``: signature and re-derived figures): a run whose
    bundle is TAMPERED is left out of that point's statistics and counted as failed, so no
    forged figure is drawn as if valid. Each point: ``date``, ``version``, ``suite_id``,
    ``report`` and ``tampered`` (run key -> why; empty when every bundle passes). Opens
    every bundle: run it off the UI thread. The store is a convenience: when it cannot be
    read, the trend has only this suite run."""
    from engine.suite.store import SuiteStore, SuiteStoreError
    from engine.suite.tamper import tampered_runs

    def point(
        run_items: list[ItemResult], meta: dict[str, Any], bad: dict[str, str] | None
    ) -> dict[str, Any]:
        bad = tampered_runs(run_items) if bad is None else bad
        report = build_report(
            run_items,
            name=str(meta.get("suite") or ""),
            fingerprint=str(meta.get("fingerprint") or ""),
            seed=int(meta.get("seed") or 0),
            tampered=bad,
        )
        return {
            "date": meta.get("started_at") or "",
            "version": meta.get("app_version", ""),
            "suite_id": meta.get("suite_id", ""),
            "report": report,
            "tampered": dict(bad),
        }

    points: list[dict[str, Any]] = []
    try:
        with SuiteStore() as store:
            earlier = [
                (store.items(run.id), run)
                for run in store.runs()
                if run.name == results["suite"] and run.id != results.get("suite_id")
            ]
    except (SuiteStoreError, OSError):
        earlier = []
    for run_items, run in earlier:
        meta = {
            "suite": run.name,
            "fingerprint": run.fingerprint,
            "seed": run.seed,
            "started_at": run.started_at,
            "app_version": run.app_version,
            "suite_id": run.id,
        }
        points.append(point(run_items, meta, None))
    points.append(point(items, results, tampered))
    return sorted(points, key=lambda p: p["date"])
