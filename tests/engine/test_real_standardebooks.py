"""Real editorial commits (Standard Ebooks, CC0; see data/standardebooks/README.md).

Each file pair is covered with window anchors of about 200 characters. The oracle is
independent of the engine's diff: a window is edited exactly when its normalised text no
longer occurs in the normalised v2 text. Markup-only commits must leave every window
untouched, with ``markup_changed`` set where the body markup under a window changed.
"""

import json
from pathlib import Path

import pytest

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text import utf16
from engine.text.normalize import normalize

BASE = Path(__file__).resolve().parents[1] / "data/standardebooks"
INDEX = json.loads((BASE / "index.json").read_text())
PAIRS = [
    (c["dir"], c["message"], p) for c in INDEX for p in sorted((BASE / c["dir"]).glob("*.v1.xhtml"))
]
TEXT_EDITS = {"b800abf", "289df64", "0159a89", "106b013", "8afef18"}


def _windows(text, size=200):
    out, i = [], 0
    while i < len(text):
        j = min(len(text), i + size)
        while j < len(text) and not text[j].isspace():
            j += 1
        if text[i:j].strip():
            out.append((i, j))
        i = j
    return out


@pytest.mark.parametrize("sha,message,path", PAIRS, ids=[f"{s}-{p.name[:20]}" for s, _, p in PAIRS])
def test_editorial_commit(sha, message, path):
    v1 = Version.from_source(path.read_bytes(), "html", "v1")
    v2 = Version.from_source(
        path.with_name(path.name.replace(".v1.", ".v2.")).read_bytes(), "html", "v2"
    )
    om = utf16.OffsetMap(v1.text)
    wins = _windows(v1.text)
    comments = [
        Comment(
            f"w{k}",
            "",
            Anchor(v1.text[s:e], start_offset=om.to_utf16(s), end_offset=om.to_utf16(e)),
        )
        for k, (s, e) in enumerate(wins)
    ]
    r = score(v1, v2, comments)
    assert not r.unusable
    n2 = normalize(v2.text)
    for (s, e), v in zip(wins, r.verdicts):
        expected = "untouched" if normalize(v1.text[s:e]) in n2 else "edited"
        assert v.verdict == expected, (v.comment_id, v1.text[s:e][:60])
    edited = sum(v.verdict == "edited" for v in r.verdicts)
    same_text = normalize(v1.text) == n2  # whitespace-only differences count as the same
    if sha not in TEXT_EDITS:
        assert same_text and edited == 0
    if same_text and len(wins) > 1 and "css" not in message.lower():
        # a markup-only commit: the change shows beside the verdict, never as an edit
        assert any(v.markup_changed for v in r.verdicts), message
    if sha in ("b800abf", "289df64"):  # pure text edits, no markup touched
        assert edited >= 1 and not any(v.markup_changed for v in r.verdicts)
