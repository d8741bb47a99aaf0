"""Invariants of re-anchoring on many random revisions (fixed seeds, so repeatable)."""

import random

from engine import utf16
from engine.models import Anchor, Comment
from engine.normalize import normalize
from engine.scoring import Version, score

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
