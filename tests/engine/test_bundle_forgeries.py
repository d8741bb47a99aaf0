"""Forged evidence never passes: each case is a genuine bundle edited the way an attacker
would (files changed, every hash in the manifest recomputed, optionally re-signed with the
attacker's own key), and each must read TAMPERED (exit 3) in verify, show and publish,
from the one verdict the engine gives (``judge_bundle``). An excuse the bundle states
itself (another engine, an older format) counts only under a signature by a trusted key.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.bundle import signing
from engine.bundle.read import judge_bundle, open_bundle, verify_bundle
from engine.cli.common import printable
from engine.cli.main import main as arl
from engine.publish import published
from tests.engine.test_bundle import make_bundle
from tests.helpers.scripted_server import ClaimWithoutEditing

ROOT = Path(__file__).resolve().parents[2]
TEXT_EXAMPLE = ROOT / "resources" / "example" / "f1000rd-8-103-smollm2-135m"


@pytest.fixture(scope="module")
def claimed(tmp_path_factory):
    """A one-round run whose agent resolves every comment without editing: the integrity
    control reopens all three, and the run does not converge."""
    return make_bundle(tmp_path_factory.mktemp("c"), agent=ClaimWithoutEditing(), rounds=1)


@pytest.fixture(autouse=True)
def _trusted_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ARL_TRUSTED_KEYS", str(tmp_path / "trusted.json"))
    monkeypatch.setenv("ARL_HOME", str(tmp_path / "home"))


def forge(
    src: Path,
    dest: Path,
    edit: Callable[[Path], None],
    manifest_edit: Callable[[dict[str, Any]], None] | None = None,
    key: bytes | None = None,
) -> Path:
    """Copy ``src``, edit it, re-hash every file in the manifest, re-sign with ``key``
    (None: drop the signature), as an attacker with a clean clone does."""
    shutil.copytree(src, dest)
    edit(dest)
    man = json.loads((dest / "manifest.json").read_text())
    man["files"] = {
        p.relative_to(dest).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(dest.rglob("*"))
        if p.is_file() and p.name not in ("manifest.json", "signature.json")
    }
    if manifest_edit is not None:
        manifest_edit(man)
    raw = (json.dumps(man, indent=1, ensure_ascii=False) + "\n").encode()
    (dest / "manifest.json").write_bytes(raw)
    (dest / "signature.json").unlink(missing_ok=True)
    if key is not None:
        (dest / "signature.json").write_text(json.dumps(signing.sign_manifest(raw, key)))
    return dest


def _json_edit(name: str, fn: Callable[[Any], None]) -> Callable[[Path], None]:
    def edit(d: Path) -> None:
        obj = json.loads((d / name).read_text())
        fn(obj)
        (d / name).write_text(json.dumps(obj, indent=1))

    return edit


def _all_edited(v: dict[str, Any]) -> None:
    for item in v["final"] + [x for r in v["rounds"] for x in r["verdicts"]]:
        item["verdict"] = "edited"
        item["claim_agrees"] = True
        item["reopen_reason"] = None
    for r in v["rounds"]:
        r["reopened"] = []


def _old_engine(m: dict[str, Any]) -> None:
    m["engine"] = {"version": "0.0.9", "scoring_digest": "000000000000"}
    m["app_version"] = "0.0.9"


def _tampered_everywhere(path: Path, capsys, tmp_path: Path) -> None:
    """verify, show (verdict first) and publish all say TAMPERED; exit 3."""
    result = verify_bundle(path)
    assert result.tampered and result.level == "tampered" and not result.ok
    capsys.readouterr()
    assert arl(["bundle", "verify", str(path)]) == 3
    assert "TAMPERED" in capsys.readouterr().err
    assert arl(["bundle", "show", str(path)]) == 3
    assert capsys.readouterr().out.startswith("TAMPERED: ")
    entry = published.publish(path, tmp_path / "pub")
    assert entry.tampered and entry.verification.startswith("TAMPERED")
    # publish exits 3 as show does, into the publishing folder and into the workspace
    assert arl(["bundle", "publish", str(path), "--folder", str(tmp_path / "pub2")]) == 3
    assert "TAMPERED" in capsys.readouterr().out
    ws = ["--to-workspace", "--workspace", str(tmp_path / "ws.sqlite")]
    assert arl(["bundle", "publish", str(path), *ws]) == 3
    assert "the bundle is TAMPERED and is marked so" in capsys.readouterr().out


# -- A1: an engine-change excuse the bundle states itself -----------------------------------


def test_forged_figures_under_a_claimed_older_engine_are_tampered(claimed, tmp_path, capsys):
    b = forge(claimed, tmp_path / "f", _json_edit("verdicts.json", _all_edited), _old_engine)
    red = judge_bundle(open_bundle(b)).rederivation
    assert red.engine_changed and red.tampered and red.forged and red.level == "tampered"
    assert "no signature by a trusted key" in red.headline()
    _tampered_everywhere(b, capsys, tmp_path)


def test_the_attackers_own_key_does_not_vouch(claimed, tmp_path, capsys):
    attacker = signing.new_private_key()
    b = forge(
        claimed, tmp_path / "f", _json_edit("verdicts.json", _all_edited), _old_engine, attacker
    )
    assert signing.check_bundle(open_bundle(b)).state == "signed"
    _tampered_everywhere(b, capsys, tmp_path)


def test_an_engine_change_under_a_trusted_signature_is_rescored(claimed, tmp_path, capsys):
    key = signing.new_private_key()
    b = forge(claimed, tmp_path / "f", _json_edit("verdicts.json", _all_edited), _old_engine, key)
    signing.set_trusted(signing.key_fingerprint(key), "the review team")
    result = verify_bundle(b)
    assert result.level == "rescored" and not result.tampered and not result.ok
    assert "vouched for by the trusted signer 'the review team'" in result.rederivation.headline()
    assert arl(["bundle", "verify", str(b)]) == 3  # not this program's figures
    out = capsys.readouterr()
    assert "RESCORED final" in out.out and "DIFFERENT" not in out.out
    assert "RESCORED (not tampered)" in out.err
    assert arl(["bundle", "show", str(b)]) == 0
    assert capsys.readouterr().out.startswith("CHECK: Scored by 0.0.9")


def test_a_downgrade_to_the_older_format_is_tampered(claimed, tmp_path, capsys):
    keep = {"comment_id", "verdict", "v1", "v2", "method", "markup_changed", "claim"}
    keep |= {"claim_agrees", "message"}

    def downgrade(v: dict[str, Any]) -> None:
        _all_edited(v)
        for item in v["final"] + [x for r in v["rounds"] for x in r["verdicts"]]:
            for k in set(item) - keep:
                del item[k]
        v["unusable"] = []
        for r in v["rounds"]:
            for k in ("unusable", "collateral", "reopened"):
                r.pop(k, None)

    def manifest(m: dict[str, Any]) -> None:
        m["format"] = "arl-bundle/1"
        m.pop("engine", None)

    b = forge(claimed, tmp_path / "f", _json_edit("verdicts.json", downgrade), manifest)
    assert open_bundle(b).old_format
    _tampered_everywhere(b, capsys, tmp_path)


def test_a_forgery_does_not_replace_a_published_genuine_run(claimed, tmp_path):
    pub = tmp_path / "pub"
    genuine = published.publish(claimed, pub)
    assert not genuine.tampered
    b = forge(claimed, tmp_path / "f", _json_edit("verdicts.json", _all_edited), _old_engine)
    with pytest.raises(published.PublishError, match="TAMPERED"):
        published.publish(b, pub)
    runs = published.entries(pub)
    assert [(e.run_id, e.tampered) for e in runs] == [(genuine.run_id, False)]


# -- A2: a file that fails its schema is never a skipped check -------------------------------


def test_schema_invalid_trace_does_not_skip_the_token_check(claimed, tmp_path, capsys):
    def edit(d: Path) -> None:
        _json_edit("trace.json", lambda t: t.update(usage="lots"))(d)
        _json_edit(
            "metrics.json",
            lambda m: m.update(
                cost_per_attributed_fix={"value": 10 / 3, "numerator": 10, "denominator": 3}
            ),
        )(d)

    b = forge(claimed, tmp_path / "f", edit, lambda m: m.update(tokens=10))
    red = judge_bundle(open_bundle(b)).rederivation
    assert red.tampered and "re-derives exactly" not in red.headline()
    assert any("trace.json" in p for p in red.problems)
    _tampered_everywhere(b, capsys, tmp_path)


@pytest.mark.parametrize("name", ["claims.json", "verdicts.json", "comments.before.json"])
def test_any_schema_problem_is_tampered(claimed, tmp_path, capsys, name):
    b = forge(claimed, tmp_path / "f", _json_edit(name, lambda o: o.update(extra=1)))
    assert open_bundle(b).problems
    _tampered_everywhere(b, capsys, tmp_path)


def test_a_version_listed_twice_is_tampered(claimed, tmp_path, capsys):
    def edit(d: Path) -> None:
        shutil.copy(d / "document" / "v2.html", d / "document" / "fake-v2.html")

    def manifest(m: dict[str, Any]) -> None:
        real = next(v for v in m["versions"] if v["name"] == "v2")
        m["versions"].append(dict(real, file="document/fake-v2.html"))

    b = forge(claimed, tmp_path / "f", edit, manifest)
    assert "listed twice" in " ".join(open_bundle(b).problems)
    _tampered_everywhere(b, capsys, tmp_path)


# -- A6: a text bundle shows what it scores ---------------------------------------------------


def test_text_bundle_display_must_equal_the_scored_text(tmp_path, capsys):
    assert verify_bundle(TEXT_EXAMPLE).ok  # the shipped text bundle passes as it is

    def edit(d: Path) -> None:
        p = d / "document" / "v2.html"
        p.write_text(p.read_text().replace("<pre>\n", "<pre>\nALL POINTS ADDRESSED.\n", 1))

    b = forge(TEXT_EXAMPLE, tmp_path / "f", edit)
    assert "is not the display of document/v2.txt" in " ".join(open_bundle(b).problems)
    _tampered_everywhere(b, capsys, tmp_path)


# -- A10: round records and statuses against the trace ----------------------------------------


def test_deleted_round_records_are_named(claimed, tmp_path, capsys):
    b = forge(claimed, tmp_path / "f", _json_edit("verdicts.json", lambda v: v.update(rounds=[])))
    lines = [d.line() for d in judge_bundle(open_bundle(b)).rederivation.differences]
    assert (
        "round 1: round record: stored 'missing', recomputed \"the trace shows the round's work\""
        in lines
    )
    _tampered_everywhere(b, capsys, tmp_path)


def test_a_run_relabelled_as_converged_is_named(claimed, tmp_path, capsys):
    def after(c: dict[str, Any]) -> None:
        for x in c["comments"]:
            x["status"] = "resolved"
            x["thread"] = [t for t in x["thread"] if t["kind"] != "reopen"]

    def verdicts(v: dict[str, Any]) -> None:
        for item in v["final"]:
            item["reopen_reason"] = None
        for r in v["rounds"]:
            r["reopened"] = []
            for item in r["verdicts"]:
                item["reopen_reason"] = None

    def edit(d: Path) -> None:
        _json_edit("comments.after.json", after)(d)
        _json_edit("verdicts.json", verdicts)(d)
        _json_edit(
            "metrics.json",
            lambda m: m.update(rounds_to_converge={"value": 1, "numerator": 1, "denominator": 1}),
        )(d)

    b = forge(claimed, tmp_path / "f", edit)
    lines = [d.line() for d in judge_bundle(open_bundle(b)).rederivation.differences]
    assert any("reopened: stored 'not reopened'" in line for line in lines), lines
    _tampered_everywhere(b, capsys, tmp_path)


def test_a_status_the_trace_does_not_lead_to_is_named(claimed, tmp_path, capsys):
    def after(c: dict[str, Any]) -> None:
        c["comments"][0]["status"] = "resolved"  # the trace has it reopened in round 1

    b = forge(claimed, tmp_path / "f", _json_edit("comments.after.json", after))
    lines = [d.line() for d in judge_bundle(open_bundle(b)).rederivation.differences]
    assert (
        "final: comment c1: status in comments.after.json: stored 'resolved', recomputed 'open (trace)'"
        in lines
    )
    _tampered_everywhere(b, capsys, tmp_path)


def test_a_genuine_reopening_run_passes_the_trace_cross_check(claimed):
    result = verify_bundle(claimed)
    assert result.ok and result.level == "verified", [
        d.line() for d in result.rederivation.differences
    ]
    v = json.loads((claimed / "verdicts.json").read_text())
    assert {r["comment_id"] for r in v["rounds"][0]["reopened"]} == {"c1", "c2", "c3"}


# -- A5 and A12: what the terminal shows ------------------------------------------------------


def test_printable_escapes_terminal_controls_and_bidi():
    assert printable("c1\x1b[2K\rOK\x1b[8m") == "c1\\x1b[2K\\x0dOK\\x1b[8m"
    assert printable("a\u202eb\u2066c\x85d\ne") == "a\\u202eb\\u2066c\\x85d\\x0ae"
    assert printable("naïve café 東京 مرحبا") == "naïve café 東京 مرحبا"


def test_escapes_in_bundle_fields_are_never_printed_raw(claimed, tmp_path, capsys):
    fake = "c1\x1b[2K\rOK: every file matches; signed (trusted: Legal team)\x1b[8m"

    def edit(d: Path) -> None:
        for name in ("comments.before.json", "comments.after.json", "claims.json"):
            p = d / name
            p.write_text(p.read_text().replace('"c1"', json.dumps(fake)))
        _json_edit("verdicts.json", _all_edited)(d)
        p = d / "verdicts.json"
        p.write_text(p.read_text().replace('"c1"', json.dumps(fake)))

    def manifest(m: dict[str, Any]) -> None:
        m["document_title"] = "Memo\x1b]8;;http://127.0.0.1:9/\x07click\u202e"
        m["model"] = "gpt\x1b[2K"

    b = forge(claimed, tmp_path / "f", edit, manifest)
    for command in ("verify", "show"):
        assert arl(["bundle", command, str(b)]) == 3
        out = capsys.readouterr()
        text = out.out + out.err
        assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
        assert "\\x1b" in text
    assert arl(["bundle", "show", str(b)]) == 3
    shown = capsys.readouterr().out.splitlines()
    assert shown[0].startswith("TAMPERED: ")


def test_show_says_its_verdict_first(claimed, tmp_path, capsys):
    assert arl(["bundle", "show", str(claimed)]) == 0
    assert capsys.readouterr().out.startswith("OK: Every verdict and metric re-derives")
    b = forge(claimed, tmp_path / "f", _json_edit("verdicts.json", _all_edited))
    assert arl(["bundle", "show", str(b)]) == 3
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("TAMPERED: ") and "same engine" in first


def test_an_older_format_claim_skips_no_field_it_states(claimed, tmp_path):
    """A downgrade to arl-bundle/1 keeping the round records' fields: each is still
    checked (the older format is the bundle's word, not a reason to skip)."""

    def rounds(v: dict[str, Any]) -> None:
        for r in v["rounds"]:
            r["tokens"] = 1  # the run used more: the trace says so
            for key in ("unusable", "collateral", "reopened"):  # not in the older shape
                r.pop(key)
        v["unusable"] = [[u["comment_id"], u["reason"]] for u in v["unusable"]]

    def manifest(m: dict[str, Any]) -> None:
        m["format"] = "arl-bundle/1"
        m.pop("engine", None)

    b = forge(claimed, tmp_path / "f", _json_edit("verdicts.json", rounds), manifest)
    opened = open_bundle(b)
    assert opened.old_format and not opened.problems, opened.problems
    lines = [d.line() for d in judge_bundle(opened).rederivation.differences]
    assert any(line.startswith("round 1: tokens: stored 1") for line in lines), lines
    assert judge_bundle(opened).tampered


# -- trust rests on the whole key, not on a 64-bit fingerprint --------------------------------


def test_trusting_a_bundles_signer_matches_the_whole_key(claimed, tmp_path, capsys):
    key = signing.new_private_key()
    b = forge(claimed, tmp_path / "signed", lambda d: None, key=key)
    pub = signing.public_key(key)
    fp = signing.fingerprint(pub)
    assert arl(["bundle", "trust", str(b), "release laptop"]) == 0
    stored = json.loads((tmp_path / "trusted.json").read_text())
    assert stored == {signing.key_id(pub): "release laptop"}
    status = signing.check_bundle(open_bundle(b))
    assert status.trusted and not status.trusted_by_fingerprint
    assert status.line() == f"signed by {fp} (trusted: release laptop)"
    # Another key with the same 64-bit fingerprint is not the trusted one: all 256 bits
    # are compared (a colliding entry stands in for the 2^64 search).
    digits = fp.replace(" ", "")
    colliding = {"sha256:" + digits + "0" * 48: "someone else"}
    raw = (b / "manifest.json").read_bytes()
    sig = json.loads((b / "signature.json").read_text())
    assert not signing.verify_signature(raw, sig, colliding).trusted
    # A fingerprint entry is still honoured, and says it is the weaker kind.
    weak = signing.verify_signature(raw, sig, {fp: "old entry"})
    assert weak.trusted and weak.trusted_by_fingerprint and "by fingerprint only" in weak.line()
    # Untrusting by fingerprint removes the full-key entry too.
    assert arl(["bundle", "trust", fp, ""]) == 0
    assert json.loads((tmp_path / "trusted.json").read_text()) == {}
    # An unsigned bundle has no signer to trust.
    capsys.readouterr()
    assert arl(["bundle", "trust", str(claimed), "x"]) == 2
    assert "unsigned" in capsys.readouterr().err
