"""Pricing a suite before spending: tokens per run from a model of the document size, the
comments and the rounds, times runs; currency only where the user gave prices.

The model (``docs/suites.md`` shows it with an example) is deliberately simple and says
its range instead of pretending to precision:

- ``S`` system prompt + tool schemas, ``D`` document, ``C`` the comments as the agent sees
  them (quote, context, body), all in tokens.
- Tools mode, one round of ``t`` turns: every turn re-sends the conversation, so input is
  ``t*(S+C) + (t-2)*D`` (the pulled document stays in context from the third turn on) plus
  ``(t-3)*D`` once the pushed document is in it; output is ``D`` (the pushed document) plus
  about 40 tokens per comment and 30 per turn. ``t`` runs from 3 (list, pull, push with
  resolves batched) to ``3 + n`` (one turn per resolve), capped by the turn limit.
- No-tools mode, one round: one request ``S + C + D`` in, ``D`` plus 50 per comment out.
- The report call each round: ``S + C`` plus 200 in, 60 per comment out.
- Rounds from 1 (all fixed at once) to the suite's round limit.

Low = fewest turns and one round; high = most turns and every round; the central figure is
the midpoint in turns and rounds. Document tokens come from ``tiktoken`` when it is
installed and its encoding is available offline, else from an estimate (about 4 characters
per token for alphabetic scripts, 1 per character for CJK and other scripts without
spaces) that is labelled as such.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from typing import Any

from engine.redact import clean_url
from engine.suite.suite import ModelSpec, Suite, SuiteItem, expand_items, suite_disclosure

__all__ = ["Estimate", "ItemEstimate", "count_tokens", "estimate_suite", "token_counter_name"]

_TIKTOKEN: Any = None
_TIKTOKEN_TRIED = False


def _tiktoken() -> Any:
    global _TIKTOKEN, _TIKTOKEN_TRIED
    if not _TIKTOKEN_TRIED:
        _TIKTOKEN_TRIED = True
        try:  # optional: only when installed and its encoding is on disk (no network here)
            import tiktoken

            _TIKTOKEN = tiktoken.get_encoding("o200k_base")
        except Exception:
            _TIKTOKEN = None
    return _TIKTOKEN


def token_counter_name() -> str:
    """How tokens are counted: ``"tiktoken o200k_base"`` or the estimate's description."""
    if _tiktoken() is not None:
        return "tiktoken o200k_base"
    return "estimated (no tokenizer installed: ~4 characters per token, 1 per CJK character)"


def _dense(ch: str) -> bool:
    o = ord(ch)
    return (
        0x2E80 <= o <= 0x9FFF  # CJK radicals .. unified ideographs, kana
        or 0xAC00 <= o <= 0xD7AF  # Hangul
        or 0xF900 <= o <= 0xFAFF
        or 0x0E00 <= o <= 0x0EFF  # Thai, Lao
        or 0x1780 <= o <= 0x17FF  # Khmer
        or 0x20000 <= o <= 0x3FFFF
    )


def count_tokens(text: str) -> int:
    """Tokens in ``text``: by tiktoken when available, else the estimate above."""
    enc = _tiktoken()
    if enc is not None:
        return len(enc.encode(text, disallowed_special=()))
    dense = sum(1 for ch in text if _dense(ch))
    return dense + math.ceil((len(text) - dense) / 4)


@dataclass(frozen=True)
class ItemEstimate:
    """Token estimate of one run: (low, central, high) input and output tokens."""

    key: str
    model: str
    input: tuple[int, int, int]
    output: tuple[int, int, int]

    @property
    def total(self) -> tuple[int, int, int]:
        return tuple(i + o for i, o in zip(self.input, self.output))  # type: ignore[return-value]


@dataclass
class Estimate:
    """A suite's estimate. ``per_model``: model name -> dict with ``runs``, ``tokens``
    (low, central, high), ``input``/``output`` (central), ``cost`` (low, central, high) or
    None when the model has no prices, ``currency``. ``total_tokens`` (low, central, high);
    ``total_cost`` (low, central, high) or None when any model is unpriced
    (``unpriced`` names them)."""

    items: list[ItemEstimate]
    per_model: dict[str, dict[str, Any]]
    total_tokens: tuple[int, int, int]
    total_cost: tuple[float, float, float] | None
    unpriced: list[str]
    counter: str

    def to_json(self) -> dict[str, Any]:
        return {
            "token_counter": self.counter,
            "per_model": self.per_model,
            "total_tokens": {
                "low": self.total_tokens[0],
                "central": self.total_tokens[1],
                "high": self.total_tokens[2],
            },
            "total_cost": None
            if self.total_cost is None
            else {
                "low": self.total_cost[0],
                "central": self.total_cost[1],
                "high": self.total_cost[2],
            },
            "unpriced_models": self.unpriced,
        }


def _comment_tokens(comments: list[Any]) -> int:
    return sum(
        count_tokens(c.body)
        + count_tokens(c.anchor.quote)
        + count_tokens(c.anchor.prefix + c.anchor.suffix)
        + 25
        for c in comments
    )


@functools.lru_cache(maxsize=32)
def _instruction_tokens(system_prompt: str) -> tuple[int, int]:
    """(system prompt, tool schemas) in tokens: counted once per variant, not per run."""
    from engine.agent.tools import TOOLS

    return count_tokens(system_prompt), count_tokens(json.dumps(TOOLS))


def estimate_item(
    item: SuiteItem, suite: Suite, doc_tokens: int, comment_tokens: int, n_comments: int
) -> ItemEstimate:
    """One run's (low, central, high) input and output tokens under the model above."""
    from engine.agent.revision import SYSTEM_PROMPT

    s, tools = _instruction_tokens(item.variant.system_prompt(SYSTEM_PROMPT))
    d, c, n = doc_tokens, comment_tokens, n_comments
    rounds_hi = suite.rounds
    turn_cap = suite.turns_per_round or 16
    mode = item.model.mode or "tools"

    def one_round(turns: int) -> tuple[int, int]:
        if mode == "no-tools":
            return s + c + d, d + 50 * n
        inp = turns * (s + tools + c) + max(0, turns - 2) * d + max(0, turns - 3) * d
        return inp, d + 40 * n + 30 * turns

    def run(turns: int, rounds: int) -> tuple[int, int]:
        wi, wo = one_round(turns)
        ri, ro = s + c + 200, 60 * n
        return rounds * (wi + ri), rounds * (wo + ro)

    t_lo = min(turn_cap, 3)
    t_hi = min(turn_cap, 3 + n)
    lo = run(t_lo, 1)
    hi = run(t_hi, rounds_hi)
    mid = run(round((t_lo + t_hi) / 2), max(1, round((1 + rounds_hi) / 2)))
    return ItemEstimate(item.key, item.model.name, (lo[0], mid[0], hi[0]), (lo[1], mid[1], hi[1]))


def estimate_suite(suite: Suite, items: list[SuiteItem] | None = None) -> Estimate:
    """Estimate every run of ``suite`` (or of ``items``, e.g. one shard). Calls no model.
    Raises SuiteError when a document or comments file cannot be read."""
    from engine.suite.suite import load_item_comments

    items = expand_items(suite) if items is None else items
    cache: dict[str, tuple[int, int, int]] = {}
    out: list[ItemEstimate] = []
    for it in items:
        if it.document.name not in cache:
            kind, raw, comments = load_item_comments(it)
            open_ = [c for c in comments if c.status == "open" and c.actionable]
            cache[it.document.name] = (count_tokens(raw), _comment_tokens(open_), len(open_))
        d, c, n = cache[it.document.name]
        out.append(estimate_item(it, suite, d, c, n))
    models = {m.name: m for m in suite.models}
    per_model: dict[str, dict[str, Any]] = {}
    for m in suite.models:
        mine = [e for e in out if e.model == m.name]
        tok = tuple(sum(e.total[k] for e in mine) for k in range(3))
        inp = tuple(sum(e.input[k] for e in mine) for k in range(3))
        outp = tuple(sum(e.output[k] for e in mine) for k in range(3))
        cost = _cost(models[m.name], inp, outp)
        per_model[m.name] = {
            "model": m.model,
            "base_url": clean_url(m.base_url)[0],
            "runs": len(mine),
            "tokens": list(tok),
            "input": list(inp),
            "output": list(outp),
            "cost": None if cost is None else list(cost),
            "currency": m.currency,
        }
    total = tuple(sum(v["tokens"][k] for v in per_model.values()) for k in range(3))
    unpriced = [n for n, v in per_model.items() if v["cost"] is None and v["runs"]]
    total_cost = None
    if not unpriced:
        total_cost = tuple(
            sum(v["cost"][k] for v in per_model.values() if v["cost"]) for k in range(3)
        )
    return Estimate(
        out,
        per_model,
        total,
        total_cost,
        unpriced,
        token_counter_name(),
    )


def _cost(m: ModelSpec, inp: tuple[int, ...], outp: tuple[int, ...]) -> tuple[float, ...] | None:
    if not m.priced:
        return None
    return tuple(m.cost(i, o) or 0.0 for i, o in zip(inp, outp))


def render_estimate(est: Estimate, suite: Suite) -> str:
    """The plain table ``arl suite estimate`` prints."""
    lines = [
        f"Suite {suite.name}: {len(est.items)} run(s) "
        f"({len(suite.documents)} document(s) x {len(suite.models)} model(s) x "
        f"{len(suite.variants)} variant(s) x {suite.repeats} repeat(s)), "
        f"up to {suite.rounds} round(s) each.",
        f"Tokens: {est.counter}.",
        "",
    ]
    head = f"{'model':<24} {'runs':>5} {'tokens (central)':>17} {'range':>25} {'cost':>26}"
    lines += [head, "-" * len(head)]
    for name, v in est.per_model.items():
        lo, mid, hi = v["tokens"]
        if v["cost"] is None:
            cost = "no prices given"
        else:
            cur = f" {v['currency']}" if v["currency"] else ""
            cost = f"{v['cost'][1]:.2f}{cur} ({v['cost'][0]:.2f}-{v['cost'][2]:.2f})"
        lines.append(f"{name[:24]:<24} {v['runs']:>5} {mid:>17,} {f'{lo:,}-{hi:,}':>25} {cost:>26}")
    lo, mid, hi = est.total_tokens
    if est.total_cost is None:
        tc = "N/A — no prices for " + ", ".join(est.unpriced)
    else:
        tc = f"{est.total_cost[1]:.2f} ({est.total_cost[0]:.2f}-{est.total_cost[2]:.2f})"
    lines += [
        "-" * len(head),
        f"{'total':<24} {len(est.items):>5} {mid:>17,} {f'{lo:,}-{hi:,}':>25} {tc:>26}",
        "",
        "The range runs from one round with the fewest turns to every round with the "
        "most; real runs usually fall inside it but a looping model can exceed it. "
        "Currency appears only where the suite gives prices per million tokens.",
        "",
        *suite_disclosure(suite),
    ]
    return "\n".join(lines)
