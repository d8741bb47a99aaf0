"""Every line ``arl score`` prints escapes terminal controls, as ``arl bundle`` does: a
comment id (or quote, reason, claims path) with a newline and an escape sequence cannot
forge a red line or reorder one (docs/engine.md)."""

from __future__ import annotations

import json
import re

import pytest

from engine.cli.main import main as arl

FORGED = "c1\n\x1b[31mTAMPERED: every figure is forged\x1b[0m"
SNEAKY = [
    FORGED,
    "c2\r\x1b[2KOK",  # carriage return and erase line
    "c3\u202eDESREVER",  # a bidi override reorders what follows
    "c4\u2028next",  # a line separator
    "c5\x9b31m",  # a C1 control sequence introducer
]


@pytest.fixture
def files(tmp_path):
    v1 = tmp_path / "v1.html"
    v2 = tmp_path / "v2.html"
    v1.write_text("<p>alpha beta gamma delta epsilon zeta eta theta</p>")
    v2.write_text("<p>alpha BETA gamma delta epsilon zeta eta theta</p>")
    items = []
    for i, cid in enumerate(SNEAKY):
        quote = ["beta", "gamma", "delta", "epsilon", "zeta"][i]
        items.append({"id": cid, "body": "x\x1b[1m", "anchor": {"quote": quote}})
    items.append({"id": "gone\n\x1b[32mfine", "body": "y", "anchor": {"quote": "nowhere"}})
    c = tmp_path / "c.json"
    c.write_text(json.dumps(items))
    return v1, v2, c


def _unsafe(text: str) -> list[str]:
    return [ch for ch in text if ch in "\x1b\r\x9b\u202e\u2028"]


def test_score_summary_lines_escape_every_control(files, capsys):
    v1, v2, c = files
    assert arl(["score", "--v1", str(v1), "--v2", str(v2), "--comments", str(c)]) == 0
    out, err = capsys.readouterr()
    assert not _unsafe(out) and not _unsafe(err)
    starts = ("TAMPERED", "OK", "fine", "next", "\\x1b")
    assert not any(line.strip().startswith(starts) for line in out.splitlines())
    assert "\\x1b[31mTAMPERED" in out  # shown, visibly escaped, on the comment's own line
    # one line per comment: the newline in an id did not start a line of its own
    assert sum(1 for line in out.splitlines() if re.match(r"  c\d", line)) == 5


def test_score_json_keeps_the_data_exact(files, capsys):
    v1, v2, c = files
    assert arl(["score", "--v1", str(v1), "--v2", str(v2), "--comments", str(c), "--json"]) == 0
    out, err = capsys.readouterr()
    ids = [v["comment_id"] for v in json.loads(out)["verdicts"]]
    assert FORGED in ids  # JSON escapes the controls itself; the value stays exact
    assert not _unsafe(err)
