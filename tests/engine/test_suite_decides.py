"""Suites that decide, against the scripted server (docs/suites.md, "Statistics"): a
deterministic agent that wins on one document of three is not ranked above one that wins
on two; intervals shrink as documents are added; the same seed gives the same report byte
for byte (a different seed another); shards merged give the report one machine gives;
``arl suite compare`` judges by the paired difference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.cli.main import main as arl
from tests.helpers.scripted_server import ScriptedAgent, ScriptedServer


class WinsOn(ScriptedAgent):
    """Fixes the comments only in documents whose text names one of ``docs`` ("Memo d2:"),
    elsewhere pushes the document unchanged: the same answer every repeat."""

    def __init__(self, docs: set[str]) -> None:
        super().__init__()
        self.docs = docs

    def edit(self, content: str, comments: list[dict[str, Any]]) -> str:
        if any(f"Memo {d}:" in content for d in self.docs):
            return super().edit(content, comments)
        return content


def write_docs_suite(
    folder: Path, models: dict[str, str], docs: list[str], repeats: int = 2
) -> Path:
    """A suite over the memos ``docs`` (one comment each) and ``models`` (name -> URL)."""
    (folder / "d").mkdir(parents=True, exist_ok=True)
    entries = []
    for d in docs:
        text = f"Memo {d}: the team meets two days a week in the office."
        start = text.index("two days")
        (folder / "d" / f"{d}.txt").write_text(text, encoding="utf-8")
        comment = {
            "id": "c1",
            "body": "Say three days.",
            "anchor": {
                "quote": "two days",
                "prefix": text[:start][-8:],
                "suffix": text[start + 8 :][:8],
                "start_offset": start,
                "end_offset": start + 8,
            },
        }
        (folder / "d" / f"{d}.json").write_text(json.dumps([comment]), encoding="utf-8")
        entries.append(f'{{ path = "d/{d}.txt", comments = "d/{d}.json" }}')
    lines = [
        'name = "decides"',
        "rounds = 1",
        f"repeats = {repeats}",
        "seed = 11",
        f"documents = [{', '.join(entries)}]",
        "[limits]",
        "timeout = 10",
        "turns_per_round = 8",
    ]
    for name, url in models.items():
        lines += [
            "[[models]]",
            f'name = "{name}"',
            f'base_url = "{url}"',
            'model = "scripted-model"',
        ]
    p = folder / "suite.toml"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def _run(suite: Path, out: Path, capsys, *extra: str) -> dict[str, Any]:
    code = arl(["suite", "run", str(suite), "--yes", "--out", str(out), "--json", *extra])
    text = capsys.readouterr().out
    assert code == 0, text[-2000:]
    return json.loads(text[text.index("{") :])


@pytest.fixture
def servers():
    with (
        ScriptedServer(WinsOn({"d1"})) as one,
        ScriptedServer(WinsOn({"d2", "d3"})) as two,
    ):
        yield one, two


def test_one_win_of_three_is_not_ranked_above_two_wins(tmp_path, capsys, servers):
    one, two = servers
    s = write_docs_suite(
        tmp_path, {"one": one.base_url, "two": two.base_url}, ["d1", "d2", "d3"], repeats=3
    )
    rep = _run(s, tmp_path / "o", capsys)["report"]
    by = {c["model"]: c["metrics"]["attribution_rate"] for c in rep["combinations"]}
    assert by["one"]["mean"] == pytest.approx(1 / 3) and by["two"]["mean"] == pytest.approx(2 / 3)
    assert by["one"]["interval"]["documents"] == 3 and by["one"]["interval"]["repeats"] == 3
    for m, r in rep["ranking"].items():
        assert ["one", "two"] not in [
            [a.split(" / ")[0], b.split(" / ")[0]] for a, b in r["ranked"]
        ]
        assert r["ranked"] == [], m  # three documents: too few to rank anything
    assert "too few documents" in rep["ranking"]["attribution_rate"]["note"]


def test_intervals_shrink_as_documents_are_added(tmp_path, capsys):
    widths = []
    for n in (3, 6, 12):
        docs = [f"d{i}" for i in range(1, n + 1)]
        wins = {d for i, d in enumerate(docs) if i % 3 != 1}  # two of every three
        with ScriptedServer(WinsOn(wins)) as srv:
            s = write_docs_suite(tmp_path / str(n), {"m": srv.base_url}, docs, repeats=1)
            rep = _run(s, tmp_path / str(n) / "o", capsys)["report"]
        iv = rep["combinations"][0]["metrics"]["attribution_rate"]["interval"]
        assert iv["mean"] == pytest.approx(2 / 3) and iv["documents"] == n
        widths.append(iv["high"] - iv["low"])
    assert widths[0] > widths[1] > widths[2] > 0, widths


def test_same_seed_same_report_byte_for_byte(tmp_path, capsys, servers):
    one, two = servers
    s = write_docs_suite(
        tmp_path, {"one": one.base_url, "two": two.base_url}, ["d1", "d2", "d3"], repeats=1
    )
    pages, texts, reports = [], [], []
    for k, seed in enumerate(("11", "11", "12")):
        sid = _run(s, tmp_path / f"o{k}", capsys, "--seed", seed)["suite_id"]
        assert arl(["suite", "report", sid, "--html", str(tmp_path / f"page{k}")]) == 0
        texts.append(capsys.readouterr().out)
        assert arl(["suite", "report", sid, "--json"]) == 0
        reports.append(json.loads(capsys.readouterr().out)["report"])
        pages.append((tmp_path / f"page{k}" / "index.html").read_bytes())
    assert pages[0] == pages[1] and texts[0] == texts[1]
    assert json.dumps(reports[0]) == json.dumps(reports[1])
    # another seed is said (and its resamples are others: tests/engine/test_suite_stats.py)
    assert pages[2] != pages[0] and b"bootstrap seed 12" in pages[2]


def test_shards_merged_give_the_report_of_one_machine(tmp_path, capsys, servers):
    one, two = servers
    s = write_docs_suite(tmp_path, {"one": one.base_url, "two": two.base_url}, ["d1", "d2", "d3"])
    whole = _run(s, tmp_path / "all", capsys)["report"]
    assert whole["combinations"][0]["metrics"]["attribution_rate"]["interval"]["low"] < 1 / 3
    folders = []
    for i in (1, 2):
        sid = _run(s, tmp_path / f"shard{i}", capsys, "--shard", f"{i}/2")["suite_id"]
        folders.append(str(tmp_path / f"shard{i}" / sid))
    assert arl(["suite", "merge", *folders, "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)["report"]
    assert json.dumps(merged, sort_keys=True) == json.dumps(whole, sort_keys=True)


def test_compare_uses_the_paired_difference(tmp_path, capsys):
    """Eight memos; the first suite run's agent wins on three, the second's on those and
    four more. The intervals of the two means overlap, yet no document moved the other
    way: the paired difference is wholly above zero, so compare says better."""
    docs = [f"d{i}" for i in range(1, 9)]
    sids, ivs = [], []
    for k, wins in enumerate((set(docs[:3]), set(docs[:7]))):
        with ScriptedServer(WinsOn(wins)) as srv:
            s = write_docs_suite(tmp_path / str(k), {"m": srv.base_url}, docs, repeats=1)
            got = _run(s, tmp_path / str(k) / "o", capsys)
        sids.append(got["suite_id"])
        ivs.append(got["report"]["combinations"][0]["metrics"]["attribution_rate"]["interval"])
    assert ivs[0]["high"] >= ivs[1]["low"]  # overlapping: the old rule could not tell
    assert arl(["suite", "compare", *sids, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    att = next(r for r in rows if r["metric"] == "attribution_rate")
    assert att["delta"] == pytest.approx(4 / 8) and att["documents"] == 8
    assert att["low"] > 0 and att["verdict"] == "better", att
    assert arl(["suite", "compare", *sids]) == 0
    out = capsys.readouterr().out
    assert "attribution 38% -> 88% (+50 points [" in out, out
    assert "over 8 documents x 1 repeats: better" in out
    # a suite run against itself: every paired difference is zero, nothing to tell
    assert arl(["suite", "compare", sids[0], sids[0], "--json"]) == 0
    same = next(r for r in json.loads(capsys.readouterr().out) if r["metric"] == "attribution_rate")
    assert (
        same["delta"] == 0 and same["verdict"] == "the paired interval includes zero: cannot tell"
    )


def test_one_document_every_combination_side_by_side_and_the_published_page(
    tmp_path, capsys, servers, monkeypatch
):
    from engine.publish.published import PublishError
    from engine.suite.html_report import publish_suite_page
    from engine.suite.store import SuiteStore

    one, two = servers
    s = write_docs_suite(
        tmp_path, {"one": one.base_url, "two": two.base_url}, ["d1", "d2", "d3"], repeats=1
    )
    sid = _run(s, tmp_path / "o", capsys)["suite_id"]
    assert arl(["suite", "report", sid, "--document", "d1"]) == 0
    out = capsys.readouterr().out
    assert "Document d1: 1 comment, 2 runs" in out and "Comment 1 on \u201ctwo days\u201d:" in out
    lines = [ln.strip() for ln in out.splitlines()]
    assert "one / default, repeat 1  \u270e edited" in lines
    assert "two / default, repeat 1  \u25cb untouched (the agent claimed: addressed)" in lines
    # a forged figure in one run: its column says TAMPERED, not its verdicts
    with SuiteStore() as store:
        items = store.items(sid)
    victim = next(i for i in items if i.document == "d2" and i.model == "two")
    figures = Path(victim.bundle) / "metrics.json"
    data = json.loads(figures.read_text(encoding="utf-8"))
    data["attribution_rate"] = {"value": 0.01, "numerator": 1, "denominator": 100}
    figures.write_text(json.dumps(data), encoding="utf-8")
    assert arl(["suite", "report", sid, "--document", "d2", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert [c["title"] for c in table["columns"]] == [
        "one / default, repeat 1",
        "two / default, repeat 1",
    ]
    assert table["rows"][0]["cells"][0].startswith("\u25cb untouched")
    assert table["rows"][0]["cells"][1].startswith("TAMPERED: ")
    assert arl(["suite", "report", sid, "--document", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no run of this suite reviewed 'nope'; its documents: d1, d2, d3" in err
    # Publish writes the same page as --html, into the publishing folder
    assert arl(["suite", "report", sid, "--html", str(tmp_path / "page")]) == 0
    capsys.readouterr()
    monkeypatch.setenv("ARL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ARL_PUBLISHED_FOLDER", raising=False)
    with pytest.raises(PublishError, match="no publishing folder chosen yet"):
        publish_suite_page(items, sid, name="decides", seed=11)
    page = publish_suite_page(items, sid, name="decides", seed=11, folder=tmp_path / "shared")
    assert page == tmp_path / "shared" / "suites" / sid / "index.html"
    assert page.read_bytes() == (tmp_path / "page" / "index.html").read_bytes()
    assert b'class="tampered">TAMPERED' in page.read_bytes()
    again = publish_suite_page(items, sid, name="decides", seed=11, folder=tmp_path / "shared")
    assert again == page and sorted(p.name for p in page.parent.parent.iterdir()) == [sid]
