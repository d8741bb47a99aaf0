"""Throughput of engine.text.html_text on real pages, small and large: fast path vs reference.

Prints figures; it is not a test. Run from the repository root:

    uv run python benchmarks/bench_extraction.py [--pages DIR] [--repeat N] [--extra FILE ...]

Inputs:

- the Standard Ebooks XHTML files in /work/shared/data/standardebooks (public domain), each
  as it is (1-60 kB);
- large pages over 1 MB written at run time into a temporary folder from the same real
  data (never committed): every Standard Ebooks page body one after another, inside the head
  of the first page, repeated until the page passes 1, 3 and 10 MB;
- real large pages found on this machine, if present (``--extra`` adds more): the Rust
  documentation's ``core::arch::x86_64`` index (3.2 MB, dense markup), its reference in one
  page (4.4 MB, inline SVG), a source page (3.7 MB, highlighted code) and the Node.js API in
  one page (8.4 MB).

For each input, in CPU seconds (the median of N runs, N >= 5; the reference once on pages
over 1 MB), with the machine's load (``os.getloadavg()``) printed before and after:

- floor:     selectolax (lexbor) alone, in the same run: bytes -> ``body.text()``, the
             fastest tool that does this part of the job; ``same`` when its text equals
             the program's
- text:      bytes -> ``document.body.textContent``, as ``body_text`` runs it, and its
             ratio to the floor (``x floor``; the target is 1.5)
- guard:     the fast path's guard alone (``_lexbor_would_be_slow``: on pages over 64 kB
             the numpy signals, with the nesting bound; the depth scan where the bound
             allows depth; the long-tag check where a tag may be long)
- fast:      bytes -> Extraction (text + markup index), as ``extract`` runs it (the lexbor
             path, or the reference where the fast path declines: marked ``ref``)
- reference: the same with justhtml, the reference parser
- parity:    ``=`` when the fast path's text and element list (namespaces, names,
             attributes, parents, text spans) equal the reference's, else what differs
- signature: one markup_signature call on a ~200-character range, averaged

MB/s counts input bytes (10^6 bytes per MB).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.text import html_text
from engine.text.encoding import decode_html

DEFAULT_PAGES = Path("/work/shared/data/standardebooks")
RUST_DOC = Path.home() / ".rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html"
EXTRA_PAGES = [
    RUST_DOC / "core/arch/x86_64/index.html",
    RUST_DOC / "reference/print.html",
    RUST_DOC / "src/core/stdarch/crates/core_arch/src/x86/avx512fp16.rs.html",
    Path("/usr/share/doc/nodejs/api/all.html"),
]
BODY = re.compile(rb"<body[^>]*>(.*)</body>", re.S | re.I)


def cpu_best(repeat: int, fn) -> float:
    """Median CPU time (process_time) of ``repeat`` calls of fn, in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def selectolax_text(data: bytes) -> str:
    """The floor: lexbor alone, as selectolax gives ``body.textContent`` (UTF-8 bytes)."""
    from selectolax.lexbor import LexborHTMLParser

    body = LexborHTMLParser(data, scripting=True).body
    return "" if body is None else body.text(deep=True, separator="", strip=False)


def decoded(data: bytes) -> tuple[str, bytes]:
    """The decoded source and its UTF-8 bytes, as the fast path's guard receives them."""
    source, _ = decode_html(data)
    return source, source.encode("utf-8")


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} cores)"


def reference_extract(data: bytes) -> html_text.Extraction:
    source, encoding = decode_html(data)
    return html_text._reference_walk(html_text._reference_body(source), encoding)


def elements(x: html_text.Extraction) -> list[tuple]:
    return [
        (x._el_parent[i], x._el_start[i], x._el_end[i]) + x._describe(i)
        for i in range(len(x._el_names))
    ]


def parity(fast: html_text.Extraction, ref: html_text.Extraction) -> str:
    if fast.text != ref.text:
        return "TEXT DIFFERS"
    if elements(fast) != elements(ref):
        return "elements differ"
    return "="


def large_page(pages: list[bytes], target: int) -> bytes:
    """Every page's body, one after another (repeated), in the head of the first page."""
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


def measure(data: bytes, repeat: int, with_reference: bool) -> dict:
    t_floor = cpu_best(repeat, lambda: selectolax_text(data))
    t_text = cpu_best(repeat, lambda: html_text.body_text(data))
    source, utf8 = decoded(data)
    t_guard = cpu_best(repeat, lambda: html_text._lexbor_would_be_slow(source, utf8))
    t_fast = cpu_best(repeat, lambda: html_text.extract(data))
    x = html_text.extract(data)
    result = {"bytes": len(data), "chars": len(x.text), "fast": t_fast, "lexbor": x._lexbor}
    result.update(floor=t_floor, text=t_text, guard=t_guard)
    result["same"] = selectolax_text(data) == html_text.body_text(data)
    if with_reference:
        ref_repeat = 1 if len(data) > 1_000_000 else repeat
        result["reference"] = cpu_best(ref_repeat, lambda: reference_extract(data))
        result["parity"] = parity(x, reference_extract(data))
    rng = random.Random(1)
    n = len(x.text)
    ranges = [(s, min(n, s + 200)) for s in (rng.randrange(max(1, n - 200)) for _ in range(2000))]
    t0 = time.perf_counter()
    for start, end in ranges:
        x.markup_signature(start, end)
    result["signature"] = (time.perf_counter() - t0) / len(ranges)
    return result


HEADER = (
    f"{'input':<48} {'MB':>6} {'floor ms':>8} {'same':>4} {'text ms':>8} {'x floor':>7} "
    f"{'guard ms':>8} {'fast ms':>8} {'MB/s':>7} {'ref ms':>8} {'MB/s':>6} "
    f"{'x':>5} {'parity':<8} {'sig µs':>7}"
)


def row(name: str, r: dict) -> str:
    mb = r["bytes"] / 1e6
    fast = f"{r['fast'] * 1e3:>8.1f} {mb / r['fast']:>7.1f}"
    if "reference" in r:
        ref = f"{r['reference'] * 1e3:>8.0f} {mb / r['reference']:>6.2f} {r['reference'] / r['fast']:>5.1f}"
        par = r["parity"]
    else:
        ref, par = f"{'':>8} {'':>6} {'':>5}", ""
    path = "" if r["lexbor"] else " ref"
    floor = (
        f"{r['floor'] * 1e3:>8.1f} {'yes' if r['same'] else 'NO':>4} {r['text'] * 1e3:>8.1f} "
        f"{r['text'] / r['floor']:>7.2f} {r['guard'] * 1e3:>8.1f}"
    )
    return (
        f"{name[-44:] + path:<48} {mb:>6.2f} {floor} {fast} {ref} {par:<8} "
        f"{r['signature'] * 1e6:>7.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=Path, default=DEFAULT_PAGES)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--extra", type=Path, nargs="*", default=[], help="more large pages")
    parser.add_argument("--no-reference", action="store_true", help="skip the justhtml timings")
    args = parser.parse_args(argv)
    with_reference = not args.no_reference

    paths = sorted(args.pages.glob("*/*.xhtml"))
    if not paths:
        print(f"no *.xhtml pages under {args.pages}", file=sys.stderr)
        return 1
    pages = [p.read_bytes() for p in paths]

    args.repeat = max(5, args.repeat)
    print(f"python {sys.version.split()[0]}; CPU time, median of {args.repeat}; {load()}")
    print(HEADER)
    print("-" * len(HEADER))
    small = []
    for path, data in zip(paths, pages):
        r = measure(data, args.repeat, with_reference)
        small.append(r)
        print(row(f"{path.parent.name}/{path.name}", r))
    total = sum(r["bytes"] for r in small) / 1e6
    fast = sum(r["fast"] for r in small)
    line = f"{len(small)} small real pages, {total:.2f} MB: fast {total / fast:.1f} MB/s"
    if with_reference:
        ref = sum(r["reference"] for r in small)
        same = sum(r["parity"] == "=" for r in small)
        line += f", reference {total / ref:.2f} MB/s; parity {same} of {len(small)}"
    print("-" * len(HEADER))
    print(line)
    print()

    print("Large pages (over 1 MB)")
    print(HEADER)
    print("-" * len(HEADER))
    large = []
    with tempfile.TemporaryDirectory(prefix="bench-extraction-") as tmp:
        generated = []
        for target in (1_000_000, 3_000_000, 10_000_000):
            path = Path(tmp) / f"standardebooks-{target // 1_000_000}mb.xhtml"
            path.write_bytes(large_page(pages, target))
            generated.append(path)
        for path in generated + EXTRA_PAGES + list(args.extra):
            if not path.is_file():
                print(f"{str(path)[-44:]:<48} (not on this machine; skipped)")
                continue
            r = measure(path.read_bytes(), args.repeat, with_reference)
            large.append(r)
            print(row(path.name if path.parent == Path(tmp) else str(path), r))
    print("-" * len(HEADER))
    if large:
        slowest = min(r["bytes"] / r["fast"] for r in large) / 1e6
        line = f"{len(large)} large pages: slowest fast path {slowest:.1f} MB/s"
        if with_reference:
            same = sum(r["parity"] == "=" for r in large)
            line += f"; parity {same} of {len(large)}"
        print(line)
        ratios = [r["text"] / r["floor"] for r in large]
        print(
            f"body.textContent against selectolax alone: {min(ratios):.2f}x to "
            f"{max(ratios):.2f}x (median {statistics.median(ratios):.2f}x; target 1.5x); "
            f"guard {min(r['guard'] / r['text'] for r in large):.0%} to "
            f"{max(r['guard'] / r['text'] for r in large):.0%} of the text's time; "
            f"same text on {sum(r['same'] for r in large)} of {len(large)}"
        )
    print(load())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
