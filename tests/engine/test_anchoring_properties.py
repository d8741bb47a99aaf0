"""Invariants of re-anchoring on many random revisions (fixed seeds, so repeatable)."""

import random

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text import utf16
from engine.text.normalize import normalize

WORDS = [
    "the",
    "budget",
    "plan",
    "team",
    "🤔",
    "review",
    "draft",
    "ﬁnal",
    "cost",
    "rate",
    "week",
    "staff",
    "update",
    "policy",
    "report",
    "data",
    "is",
    "was",
    "will",
    "can",
    "not",
    "and",
    "of",
    "to",
    "in",
    "for",
    "on",
    "with",
]


def _doc(rnd, n):
    return " ".join(rnd.choice(WORDS) + ("." if rnd.random() < 0.15 else "") for _ in range(n))


def _revise(rnd, text):
    words = text.split(" ")
    for _ in range(rnd.randint(0, 6)):
        op = rnd.random()
        i = rnd.randrange(len(words))
        if op < 0.3:
            words[i] = rnd.choice(WORDS)
        elif op < 0.5:
            del words[i]
        elif op < 0.7:
            words.insert(i, rnd.choice(WORDS))
        elif op < 0.85:  # move a run of words elsewhere
            j = min(len(words), i + rnd.randint(1, 5))
            run = words[i:j]
            del words[i:j]
            k = rnd.randint(0, len(words))
            words[k:k] = run
        else:
            words[i] = words[i].replace(" ", "\u00a0")
        if not words:
            words = ["empty"]
    return " ".join(words)


def test_verdicts_agree_with_the_spans_they_report():
    rnd = random.Random(20261130)
    checked = 0
    for _ in range(300):
        t1 = _doc(rnd, rnd.randint(5, 60))
        t2 = _revise(rnd, t1)
        om = utf16.OffsetMap(t1)
        comments = []
        for k in range(5):
            s = rnd.randrange(len(t1))
            e = min(len(t1), s + rnd.randint(1, 25))
            if not t1[s:e].strip():
                continue
            comments.append(
                Comment(
                    f"c{k}",
                    "",
                    Anchor(
                        t1[s:e],
                        t1[max(0, s - 32) : s],
                        t1[e : e + 32],
                        start_offset=om.to_utf16(s),
                        end_offset=om.to_utf16(e),
                    ),
                )
            )
        r = score(Version.from_source(t1, "text"), Version.from_source(t2, "text", "v2"), comments)
        assert not r.unusable
        for v in r.verdicts:
            checked += 1
            assert v.v1.text == t1[v.v1.start : v.v1.end]
            if v.verdict == "deleted":
                assert v.v2 is None
                continue
            assert 0 <= v.v2.start <= v.v2.end <= len(t2)
            assert v.v2.text == t2[v.v2.start : v.v2.end]
            same = normalize(v.v1.text) == normalize(v.v2.text)
            assert (v.verdict == "untouched") == same, (t1, t2, v)
            if v.method == "exact" and v.v1.text == v.v2.text:
                # the diff kept it, so the v2 text there is the quote itself
                assert not v.approximate
        j = r.to_json()  # UTF-16 conversion never fails on astral text
        for v in j["verdicts"]:
            if v["v2"]:
                assert v["v2"]["end"] <= utf16.utf16_length(t2)
    assert checked > 1000


CJK = list("我们计划在下个月的第一周召开年度董事会会议并讨论明年预算分配方案以及新员工招聘")
KANA = list("かいぎはじゅうじにはじまりますしりょうはじぜんにはいふします")


def _cjk_sentence(rnd):
    alphabet = CJK if rnd.random() < 0.7 else KANA
    return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(4, 14))) + rnd.choice("。！？")


def _latin_sentence(rnd):
    words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 10)))
    return words[0].upper() + words[1:] + ". "


def _sentences(rnd, n):
    """Sentences of mixed scripts, some paragraphs repeated word for word."""
    out = []
    for _ in range(n):
        if out and rnd.random() < 0.15:  # a repeated passage
            k = rnd.randrange(len(out))
            out.extend(out[k : k + rnd.randint(1, 3)])
        else:
            out.append(_cjk_sentence(rnd) if rnd.random() < 0.5 else _latin_sentence(rnd))
        if rnd.random() < 0.2:
            out.append("\n")
    return out


def _revise_sentences(rnd, sents):
    sents = list(sents)
    for _ in range(rnd.randint(0, 4)):
        op = rnd.random()
        i = rnd.randrange(len(sents))
        if op < 0.35:  # move a run of sentences elsewhere
            j = min(len(sents), i + rnd.randint(1, 3))
            run = sents[i:j]
            del sents[i:j]
            k = rnd.randint(0, len(sents))
            sents[k:k] = run
        elif op < 0.55:  # one character changed inside a CJK or Latin sentence
            s = sents[i]
            if len(s) > 2:
                p = rnd.randrange(len(s) - 1)
                sents[i] = s[:p] + rnd.choice(CJK + ["x", "y"]) + s[p + 1 :]
        elif op < 0.7:
            del sents[i]
        elif op < 0.85:
            sents.insert(i, _cjk_sentence(rnd))
        else:  # rewrite a sentence
            sents[i] = _latin_sentence(rnd) if rnd.random() < 0.5 else _cjk_sentence(rnd)
        if not sents:
            sents = ["空。"]
    return sents


def _comments_on(rnd, t1, k=5):
    om = utf16.OffsetMap(t1)
    out = []
    for c in range(k):
        s = rnd.randrange(len(t1))
        e = min(len(t1), s + rnd.randint(1, 20))
        if not t1[s:e].strip():
            continue
        out.append(
            Comment(
                f"c{c}",
                "",
                Anchor(
                    t1[s:e],
                    t1[max(0, s - 32) : s],
                    t1[e : e + 32],
                    start_offset=om.to_utf16(s),
                    end_offset=om.to_utf16(e),
                ),
            )
        )
    return out


def test_cjk_moves_and_repeated_paragraphs_keep_verdicts_consistent():
    """300 random revisions of mixed CJK/kana/Latin text with repeated passages: moves,
    one-character edits, deletions, insertions, rewrites. Spans are the text they say,
    and the verdict is untouched exactly when the text is the same after normalisation."""
    rnd = random.Random(8_2026)
    checked = 0
    for _ in range(300):
        sents = _sentences(rnd, rnd.randint(3, 14))
        t1 = "".join(sents)
        t2 = "".join(_revise_sentences(rnd, sents))
        comments = _comments_on(rnd, t1)
        r = score(Version.from_source(t1, "text"), Version.from_source(t2, "text", "v2"), comments)
        assert not r.unusable
        for v in r.verdicts:
            checked += 1
            assert v.v1.text == t1[v.v1.start : v.v1.end]
            if v.verdict == "deleted":
                assert v.v2 is None
                continue
            assert 0 <= v.v2.start <= v.v2.end <= len(t2)
            assert v.v2.text == t2[v.v2.start : v.v2.end]
            same = normalize(v.v1.text) == normalize(v.v2.text)
            assert (v.verdict == "untouched") == same, (t1, t2, v)
            if v.verdict == "edited":
                assert v.v2.text.strip(), (t1, t2, v)  # an edit has text in its place
    assert checked > 1000


def test_moves_alone_never_make_an_edit():
    """Sentences only moved (and repeated paragraphs left alone): every comment inside one
    sentence keeps an unchanged verdict, found where its text now is."""
    rnd = random.Random(5150)
    checked = 0
    for _ in range(300):
        sents = _sentences(rnd, rnd.randint(4, 12))
        t1 = "".join(sents)
        moved_sents = list(sents)
        i = rnd.randrange(len(moved_sents))
        j = min(len(moved_sents), i + rnd.randint(1, 2))
        run = moved_sents[i:j]
        del moved_sents[i:j]
        k = rnd.randint(0, len(moved_sents))
        moved_sents[k:k] = run
        t2 = "".join(moved_sents)
        # comments inside single sentences, away from their ends
        starts = [0]
        for s_ in sents:
            starts.append(starts[-1] + len(s_))
        comments = []
        om = utf16.OffsetMap(t1)
        for c in range(4):
            n = rnd.randrange(len(sents))
            a, b = starts[n], starts[n + 1]
            if b - a < 6:
                continue
            s = rnd.randint(a, b - 5)
            e = rnd.randint(s + 4, b - 1)
            if not t1[s:e].strip() or e - s < 4:
                continue
            comments.append(
                Comment(
                    f"c{c}",
                    "",
                    Anchor(
                        t1[s:e],
                        t1[max(0, s - 32) : s],
                        t1[e : e + 32],
                        start_offset=om.to_utf16(s),
                        end_offset=om.to_utf16(e),
                    ),
                )
            )
        r = score(Version.from_source(t1, "text"), Version.from_source(t2, "text", "v2"), comments)
        for v in r.verdicts:
            checked += 1
            assert v.verdict == "untouched", (t1, t2, v)
            assert normalize(t2[v.v2.start : v.v2.end]) == normalize(v.v1.text)
    assert checked > 600
