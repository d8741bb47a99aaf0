"""The agent's revision of a 100-page Word review written back as tracked changes
(``engine.word_revision.word_revision``): the diff of the two texts and the tracked copy
over the reviewed file's runs.

Prints figures; it is not a test. Run from the repository root:

    uv run python benchmarks/bench_word_revision.py [--pages 100] [--comments 500] [--repeat 3]

Inputs: the pair of ``benchmarks/bench_docx.py`` (real articles of the built-in corpus,
runs of eight words, every other one bold), the agent's text being the revised file's text
(two comments in five edited inside their range, thirty edits outside every comment).

Figures (wall seconds, best of ``--repeat``, in this process): the revision written
(diff + tracked copy), and how many insertions, deletions and paragraph notes it holds;
then whether accepting every change gives the agent's text (the test's XML accept).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_docx import build
from engine.text.docx import read_docx
from engine.word_revision import word_revision
from tests.helpers.word_tracked import resolve_all


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=100)
    ap.add_argument("--comments", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    v1_bytes, v2_bytes = build(args.pages, args.comments)
    doc = read_docx(v1_bytes)
    new = read_docx(v2_bytes).text
    print(f"review.docx: {len(v1_bytes) / 1e6:.1f} MB, {len(doc.text):,} characters")
    times = []
    rev = None
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        rev = word_revision(v1_bytes, doc, new, "2026-12-01T00:00:00Z")
        times.append(time.perf_counter() - t0)
    assert rev is not None
    print(f"word revision (diff + tracked copy): {min(times):.2f} s")
    print(
        f"{rev.insertions} insertions, {rev.deletions} deletions, {len(rev.notes)} paragraph notes"
    )
    exact = read_docx(resolve_all(rev.data, accept=True)).text == new
    print(f"accepting every change gives the agent's text: {'yes' if exact else 'NO'}")
    return 0 if exact or rev.notes else 1


if __name__ == "__main__":
    raise SystemExit(main())
