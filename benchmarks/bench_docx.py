"""Reading a 100-page Word review with 500 comments, and scoring it against the agent's
revised Word file: the whole process of ``arl score --v1 review.docx --v2 revised.docx``.

Prints figures; it is not a test. Run from the repository root:

    uv run python benchmarks/bench_docx.py [--pages 100] [--comments 500] [--repeat 3]

Inputs, written at run time into a temporary folder (never committed):

- ``review.docx``: the real reviewed articles of the built-in corpus
  (``resources/corpus/f1000rd/*/document.txt``, CC-BY 4.0), one paragraph per 50 words of a line, repeated
  until the document holds ``--pages`` x 500 words, each paragraph in runs of eight words
  (every other run bold), with ``--comments`` comments spread evenly over it (every tenth
  spans two paragraphs; every fifth has a reply);
- ``revised.docx``: the same with the agent's work as Word delivers it: two comments in
  five get a tracked change inside their range (``w:del`` of a run, ``w:ins`` of new words),
  every second comment is resolved (``w15:done``, some on unchanged text: VERIFICATION
  lines), one in ten gets the agent's reply, and thirty untracked edits land outside every
  comment.

Figures (wall seconds, best of ``--repeat``):

- read:  ``engine.text.docx.read_docx`` of each file, in this process;
- score: ``arl score ... --json`` as a new process, start-up included (the 3 s budget of
  docs/engine.md, "Speed", is on this figure).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.text.docx import read_docx
from tests.helpers.word_files import Note, deleted, end, ins, make_docx, run, start

WORDS_PER_PAGE = 500


def corpus_lines() -> list[list[str]]:
    lines = []
    for path in sorted((ROOT / "resources/corpus/f1000rd").glob("*/document.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split()
            for k in range(0, len(words), 50):  # paragraphs of at most 50 words
                if len(words[k : k + 50]) >= 8:
                    lines.append(words[k : k + 50])
    return lines


def build(pages: int, n_comments: int) -> tuple[bytes, bytes]:
    lines = corpus_lines()
    paragraphs: list[list[str]] = []  # each paragraph: its runs' texts
    words = 0
    i = 0
    while words < pages * WORDS_PER_PAGE:
        line = lines[i % len(lines)]
        i += 1
        runs = [" ".join(line[k : k + 8]) + " " for k in range(0, len(line), 8)]
        paragraphs.append(runs)
        words += len(line)
    step = max(1, len(paragraphs) // n_comments)
    targets = {k * step: k for k in range(n_comments)}

    def body(revised: bool) -> str:
        out = []
        for p_index, runs in enumerate(paragraphs):
            k = targets.get(p_index)
            spans_two = k is not None and k % 10 == 0 and p_index + 1 < len(paragraphs)
            ends_here = (p_index - 1) in targets and targets[p_index - 1] % 10 == 0
            parts = []
            for r_index, text in enumerate(runs):
                rpr = "<w:rPr><w:b/></w:rPr>" if r_index % 2 else ""
                if k is not None and r_index == min(1, len(runs) - 1):
                    parts.append(start(k))
                if (
                    revised
                    and k is not None
                    and k % 5 in (1, 3)
                    and r_index == min(1, len(runs) - 1)
                ):
                    parts.append(
                        deleted(text, 10_000 + k)
                        + ins(run("revised wording here ", rpr), 20_000 + k)
                    )
                elif revised and k is None and p_index % 97 == 5 and r_index == 0:
                    parts.append(run("An untracked change. ", rpr))
                else:
                    parts.append(run(text, rpr))
                last_run = r_index == min(2, len(runs) - 1)
                if k is not None and not spans_two and last_run:
                    parts.append(end(k))
                if ends_here and r_index == 0:
                    parts.append(end(targets[p_index - 1]))
            out.append("<w:p>" + "".join(parts) + "</w:p>")
        return "".join(out)

    def notes(revised: bool) -> list[Note]:
        out = []
        for k in range(n_comments):
            out.append(
                Note(
                    k,
                    f"Comment {k}: make this clearer.",
                    para_id=f"{k + 1:08X}",
                    durable=f"{k + 1:08X}",
                    done=revised and k % 2 == 1,
                )
            )
        wid = n_comments
        for k in range(n_comments):
            if k % 5 == 0:
                out.append(
                    Note(
                        wid, "Please also cite it.", para_id=f"{wid + 1:08X}", parent=f"{k + 1:08X}"
                    )
                )
                wid += 1
            if revised and k % 10 == 1:
                out.append(
                    Note(
                        wid,
                        "Reworded.",
                        author="Agent",
                        para_id=f"{wid + 1:08X}",
                        parent=f"{k + 1:08X}",
                    )
                )
                wid += 1
        return out

    return make_docx(body(False), notes(False)), make_docx(body(True), notes(True))


def best(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=100)
    ap.add_argument("--comments", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    v1_bytes, v2_bytes = build(args.pages, args.comments)
    with tempfile.TemporaryDirectory() as tmp:
        v1, v2 = Path(tmp) / "review.docx", Path(tmp) / "revised.docx"
        v1.write_bytes(v1_bytes)
        v2.write_bytes(v2_bytes)
        doc1, doc2 = read_docx(v1_bytes), read_docx(v2_bytes)
        placed = sum(1 for c in doc1.comments if c.start is not None)
        print(
            f"review.docx: {len(v1_bytes) / 1e6:.2f} MB, {len(doc1.text.split()):,} words "
            f"(~{len(doc1.text.split()) // WORDS_PER_PAGE} pages of {WORDS_PER_PAGE}), "
            f"{len(doc1.comments)} comments ({placed} placed), "
            f"{sum(len(c.replies) for c in doc1.comments)} replies"
        )
        print(
            f"revised.docx: {len(v2_bytes) / 1e6:.2f} MB, {doc2.tracked_changes} tracked changes, "
            f"{sum(c.done for c in doc2.comments)} comments resolved"
        )
        print(f"read review.docx:  {best(args.repeat, lambda: read_docx(v1_bytes)):.2f} s")
        print(f"read revised.docx: {best(args.repeat, lambda: read_docx(v2_bytes)):.2f} s")
        cmd = [
            sys.executable,
            "-m",
            "engine.cli.main",
            "score",
            "--v1",
            str(v1),
            "--v2",
            str(v2),
            "--json",
        ]
        out = subprocess.run(cmd, capture_output=True, cwd=ROOT)
        if out.returncode != 0:
            print(out.stderr.decode()[-2000:])
            return 1
        result = json.loads(out.stdout)
        counts: dict[str, int] = {}
        for v in result["verdicts"]:
            counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
        print(f"verdicts: {counts}")
        whole = best(args.repeat, lambda: subprocess.run(cmd, capture_output=True, cwd=ROOT))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, capture_output=True, cwd=ROOT)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        print(
            f"arl score (whole process, read both + score): {whole:.2f} s wall, "
            f"{cpu:.2f} s CPU (budget 3 s; load average {os.getloadavg()[0]:.1f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
