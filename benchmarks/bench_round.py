"""Engine time per round of the review loop: everything except waiting on the model.

A 100 KB HTML document with 50 anchored comments; the scripted OpenAI-compatible server of
the tests plays an agent that fixes every comment, with zero latency. For each round the
run reports its wall time and the time spent inside model calls (HTTP to the local server
included); the engine's own time is the difference: tool calls and their workspace
transactions, events and the event log, re-anchoring and scoring (in a worker thread),
integrity control. Target: under 0.5 s per round on the 2-core reference machine.

    uv run python benchmarks/bench_round.py [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.agent.config import AgentConfig
from engine.models import Comment
from engine.run.start import prepare_document, run_review
from engine.score.scoring import Version, score
from engine.workspace import Workspace
from tests.helpers.scripted_server import FixEverything, ScriptedServer, make_comment

WORDS = [
    "review",
    "agent",
    "document",
    "version",
    "comment",
    "anchor",
    "quote",
    "verdict",
    "policy",
    "team",
    "office",
    "release",
    "change",
    "measure",
    "text",
    "people",
    "rule",
    "budget",
    "schedule",
    "request",
    "approval",
]


def make_document(target_bytes: int = 100_000, n_comments: int = 50):
    """(html, text, comments): paragraphs of varied sentences; one comment on a unique
    sentence fragment in evenly spaced paragraphs."""
    paras = []
    i = 0
    size = 0
    while size < target_bytes:
        sent = []
        for k in range(6):
            words = [WORDS[(i * 7 + k * 3 + j * 5) % len(WORDS)] for j in range(12)]
            sent.append(f"Item {i}.{k}: " + " ".join(words).capitalize() + ".")
        p = "<p>" + " ".join(sent) + "</p>"
        paras.append(p)
        size += len(p) + 1
        i += 1
    html = (
        "<!DOCTYPE html><html><head><title>Bench</title></head><body>\n<h1>Bench</h1>\n"
        + "\n".join(paras)
        + "\n</body></html>"
    )
    text = Version.from_source(html).text
    step = max(1, len(paras) // n_comments)
    comments = []
    for n in range(n_comments):
        quote = (
            f"Item {n * step}.2: "
            + " ".join(
                [WORDS[((n * step) * 7 + 2 * 3 + j * 5) % len(WORDS)] for j in range(4)]
            ).capitalize()
        )
        assert quote in text, quote
        comments.append(make_comment(text, quote, f"c{n + 1}", "Please reword this."))
    return html, text, comments


async def one_run(html: str, comments: list[dict], tmp: Path) -> tuple[list, float]:
    ws = Workspace(tmp / "ws.db")
    doc = prepare_document(ws, "Bench", html, "html", [Comment.from_json(c) for c in comments])
    with ScriptedServer(FixEverything()) as srv:
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model, max_turns_per_round=10)
        t0 = time.perf_counter()
        outcome = await run_review(ws, doc, cfg, rounds=1, out_dir=tmp / "bundles")
        total = time.perf_counter() - t0
    ws.close()
    assert outcome.status == "completed", outcome.reason
    assert outcome.metrics["attribution_rate"]["value"] == 1.0, outcome.metrics
    return outcome.round_times, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    html, text, comments = make_document()
    print(
        f"document: {len(html.encode()):,} bytes of HTML, {len(text):,} characters of text, "
        f"{len(comments)} comments"
    )
    engine_times, model_times, totals = [], [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as d:
            rounds, total = asyncio.run(one_run(html, comments, Path(d)))
        for wall, model in rounds:
            engine_times.append(wall - model)
            model_times.append(model)
        totals.append(total)
    # The scoring step alone, for the breakdown.
    v1 = Version.from_source(html)
    from tests.helpers.scripted_server import apply_fix

    html2 = html
    for c in comments:
        html2 = apply_fix(html2, c["anchor"])
    cs = [Comment.from_json(c) for c in comments]
    t0 = time.perf_counter()
    v2 = Version.from_source(html2, "html", "v2")
    result = score(v1, v2, cs)
    t_score = time.perf_counter() - t0
    assert result.metrics["attribution_rate"].value == 1.0
    med = statistics.median(engine_times)
    print(
        f"engine time per round: median {med:.3f} s, max {max(engine_times):.3f} s "
        f"(over {len(engine_times)} rounds; target < 0.5 s)"
    )
    print(f"  of which parsing v2 + scoring: {t_score:.3f} s")
    print(
        f"model time per round (scripted server, zero latency, HTTP included): median "
        f"{statistics.median(model_times):.3f} s"
    )
    print(f"whole run incl. bundle writing: median {statistics.median(totals):.3f} s")
    return 0 if med < 0.5 else 1


if __name__ == "__main__":
    sys.exit(main())
