"""A bundle member too large for the bundle's limits is written as a stub, so a bundle
always exists and verifies; the figures that depend on it read "unverified: member too
large", never TAMPERED (docs/bundle.md, "Stubs")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.bundle.archive import sha256
from engine.bundle.read import open_bundle, verify_bundle
from engine.bundle.write import content_of, write_bundle
from engine.caps import MAX_JSON_BYTES
from engine.cli.main import main as arl
from tests.engine.test_bundle import make_bundle


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    return make_bundle(tmp_path_factory.mktemp("stub"))


def _rewrite(base: Path, dest: Path, **changes) -> Path:
    b = open_bundle(base)
    return write_bundle(dest, content_of(b, **changes))


def _huge_claims(b) -> dict:
    claims = json.loads(json.dumps(b.claims))
    claims["final"]["notes"] = "n" * (MAX_JSON_BYTES + 10)
    return claims


def test_an_oversized_claims_file_is_a_stub_and_the_bundle_verifies(base, tmp_path, capsys):
    b = open_bundle(base)
    claims = _huge_claims(b)
    out = _rewrite(base, tmp_path / "b", claims=claims)
    m = json.loads((out / "manifest.json").read_text())
    assert m["stubbed"] == ["claims.json"]
    stub = json.loads((out / "claims.json").read_text())
    full = (json.dumps(claims, ensure_ascii=False, indent=1) + "\n").encode()
    assert stub == {
        "stub": True,
        "size": len(full),
        "sha256": sha256(full),
        "reason": stub["reason"],
    }
    assert "member too large" in stub["reason"] and f"{MAX_JSON_BYTES:,}" in stub["reason"]
    res = verify_bundle(out)
    assert res.ok and not res.tampered, res.rederivation.headline()
    assert res.rederivation.unverified == [
        f"claims.json ({len(full):,} bytes): the agent's claims and claim accuracy: "
        "unverified: member too large"
    ]
    opened = open_bundle(out)
    assert "claims.json" in opened.stubbed and opened.claims == {} and not opened.problems
    assert arl(["bundle", "verify", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "unverified: member too large" in printed and "TAMPERED" not in printed


@pytest.mark.parametrize("member", ["comments.after.json", "verdicts.json", "document/v1.html"])
def test_other_members_stubbed_leave_their_figures_unverified(base, tmp_path, member):
    b = open_bundle(base)
    files_before = {p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file()}
    assert member in files_before
    out = _rewrite(base, tmp_path / "b")
    # Stub the member as the writer would, then re-hash it into an unsigned manifest.
    from engine.bundle.archive import stub_of

    data = (out / member).read_bytes()
    (out / member).write_bytes(stub_of(data, "member too large: test"))
    m = json.loads((out / "manifest.json").read_text())
    m["stubbed"] = [member]
    m["files"][member] = sha256((out / member).read_bytes())
    (out / "manifest.json").write_text(json.dumps(m, indent=1))
    res = verify_bundle(out)
    assert not res.tampered, (res.bad, res.problems, res.rederivation.headline())
    assert any(member in u and "member too large" in u for u in res.rederivation.unverified)
    assert b.ok


def test_a_listed_stub_that_is_not_one_is_a_problem(base, tmp_path):
    out = _rewrite(base, tmp_path / "b")
    m = json.loads((out / "manifest.json").read_text())
    m["stubbed"] = ["claims.json"]  # claims.json holds the real claims, not a stub
    (out / "manifest.json").write_text(json.dumps(m, indent=1))
    res = verify_bundle(out)
    assert res.tampered and any("does not hold a stub" in p for p in res.problems)


def test_a_stub_not_listed_in_the_manifest_is_tampered(base, tmp_path):
    out = _rewrite(base, tmp_path / "b", claims=_huge_claims(open_bundle(base)))
    m = json.loads((out / "manifest.json").read_text())
    del m["stubbed"]
    (out / "manifest.json").write_text(json.dumps(m, indent=1))
    assert verify_bundle(out).tampered


def test_a_stubbed_bundle_still_catches_a_forged_verdict(base, tmp_path):
    out = _rewrite(base, tmp_path / "b", claims=_huge_claims(open_bundle(base)))
    v = json.loads((out / "verdicts.json").read_text())
    v["final"][0]["verdict"] = "untouched" if v["final"][0]["verdict"] == "edited" else "edited"
    (out / "verdicts.json").write_text(json.dumps(v, indent=1))
    m = json.loads((out / "manifest.json").read_text())
    m["files"]["verdicts.json"] = sha256((out / "verdicts.json").read_bytes())
    (out / "manifest.json").write_text(json.dumps(m, indent=1))
    assert verify_bundle(out).tampered


def test_the_whole_bundle_over_its_limit_stubs_its_largest_member(base, tmp_path):
    from engine.bundle.archive import stub_oversized

    files = {"a.json": b"[]", "document/v1.html": b"x" * 90, "big.html": b"y" * 400}
    import engine.bundle.archive as archive

    old = archive.MAX_TOTAL_BYTES
    archive.MAX_TOTAL_BYTES = 300
    try:
        assert stub_oversized(files) == ["big.html"]
    finally:
        archive.MAX_TOTAL_BYTES = old
    assert json.loads(files["big.html"])["size"] == 400
