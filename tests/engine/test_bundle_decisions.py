"""Reviewer decisions (engine.bundle.decisions): accept or override each verdict, signed by
the reviewer's own key outside the manifest; verify catches a decision edited by hand,
moved to another comment or bundle, signed by an unknown key, or made on another verdict."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from engine.bundle import signing
from engine.bundle.adjudicate import adjudicate, new_decision_files, write_decisions
from engine.bundle.bundle import export_zip
from engine.bundle.csv_export import csv_rows, render_csv, safe_cell
from engine.bundle.decisions import (
    DECISIONS_FILE,
    DECISIONS_SIGNATURE_FILE,
    Decision,
    DecisionError,
    agrees_with_machine,
    check_decisions,
)
from engine.bundle.read import open_bundle, verify_bundle
from engine.bundle.review import needs_review, review_figures
from engine.cli.main import main as arl

DATA = Path(__file__).resolve().parents[1] / "data"
AT = "2026-12-01T20:00:00Z"


@pytest.fixture
def bundle(tmp_path) -> Path:
    """bundle-min: c1 edited, c2 untouched, c3 deleted, c4 stale anchor."""
    dest = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", dest)
    return dest


@pytest.fixture
def key() -> bytes:
    return signing.new_private_key()


def _decide_all(path: Path, key: bytes, reviewer: str = "Ann") -> None:
    adjudicate(path, "c1", "accept", "", reviewer, key, decided_at=AT)
    adjudicate(path, "c2", "not-addressed", "only re-cased", reviewer, key, decided_at=AT)
    adjudicate(
        path, "c3", "deletion-is-fix", "the sentence was redundant", reviewer, key, decided_at=AT
    )


def _edit(path: Path, fn) -> None:
    obj = json.loads((path / DECISIONS_FILE).read_text(encoding="utf-8"))
    fn(obj["decisions"])
    (path / DECISIONS_FILE).write_text(json.dumps(obj), encoding="utf-8")


def test_decisions_verify_and_the_run_signature_stays_valid(bundle, key, tmp_path):
    run_key = signing.new_private_key()
    sig = signing.sign_manifest((bundle / "manifest.json").read_bytes(), run_key)
    (bundle / "signature.json").write_text(json.dumps(sig), encoding="utf-8")
    _decide_all(bundle, key)
    res = verify_bundle(bundle)
    assert res.ok and res.level == "verified"
    assert res.signature.state == "signed"  # the run's own signature is untouched
    assert [s.names for s in res.decisions.signers] == [("Ann",)]
    assert res.decisions.signers[0].trusted_as == "Ann"  # the user's own key, trusted as theirs
    assert {c: d.decision for c, d in res.decisions.latest().items()} == {
        "c1": "accept",
        "c2": "not-addressed",
        "c3": "deletion-is-fix",
    }
    assert json.loads((bundle / "manifest.json").read_text())["files"].get(DECISIONS_FILE) is None


def test_rules_reason_required_and_no_plain_accept_of_a_deletion(bundle, key):
    with pytest.raises(DecisionError, match="give a one-line reason"):
        adjudicate(bundle, "c2", "addressed", "  ", "Ann", key)
    with pytest.raises(DecisionError, match="give a one-line reason"):
        adjudicate(bundle, "c3", "deletion-is-fix", "", "Ann", key)
    with pytest.raises(DecisionError, match="no plain accept"):
        adjudicate(bundle, "c3", "accept", "", "Ann", key)
    with pytest.raises(DecisionError, match="one line"):
        adjudicate(bundle, "c2", "declined", "two\nlines", "Ann", key)
    with pytest.raises(DecisionError, match="no verdict for a comment 'nope'"):
        adjudicate(bundle, "nope", "accept", "", "Ann", key)
    assert not (bundle / DECISIONS_FILE).exists()  # nothing written


def test_revisions_are_kept_and_the_latest_counts_reviewers_side_by_side(bundle, key):
    adjudicate(bundle, "c1", "accept", "", "Ann", key, decided_at="2026-12-01T20:00:00Z")
    adjudicate(
        bundle,
        "c1",
        "another-round",
        "the tone is still off",
        "Ann",
        key,
        decided_at="2026-12-01T20:05:00Z",
    )
    bob = signing.new_private_key()
    adjudicate(
        bundle, "c2", "declined", "out of scope", "Bob", bob, decided_at="2026-12-01T20:01:00Z"
    )
    res = verify_bundle(bundle)
    assert res.ok, res.decisions.problems
    assert len(res.decisions.decisions) == 3  # every revision kept
    assert res.decisions.latest()["c1"].decision == "another-round"
    assert sorted(n for s in res.decisions.signers for n in s.names) == ["Ann", "Bob"]


def test_figures_reviewed_attribution_agreement_awaiting(bundle, key):
    b = open_bundle(bundle)
    final = b.verdicts["final"]
    none = review_figures(final, b.comments_before, {})
    assert (none.awaiting, none.actionable) == (3, 3)  # c4 is a stale anchor: not counted
    assert none.agreement.value is None and none.reviewed.value is None  # N/A, never 0
    assert none.reviewed.reason == "no comment has a reviewer decision yet"
    _decide_all(bundle, key)
    res = verify_bundle(bundle)
    fig = review_figures(final, b.comments_before, res.decisions.latest())
    # c1 edited and accepted + c3 the deletion was the fix; c2 not addressed
    assert (fig.reviewed.numerator, fig.reviewed.denominator) == (2, 3)
    # c1 accepted and c2 "not addressed" on an untouched verdict agree; c3 overrides
    assert (fig.agreement.numerator, fig.agreement.denominator) == (2, 3)
    assert fig.awaiting == 0 and fig.complete and fig.awaiting_line() == ""


def test_undecided_comments_are_not_counted_as_not_addressed(bundle, key):
    """One comment decided (not addressed) and two not decided yet: 0% (0 of 1), with the
    two named, never 0% (0 of 3) as if the undecided ones were not fixed."""
    adjudicate(bundle, "c2", "declined", "out of scope", "Ann", key, decided_at=AT)
    res = verify_bundle(bundle)
    b = open_bundle(bundle)
    fig = review_figures(b.verdicts["final"], b.comments_before, res.decisions.latest())
    assert (fig.reviewed.numerator, fig.reviewed.denominator) == (0, 1)
    assert fig.awaiting == 2
    assert fig.reviewed_text() == "0% (0 of 1 decided; 2 not decided yet)"
    _decide_all(bundle, key)  # every one decided: the plain figure
    res = verify_bundle(bundle)
    fig = review_figures(b.verdicts["final"], b.comments_before, res.decisions.latest())
    assert fig.reviewed_text() == "67% (2 of 3)"


def test_a_decision_that_says_what_the_verdict_says_agrees_with_the_machine(bundle, key):
    """Not addressed on an untouched comment is the machine's verdict in the reviewer's
    words: agreement 100% (1 of 1), not 0%, and no reason is asked (it is no override)."""
    adjudicate(bundle, "c2", "not-addressed", "", "Ann", key, decided_at=AT)
    res = verify_bundle(bundle)
    assert res.ok, res.decisions.problems
    b = open_bundle(bundle)
    fig = review_figures(b.verdicts["final"], b.comments_before, res.decisions.latest())
    assert (fig.agreement.numerator, fig.agreement.denominator) == (1, 1)
    assert agrees_with_machine("edited", "addressed")
    assert agrees_with_machine("deleted", "not-addressed")
    assert not agrees_with_machine("untouched", "addressed")
    assert not agrees_with_machine("edited", "not-addressed")
    assert not agrees_with_machine("deleted", "deletion-is-fix")
    assert not agrees_with_machine("untouched", "declined")


def test_survives_export_zip_and_reopen_and_a_zip_is_rewritten_whole(bundle, key, tmp_path):
    adjudicate(bundle, "c1", "accept", "", "Ann", key, decided_at=AT)
    z = export_zip(bundle, tmp_path / "b.zip")
    res = verify_bundle(z)
    assert res.ok and res.decisions.latest()["c1"].decision == "accept"
    adjudicate(z, "c2", "not-addressed", "still says 'may'", "Ann", key, decided_at=AT)
    again = verify_bundle(z)
    assert again.ok and set(again.decisions.latest()) == {"c1", "c2"}
    assert not (tmp_path / "b.zip.tmp").exists()


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda ds: ds[1].update(reason="fixed after all"), id="reason edited"),
        pytest.param(
            lambda ds: ds[0].update(decision="addressed", reason="x"), id="decision edited"
        ),
        pytest.param(lambda ds: ds[1].update(comment_id="c1", verdict="edited"), id="moved"),
        pytest.param(lambda ds: ds.pop(0), id="one removed"),
        pytest.param(
            lambda ds: ds.append(dict(ds[0], decided_at="2027-01-01T00:00:00Z")), id="appended"
        ),
    ],
)
def test_a_decision_edited_by_hand_is_caught(bundle, key, capsys, forge):
    _decide_all(bundle, key)
    _edit(bundle, forge)
    assert arl(["bundle", "verify", str(bundle)]) == 3
    out = capsys.readouterr()
    assert "DECISION PROBLEM" in out.out and "TAMPERED" in out.err
    assert verify_bundle(bundle).decisions.latest() == {}  # a forged decision counts for nothing


def test_an_unknown_key_is_caught(bundle, key, capsys):
    adjudicate(bundle, "c1", "accept", "", "Ann", key, decided_at=AT, trust_own_key=False)
    assert arl(["bundle", "verify", str(bundle)]) == 3
    out = capsys.readouterr().out
    assert "signed by an unknown key" in out
    # trusting the reviewer's key is a choice the user makes
    assert arl(["bundle", "trust-reviewer", str(bundle), "Ann", "Ann (colleague)"]) == 0
    assert arl(["bundle", "verify", str(bundle)]) == 0


def test_decisions_moved_to_another_bundle_are_caught(bundle, key, tmp_path):
    _decide_all(bundle, key)
    other = tmp_path / "other"
    shutil.copytree(DATA / "bundle-min", other)
    m = json.loads((other / "manifest.json").read_text())
    m["run_id"] = "run-another"
    (other / "manifest.json").write_text(json.dumps(m))
    for name in (DECISIONS_FILE, DECISIONS_SIGNATURE_FILE):
        shutil.copy(bundle / name, other / name)
    res = verify_bundle(other)
    assert res.tampered
    assert any("another run's manifest" in p for p in res.decisions.problems)


def test_unsigned_or_unreadable_decisions_are_caught(bundle, key):
    _decide_all(bundle, key)
    (bundle / DECISIONS_SIGNATURE_FILE).unlink()
    assert any("not signed" in p for p in verify_bundle(bundle).decisions.problems)
    (bundle / DECISIONS_SIGNATURE_FILE).write_text("[1,", encoding="utf-8")
    assert verify_bundle(bundle).tampered


def _signed(bundle: Path, key: bytes, decision: Decision) -> None:
    b = open_bundle(bundle)
    files = new_decision_files(b.manifest_bytes, [], [], decision, key)
    write_decisions(bundle, files)


def test_a_decision_on_a_different_verdict_is_caught(bundle, key):
    ident = signing.trust_key(signing.public_key(key), "Ann")
    _signed(bundle, key, Decision("c1", 1, "untouched", "accept", "", "Ann", ident, AT))
    res = verify_bundle(bundle)
    assert res.tampered
    assert any("decided on a different verdict (untouched" in p for p in res.decisions.problems)


def test_only_the_engine_changed_reads_check(bundle, key):
    """The run states untouched for c2 and the decision was made on it; this engine now
    derives edited, and a trusted signer vouches for the engine change: CHECK."""
    ident = signing.trust_key(signing.public_key(key), "Ann")
    _signed(bundle, key, Decision("c2", 1, "untouched", "accept", "", "Ann", ident, AT))
    b = open_bundle(bundle)
    rescored = SimpleNamespace(
        level="rescored", final={"verdicts": [{"comment_id": "c2", "verdict": "edited"}]}, rounds={}
    )
    res = check_decisions(b, rescored)
    assert res.level == "rescored" and not res.problems
    assert "now derives as edited (an engine change)" in res.engine_changes[0]
    tampered = SimpleNamespace(level="tampered", final=rescored.final, rounds={})
    assert check_decisions(b, tampered).level == "tampered"


def test_a_kill_between_the_renames_leaves_decisions_that_verify(bundle, key, monkeypatch):
    """The folder write is three renames; a kill after the first or the second leaves the
    old decisions or the new ones, both verifying; no temporary file inside the bundle."""
    adjudicate(bundle, "c1", "accept", "", "Ann", key, decided_at=AT)
    b = open_bundle(bundle)
    existing = json.loads((bundle / DECISIONS_FILE).read_text())["decisions"]
    sigs = json.loads((bundle / DECISIONS_SIGNATURE_FILE).read_text())["signatures"]
    d = Decision("c2", 1, "untouched", "declined", "won't", "Ann", existing[0]["reviewer_key"], AT)
    decisions, signature, pending = new_decision_files(b.manifest_bytes, existing, sigs, d, key)
    (bundle / DECISIONS_SIGNATURE_FILE).write_bytes(pending)  # killed after the first rename
    first = verify_bundle(bundle)
    assert first.ok and set(first.decisions.latest()) == {"c1"}
    (bundle / DECISIONS_FILE).write_bytes(decisions)  # killed after the second
    second = verify_bundle(bundle)
    assert second.ok and set(second.decisions.latest()) == {"c1", "c2"}
    assert not [p for p in bundle.iterdir() if p.name.endswith(".tmp")]


def test_needs_review_names_why():
    assert needs_review({"verdict": "edited", "method": "exact"}) == []
    why = needs_review(
        {"verdict": "deleted", "approximate": True, "claim_agrees": False, "token_edit": True}
    )
    assert len(why) == 4 and "deleted" in why[0]
    assert needs_review({"verdict": "edited", "lookalike_only": True}) == [
        "look-alike characters only"
    ]
    assert needs_review({"verdict": "untouched", "invisible_only": True}) == [
        "invisible characters only"
    ]
    assert needs_review({"verdict": "edited", "hidden_only": True}) == ["only hidden text changed"]


def test_cli_adjudicate_show_and_csv(bundle, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("ARL_REVIEWER", "Ann")
    assert arl(["bundle", "adjudicate", str(bundle), "c2", "--decision", "addressed"]) == 2
    assert "give a one-line reason" in capsys.readouterr().err
    assert arl(["bundle", "adjudicate", str(bundle), "c1", "--decision", "accept"]) == 0
    assert "signed with key" in capsys.readouterr().out
    assert arl(["bundle", "show", str(bundle)]) == 0
    out = capsys.readouterr().out
    assert "AWAITING REVIEW: 2 of 3 actionable comments" in out
    # c2 and c3 are not decided yet: not counted as not addressed
    assert "Reviewed attribution: 100% (1 of 1 decided; 2 not decided yet)" in out
    assert "DECISION comment c1: accept (on edited, round 1) by Ann" in out
    dest = tmp_path / "d.csv"
    assert arl(["bundle", "decisions", str(bundle), "--csv", str(dest)]) == 0
    text = dest.read_text(encoding="utf-8-sig")
    assert text.splitlines()[0] == "id,quote,verdict,decision,reason,reviewer,decided_at"
    assert text.splitlines()[1].startswith("c1,") and ",edited,accept,,Ann," in text


def test_csv_cells_cannot_be_formulas(bundle, key):
    adjudicate(bundle, "c2", "not-addressed", '=HYPERLINK("http://x","y")', "@Ann", key)
    res = verify_bundle(bundle)
    b = open_bundle(bundle)
    rows = csv_rows(b, b.verdicts["final"], res.decisions)
    row = next(r for r in rows if r[0] == "c2")
    assert row[4].startswith("'=") and row[5] == "'@Ann"
    assert "\r\n" in render_csv(rows)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.text(max_size=40))
def test_no_cell_starts_a_formula(text):
    cell = safe_cell(text)
    assert cell == text or cell == "'" + text
    assert not cell.lstrip(" ").startswith(("=", "+", "-", "@", "\t", "\r"))


@settings(max_examples=40, derandomize=True, deadline=None)
@given(
    st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
        min_size=1,
        max_size=60,
    ).filter(lambda s: s.strip())
)
def test_any_reason_signs_and_verifies(tmp_path_factory, reason):
    """A reason in any script (CJK, Arabic, emoji, controls) is signed and verifies; the
    same reason changed by one character does not."""
    path = tmp_path_factory.mktemp("b") / "b"
    shutil.copytree(DATA / "bundle-min", path)
    key = signing.new_private_key()
    ident = signing.key_id(signing.public_key(key))
    _signed(path, key, Decision("c2", 1, "untouched", "declined", reason, "Ann", ident, AT))
    b = open_bundle(path)
    red = SimpleNamespace(level="verified", final={"verdicts": b.verdicts["final"]}, rounds={})
    assert check_decisions(b, red, {ident: "Ann"}).problems == []
    _edit(path, lambda ds: ds[0].update(reason=reason + "!"))
    assert check_decisions(open_bundle(path), red, {ident: "Ann"}).problems


def test_scorecard_shows_both_attributions_and_awaiting_review_after_tampered(bundle, key):
    from engine.bundle.bundle import own_scorecard

    page = own_scorecard(open_bundle(bundle))
    assert "Awaiting review: 3 of 3 actionable comments" in page
    assert page.index("Awaiting review") < page.index("SCRIPTED DEMONSTRATION")
    _decide_all(bundle, key)
    page = own_scorecard(open_bundle(bundle))
    assert "Awaiting review:" not in page
    assert "Reviewed attribution</th><td>67% (2 of 3)" in page
    assert "Attribution (the machine&#x27;s)</th><td>33% (1 of 3)" in page
    assert "the deletion was the fix" in page and "only re-cased" in page
    _edit(bundle, lambda ds: ds[1].update(reason="forged"))
    page = own_scorecard(open_bundle(bundle))
    assert page.index("TAMPERED") < page.index("Awaiting review: 3 of 3")
    assert "count for nothing" in page


def test_publishing_can_require_a_complete_review(bundle, key, tmp_path, capsys):
    from engine.publish import published

    folder = tmp_path / "pub"
    args = ["bundle", "publish", str(bundle), "--folder", str(folder), "--require-review"]
    assert arl(args) == 2
    assert "awaiting review: 3 of 3" in capsys.readouterr().err
    assert (
        arl(["bundle", "publish", str(bundle), "--folder", str(folder), "--no-require-review"]) == 0
    )
    assert (
        "awaiting review: 3 of 3; reviewed attribution N/A \u2014 no comment has a reviewer decision yet"
        in (folder / "index.html").read_text()
    )
    args.append("--require-review")
    assert arl(args) == 2
    assert published.require_complete_review()  # remembered
    _decide_all(bundle, key)
    assert arl(["bundle", "publish", str(bundle), "--folder", str(folder)]) == 0
    assert "reviewed attribution 67% (2 of 3)" in (folder / "index.html").read_text()
    entry = published.entries(folder)[0]
    assert entry.review["awaiting"] == 0 and entry.review["reviewed"]["numerator"] == 2


def test_two_reviewers_deciding_at_once_lose_nothing(bundle):
    """Writers take turns (an OS lock beside the bundle) and read the decisions again
    under it, so two processes deciding at the same moment both land, and verify."""
    import subprocess
    import sys

    code = (
        "import sys; from engine.bundle import signing; "
        "from engine.bundle.adjudicate import adjudicate; "
        "adjudicate(sys.argv[1], sys.argv[2], 'declined', 'out of scope', sys.argv[3], "
        "signing.new_private_key())"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(bundle), cid, who])
        for cid, who in (("c1", "Ann"), ("c2", "Bob"), ("c3", "Cy"))
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    res = verify_bundle(bundle)
    assert res.ok, res.decisions.problems
    assert {c: d.reviewer for c, d in res.decisions.latest().items()} == {
        "c1": "Ann",
        "c2": "Bob",
        "c3": "Cy",
    }
    assert not [p for p in bundle.iterdir() if "lock" in p.name or p.name.endswith(".tmp")]


def test_a_first_paint_says_nothing_of_decisions_not_yet_checked(bundle, key):
    from engine.bundle.bundle import own_scorecard

    _decide_all(bundle, key)
    page = own_scorecard(open_bundle(bundle), rederive_missing=False)
    assert "Awaiting review" not in page and "checked with the re-derivation" in page
