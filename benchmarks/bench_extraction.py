"""Throughput of engine.html_text on real pages and on a synthetic ~1 MB page.

Prints figures; it is not a test. Run from the repository root:

    uv run python benchmarks/bench_extraction.py [--pages DIR] [--repeat N]

For each input it times (best of N runs, wall clock):

- parse:     decode_html + justhtml parse alone (the floor: what any exact extraction costs)
- body_text: bytes -> document.body.textContent
- extract:   bytes -> Extraction (text + markup index)
- signature: one markup_signature call on a ~200-character range, averaged

MB/s counts input bytes (10^6 bytes per MB). The real pages are the Standard Ebooks XHTML
files in /work/shared/data/standardebooks (public domain); the synthetic page repeats their
<body> contents, inside the head of the first page, until it passes 1,000,000 bytes.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from justhtml import JustHTML

from engine.encoding import decode_html
from engine.html_text import body_text, extract

DEFAULT_PAGES = Path("/work/shared/data/standardebooks")
BODY = re.compile(rb"<body[^>]*>(.*)</body>", re.S | re.I)


def best_of(repeat: int, fn) -> float:
    """Smallest wall-clock time of ``repeat`` calls of fn, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def parse_only(data: bytes) -> None:
    text, _ = decode_html(data)
    JustHTML(text, sanitize=False, scripting_enabled=True)


def synthetic_page(pages: list[bytes], target: int = 1_000_000) -> bytes:
    bodies = [m.group(1) for page in pages if (m := BODY.search(page))]
    head = pages[0][: BODY.search(pages[0]).start()]
    parts = [head, b"<body>"]
    size = len(head)
    i = 0
    while size < target:
        parts.append(bodies[i % len(bodies)])
        size += len(bodies[i % len(bodies)])
        i += 1
    parts.append(b"</body></html>")
    return b"".join(parts)


def measure(name: str, data: bytes, repeat: int) -> dict[str, float]:
    t_parse = best_of(repeat, lambda: parse_only(data))
    t_text = best_of(repeat, lambda: body_text(data))
    t_extract = best_of(repeat, lambda: extract(data))
    x = extract(data)
    rng = random.Random(1)
    n = len(x.text)
    ranges = [(s, min(n, s + 200)) for s in (rng.randrange(max(1, n - 200)) for _ in range(2000))]
    t0 = time.perf_counter()
    for start, end in ranges:
        x.markup_signature(start, end)
    t_sig = (time.perf_counter() - t0) / len(ranges)
    return {
        "bytes": len(data),
        "chars": n,
        "parse": t_parse,
        "body_text": t_text,
        "extract": t_extract,
        "signature": t_sig,
    }


def row(name: str, r: dict[str, float]) -> str:
    mb = r["bytes"] / 1e6
    return (
        f"{name:<44} {r['bytes'] / 1e3:>8.1f} {r['parse'] * 1e3:>9.1f} "
        f"{r['body_text'] * 1e3:>9.1f} {r['extract'] * 1e3:>9.1f} "
        f"{mb / r['extract']:>8.2f} {r['extract'] / r['parse']:>6.2f} {r['signature'] * 1e6:>8.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=Path, default=DEFAULT_PAGES)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    paths = sorted(args.pages.glob("*/*.xhtml"))
    if not paths:
        print(f"no *.xhtml pages under {args.pages}", file=sys.stderr)
        return 1
    pages = [p.read_bytes() for p in paths]

    print(f"python {sys.version.split()[0]}, best of {args.repeat}; times in ms, signature in µs")
    header = (
        f"{'input':<44} {'kB':>8} {'parse':>9} {'body_text':>9} {'extract':>9} "
        f"{'MB/s':>8} {'x/prs':>6} {'sig µs':>8}"
    )
    print(header)
    print("-" * len(header))
    results = []
    for path, data in zip(paths, pages):
        r = measure(path.name, data, args.repeat)
        results.append(r)
        print(row(f"{path.parent.name}/{path.name}", r))
    total_bytes = sum(r["bytes"] for r in results)
    total_extract = sum(r["extract"] for r in results)
    total_parse = sum(r["parse"] for r in results)
    print("-" * len(header))
    print(
        f"{len(results)} real pages, {total_bytes / 1e6:.2f} MB: extract {total_extract * 1e3:.0f} ms "
        f"({total_bytes / 1e6 / total_extract:.2f} MB/s), parse alone {total_parse * 1e3:.0f} ms "
        f"({total_bytes / 1e6 / total_parse:.2f} MB/s); median signature "
        f"{statistics.median(r['signature'] for r in results) * 1e6:.1f} µs"
    )
    print()
    big = synthetic_page(pages)
    r = measure("synthetic", big, args.repeat)
    print(header)
    print(row(f"synthetic ({r['chars']:,} chars of text)", r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
