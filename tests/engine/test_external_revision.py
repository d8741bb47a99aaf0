"""A revision made elsewhere, checked here (engine.agent_message, engine.run.external,
engine.bundle.rederive_external; docs/agent.md, "A revision made elsewhere")."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.agent_message import NO_CLAIM, claims_from_message, resolved_after
from engine.bundle.read import open_bundle, verify_bundle
from engine.bundle.write import content_of, write_bundle
from engine.cli.main import main as arl
from engine.comments_io import load_comments
from engine.run.external import ExternalRevision, check_revision
from engine.score.scoring import Version
from engine.vocabulary import EXTERNAL_USAGE, EXTERNAL_USAGE_WORDS, agent_mode_words

EXAMPLE = Path(__file__).parents[2] / "resources" / "markdown"
IDS = ["c1", "c2", "c3", "c4"]


def _claims(message: str) -> dict:
    report = claims_from_message(message, IDS)
    return report.to_json() if report is not None else None


def test_nothing_said_is_no_claim() -> None:
    assert claims_from_message("", IDS) is None
    assert claims_from_message(" \n\t ", IDS) is None


def test_a_blanket_sentence_claims_every_comment_addressed() -> None:
    report = claims_from_message("Addressed all review comments.", IDS)
    assert report is not None and report.usable
    assert [(c.comment_id, c.claim) for c in report.comments] == [(i, "addressed") for i in IDS]


@pytest.mark.parametrize(
    "message",
    [
        "Addressed all review comments.",
        "I have fixed every comment you left.",
        "All of the feedback is now incorporated.\nThanks!",
        "Thanks for the review. Each suggestion has been applied.",
    ],
)
def test_the_blanket_claim_is_recognised_in_its_forms(message: str) -> None:
    report = claims_from_message(message, IDS)
    assert report is not None and report.usable
    assert {c.claim for c in report.comments} == {"addressed"}


@pytest.mark.parametrize(
    "message",
    [
        "I have not addressed all the comments.",
        "Not every comment could be fixed.",
        "I didn't get to all of the comments, so they were not fixed.",
    ],
)
def test_a_negative_blanket_sentence_is_unusable(message: str) -> None:
    report = claims_from_message(message, IDS)
    assert report is not None and not report.usable and "negative" in report.problem


@pytest.mark.parametrize(
    "message",
    [
        "Didn't get to it",
        "# Notes\n\nThe meeting moved to Thursday. Bring the slides.",
        "Uppercased the title and tidied the intro.",
        "合同第三条已经修改。",
        "تمت مراجعة النص بالكامل.",
        "แก้ไขเอกสารแล้ว 🎉",
    ],
)
def test_text_that_makes_no_claim_is_no_usable_report(message: str) -> None:
    report = claims_from_message(message, IDS)
    assert report is not None and not report.usable and report.problem == NO_CLAIM


_CLAIM_WORDS = re.compile(
    r"comment|feedback|suggest|review|note|point|request|remark|\bc\d|^\s*\W*#?\d+\s*[:|\-\u2013\u2014]",
    re.I | re.M,
)


@cache
def _real_prose() -> tuple[str, ...]:
    data = Path(__file__).parents[1] / "data"
    paras: list[str] = []
    for v in sorted((data / "f1000rd" / "docs").glob("*/v[12].txt")):
        paras += [p.strip() for p in v.read_text(encoding="utf-8").split("\n\n") if p.strip()]
    return tuple(p for p in paras if not _CLAIM_WORDS.search(p))


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_real_prose_that_says_nothing_of_comments_is_never_a_claim_of_addressed(data) -> None:
    """Any run of real paragraphs (f1000rd papers) that says nothing of comments, reviews
    or feedback and names none, however long, is no usable report: never "addressed"."""
    prose = _real_prose()
    start = data.draw(st.integers(0, len(prose) - 1))
    count = data.draw(st.integers(1, 12))
    message = "\n\n".join(prose[start : start + count])
    report = claims_from_message(message, IDS)
    assert report is not None and not report.usable, message[:200]
    assert not any(c.claim == "addressed" for c in report.comments)


def test_one_line_per_comment_by_id_or_number() -> None:
    message = (
        "Here is what I changed:\n"
        "- c1: now three days\n"
        '* "c3" - names the team calendar\n'
        "2 — not addressed: HR decides\n"
        "#4: unchanged\n"
        "c1: a second line for c1 is ignored\n"
        "9: no such comment\n"
    )
    report = claims_from_message(message, IDS)
    assert report is not None and report.usable
    got = [(c.comment_id, c.claim, c.change_summary) for c in report.comments]
    assert got == [
        ("c1", "addressed", "now three days"),
        ("c3", "addressed", "names the team calendar"),
        ("c2", "not_addressed", "not addressed: HR decides"),
        ("c4", "not_addressed", "unchanged"),
        ("9", "not_addressed", "no such comment"),  # a number past the last: as JSON would
    ]
    assert "Here is what I changed:" in report.notes


def test_the_claims_json_is_read_as_the_report() -> None:
    message = json.dumps({"comments": [{"comment_id": "c2", "claim": "addressed"}]})
    assert _claims(message)["comments"][0]["comment_id"] == "c2"
    bad = claims_from_message('{"comments": [{"comment_id": "c2", "claim": "maybe"}]}', IDS)
    assert bad is not None and not bad.usable and "maybe" in bad.problem
    broken = claims_from_message("{not json", IDS)
    assert broken is not None and not broken.usable and "not valid JSON" in broken.problem


def test_resolved_after_needs_a_claim_and_an_agreeing_verdict() -> None:
    report = claims_from_message("c1: x\nc2: y\nc3: not addressed", IDS)
    verdicts = {"c1": "edited", "c2": "untouched", "c3": "edited", "c4": "deleted"}
    assert resolved_after(report, verdicts) == {"c1"}
    assert resolved_after(None, verdicts) == set()


def _revision(message: str) -> ExternalRevision:
    v1 = (EXAMPLE / "review.md").read_text(encoding="utf-8")
    v2 = (EXAMPLE / "revised.md").read_text(encoding="utf-8")
    comments, _ = load_comments(EXAMPLE / "comments.json", Version.from_source(v1, "markdown").text)
    return ExternalRevision("Remote work policy", "markdown", v1, v2, comments, message)


MESSAGE = "c1: three days now 😀\r\nc2: not addressed\r\nAll else as before.\n"


def test_the_bundle_records_an_external_agent_and_verifies(tmp_path: Path) -> None:
    folder, final = check_revision(_revision(MESSAGE), tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["agent_mode"]["ran"] == "external" and manifest["tokens"] is None
    assert agent_mode_words(manifest["agent_mode"]).startswith("The agent ran elsewhere")
    # word for word: CR LF, emoji and the last newline kept
    assert (folder / "agent" / "message.txt").read_bytes() == MESSAGE.encode("utf-8")
    assert "agent/message.txt" in manifest["files"]
    metrics = json.loads((folder / "metrics.json").read_text())
    assert metrics["cost_per_attributed_fix"]["value"] is None
    assert metrics["cost_per_attributed_fix"]["reason"] == EXTERNAL_USAGE
    assert "left open after the revision" in metrics["rounds_to_converge"]["reason"]
    after = json.loads((folder / "comments.after.json").read_text())["comments"]
    assert {c["id"]: c["status"] for c in after} == {
        "c1": "resolved",
        "c2": "open",
        "c3": "open",
        "c4": "open",
    }
    result = verify_bundle(folder)
    assert result.ok, (result.bad, result.problems, result.rederivation)
    assert {v.comment_id: v.verdict for v in final.verdicts}["c1"] == "edited"


def test_every_comment_addressed_and_edited_converges_in_one_round(tmp_path: Path) -> None:
    rev = _revision("c1: three days")
    rev.comments = [c for c in rev.comments if c.id == "c1"]
    folder, _ = check_revision(rev, tmp_path)
    metrics = json.loads((folder / "metrics.json").read_text())
    assert metrics["rounds_to_converge"]["value"] == 1
    assert verify_bundle(folder).ok


def _forged(tmp_path: Path, **changes) -> Path:
    folder, _ = check_revision(_revision(MESSAGE), tmp_path / "orig")
    return write_bundle(tmp_path / "forged", content_of(open_bundle(folder), **changes))


def test_a_trace_with_a_model_call_is_tampered(tmp_path: Path) -> None:
    folder, _ = check_revision(_revision(MESSAGE), tmp_path / "orig")
    trace = dict(open_bundle(folder).trace)
    trace["entries"] = [
        *trace["entries"],
        {"seq": 2, "kind": "model_call", "round": 1, "usage": None},
    ]
    forged = write_bundle(tmp_path / "forged", content_of(open_bundle(folder), trace=trace))
    result = verify_bundle(forged)
    assert result.level == "tampered"
    assert any(d.field == "agent mode" for d in result.rederivation.differences)


def test_claims_that_the_message_does_not_say_are_tampered(tmp_path: Path) -> None:
    forged = _forged(tmp_path, agent_message="Addressed all review comments.")
    result = verify_bundle(forged)
    assert result.level == "tampered"
    fields = {d.field for d in result.rederivation.differences}
    assert "claims read from agent/message.txt" in fields


def test_statuses_the_revision_does_not_leave_are_tampered(tmp_path: Path) -> None:
    folder, _ = check_revision(_revision(MESSAGE), tmp_path / "orig")
    b = open_bundle(folder)
    after = [c.to_json() for c in b.comments_after]
    for c in after:
        c["status"] = "resolved"
    forged = write_bundle(tmp_path / "forged", content_of(b, comments_after=after))
    result = verify_bundle(forged)
    assert result.level == "tampered"
    assert any(d.field == "status in comments.after.json" for d in result.rederivation.differences)


def test_arl_score_writes_the_bundle_with_a_text_message(tmp_path: Path, capsys) -> None:
    message = tmp_path / "agent.txt"
    message.write_text("Addressed all review comments.", encoding="utf-8")
    out = tmp_path / "bundle"
    args = ["score", "--v1", str(EXAMPLE / "review.md"), "--v2", str(EXAMPLE / "revised.md")]
    args += ["--comments", str(EXAMPLE / "comments.json"), "--claims", str(message)]
    assert arl([*args, "--bundle", str(out)]) in (0, 1)
    err = capsys.readouterr().err
    assert f"Evidence bundle: {out}" in err
    assert (out / "agent" / "message.txt").read_text() == "Addressed all review comments."
    assert arl(["bundle", "verify", str(out)]) == 0
    capsys.readouterr()
    assert arl(["bundle", "show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "a revision made elsewhere" in shown and EXTERNAL_USAGE_WORDS in shown
    assert EXTERNAL_USAGE not in shown  # the stored reason, said in words
    assert "model  at" not in shown
    # a second time into the same folder writes nothing
    assert arl([*args, "--bundle", str(out)]) == 2
    assert "already holds a bundle" in capsys.readouterr().err


def test_a_typed_token_figure_is_kept_and_shown_as_typed_never_measured(
    tmp_path: Path, capsys
) -> None:
    out = tmp_path / "bundle"
    args = ["score", "--v1", str(EXAMPLE / "review.md"), "--v2", str(EXAMPLE / "revised.md")]
    args += ["--comments", str(EXAMPLE / "comments.json")]
    assert arl([*args, "--bundle", str(tmp_path / "bad"), "--tokens", "0"]) == 2
    assert "--tokens: a typed token figure is a whole number" in capsys.readouterr().err
    assert arl([*args, "--bundle", str(out), "--tokens", "6000"]) in (0, 1)
    capsys.readouterr()
    b = open_bundle(out)
    assert b.manifest["tokens"] is None  # never stored as measured
    assert b.manifest["agent_mode"]["typed_tokens"] == 6000
    assert b.metrics["cost_per_attributed_fix"].value is None  # the measured metric stays N/A
    assert arl(["bundle", "verify", str(out)]) == 0
    capsys.readouterr()
    assert arl(["bundle", "show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert EXTERNAL_USAGE_WORDS in shown
    edited = int(b.metrics["attribution_rate"].numerator or 0)
    assert edited > 0
    line = next(x for x in shown.splitlines() if x.startswith("TYPED (not measured): "))
    assert "tokens 6,000 (typed, not measured)" in line
    assert f"tokens per attributed fix {6000 / edited:,.0f} (6,000 / {edited} edited" in line
    assert line.endswith("from the typed figure, typed, not measured)")
    from engine.bundle.bundle import own_scorecard

    card = own_scorecard(b)
    assert "Tokens typed by the user" in card and "from the typed figure" in card
    # Forging the typed figure breaks the run's signature.
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["agent_mode"]["typed_tokens"] = 1
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert arl(["bundle", "verify", str(out)]) == 3
