"""What the program writes NOW is in plain words: a new run's stored scorecard.html (the
evidence, written once) says no old code ("ATTRIBUTION: STALE ANCHOR", "Run id", an ISO
time, "(html)", "review harness") as text a reader sees; the exact lines stay only in
hover titles. Older bundles keep their stored page unchanged (hashed and signed)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from engine.cli.main import main as arl
from tests.helpers.scripted_server import ClaimWithoutEditing, ScriptedServer

DATA = Path(__file__).resolve().parents[1] / "data"
OLD_CODES = (
    "ATTRIBUTION:",
    "VERIFICATION:",
    "STALE ANCHOR",
    "Run id",
    "review harness",
    "(html)",
    "push(es)",
    "comment(s)",
)
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


class _Visible(HTMLParser):
    """The text a reader sees (no attribute values, no style)."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("style", "script", "title")

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "script", "title")

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def test_a_new_runs_stored_scorecard_is_in_plain_words(tmp_path, capsys):
    src = DATA / "bundle-min"
    doc = tmp_path / "doc.html"
    doc.write_text((src / "document" / "v1.html").read_text(encoding="utf-8"), encoding="utf-8")
    comments = tmp_path / "comments.json"
    comments.write_text((src / "comments.before.json").read_text(encoding="utf-8"))
    with ScriptedServer(ClaimWithoutEditing()) as srv:  # reopens: the integrity control
        args = ["run", "--yes", "--doc", str(doc), "--comments", str(comments), "--rounds", "1"]
        args += ["--base-url", srv.base_url, "--model", srv.model, "--no-sign"]
        assert arl([*args, "--out", str(tmp_path / "o"), "--json"]) == 0
    bundle = Path(json.loads(capsys.readouterr().out.strip().splitlines()[-1])["bundle"])
    page = (bundle / "scorecard.html").read_text(encoding="utf-8")
    seen = _Visible()
    seen.feed(page)
    text = " ".join(seen.text)
    assert "Integrity control" in text and "Agent Review Loop's own check" in text
    for code in OLD_CODES:
        assert code not in text, code
    assert not ISO.search(text), ISO.search(text)
    assert "an HTML page" in text
    after = json.loads((bundle / "comments.after.json").read_text(encoding="utf-8"))
    authors = {r["author"] for c in after["comments"] for r in c["thread"] if r["kind"] == "reopen"}
    assert authors == {"Agent Review Loop"}


def test_an_older_bundle_keeps_its_stored_page_word_for_word():
    """The shipped demo's stored page still reads as written (the evidence), and its
    hash in the manifest still matches: nothing rewrote it."""
    import hashlib

    demo = Path(__file__).resolve().parents[2] / "resources" / "demo"
    demo = demo / "remote-work-policy-scripted"
    data = (demo / "scorecard.html").read_bytes()
    manifest = json.loads((demo / "manifest.json").read_text(encoding="utf-8"))
    assert hashlib.sha256(data).hexdigest() == manifest["files"]["scorecard.html"]
    # the program's own rendering of that old bundle says it in today's words
    from engine.bundle.bundle import own_scorecard
    from engine.bundle.read import open_bundle

    seen = _Visible()
    seen.feed(own_scorecard(open_bundle(demo)))
    text = " ".join(seen.text)
    assert "review harness" in data.decode("utf-8") and "review harness" not in text
    assert "Reopened by Agent Review Loop's own check: " in text
    for code in ("ATTRIBUTION:", "VERIFICATION:", "Run id", "(html)"):
        assert code not in text, code
