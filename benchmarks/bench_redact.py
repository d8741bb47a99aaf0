"""Time ``engine.redact.redact`` on about 5 MB of trace-like text with one registered key.

Usage: ``uv run python benchmarks/bench_redact.py [--mb 5] [--repeat 3]``

The text mixes prose, HTML markup, a long base64 value, hex digits and JSON escapes (the
shapes a trace holds), with no secret in it except one echoed key near the end, so the
figure is the cost of looking for every masked form (docs/agent.md, "Secrets"). Prints
the best of ``--repeat`` runs in seconds and MB/s.
"""

from __future__ import annotations

import argparse
import base64
import random
import time

from engine.redact import MASK, forget_all, redact, remember

KEY = "sk-proj-S3CR3Tk3yZ9xQ7wV2bN4mL8pA1sD6fG0hJ"


def sample(mb: float) -> str:
    """About ``mb`` megabytes of mixed trace-like text, ending with one hex echo of KEY."""
    rng = random.Random(7)
    words = [
        "the",
        "agent",
        "revised",
        "section",
        "budget",
        "memo",
        "review",
        "comment",
        "anchor",
        "quote",
    ]
    parts: list[str] = []
    size = 0
    while size < mb * 1_000_000:
        kind = rng.randrange(4)
        if kind == 0:
            piece = " ".join(rng.choice(words) for _ in range(200)) + ". "
        elif kind == 1:
            piece = "".join(
                f'<p class="c{i}">&amp; {rng.choice(words)} &#8212;</p>' for i in range(40)
            )
        elif kind == 2:
            piece = base64.b64encode(rng.randbytes(3000)).decode()
        else:
            piece = rng.randbytes(1500).hex() + "\\n\\u0041 "
        parts.append(piece)
        size += len(piece)
    parts.append(" key=" + KEY.encode().hex())
    return "".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=5.0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    text = sample(args.mb)
    forget_all()
    remember(KEY)
    best = float("inf")
    out = text
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        out = redact(text)
        best = min(best, time.perf_counter() - t0)
    masked = MASK in out[-200:]
    print(
        f"redact: {len(text) / 1e6:.1f} MB in {best:.3f} s "
        f"({len(text) / 1e6 / best:.1f} MB/s); echoed hex key masked: {masked}"
    )


if __name__ == "__main__":
    main()
