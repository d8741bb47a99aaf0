"""A Markdown review end to end: verdicts on rendered text, the agent on the source, the
bundle storing both and verifying (docs/anchor.md, "Markdown"; docs/bundle.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli.main import main as arl
from engine.models import Comment
from engine.score.scoring import Version, score
from engine.text.markdown import markdown_page
from tests.helpers.markdown_edits import renumber, repad, rewrap
from tests.helpers.scripted_server import FixEverything, ScriptedServer, make_comment

DATA = Path(__file__).parents[1] / "data" / "markdown"
SELECTOLAX = (DATA / "selectolax.md").read_text(encoding="utf-8")

# Quotes as a reader selects them in the rendered page: a paragraph wrapped over two
# source lines, a table cell, a list item's words, a heading.
QUOTES = [
    "you may need to install Cython",
    "selectolax (Lexbor)",
    "More examples",
    "Simple Benchmark",
    "This usually happens when you try to install an outdated version",
]


def _comments(text: str) -> list[Comment]:
    return [Comment.from_json(make_comment(text, q, f"c{i}")) for i, q in enumerate(QUOTES, 1)]


def test_quotes_are_rendered_text_not_source() -> None:
    v1 = Version.from_source(SELECTOLAX, "markdown")
    assert v1.raw == SELECTOLAX and v1.kind == "markdown"
    for q in QUOTES:
        assert q in v1.text
    # the wrapped paragraph's quote is not in the source as it is in the text
    assert "[Cython](https://github.com/cython/cython)" in SELECTOLAX


def test_rewrap_renumber_repad_leave_every_commented_word_untouched() -> None:
    v1 = Version.from_source(SELECTOLAX, "markdown")
    edited = repad(renumber(rewrap(SELECTOLAX, 30), "count"), 4)
    assert edited != SELECTOLAX
    v2 = Version.from_source(edited, "markdown", "v2")
    result = score(v1, v2, _comments(v1.text))
    assert result.unusable == []
    assert {v.comment_id: v.verdict for v in result.verdicts} == {
        f"c{i}": "untouched" for i in range(1, len(QUOTES) + 1)
    }
    assert result.churn_inside == 0 and result.churn_outside == 0
    assert not any(v.markup_changed for v in result.verdicts)


def test_a_word_changed_in_the_source_is_an_edit_of_the_rendered_text() -> None:
    v1 = Version.from_source(SELECTOLAX, "markdown")
    edited = SELECTOLAX.replace("| selectolax (Lexbor)           |", "| selectolax (lexbor C)  |")
    assert edited != SELECTOLAX
    result = score(v1, Version.from_source(edited, "markdown", "v2"), _comments(v1.text))
    verdicts = {v.comment_id: v.verdict for v in result.verdicts}
    assert verdicts["c2"] == "edited"
    assert [k for k, v in verdicts.items() if v != "untouched"] == ["c2"]


def test_plain_text_stays_plain_text() -> None:
    v = Version.from_source("# Not a heading\n\n*not emphasis*", "text")
    assert v.text == "# Not a heading\n\n*not emphasis*"


@pytest.fixture
def md_inputs(tmp_path: Path) -> tuple[Path, Path]:
    doc = tmp_path / "selectolax.md"
    doc.write_text(SELECTOLAX, encoding="utf-8")
    text = Version.from_source(SELECTOLAX, "markdown").text
    comments = tmp_path / "comments.json"
    comments.write_text(
        json.dumps([make_comment(text, "Simple Benchmark", "c1", "Name the benchmark.")]),
        encoding="utf-8",
    )
    return doc, comments


def _run(srv, doc: Path, comments: Path, out: Path) -> Path:
    args = [
        "run",
        "--yes",
        "--doc",
        str(doc),
        "--comments",
        str(comments),
        "--base-url",
        srv.base_url,
    ]
    assert arl([*args, "--model", srv.model, "--out", str(out), "--rounds", "1"]) == 0
    (bundle,) = [p for p in out.iterdir() if (p / "manifest.json").exists()]
    return bundle


def test_a_markdown_run_gives_the_agent_markdown_and_its_bundle_verifies(
    md_inputs, tmp_path, capsys
) -> None:
    doc, comments = md_inputs
    with ScriptedServer(FixEverything()) as srv:
        bundle = _run(srv, doc, comments, tmp_path / "bundles")
        pulled = [
            json.loads(m["content"])
            for req in srv.requests
            for m in req["messages"]
            if m.get("role") == "tool" and '"kind"' in (m.get("content") or "")
        ]
    assert pulled and pulled[0]["kind"] == "markdown" and pulled[0]["content"] == SELECTOLAX
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert manifest["document_kind"] == "markdown"
    assert manifest["markdown_renderer"].startswith("markdown-it-py ")
    v1 = next(v for v in manifest["versions"] if v["name"] == "v1")
    assert v1["source_file"] == "document/v1.md"
    assert (bundle / "document/v1.md").read_text(encoding="utf-8") == SELECTOLAX
    assert (bundle / "document/v1.html").read_text(encoding="utf-8") == markdown_page(
        SELECTOLAX, "v1"
    )
    v2_source = (bundle / "document/v2.md").read_text(encoding="utf-8")
    assert "## Installation" in v2_source  # the agent pushed Markdown
    verdicts = json.loads((bundle / "verdicts.json").read_text())
    final = verdicts.get("final", verdicts)
    items = final["verdicts"] if isinstance(final, dict) else final
    assert [(i["comment_id"], i["verdict"]) for i in items] == [("c1", "edited")]
    capsys.readouterr()
    assert arl(["bundle", "verify", str(bundle)]) == 0


def test_a_bundle_is_scored_from_the_page_it_showed_under_another_renderer(
    md_inputs, tmp_path, monkeypatch, capsys
) -> None:
    doc, comments = md_inputs
    with ScriptedServer(FixEverything()) as srv:
        bundle = _run(srv, doc, comments, tmp_path / "bundles")
    from engine.bundle import read as bundle_read
    from engine.text import markdown

    # A later program whose renderer draws every page differently still verifies the
    # bundle: it re-scores the stored pages, and cannot compare renderings it would not make.
    monkeypatch.setattr(markdown, "renderer_identity", lambda: "markdown-it-py 99, x 1")
    monkeypatch.setattr(markdown, "markdown_page", lambda s, t="": "<p>other</p>")
    result = bundle_read.verify_bundle(bundle)
    assert result.ok, (result.bad, result.problems)


def test_a_page_that_is_not_the_rendering_of_its_source_is_a_problem(md_inputs, tmp_path) -> None:
    doc, comments = md_inputs
    with ScriptedServer(FixEverything()) as srv:
        bundle = _run(srv, doc, comments, tmp_path / "bundles")
    from engine.bundle.read import open_bundle

    b = open_bundle(bundle)
    assert b.problems == []
    from engine.bundle import read as bundle_read

    problem = bundle_read._rendering_problem(
        b.manifest,
        {"file": "document/v1.html", "source_file": "document/v1.md"},
        "v1",
        SELECTOLAX + "\nadded",
        b.version("v1").html,
    )
    assert problem and "is not the rendering of document/v1.md" in problem


def test_a_markdown_bundle_is_arl_bundle_3(md_inputs, tmp_path) -> None:
    from engine.bundle.formats import FORMAT_V2, FORMAT_V3
    from engine.bundle.schema import check_file

    doc, comments = md_inputs
    with ScriptedServer(FixEverything()) as srv:
        bundle = _run(srv, doc, comments, tmp_path / "bundles")
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert manifest["format"] == FORMAT_V3
    assert check_file("manifest.json", manifest, FORMAT_V3) == []
    older = dict(manifest, format=FORMAT_V2)
    problems = check_file("manifest.json", older, FORMAT_V2)
    assert any("arl-bundle/3" in p for p in problems)
    for name in ("markdown_renderer", "markdown_note"):
        older.pop(name)
    assert any(
        "Markdown document is arl-bundle/3" in p
        for p in check_file("manifest.json", older, FORMAT_V2)
    )
