#!/usr/bin/env python3
"""Inputs for scoring benchmarks: a v1/v2 pair with comments and the expected verdicts and places.

Copied from the session's shared tools (shared/tools/gen_scoring_inputs.py, the generator
the speed targets of docs/engine.md were first measured with) so CI on a clean clone has it; ``build`` is that
tool's, unchanged but for the papers' path. Added here, as ``build_shape``: moved
paragraphs, repeated text, a frequent quote with drifted offsets, and Chinese text
(see ``SHAPES``). Used by benchmarks/bench_score.py (large) and
tests/engine/test_generated_shapes.py (small).

Writes v1.txt, v2.txt, c.json (native comments; offsets count code points, which equal UTF-16
units for the default ASCII corpus) and expect.json ({comment id: {"verdict": "untouched" or
"edited|deleted", "v2": [start, end] of the sentence the quote must land in, or null}}) into an
output folder.

    gen_scoring_inputs.py OUT --size 1000000 --comments 1000 --edits 50 [--corpus rep|uniq] [--seed 7]

--edits: an integer (that many sentences rewritten as bench_score does: words shuffled,
half kept, " (revised)." appended), or "all-light" (one word replaced in every sentence),
or "all-heavy" (every sentence rewritten as above).
--corpus rep: the F1000RD papers repeated to size (bench_score.py's text; sentences repeat);
--corpus uniq: random sentences drawn from the papers' vocabulary (every sentence unique).
"""

from __future__ import annotations

import argparse
import bisect
import json
import random
import re
import sys
from pathlib import Path

# Real papers (CC-BY-SA 4.0, F1000RD) in tests/data/f1000rd supply the vocabulary and text.
DOCS = Path(__file__).resolve().parent.parent / "tests" / "data" / "f1000rd" / "docs"


def papers() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*/v1.txt"))]


def corpus_rep(size: int) -> str:
    ps = papers()
    parts, n, k = [], 0, 0
    while n < size:
        t = ps[k % len(ps)] + "\n\n"
        parts.append(t)
        n += len(t)
        k += 1
    return "".join(parts)[:size]


def corpus_uniq(size: int, seed: int = 1) -> str:
    rnd = random.Random(seed)
    words = re.findall(r"[A-Za-z]+", "".join(papers()))
    parts, n = [], 0
    while n < size:
        para = []
        for _ in range(rnd.randint(3, 8)):
            w = [rnd.choice(words) for _ in range(rnd.randint(8, 30))]
            s = " ".join(w)
            para.append(s[0].upper() + s[1:] + ".")
        t = " ".join(para) + "\n\n"
        parts.append(t)
        n += len(t)
    return "".join(parts)[:size]


def sentences_of(v1: str) -> list[tuple[int, int]]:
    ends = [m.start() + 1 for m in re.finditer(r"\. ", v1)]
    return [(a + 1, b) for a, b in zip(ends, ends[1:]) if 40 < b - a < 400]


def build(size: int, n_comments: int, edits: str, corpus: str = "uniq", seed: int = 7):
    rnd = random.Random(seed)
    v1 = corpus_rep(size) if corpus == "rep" else corpus_uniq(size)
    sentences = sentences_of(v1)
    if edits in ("all-light", "all-heavy"):
        edited = sentences
    else:
        k = min(int(edits), len(sentences))
        edited = sorted(rnd.sample(sentences, k))
    v2_parts, pos = [], 0
    changed: list[tuple[int, int]] = []  # v1 spans whose text changed
    sent_v2: list[tuple[int, int, int, int]] = []  # (v1 s, v1 e, v2 s, v2 e) per edited sentence
    v2len = 0
    for s, e in edited:
        v2_parts.append(v1[pos:s])
        v2len += s - pos
        words = v1[s:e].split()
        if edits == "all-light":
            ws = [m.span() for m in re.finditer(r"\S+", v1[s:e])]
            j = rnd.randrange(len(ws))
            a, b = s + ws[j][0], s + ws[j][1]
            changed.append((a, b))
            new = "changed" if v1[a:b] != "changed" else "altered"
            v2_parts.append(v1[s:a] + new + v1[b:e])
            sent_v2.append((s, e, v2len, v2len + len(v2_parts[-1])))
            v2len += len(v2_parts[-1])
        else:
            rnd.shuffle(words)
            v2_parts.append(" ".join(words[: max(3, len(words) // 2)]) + " (revised).")
            changed.append((s, e))
            sent_v2.append((s, e, v2len, v2len + len(v2_parts[-1])))
            v2len += len(v2_parts[-1])
        pos = e
    v2_parts.append(v1[pos:])
    v2 = "".join(v2_parts)
    comments = []
    expect = {}
    starts = [a for a, _ in changed]
    sent_ends = [x[1] for x in sent_v2]
    sent_starts = [x[0] for x in sent_v2]

    def v2_of(p: int) -> int:  # v1 position outside any edited sentence -> v2 position
        j = bisect.bisect_right(sent_ends, p) - 1  # last edited sentence ending at or before p
        if j < 0:
            return p
        s_, e_, b0, b1 = sent_v2[j]
        return b1 + (p - e_)

    for i in range(n_comments):
        s, e = rnd.choice(edited) if (rnd.random() < 0.2 and edited) else rnd.choice(sentences)
        q0 = s + rnd.randint(0, max(0, (e - s) // 3))
        q1 = min(e, q0 + rnd.randint(8, 80))
        comments.append(
            {
                "id": f"c{i}",
                "body": "fix",
                "anchor": {
                    "quote": v1[q0:q1],
                    "prefix": v1[max(0, q0 - 32) : q0],
                    "suffix": v1[q1 : q1 + 32],
                    "dom_path": "body",
                    "start_offset": q0,
                    "end_offset": q1,
                },
            }
        )
        # expected: untouched unless the quote overlaps a changed span
        j = bisect.bisect_right(starts, q1 - 1) - 1  # last changed span starting before q1
        hit = j >= 0 and changed[j][1] > q0
        if hit:
            j = bisect.bisect_right(sent_starts, q0) - 1
            expect[f"c{i}"] = {"verdict": "edited|deleted", "v2": [sent_v2[j][2], sent_v2[j][3]]}
        else:
            j = bisect.bisect_right(sent_starts, q0) - 1
            if (
                j >= 0 and sent_v2[j][0] <= q0 < sent_v2[j][1]
            ):  # in an edited sentence, off the change
                s_, e_, b0, b1 = sent_v2[j]
                expect[f"c{i}"] = {"verdict": "untouched", "v2": None}
            else:
                expect[f"c{i}"] = {"verdict": "untouched", "v2": [v2_of(q0), v2_of(q0) + q1 - q0]}
    build.expect = expect
    return v1, v2, comments, len(edited)


def write(out: Path, v1: str, v2: str, comments: list[dict]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "v1.txt").write_text(v1, encoding="utf-8")
    (out / "v2.txt").write_text(v2, encoding="utf-8")
    (out / "c.json").write_text(json.dumps(comments), encoding="utf-8")
    (out / "expect.json").write_text(json.dumps(getattr(build, "expect", {})), encoding="utf-8")


# -- shapes added in this repository ---------------------------------------------------------

SHAPES = ("moved", "repeat", "drift", "zh")
"""``moved``: paragraphs reordered, words unchanged (every comment untouched, at its
paragraph's new place); ``repeat``: one sentence repeated thousands of times with unique
numbered items between them, 50 items edited, half the comments on the repeated sentence
with no offsets; ``drift``: 50 sentences edited, every comment quotes "the" with offsets off
by one and the right context; ``zh``: Chinese text without spaces, 50 sentences with one
word replaced."""

_ZH_WORDS = re.findall(
    r"\S+",
    "我们 计划 会议 讨论 明年 预算 分配 方案 以及 新员工 招聘 培训 安排 同时 审议 上一年度 "
    "财务 报告 审计 意见 董事会 年度 第一周 召开 项目 进展 研究 数据 分析 结果 显示 系统 "
    "用户 需求 设计 实现 测试 部署 维护 文档 说明 方法 模型 训练 评估 指标 提高 降低 影响 "
    "因素 问题 解决 建议 改进 质量 效率 成本 时间 资源 管理 团队 成员 负责 完成 任务 目标 "
    "客户 服务 产品 市场 销售 增长 公司 部门 经理 员工 工作 环境 安全 健康 教育 学习 知识 "
    "技术 发展 创新 能力 经验 历史 文化 社会 经济 政策 法律 规定 标准 程序 过程 阶段",
)


def corpus_zh(size: int, seed: int = 1) -> str:
    rnd = random.Random(seed)
    parts, n = [], 0
    while n < size:
        para = []
        for _ in range(rnd.randint(3, 8)):
            s = "".join(rnd.choice(_ZH_WORDS) for _ in range(rnd.randint(6, 18)))
            para.append(s + rnd.choice("。。。！？"))
        t = "".join(para) + "\n\n"
        parts.append(t)
        n += len(t)
    return "".join(parts)[:size]


def _zh_sentences(v1: str) -> list[tuple[int, int]]:
    out, start = [], 0
    for m in re.finditer(r"[。！？]\n*", v1):
        s = start
        while s < m.start() and v1[s] == "\n":
            s += 1
        if m.end() - s > 8:
            out.append((s, m.start() + 1))
        start = m.end()
    return out


def _comment(i: int, v1: str, q0: int, q1: int, offsets: tuple[int, int] | None = None) -> dict:
    anchor = {
        "quote": v1[q0:q1],
        "prefix": v1[max(0, q0 - 32) : q0],
        "suffix": v1[q1 : q1 + 32],
        "dom_path": "body",
    }
    if offsets is not None:
        anchor["start_offset"], anchor["end_offset"] = offsets
    return {"id": f"c{i}", "body": "fix", "anchor": anchor}


def _apply(v1: str, edits: list[tuple[int, int, str]]):
    """v2 and a position map from v1 edits (start, end, new text), sorted, disjoint."""
    parts, pos, shift = [], 0, []
    delta = 0
    for s, e, new in edits:
        parts.append(v1[pos:s])
        parts.append(new)
        shift.append((s, e, delta, len(new)))
        delta += len(new) - (e - s)
        pos = e
    parts.append(v1[pos:])
    starts = [x[0] for x in shift]

    def v2_of(p: int) -> int:  # p outside every edit
        j = bisect.bisect_right(starts, p) - 1
        if j < 0:
            return p
        s, e, d, n = shift[j]
        return p + d + n - (e - s) if p >= e else s + d

    def sentence_v2(s: int) -> tuple[int, int]:
        j = starts.index(s)
        s_, e_, d, n = shift[j]
        return s_ + d, s_ + d + n

    return "".join(parts), v2_of, sentence_v2


def build_shape(shape: str, size: int, n_comments: int, seed: int = 7):
    """(v1, v2, comments, expect) for one of ``SHAPES``; ``expect`` as ``build`` writes it."""
    rnd = random.Random(seed)
    expect: dict[str, dict] = {}
    comments: list[dict] = []
    if shape == "moved":
        v1 = corpus_uniq(size)
        paras = v1.split("\n\n")
        tail = paras.pop() if not paras[-1].endswith(".") else ""
        order = list(range(len(paras)))
        moved = rnd.sample(order, max(2, len(order) // 10))  # a tenth of them move
        rest = [k for k in order if k not in moved]
        for k in moved:
            rest.insert(rnd.randint(0, len(rest)), k)
        starts1, pos = [], 0
        for p in paras:
            starts1.append(pos)
            pos += len(p) + 2
        v2_paras = [paras[k] for k in rest] + ([tail] if tail else [])
        v2 = "\n\n".join(v2_paras)
        v1 = "\n\n".join(paras + ([tail] if tail else []))
        starts2, pos = {}, 0
        for k in rest:
            starts2[k] = pos
            pos += len(paras[k]) + 2
        for i in range(n_comments):
            k = rnd.randrange(len(paras))
            p = paras[k]
            q0 = rnd.randint(0, max(0, len(p) - 10))
            q1 = min(len(p), q0 + rnd.randint(8, 80))
            a0 = starts1[k] + q0
            comments.append(_comment(i, v1, a0, a0 + q1 - q0, (a0, a0 + q1 - q0)))
            b0 = starts2[k] + q0
            expect[f"c{i}"] = {"verdict": "untouched", "v2": [b0, b0 + q1 - q0]}
        return v1, v2, comments, expect
    if shape == "repeat":
        sentence = "The same sentence is repeated here without any change at all. "
        parts, items, pos, k = [], [], 0, 0
        while pos < size:
            if k % 20 == 19:
                t = f"Item {k} is listed with its own number {k * 7}. "
                items.append((pos, pos + len(t) - 1))
            else:
                t = sentence
            parts.append(t)
            pos += len(t)
            k += 1
        v1 = "".join(parts)
        edited = sorted(rnd.sample(items, min(50, len(items))))
        edits = [(s, e, v1[s:e].replace("listed", "shown") + " (revised)") for s, e in edited]
        v2, v2_of, sentence_v2 = _apply(v1, edits)
        edited_set = set(edited)
        for i in range(n_comments):
            if i % 2:
                s, e = rnd.choice(items)
                q0 = s + rnd.randint(0, 8)
                q1 = min(e, q0 + rnd.randint(8, 30))
                comments.append(_comment(i, v1, q0, q1, (q0, q1)))
                if (s, e) in edited_set and v1[q0:q1] not in v2[slice(*sentence_v2(s))]:
                    expect[f"c{i}"] = {"verdict": "edited|deleted", "v2": list(sentence_v2(s))}
                elif (s, e) in edited_set:
                    expect[f"c{i}"] = {"verdict": "untouched", "v2": None}
                else:
                    expect[f"c{i}"] = {"verdict": "untouched", "v2": [v2_of(q0), v2_of(q1)]}
            else:  # the repeated sentence, no offsets: which copy is not determined
                j = rnd.randrange(len(parts))
                while parts[j] != sentence:
                    j = rnd.randrange(len(parts))
                q0 = sum(map(len, parts[:j])) if j < 50 else v1.index(sentence, j * 40)
                q0 += rnd.randint(0, 10)
                q1 = q0 + rnd.randint(8, 40)
                comments.append(_comment(i, v1, q0, q1))
                expect[f"c{i}"] = {"verdict": "untouched", "v2": None}
        return v1, v2, comments, expect
    if shape == "drift":
        v1 = corpus_uniq(size)
        sentences = sentences_of(v1)
        edited = sorted(rnd.sample(sentences, min(50, len(sentences))))
        edits = []
        for s, e in edited:
            words = v1[s:e].split()
            rnd.shuffle(words)
            edits.append((s, e, " ".join(words[: max(3, len(words) // 2)]) + " (revised)."))
        v2, v2_of, _ = _apply(v1, edits)
        occ = [m.start() for m in re.finditer(r"(?<![A-Za-z])the(?![A-Za-z])", v1)]
        bad = [(s, e) for s, e in edited]
        starts = [s for s, _ in bad]

        def in_edit(p: int) -> bool:
            j = bisect.bisect_right(starts, p) - 1
            return j >= 0 and bad[j][0] - 40 <= p < bad[j][1] + 40

        occ = [p for p in occ if not in_edit(p)]
        for i in range(n_comments):
            p = rnd.choice(occ)
            comments.append(_comment(i, v1, p, p + 3, (p + 1, p + 4)))  # offsets off by one
            expect[f"c{i}"] = {"verdict": "untouched", "v2": [v2_of(p), v2_of(p) + 3]}
        return v1, v2, comments, expect
    if shape == "zh":
        v1 = corpus_zh(size)
        sentences = _zh_sentences(v1)
        edited = sorted(rnd.sample(sentences, min(50, len(sentences))))
        edits, changed = [], {}
        for s, e in edited:
            t = v1[s:e]
            cands = [w for w in _ZH_WORDS if w in t and "变更" not in t]
            w = rnd.choice(cands)
            k = t.index(w)
            edits.append((s, e, t[:k] + "变更" + t[k + len(w) :]))
            changed[(s, e)] = (s + k, s + k + len(w))
        v2, v2_of, sentence_v2 = _apply(v1, edits)
        for i in range(n_comments):
            s, e = rnd.choice(edited) if rnd.random() < 0.2 else rnd.choice(sentences)
            q0 = s + rnd.randint(0, max(0, (e - s) // 3))
            q1 = min(e, q0 + rnd.randint(3, 20))
            comments.append(_comment(i, v1, q0, q1, (q0, q1)))
            if (s, e) in changed:
                c0, c1 = changed[(s, e)]
                if q0 < c1 and c0 < q1:
                    expect[f"c{i}"] = {"verdict": "edited|deleted", "v2": list(sentence_v2(s))}
                else:
                    expect[f"c{i}"] = {"verdict": "untouched", "v2": None}
            else:
                expect[f"c{i}"] = {"verdict": "untouched", "v2": [v2_of(q0), v2_of(q1)]}
        return v1, v2, comments, expect
    raise ValueError(f"unknown shape {shape!r}; one of {', '.join(SHAPES)}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--comments", type=int, default=1000)
    ap.add_argument("--edits", default="50")
    ap.add_argument("--corpus", default="uniq", choices=("rep", "uniq"))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--shape", choices=SHAPES, help="one of the shapes added here (see SHAPES)")
    a = ap.parse_args()
    if a.shape:
        v1, v2, comments, build.expect = build_shape(a.shape, a.size, a.comments, a.seed)
        write(a.out, v1, v2, comments)
        print(
            json.dumps(
                {
                    "out": str(a.out),
                    "v1": len(v1),
                    "v2": len(v2),
                    "shape": a.shape,
                    "comments": len(comments),
                }
            )
        )
        return
    v1, v2, comments, ne = build(a.size, a.comments, a.edits, a.corpus, a.seed)
    write(a.out, v1, v2, comments)
    print(
        json.dumps(
            {
                "out": str(a.out),
                "v1": len(v1),
                "v2": len(v2),
                "edited": ne,
                "comments": len(comments),
            }
        )
    )


if __name__ == "__main__":
    sys.exit(main())
