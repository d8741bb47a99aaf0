"""The scorecard page reads times in words and calls comments by number: no ISO
timestamp and no raw comment id in its text (docs/gui.md, "Rules every view keeps")."""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

from engine.bundle import signing
from engine.bundle.adjudicate import adjudicate
from engine.bundle.bundle import own_scorecard
from engine.bundle.read import open_bundle

DATA = Path(__file__).resolve().parents[1] / "data"
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def test_the_scorecard_says_times_in_words_and_comments_by_number(tmp_path):
    b = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", b)
    adjudicate(b, "c2", "not-addressed", "still says email", "Ann", signing.new_private_key())
    bundle = open_bundle(b)
    assert ISO.search(str(bundle.manifest.get("finished_at")))  # stored as ISO
    p = _Text()
    p.feed(own_scorecard(bundle))
    text = " ".join(p.parts)
    assert not ISO.search(text), ISO.search(text)
    assert "UTC" in text and "Comment 2" in text
    assert not re.search(r"\bc2\b", text)


def test_a_fact_the_bundle_lacks_says_so_never_an_empty_cell():
    """A revision checked elsewhere has no model or endpoint: "not recorded", not a blank
    that reads as nothing at all (the re-walk's Word check scorecard)."""
    import re

    from engine.bundle.scorecard import _facts

    rows = "".join(_facts({"model": None, "base_url": "", "rounds": 1}, "Memo", []))
    cells = dict(re.findall(r"<tr><th>([^<]*)</th><td>([^<]*)</td></tr>", rows))
    assert cells["Model"] == "not recorded" and cells["Endpoint"] == "not recorded"
    assert all(v.strip() for v in cells.values()), cells
