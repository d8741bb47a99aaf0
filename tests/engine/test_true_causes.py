"""Plain words, follow-up: every fact says its true cause. A revision checked outside the
program had no provider, model, endpoint or round of this program's, and its scorecard,
its stored scorecard.html, the published index and the CLI say so ("not measured: the
revision was made by an agent outside this program"), never "not reported by the
provider", never a zero. A title that is a file name is not followed by its extension a
second time; the agent signs its replies by its model's name, else "the agent"; a stale
anchor is said once, with what the reviewer can do."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from engine import vocabulary as vocab
from engine.bundle.bundle import own_scorecard
from engine.bundle.read import open_bundle, verify_bundle
from engine.bundle.scorecard import _facts
from engine.cli.main import main as arl

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "resources" / "markdown"
DEMO = ROOT / "resources" / "demo" / "remote-work-policy-scripted"
#: Words that name a cause this kind of bundle does not have.
FALSE_CAUSES = ("provider", "no usage was reported", "not recorded", "unknown model")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _text(page: str) -> str:
    p = _Text()
    p.feed(page)
    return " ".join(" ".join(p.parts).split())


def _cells(page: str) -> dict[str, str]:
    return dict(re.findall(r"<tr><th>([^<]*)</th><td[^>]*>([^<]*)</td></tr>", page))


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> Path:
    """A revision made elsewhere, checked with ``arl score --bundle``."""
    tmp = tmp_path_factory.mktemp("ext")
    message = tmp / "agent.txt"
    message.write_text("c1: three days now", encoding="utf-8")
    out = tmp / "bundle"
    args = ["score", "--v1", str(EXAMPLE / "review.md"), "--v2", str(EXAMPLE / "revised.md")]
    args += ["--comments", str(EXAMPLE / "comments.json"), "--claims", str(message)]
    assert arl([*args, "--bundle", str(out)]) in (0, 1)
    return out


def test_the_facts_of_a_revision_checked_here_say_their_true_cause(checked: Path) -> None:
    b = open_bundle(checked)
    for page in (own_scorecard(b), (checked / "scorecard.html").read_text(encoding="utf-8")):
        cells = _cells(page)
        assert cells["Tokens used"] == vocab.EXTERNAL_FACT_WORDS["tokens"]
        assert "outside this program" in cells["Model"]
        assert "outside this program" in cells["Endpoint"]
        assert "outside this program" in cells["Rounds run"] and "1" not in cells["Rounds run"]
        # one time, the check's: no "Run started" and "Run finished" for a run never made
        assert "Checked on" in cells and "Run started" not in cells
        text = _text(page)
        for wrong in FALSE_CAUSES:
            assert wrong not in text, wrong
        assert vocab.EXTERNAL_USAGE_WORDS in text  # the cost per fix's N/A, in words
    # the stored reason stays the record (re-derived word for word)
    assert b.metrics["cost_per_attributed_fix"].reason == vocab.EXTERNAL_USAGE
    assert verify_bundle(checked).ok


def test_a_run_keeps_its_provider_words(tmp_path: Path) -> None:
    """A run that reached a provider which reported no usage still says so; a run's facts
    are not a revision checked here's."""
    run = {"model": "m", "base_url": "http://127.0.0.1:1/v1", "rounds": 2, "tokens": None}
    cells = _cells("".join(_facts(run, "Memo", [])))
    assert cells["Tokens used"] == "not reported by the provider"
    assert cells["Rounds run"] == "2" and "Run started" in cells and "Checked on" not in cells
    external = {**run, "agent_mode": {"ran": "external"}, "model": "", "base_url": None}
    cells = _cells("".join(_facts(external, "Memo", [])))
    assert cells["Tokens used"] == vocab.EXTERNAL_FACT_WORDS["tokens"]
    # a fact an external bundle does hold is shown as it is
    assert vocab.external_fact({**external, "model": "gpt-x"}, "model", "gpt-x") == "gpt-x"
    assert vocab.external_fact(run, "tokens", None) is None


def test_the_cli_says_the_true_cause(checked: Path, capsys) -> None:
    assert arl(["bundle", "show", str(checked)]) == 0
    shown = capsys.readouterr().out
    assert f"tokens {vocab.EXTERNAL_FACT_WORDS['tokens']}" in shown
    assert f"Cost per attributed fix: N/A \u2014 {vocab.EXTERNAL_USAGE_WORDS}" in shown
    assert "no usage was reported" not in shown and "provider" not in shown


def test_the_published_index_says_why_a_check_names_no_model(checked: Path, tmp_path) -> None:
    from engine.publish import published
    from engine.publish.index import render_index

    published.set_published_folder(tmp_path / "pub")
    entry = published.publish(checked)
    assert entry.external and entry.model_words == vocab.EXTERNAL_FACT_WORDS["model"]
    (listed,) = published.entries(tmp_path / "pub")
    page = render_index([listed])
    assert vocab.EXTERNAL_FACT_WORDS["model"] in page
    assert "not recorded" not in _text(page)
    # an entry that is not a check and names no model still says "not recorded"
    from dataclasses import replace

    assert replace(listed, external=False, model="").model_words == "not recorded"


def test_a_title_that_is_a_file_name_says_its_extension_once() -> None:
    word = {"document_kind": "html", "word_versions": ["v1", "v2"]}
    assert vocab.document_kind_words(word, "review.docx") == "a Word document"
    assert vocab.document_kind_words(word, "Memo") == vocab.WORD_KIND_WORDS
    assert vocab.document_kind_words({**word, "word_versions": ["v1"]}, "Review.DOCX") == (
        "a Word document; the agent's versions are pages"
    )
    cells = _cells("".join(_facts(word, "review.docx", [])))
    assert cells["Document"] == "review.docx"
    assert cells["Kind of document"] == "a Word document"
    assert not any("review.docx:" in v for v in cells.values())


@pytest.mark.parametrize(
    ("manifest", "said"),
    [
        ({"model": "gpt-4o-mini"}, "gpt-4o-mini"),
        ({"model": "smollm2-135m"}, "smollm2-135m"),
        ({"model": "scripted-model", "scripted": True}, "the scripted agent"),
        ({"model": ""}, "the agent"),
        ({}, "the agent"),
        ({"model": "x", "agent_mode": {"ran": "external"}}, "the agent"),
    ],
)
def test_the_agent_signs_by_its_model_else_the_agent(manifest, said) -> None:
    agent = vocab.agent_words(manifest)
    assert agent == said
    assert vocab.author_words(vocab.AGENT_AUTHOR, agent) == said
    assert vocab.author_words("agent") == "the agent"  # never the lower-case role
    # a person called Agent is not the agent
    assert vocab.author_words("Agent Smith", agent) == "Agent Smith"


def test_a_stale_anchor_is_said_once_with_what_to_do() -> None:
    final = json.loads((DEMO / "verdicts.json").read_text(encoding="utf-8"))["final"]
    item = next(v for v in final if v["verdict"] == "stale_anchor")
    said = vocab.stale_anchor_words(item["note"]) + " " + vocab.STALE_NEXT_STEP
    assert said.count("draft-1") == 1 and said.count("not counted") == 1
    assert "What you can do:" in said and "add it again" in said
    assert "made on version" not in said and "quote" not in said
    # an older note without the made-on words still says it plainly
    assert "made on another version" in vocab.stale_anchor_words("")


def test_comments_that_could_not_be_scored_are_called_by_number_in_words() -> None:
    from engine.bundle.scorecard import _unusable

    before = [{"id": "c1"}, {"id": "c7"}]
    page = "".join(_unusable([{"comment_id": "c7", "reason": "2 quote(s) not found"}], before))
    assert "<b title='c7'>Comment 7</b>: 2 quotes not found" in page
    assert "<b>c7</b>" not in page and "(s)" not in page


def test_a_check_is_about_this_check_not_a_run(checked: Path) -> None:
    page = own_scorecard(open_bundle(checked))
    assert "<h2>About this check</h2>" in page and "About this run" not in page
    demo = own_scorecard(open_bundle(DEMO))
    assert "<h2>About this run</h2>" in demo


def test_a_check_says_no_run_took_place(checked: Path, capsys, tmp_path) -> None:
    """The scorecard's banner, its facts, `arl bundle show` and the published index say
    what happened, a check of a revision made elsewhere: never "The run completed",
    "Run finished" or a "Run" row (no run took place in this program)."""
    from engine.publish import published
    from engine.publish.index import render_index

    b = open_bundle(checked)
    for page in (own_scorecard(b), (checked / "scorecard.html").read_text(encoding="utf-8")):
        text = _text(page)
        assert f"{vocab.EXTERNAL_STATUS_WORDS}: {vocab.EXTERNAL_NO_RUN}." in text
        assert "The run completed" not in text and "Run" not in _cells(page)
        assert "Check" in _cells(page)
    assert arl(["bundle", "show", str(checked)]) == 0
    shown = capsys.readouterr().out
    assert f"checked here ({vocab.EXTERNAL_NO_RUN})" in shown and "run completed" not in shown
    published.set_published_folder(tmp_path / "pub")
    published.publish(checked)
    (listed,) = published.entries(tmp_path / "pub")
    # the outcome first ("Awaiting review"), else what happened, not "completed"
    from dataclasses import replace

    assert replace(listed, outcome="").status_words == "checked here (made elsewhere, no run)"
    page = render_index([listed])
    assert "Run finished" not in page and "checked here, no run" in _text(page)
    # a run keeps its words
    assert vocab.status_words({"status": "completed"}) == "Run completed"
    assert vocab.run_or_check(b.manifest) == "check" and vocab.run_or_check({}) == "run"
