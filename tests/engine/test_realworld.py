"""Every case of tests/data/realworld/ (tests/data/realworld/README.md): built from public bug reports of other
anchoring and diff tools; each folder's expected.json names the source and the verdicts."""

import json
from pathlib import Path

import pytest

from engine.models import Comment
from engine.scoring import Version, score

DATA = Path(__file__).parent.parent / "data" / "realworld"


def _score(case: str, name: str | None = None):
    sfx = f"-{name}" if name else ""
    d = DATA / case
    v1 = Version.from_file(d / f"v1{sfx}.html", "v1")
    v2 = Version.from_file(d / f"v2{sfx}.html", "v2")
    comments = [Comment.from_json(c) for c in json.loads((d / f"comments{sfx}.json").read_text())]
    return score(v1, v2, comments)


def _expected(case: str) -> dict[str, str]:
    obj = json.loads((DATA / case / "expected.json").read_text())
    assert obj["source"].startswith("https://github.com/")
    return {c["what"]: c["expected"] for c in obj["checks"]}


@pytest.mark.parametrize("name", ["co2", "m2", "ja-digits", "ja-kana"])
def test_n01_visible_compatibility_edits_are_edits(name):
    assert _expected("N01")[name] == "edited"
    r = _score("N01", name)
    (v,) = r.verdicts
    assert v.verdict == "edited", (v.method, v.note)
    assert v.v2.text != v.v1.text and v.method != "none"
    assert not v.markup_changed
    # the change is the anchor's own: nothing outside it counts as collateral
    assert r.churn_outside == 0 and r.churn_inside > 0
