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
from engine.vocabulary import plural

__all__ = [
    "Estimate",
    "ItemEstimate",
    "RunEstimate",
    "count_tokens",
    "estimate_run",
    "estimate_suite",
    "render_run_estimate",
    "run_tokens",
    "token_counter_name",
]

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


def run_tokens(
    system_prompt: str, mode: str, rounds: int, turn_cap: int, d: int, c: int, n: int
) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """One run's (low, central, high) input and output tokens under the model above:
    ``d`` document tokens, ``c`` comment tokens, ``n`` comments; ``mode`` "tools",
    "no-tools" or "auto" (priced as tools, its most); ``rounds`` the round limit,
    ``turn_cap`` the turns per round. The one estimate of a suite's run and of ``arl run``."""
    s, tools = _instruction_tokens(system_prompt)

    def one_round(turns: int) -> tuple[int, int]:
        if mode == "no-tools":
            return s + c + d, d + 50 * n
        inp = turns * (s + tools + c) + max(0, turns - 2) * d + max(0, turns - 3) * d
        return inp, d + 40 * n + 30 * turns

    def run(turns: int, rounds_: int) -> tuple[int, int]:
        wi, wo = one_round(turns)
        ri, ro = s + c + 200, 60 * n
        return rounds_ * (wi + ri), rounds_ * (wo + ro)

    t_lo = min(turn_cap, 3)
    t_hi = min(turn_cap, 3 + n)
    lo = run(t_lo, 1)
    hi = run(t_hi, rounds)
    mid = run(round((t_lo + t_hi) / 2), max(1, round((1 + rounds) / 2)))
    return (lo[0], mid[0], hi[0]), (lo[1], mid[1], hi[1])


def estimate_item(
    item: SuiteItem, suite: Suite, doc_tokens: int, comment_tokens: int, n_comments: int
) -> ItemEstimate:
    """One suite run's (low, central, high) input and output tokens (``run_tokens``)."""
    from engine.agent.revision import SYSTEM_PROMPT

    inp, out = run_tokens(
        item.variant.system_prompt(SYSTEM_PROMPT),
        item.model.mode or "tools",
        suite.rounds,
        suite.turns_per_round or 16,
        doc_tokens,
        comment_tokens,
        n_comments,
    )
    return ItemEstimate(item.key, item.model.name, inp, out)


@dataclass(frozen=True)
class RunEstimate:
    """A single run's estimate (``arl run``, the wizard): (low, central, high) tokens in
    and out; ``cost`` (low, central, high) in ``currency`` where the user gave both prices
    (per million tokens), else None; ``counter``: how tokens were counted."""

    input: tuple[int, int, int]
    output: tuple[int, int, int]
    cost: tuple[float, float, float] | None
    currency: str
    counter: str
    rounds: int

    @property
    def total(self) -> tuple[int, int, int]:
        return tuple(i + o for i, o in zip(self.input, self.output))  # type: ignore[return-value]


def estimate_run(
    raw: str,
    comments: list[Any],
    *,
    mode: str = "tools",
    rounds: int = 3,
    turns: int = 16,
    price_input: float | None = None,
    price_output: float | None = None,
    currency: str = "",
    system_prompt: str | None = None,
) -> RunEstimate:
    """Estimate one run of the agent on ``raw`` (the document's source) for ``comments``
    (``engine.models.Comment``; the open, actionable ones count) with the suite's model of
    a run (``run_tokens``). Calls no model. Prices: currency per million input and output
    tokens; a cost only when both are given."""
    from engine.agent.revision import SYSTEM_PROMPT

    open_ = [c for c in comments if c.status == "open" and c.actionable]
    inp, out = run_tokens(
        system_prompt or SYSTEM_PROMPT,
        mode,
        rounds,
        turns,
        count_tokens(raw),
        _comment_tokens(open_),
        len(open_),
    )
    cost = None
    if price_input is not None and price_output is not None:
        cost = tuple((i * price_input + o * price_output) / 1_000_000 for i, o in zip(inp, out))
    return RunEstimate(inp, out, cost, currency, token_counter_name(), rounds)  # type: ignore[arg-type]


def render_run_estimate(
    est: RunEstimate, price_hint: str = "arl run --price-input and --price-output"
) -> str:
    """The estimate in words, as ``arl run`` prints it and the wizard shows it: tokens
    (central, range), cost where prices were given (else where to give them:
    ``price_hint``), how tokens were counted."""
    lo, mid, hi = est.total
    lines = [
        f"Estimate: about {mid:,} tokens ({lo:,} to {hi:,}: one round with the fewest turns "
        f"to {plural(est.rounds, 'round')} with the most; a looping model can exceed it).",
    ]
    if est.cost is None:
        lines.append(f"Cost: no prices given ({price_hint}, per million tokens).")
    else:
        cur = f" {est.currency}" if est.currency else ""
        lines.append(
            f"Cost: about {est.cost[1]:.4f}{cur} ({est.cost[0]:.4f} to {est.cost[2]:.4f})."
        )
    lines.append(f"Tokens: {est.counter}.")
    return "\n".join(lines)


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
        f"Suite {suite.name}: {plural(len(est.items), 'run')} "
        f"({plural(len(suite.documents), 'document')} x {plural(len(suite.models), 'model')} x "
        f"{plural(len(suite.variants), 'variant')} x {plural(suite.repeats, 'repeat')}), "
        f"up to {plural(suite.rounds, 'round')} each.",
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
