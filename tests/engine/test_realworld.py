"""Every case of tests/data/realworld/ (tests/data/realworld/README.md): built from public bug reports of other
anchoring and diff tools; each folder's expected.json names the source and the verdicts."""

import json
from pathlib import Path

import pytest

from engine.models import Comment
from engine.score.scoring import Version, score

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


@pytest.mark.parametrize(
    "name,v2_text",
    [
        ("hyphen-to-en-dash", "–"),
        ("double-hyphen-to-em-dash", "—"),
        ("emoji-skin-tone", "👍🏿"),
        ("currency-sign", "€"),
    ],
)
def test_n03_punctuation_symbol_and_emoji_quotes_replaced_are_edits(name, v2_text):
    assert _expected("N03")[name] == "edited"
    r = _score("N03", name)
    (v,) = r.verdicts
    assert v.verdict == "edited", (v.method, v.note)
    assert v.v2.text == v2_text
    assert v.confidence == 1.0  # the context on both sides is intact: the place is certain
    assert r.churn_outside == 0


def test_n04_chinese_edit_lands_on_the_changed_words():
    exp = _expected("N04")
    assert exp["c1 edited anchor"] == "edited, v2 '理事会'"
    assert exp["c2 untouched anchor"] == "untouched"
    r = _score("N04")
    by = {v.comment_id: v for v in r.verdicts}
    assert by["c1"].verdict == "edited" and by["c1"].v2.text == "理事会"
    assert by["c2"].verdict == "untouched" and by["c2"].v2.text == "预算分配方案"
    assert by["c2"].v2.start == r.v2.text.index("预算分配方案")


def test_n06_sentences_swapped_within_their_paragraph_are_moved_not_edited():
    exp = _expected("N06")
    assert set(exp.values()) == {"untouched"}
    r = _score("N06")
    # Which of two swapped sentences "moved" is the diff's choice; at least one did.
    assert any(v.method == "moved" for v in r.verdicts)
    for v in r.verdicts:
        assert v.verdict == "untouched", (v.comment_id, v.method, v.note)
        assert v.method in ("moved", "exact")
        assert v.v2.text == v.v1.text
        assert r.v2.text[v.v2.start : v.v2.end] == v.v1.text
