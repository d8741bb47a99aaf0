"""Benchmark: how often each kind of wrong verdict happens on real paragraphs edited at random,
judged against what the edit script did to each quote's sentence (docs/verdicts.md).

Each pair is a window of 4 to 12 real paragraphs (the F1000RD papers, the Standard Ebooks
chapters and the realworld memos of tests/data, their v1 versions), edited by one to seven
operations drawn at random: a sentence moved (inside a paragraph, to another's end), two
neighbour sentences swapped, two paragraphs swapped, a paragraph moved, more than half of a
paragraph moved (alone or onto another), a sentence or a short paragraph deleted, a
sentence rewritten (two words in three, or one in three, replaced by river, lantern, ...),
and a sentence rewritten with its two neighbours swapped around it. Pairs are plain text or
HTML (paragraphs with nothing, a line break or a blank line between them in the source).
Comments are 20-40 characters inside one sentence; each carries its sentence's fate:

- ``deleted`` expects ``deleted`` (``edited`` or ``untouched`` is a **false credit**, the
  worst error: an agent that deleted the text is credited with a fix);
- ``rewritten`` expects ``edited`` (``deleted`` is a rewrite read as deleted), or
  ``untouched`` where the quote's words all stand in the rewrite;
- kept or moved expects ``untouched`` (``deleted`` loses an untouched quote).

Quotes whose words recur elsewhere in v2 though their sentence was deleted are left out
(either verdict may be right), and so are sentences v1 holds twice. The generator was
written for the differential run of stop 43 (there, with quotes chosen slightly
differently: 455 false credits in 580,217 comments at 9f8693c, 393 at 1627b7c).

    uv run python benchmarks/bench_verdict_errors.py                 # seeds 0-19, 6,000 pairs
    uv run python benchmarks/bench_verdict_errors.py --seeds 260 460 --show 5
"""

from __future__ import annotations

import argparse
import collections
import copy
import html
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text.utf16 import OffsetMap

DATA = ROOT / "tests" / "data"
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“‘(])")
_VOCAB = "river lantern copper meadow signal harbor velvet quarry ember willow tunnel orchard"
_VOCAB += " cobalt falcon"
_WORDS = _VOCAB.split()
_OPS = [
    "move_sent",
    "move_sent_end",
    "swap_sent",
    "swap_para",
    "move_para",
    "move_most",
    "del_sent",
    "del_para",
    "rewrite",
    "rewrite_light",
    "rewrite_swap_nb",
    "rewrite_swap_nb",
]


def _paragraphs() -> list[tuple[str, list[str]]]:
    """(name, paragraphs of 60 characters or more) of every v1 document with four or more."""

    def of_text(t: str) -> list[str]:
        return [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", t)]

    def of_html(h: str) -> list[str]:
        return [
            re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", m.group(1)))).strip()
            for m in re.finditer(r"<p\b[^>]*>(.*?)</p>", h, re.S)
        ]

    docs = [
        (p.parent.name, of_text(p.read_text("utf-8"))) for p in DATA.glob("f1000rd/docs/*/v1.txt")
    ]
    docs += [
        (p.name, of_html(p.read_text("utf-8"))) for p in DATA.glob("standardebooks/*/*.v1.xhtml")
    ]
    docs += [(p.name, of_html(p.read_text("utf-8"))) for p in DATA.glob("realworld/*/v1*.html")]
    docs = [(n, [x for x in ps if len(x) >= 60]) for n, ps in sorted(docs)]
    return [(n, ps) for n, ps in docs if len(ps) >= 4]


def _rewrite(rnd: random.Random, s: str, heavy: bool) -> str:
    words = s.split(" ")
    for i, w in enumerate(words):
        hit = i % 3 != 2 if heavy else rnd.random() < 0.3
        if hit and re.search(r"[A-Za-z]", w):
            m = re.match(r"^(\W*)(.*?)(\W*)$", w)
            assert m is not None
            words[i] = m.group(1) + rnd.choice(_WORDS) + m.group(3)
    return " ".join(words)


def _edit(rnd: random.Random, v2: list[list[dict]], fate: dict[int, str]) -> None:
    """One to seven random operations on ``v2`` (paragraphs of sentences), ``fate`` kept."""
    for _ in range(rnd.randint(1, 7)):
        op = rnd.choice(_OPS)
        nonempty = [i for i, p in enumerate(v2) if p]
        if not nonempty:
            return
        if op in ("move_sent", "move_sent_end"):
            i = rnd.choice(nonempty)
            s = v2[i].pop(rnd.randrange(len(v2[i])))
            j = rnd.randrange(len(v2))
            v2[j].insert(len(v2[j]) if op == "move_sent_end" else rnd.randint(0, len(v2[j])), s)
        elif op == "swap_sent":
            c = [i for i in nonempty if len(v2[i]) >= 2]
            if c:
                i = rnd.choice(c)
                a = rnd.randrange(len(v2[i]) - 1)
                v2[i][a], v2[i][a + 1] = v2[i][a + 1], v2[i][a]
        elif op == "swap_para" and len(v2) >= 2:
            a = rnd.randrange(len(v2) - 1)
            v2[a], v2[a + 1] = v2[a + 1], v2[a]
        elif op == "move_para":
            p = v2.pop(rnd.randrange(len(v2)))
            v2.insert(rnd.randint(0, len(v2)), p)
        elif op == "move_most":
            c = [i for i in nonempty if len(v2[i]) >= 3]
            if not c:
                continue
            i = rnd.choice(c)
            n = len(v2[i])
            m = rnd.randint(n // 2 + 1, n - 1)
            if rnd.random() < 0.5:
                moved, v2[i] = v2[i][:m], v2[i][m:]
            else:
                moved, v2[i] = v2[i][n - m :], v2[i][: n - m]
            j = rnd.randrange(len(v2))
            if rnd.random() < 0.5 and j != i:
                v2[j].extend(moved)
            else:
                v2.insert(j, moved)
        elif op == "del_sent":
            i = rnd.choice(nonempty)
            fate[v2[i].pop(rnd.randrange(len(v2[i])))["id"]] = "deleted"
        elif op == "del_para":
            i = rnd.choice(nonempty)
            if len(v2[i]) <= 4:
                for s in v2.pop(i):
                    fate[s["id"]] = "deleted"
        elif op in ("rewrite", "rewrite_light"):
            i = rnd.choice(nonempty)
            s = v2[i][rnd.randrange(len(v2[i]))]
            if fate[s["id"]] == "kept":
                s["t"] = _rewrite(rnd, s["t"], op == "rewrite")
                fate[s["id"]] = "rewritten"
        elif op == "rewrite_swap_nb":  # A B C -> C B' A
            c = [i for i in nonempty if len(v2[i]) >= 3]
            if not c:
                continue
            i = rnd.choice(c)
            a = rnd.randrange(len(v2[i]) - 2)
            s = v2[i][a + 1]
            if fate[s["id"]] == "kept":
                s["t"] = _rewrite(rnd, s["t"], rnd.random() < 0.7)
                fate[s["id"]] = "rewritten"
                v2[i][a], v2[i][a + 2] = v2[i][a + 2], v2[i][a]


def _case(rnd: random.Random, docs: list[tuple[str, list[str]]]):
    """(kind, v1 source, v2 source, comments with the verdict each expects)."""
    _name, ps = rnd.choice(docs)
    k = rnd.randint(4, min(12, len(ps)))
    i0 = rnd.randrange(len(ps) - k + 1)
    paras: list[list[dict]] = []
    fate: dict[int, str] = {}
    for p in ps[i0 : i0 + k]:
        paras.append([])
        for s in (x for x in _SENTENCE.split(p) if x):
            fate[len(fate)] = "kept"
            paras[-1].append({"id": len(fate) - 1, "t": s})
    v2 = copy.deepcopy(paras)
    _edit(rnd, v2, fate)
    v2 = [p for p in v2 if p]
    kind = rnd.choice(["text", "html", "html"])
    sep = rnd.choice(["", "\n", "\n\n"]) if kind == "html" else "\n\n"

    def render(blocks: list[list[dict]]) -> tuple[str, str]:
        texts = [" ".join(s["t"] for s in p) for p in blocks]
        if kind == "text":
            return sep.join(texts) + "\n", sep.join(texts) + "\n"
        body = sep.join(f"<p>{html.escape(t, quote=False)}</p>" for t in texts)
        return f"<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>", ""

    src1, _ = render(paras)
    src2, _ = render(v2)
    t1 = Version.from_source(src1, kind, "v1").text
    t2 = Version.from_source(src2, kind, "v2").text
    v2_sentence = {s["id"]: s["t"] for p in v2 for s in p}
    om = OffsetMap(t1)
    comments = []
    ids = list(fate)
    rnd.shuffle(ids)
    ids.sort(key=lambda x: fate[x] == "kept" and rnd.random() < 0.6)  # the edited first
    for x in ids[: rnd.randint(6, 16)]:
        sent = next(s["t"] for p in paras for s in p if s["id"] == x)
        at = t1.find(sent)
        if len(sent) < 22 or at < 0 or t1.find(sent, at + 1) >= 0:
            continue  # (a sentence v1 holds twice: which copy a comment is on is unclear)
        n = rnd.randint(20, min(40, len(sent)))
        starts = [m.start() for m in re.finditer(r"(?<!\S)\S", sent) if m.start() + n <= len(sent)]
        q0 = rnd.choice(starts or [0]) if rnd.random() < 0.8 else rnd.randrange(len(sent) - n + 1)
        a, b = at + q0, at + q0 + n
        quote = t1[a:b]
        if not quote.strip():
            continue
        f = fate[x]
        if quote in t2:
            if f == "deleted":
                continue  # its words recur elsewhere: either verdict may be right
            expect = "untouched"
        elif f == "rewritten":
            expect = "untouched" if quote in (v2_sentence.get(x) or "") else "edited"
        elif f == "deleted":
            expect = "deleted"
        else:
            continue  # kept, yet not in v2 verbatim (a sentence split differently)
        anchor = Anchor(
            quote,
            t1[max(0, a - 32) : a],
            t1[b : b + 32],
            start_offset=om.to_utf16(a),
            end_offset=om.to_utf16(b),
        )
        comments.append((Comment(f"c{len(comments)}", "fix", anchor), expect))
    return kind, src1, src2, comments


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs=2, default=(0, 20), metavar=("FIRST", "END"))
    ap.add_argument("--pairs", type=int, default=300, help="pairs per seed (default 300)")
    ap.add_argument("--show", type=int, default=0, help="print this many false credits")
    args = ap.parse_args()
    docs = _paragraphs()
    counts: collections.Counter[str] = collections.Counter()
    shown = 0
    t0 = time.perf_counter()
    for seed in range(*args.seeds):
        rnd = random.Random(seed)
        for _ in range(args.pairs):
            kind, src1, src2, comments = _case(rnd, docs)
            if not comments:
                continue
            v1, v2 = Version.from_source(src1, kind, "v1"), Version.from_source(src2, kind, "v2")
            verdicts = score(v1, v2, [c for c, _ in comments]).verdicts
            for (c, expect), v in zip(comments, verdicts, strict=True):
                counts["comments"] += 1
                if v.verdict == expect:
                    counts["right"] += 1
                elif expect == "deleted":
                    counts["false credit"] += 1
                    if shown < args.show:
                        shown += 1
                        print(
                            f"false credit ({kind}): {c.anchor.quote!r} read {v.verdict}"
                            f" at {v.v2.text if v.v2 else None!r}"
                        )
                elif expect == "edited" and v.verdict == "deleted":
                    counts["rewrite read deleted"] += 1
                elif expect == "untouched" and v.verdict == "deleted":
                    counts["untouched read deleted"] += 1
                else:
                    counts[f"{expect} read {v.verdict}"] += 1
    n = counts["comments"] or 1
    print(
        f"seeds {args.seeds[0]}-{args.seeds[1] - 1}, {args.pairs} pairs each:"
        f" {counts['comments']:,} comments in {time.perf_counter() - t0:.0f} s"
    )
    for key in ("false credit", "rewrite read deleted", "untouched read deleted"):
        print(f"  {key:24} {counts[key]:7,}  ({100 * counts[key] / n:.3f}%)")
    for key, value in sorted(counts.items()):
        if key not in (
            "comments",
            "right",
            "false credit",
            "rewrite read deleted",
            "untouched read deleted",
        ):
            print(f"  {key:24} {value:7,}")
    print(f"  {'right':24} {counts['right']:7,}  ({100 * counts['right'] / n:.2f}%)")
    print("target: no false credit (a deletion is never a fix)")


if __name__ == "__main__":
    main()
