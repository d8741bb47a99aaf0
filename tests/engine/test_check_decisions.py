"""A reviewer accepts a declared check's FAIL only with a reason (docs/checks.md, the gate): the
decision's subject is the check, signed like a comment's decision; an accepted FAIL no
longer blocks "changes requested" in the scorecard and ``arl bundle show``; verify checks
the signature and that the check is still FAIL as re-derived."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.bundle import signing
from engine.bundle.adjudicate import adjudicate_check, new_decision_files, write_decisions
from engine.bundle.bundle import own_scorecard as scorecard_html
from engine.bundle.decisions import DECISIONS_FILE, Decision, DecisionError
from engine.bundle.read import open_bundle, verify_bundle
from engine.cli.main import main as arl
from tests.engine.test_checks_run import _run
from tests.helpers.scripted_server import Churner

AT = "2026-12-01T21:00:00Z"
REASON = "the greeting is generic on purpose"


@pytest.fixture
async def failing_bundle(tmp_path) -> Path:
    """A one-round run whose agent drops {{FirstName}}: placeholders FAIL, changes requested."""
    outcome, _events, _requests = await _run(tmp_path, Churner("{{FirstName}}", "Customer"), 1)
    assert outcome.outcome == "changes requested"
    return Path(outcome.bundle)


def _show(path: Path, capsys) -> str:
    capsys.readouterr()
    arl(["bundle", "show", str(path)])
    return capsys.readouterr().out


def test_accept_with_a_reason_unblocks_every_view(failing_bundle, capsys, monkeypatch):
    monkeypatch.setenv("ARL_REVIEWER", "Ann")
    before = _show(failing_bundle, capsys)
    assert "CHANGES REQUESTED: a declared check blocks approval: Placeholders" in before
    assert "Changes requested." in scorecard_html(open_bundle(failing_bundle))
    argv = ["bundle", "adjudicate", str(failing_bundle), "--check", "placeholders"]
    assert arl([*argv, "--decision", "accept", "--reason", REASON]) == 0
    assert "Decided: check placeholders (FAIL): accept" in capsys.readouterr().out
    res = verify_bundle(failing_bundle)
    assert not res.tampered, res.decisions.problems
    assert res.decisions.accepted_checks() == {"placeholders": REASON}
    assert res.decisions.latest() == {}  # a check's decision is no comment's
    after = _show(failing_bundle, capsys)
    assert "CHANGES REQUESTED" not in after
    assert f"ACCEPTED Placeholders kept FAIL accepted by the reviewer: {REASON}" in after
    assert "DECISION check placeholders: accept (on FAIL) by Ann" in after
    card = scorecard_html(open_bundle(failing_bundle))
    assert "Changes requested." not in card and REASON in card
    # The run's own record is unchanged: the stated outcome still re-derives the same.
    assert open_bundle(failing_bundle).checks["outcome"] == "changes requested"


def test_without_a_reason_or_on_a_pass_it_is_refused(failing_bundle, capsys, monkeypatch):
    monkeypatch.setenv("ARL_REVIEWER", "Ann")
    base = ["bundle", "adjudicate", str(failing_bundle)]
    assert arl([*base, "--check", "placeholders", "--decision", "accept"]) == 2
    assert "accepting a FAIL needs a one-line reason" in capsys.readouterr().err
    assert arl([*base, "--check", "links", "--decision", "accept", "--reason", "x"]) == 2
    assert "not FAIL: only a FAIL is accepted" in capsys.readouterr().err
    assert arl([*base, "--check", "placeholders", "--decision", "declined", "--reason", "x"]) == 2
    assert "can only be accepted" in capsys.readouterr().err
    assert arl([*base, "--check", "nope", "--decision", "accept", "--reason", "x"]) == 2
    assert "no declared check 'nope'" in capsys.readouterr().err
    assert arl([*base, "c1", "--check", "placeholders", "--decision", "accept"]) == 2
    assert "one subject per decision" in capsys.readouterr().err
    assert not (failing_bundle / DECISIONS_FILE).exists()


def test_a_forged_or_moved_check_decision_is_caught(failing_bundle, capsys):
    key = signing.new_private_key()
    ident = signing.trust_key(signing.public_key(key), "Ann")
    adjudicate_check(failing_bundle, "placeholders", "accept", REASON, "Ann", key, decided_at=AT)
    # Edited by hand: moved to another check.
    path = failing_bundle / DECISIONS_FILE
    obj = json.loads(path.read_text(encoding="utf-8"))
    obj["decisions"][0]["check"] = "links"
    path.write_text(json.dumps(obj), encoding="utf-8")
    res = verify_bundle(failing_bundle)
    assert res.tampered and res.decisions.accepted_checks() == {}
    assert any("edited or moved after signing" in p for p in res.decisions.problems)
    assert arl(["bundle", "verify", str(failing_bundle)]) == 3
    assert "CHANGES REQUESTED" in _show(failing_bundle, capsys)  # a forgery unblocks nothing
    # Signed, but on a check that PASSes as re-derived: decided on a different result.
    b = open_bundle(failing_bundle)
    moved = Decision("", 1, "fail", "accept", REASON, "Ann", ident, AT, "links")
    write_decisions(failing_bundle, new_decision_files(b.manifest_bytes, [], [], moved, key))
    res = verify_bundle(failing_bundle)
    assert res.tampered
    assert any(
        "check links" in p
        and "decided on a different result (FAIL; this program derives PASS)" in p
        for p in res.decisions.problems
    ), res.decisions.problems
    assert arl(["bundle", "verify", str(failing_bundle)]) == 3
    # A signed decision that breaks the rule (no reason) is caught too.
    bare = Decision("", 1, "fail", "accept", "", "Ann", ident, AT, "placeholders")
    write_decisions(failing_bundle, new_decision_files(b.manifest_bytes, [], [], bare, key))
    res = verify_bundle(failing_bundle)
    assert any("needs a one-line reason" in p for p in res.decisions.problems)
    with pytest.raises(DecisionError, match="fails verification"):
        adjudicate_check(failing_bundle, "placeholders", "accept", REASON, "Ann", key)
