"""Real papers and real peer-review sentences (F1000RD, CC-BY-SA 4.0; see data/f1000rd)."""

import json
from pathlib import Path

import pytest

from engine.comments_io import load_comments
from engine.score.scoring import Version, score

DOCS = sorted((Path(__file__).resolve().parents[1] / "data/f1000rd/docs").iterdir())


def test_the_corpus_is_all_here():
    assert len(DOCS) == 12
    n = sum(len(json.loads((d / "comments.json").read_text())) for d in DOCS)
    assert n == 117


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_real_paper(doc):
    v1 = Version.from_file(doc / "v1.txt", "v1")
    v2 = Version.from_file(doc / "v2.txt", "v2")
    comments, bad = load_comments(doc / "comments.json", v1.text)
    assert not bad
    result = score(v1, v2, comments)
    assert not result.unusable
    by_id = {v.comment_id: v for v in result.verdicts}
    assert set(by_id) == {c.id for c in comments}
    for c in comments:
        v = by_id[c.id]
        a = c.anchor
        # Every anchor locates in v1 by its own offsets (no repair needed).
        assert not v.offsets_repaired, c.id
        assert v.v1.text == a.quote
        full = a.prefix + a.quote + a.suffix
        if v2.text.count(full) == 1:
            assert v.verdict == "untouched", c.id
        if a.quote not in v2.text:
            assert v.verdict != "untouched", c.id
    j = result.to_json()
    assert set(j["metrics"]) == {
        "attribution_rate",
        "collateral_churn",
        "claim_accuracy",
        "cost_per_attributed_fix",
        "rounds_to_converge",
    }
