"""The suite's HTML report opens offline in headless Chromium with no request made, and a
forged figure in a run's bundle shows TAMPERED in it (docs/suites.md, "The HTML report").
The page is first checked as the published index is (tests/engine/test_published.py: no
script, no event handler, no remote address, a policy that fetches nothing), then opened
in a real browser whose network log must show no request from it."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from engine.suite.store import SuiteStore
from tests.engine.test_published import _static
from tests.engine.test_suites import _suite_id, run_cli, write_suite
from tests.helpers.chromium import CHROMIUM, open_offline
from tests.helpers.scripted_server import FixEverything, ScriptedServer

#: CI (``.ci/run``) installs Debian's chromium and sets ``ARL_REQUIRE_CHROMIUM=1``: there a
#: missing browser fails these tests instead of skipping them.
if CHROMIUM is None and os.environ.get("ARL_REQUIRE_CHROMIUM"):
    raise RuntimeError("chromium is required (ARL_REQUIRE_CHROMIUM) and is not installed")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")


@pytest.fixture
def page(tmp_path, capsys) -> Path:
    """A real suite run's report page, one run's attribution forged after signing."""
    with ScriptedServer(FixEverything()) as srv:
        s = write_suite(tmp_path, srv.base_url)
        code, out, err = run_cli(
            ["suite", "run", str(s), "--yes", "--out", str(tmp_path / "o")], capsys
        )
    assert code == 0, err
    sid = _suite_id(out)
    with SuiteStore() as store:
        victim = store.items(sid)[0]
    figures = Path(victim.bundle) / "metrics.json"
    data = json.loads(figures.read_text(encoding="utf-8"))
    data["attribution_rate"] = {"value": 0.01, "numerator": 1, "denominator": 100}
    figures.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run_cli(["suite", "report", sid, "--html", str(tmp_path / "page")], capsys)
    assert code == 0, err
    return tmp_path / "page" / "index.html"


def test_the_page_is_static_like_the_published_index(page):
    text = page.read_text(encoding="utf-8")
    collected = _static(text)
    words = " ".join(collected.text)
    assert "TAMPERED" in words and "over 2 documents x 2 repeats" in words
    # the charts are the bootstrap's intervals, labelled with documents x repeats
    svg = re.findall(r"<svg.*?</svg>", text, re.S)
    # (the title says what a 95% interval is in words)
    assert svg and all("with 95% confidence" in s and "documents x" in s for s in svg)


@needs_chromium
def test_chromium_opens_it_offline_with_no_request_and_shows_tampered(page):
    dom, asked = open_offline(page)
    assert asked == [], f"the page made requests: {asked}"
    assert dom.count('class="tampered">TAMPERED') == 1
    assert "<svg" in dom and "over 2 documents x 2 repeats" in dom


@needs_chromium
def test_the_request_check_can_fail(tmp_path):
    """The same method sees a page that asks for an image elsewhere."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<!DOCTYPE html><p>x</p><img src="http://example.invalid/pixel.png">', encoding="utf-8"
    )
    _, asked = open_offline(bad)
    assert asked == ["http://example.invalid/pixel.png"]
