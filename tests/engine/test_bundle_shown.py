"""A bundle that fails verification is never shown with its stated (forged) figures: every
view shows the engine's re-derived ones, each differing row saying what the bundle states;
a signature never reads "signed" over files that do not match what was signed."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from engine.bundle import signing
from engine.bundle.bundle import own_scorecard
from engine.bundle.read import open_bundle
from engine.bundle.rederive import rederive
from engine.bundle.shown import shown_figures
from engine.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
NOTE = "the bundle says edited; recomputed from its documents: untouched"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A bundle this engine writes now, with c2 untouched."""
    spec = importlib.util.spec_from_file_location(
        "make_fixture_bundle", ROOT / "tools" / "make_fixture_bundle.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.build(tmp_path_factory.mktemp("fresh") / "bundle")


@pytest.fixture(autouse=True)
def _no_trusted_keys(tmp_path, monkeypatch):
    monkeypatch.setenv("ARL_TRUSTED_KEYS", str(tmp_path / "trusted-keys.json"))


def _sign(folder: Path) -> str:
    key = signing.new_private_key()
    sig = signing.sign_manifest((folder / "manifest.json").read_bytes(), key)
    (folder / "signature.json").write_text(json.dumps(sig))
    return sig["fingerprint"]


def _edit_c2(folder: Path, rehash: bool) -> None:
    """c2's final verdict untouched -> edited; ``rehash`` also fixes the manifest's hash."""
    v = json.loads((folder / "verdicts.json").read_text())
    for item in v["final"]:
        if item["comment_id"] == "c2":
            assert item["verdict"] == "untouched"
            item["verdict"] = "edited"
    (folder / "verdicts.json").write_text(json.dumps(v))
    if rehash:
        man = json.loads((folder / "manifest.json").read_text())
        man["files"]["verdicts.json"] = hashlib.sha256(
            (folder / "verdicts.json").read_bytes()
        ).hexdigest()
        (folder / "manifest.json").write_text(json.dumps(man))


def _c2(items):
    return next(v for v in items if v["comment_id"] == "c2")


def test_signed_then_edited_bundle_is_never_signed_and_shows_recomputed(fresh, tmp_path, capsys):
    folder = tmp_path / "b"
    shutil.copytree(fresh, folder)
    fp = _sign(folder)
    _edit_c2(folder, rehash=False)  # the newcomer's edit: the manifest is left alone
    b = open_bundle(folder)
    sig = signing.check_bundle(b)
    assert sig.state == "bad" and sig.uncovered == ("verdicts.json",)
    assert not sig.line().startswith("signed")
    assert sig.line() == (
        f"THE SIGNATURE DOES NOT COVER THESE FILES: verdicts.json does not match what {fp} signed"
    )
    red = rederive(b)
    assert red.forged  # files fail the manifest: never "an engine change"
    shown = shown_figures(b, red, sig)
    assert shown.source == "recomputed"
    assert _c2(shown.final)["verdict"] == "untouched"
    assert shown.row_notes == {"c2": NOTE}
    page = own_scorecard(b, red, sig)
    assert "TAMPERED" in page and NOTE in page
    assert "recomputed from its own documents" in page
    # The scorecard's c2 row shows the recomputed verdict, not the forged one.
    row = page[page.index("<b title='c2'>Comment 2</b>") :]
    row = row[: row.index("</tr>")]
    assert "untouched" in row and "v-edited" not in row

    assert main(["bundle", "show", str(folder)]) == 3
    out = capsys.readouterr().out
    assert "SIGNATURE THE SIGNATURE DOES NOT COVER THESE FILES: verdicts.json" in out
    assert f"comment c2: {NOTE}" in out
    assert "RECOMPUTED: " in out


def test_rehashed_forgery_of_an_unsigned_bundle_shows_recomputed(fresh, tmp_path, capsys):
    folder = tmp_path / "b"
    shutil.copytree(fresh, folder)
    _edit_c2(folder, rehash=True)
    b = open_bundle(folder)
    assert b.tampered == []
    sig = signing.check_bundle(b)
    assert sig.line() == "unsigned: no signature, so who made it cannot be checked"
    red = rederive(b)
    shown = shown_figures(b, red, sig)
    assert shown.source == "recomputed" and shown.row_notes == {"c2": NOTE}
    assert _c2(shown.final)["verdict"] == "untouched"
    # Before re-derivation ran nothing has failed yet: the stated figures, not vouched for.
    assert shown_figures(b, None, sig).source == "stated"


def test_failed_bundle_without_rederivation_is_unverified(fresh, tmp_path):
    folder = tmp_path / "b"
    shutil.copytree(fresh, folder)
    _edit_c2(folder, rehash=False)
    b = open_bundle(folder)
    shown = shown_figures(b, None, signing.check_bundle(b))
    assert shown.source == "unverified"
    assert shown.row_notes["c2"].startswith("the bundle says edited; unverified")
    assert "could not be recomputed" in shown.headline


def test_valid_signature_of_an_unknown_key_says_exactly_that(fresh, tmp_path, capsys):
    folder = tmp_path / "b"
    shutil.copytree(fresh, folder)
    fp = _sign(folder)
    b = open_bundle(folder)
    sig = signing.check_bundle(b)
    assert sig.line() == f"signed by {fp} (an unknown key: not trusted)"
    red = rederive(b)
    shown = shown_figures(b, red, sig)
    assert shown.source == "stated" and shown.row_notes == {} and shown.headline == ""
    assert main(["bundle", "show", str(folder)]) == 0
    out = capsys.readouterr().out
    assert f"SIGNATURE signed by {fp} (an unknown key: not trusted)" in out
    assert "RECOMPUTED" not in out and "UNVERIFIED" not in out


def test_verify_names_an_uncovered_file_not_a_bad_key(fresh, tmp_path, capsys):
    folder = tmp_path / "b"
    shutil.copytree(fresh, folder)
    _sign(folder)
    _edit_c2(folder, rehash=False)
    assert main(["bundle", "verify", str(folder)]) == 3
    cap = capsys.readouterr()
    assert (
        "DIFFERENT final: comment c2: verdict: stored 'edited', recomputed 'untouched'" in cap.out
    )
    assert "SIGNATURE THE SIGNATURE DOES NOT COVER THESE FILES" in cap.out
    assert "a signature that does not cover these files" in cap.err


def test_a_differing_row_is_said_in_words_with_the_exact_terms_beside():
    """claim_agrees True -> False read "the bundle says claim_agrees True, edited;
    recomputed…: claim_agrees False, untouched"; it is said in words, and the exact field
    names and values are kept for the tooltip (``row_terms``)."""
    from types import SimpleNamespace

    from engine.bundle.differences import Difference
    from engine.bundle.shown import _notes, _terms

    def red(*ds):
        return SimpleNamespace(differences=list(ds))

    claim = Difference("final", "c2", "claim_agrees", True, False)
    verdict = Difference("final", "c2", "verdict", "edited", "untouched")
    verb = "recomputed from its documents"
    rows, _ = _notes(red(claim), verb)
    assert rows["c2"] == (
        "the bundle says the agent's claim agreed with the text; "
        "recomputed from its documents, it does not"
    )
    rows, _ = _notes(red(claim, verdict), verb)
    assert rows["c2"] == (
        "the bundle says edited, and the agent's claim agreed with the text; recomputed "
        "from its documents: untouched, and the claim does not agree with the text"
    )
    assert "claim_agrees" not in rows["c2"] and "True" not in rows["c2"]
    assert _terms(red(claim, verdict))["c2"] == (
        "final: comment c2: claim_agrees: stored True, recomputed False; "
        "final: comment c2: verdict: stored 'edited', recomputed 'untouched'"
    )
    rows, _ = _notes(red(verdict), verb)
    assert rows["c2"] == NOTE
