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
