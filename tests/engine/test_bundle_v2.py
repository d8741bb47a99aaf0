"""arl-bundle/2: lossless verdicts, schemas, re-derivation, signatures, caps and refusals."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from engine.bundle import signing
from engine.bundle.archive import BundleError
from engine.bundle.bundle import export_zip
from engine.bundle.read import FORMAT, open_bundle, verify_bundle
from engine.bundle.rederive import rederive
from engine.bundle.schema import check_file
from engine.bundle.write import content_of, write_bundle
from engine.caps import push_refusal, stored_size
from engine.cli.main import main as arl
from tests.engine.test_bundle import make_bundle
from tests.helpers.scripted_server import ClaimWithoutEditing

ROOT = Path(__file__).resolve().parents[2]
V1_BUNDLE = ROOT / "tests" / "data" / "bundle-v1-demo"


@pytest.fixture(scope="module")
def claimed(tmp_path_factory):
    """A two-round run whose agent claims everything and edits nothing (reopens)."""
    return make_bundle(tmp_path_factory.mktemp("c"), agent=ClaimWithoutEditing(), rounds=2)


@pytest.fixture(autouse=True)
def _trusted_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ARL_TRUSTED_KEYS", str(tmp_path / "trusted.json"))


def _rehash(folder: Path, *names: str) -> None:
    man = json.loads((folder / "manifest.json").read_text())
    for n in names:
        man["files"][n] = hashlib.sha256((folder / n).read_bytes()).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(man, indent=1))


def _copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest)
    return dest


# -- lossless ------------------------------------------------------------------------------


def test_verdicts_carry_their_evidence_per_round_and_final(claimed):
    v = json.loads((claimed / "verdicts.json").read_text())
    assert json.loads((claimed / "manifest.json").read_text())["format"] == FORMAT
    assert [r["round"] for r in v["rounds"]] == [1, 2]
    for record in v["rounds"]:
        assert {"unusable", "collateral", "reopened", "tokens"} <= set(record)
        for item in record["verdicts"]:
            for key in ("method", "confidence", "note", "offsets_repaired", "approximate"):
                assert key in item, key
            assert item["v1"]["text"] and isinstance(item["v1"]["start"], int)
    # The agent resolved without editing: round 1 reopened every comment, with its reason.
    r1 = v["rounds"][0]
    assert {r["comment_id"] for r in r1["reopened"]} == {"c1", "c2", "c3"}
    by_id = {i["comment_id"]: i for i in r1["verdicts"]}
    for r in r1["reopened"]:
        assert by_id[r["comment_id"]]["reopen_reason"] == r["reason"]
        assert r["message"].startswith("VERIFICATION")
    for name in ("verdicts.json", "metrics.json", "claims.json", "trace.json", "manifest.json"):
        assert check_file(name, json.loads((claimed / name).read_text())) == [], name


def test_schema_files_in_docs_are_current():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "make_bundle_schemas.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout


def test_a_real_run_re_derives_exactly(claimed):
    res = rederive(open_bundle(claimed))
    assert res.ok and not res.engine_changed, [d.line() for d in res.differences]
    assert verify_bundle(claimed).ok


# -- re-derived, never trusted ---------------------------------------------------------------


def test_forged_verdict_with_rehashed_manifest_is_named(claimed, tmp_path, capsys):
    b = _copy(claimed, tmp_path / "forged")
    v = json.loads((b / "verdicts.json").read_text())
    v["final"][1]["verdict"] = "edited"
    (b / "verdicts.json").write_text(json.dumps(v))
    m = json.loads((b / "metrics.json").read_text())
    m["attribution_rate"] = {"value": 1.0, "numerator": 3, "denominator": 3}
    (b / "metrics.json").write_text(json.dumps(m))
    _rehash(b, "verdicts.json", "metrics.json")
    assert verify_bundle(b, deep=False).ok  # the hashes alone are fooled
    assert arl(["bundle", "verify", str(b)]) == 3
    out = capsys.readouterr().out.splitlines()
    assert "DIFFERENT final: comment c2: verdict: stored 'edited', recomputed 'untouched'" in out
    # the signature is said beside the other failures: unsigned is not "bad", nor unknown
    assert any(line.startswith("SIGNATURE ") for line in out)
    assert any(
        line.startswith("DIFFERENT final: metric attribution_rate: stored '100% (3 of 3)'")
        for line in out
    )
    assert any("same engine" in line for line in out)
    # export refuses it too
    assert arl(["bundle", "export", str(b), str(tmp_path / "f.zip")]) == 3
    assert not (tmp_path / "f.zip").exists()
    capsys.readouterr()
    # show says so first, and exits 3, rather than printing the forged 100% as a result
    assert arl(["bundle", "show", str(b)]) == 3
    shown = capsys.readouterr().out
    assert shown.startswith("TAMPERED: ")
    assert shown.index("TAMPERED: ") < shown.index("100% (3 of 3)")


def test_forged_round_verdict_and_reopen_reason(claimed, tmp_path, capsys):
    b = _copy(claimed, tmp_path / "forged")
    v = json.loads((b / "verdicts.json").read_text())
    v["rounds"][0]["verdicts"][0]["confidence"] = 0.5
    v["rounds"][0]["reopened"][0]["reason"] = "because I said so"
    (b / "verdicts.json").write_text(json.dumps(v))
    _rehash(b, "verdicts.json")
    assert arl(["bundle", "verify", str(b)]) == 3
    out = capsys.readouterr().out
    cid = v["rounds"][0]["verdicts"][0]["comment_id"]
    assert f"round 1: comment {cid}: confidence: stored 0.5, recomputed 1.0" in out
    assert "reopen reason: stored 'because I said so'" in out


def test_engine_change_is_not_called_tampering(claimed, tmp_path, capsys):
    b = _copy(claimed, tmp_path / "older")
    v = json.loads((b / "verdicts.json").read_text())
    v["final"][0]["method"] = "fuzzy"
    (b / "verdicts.json").write_text(json.dumps(v))
    man = json.loads((b / "manifest.json").read_text())
    man["app_version"] = "0.0.9"
    man["files"]["verdicts.json"] = hashlib.sha256((b / "verdicts.json").read_bytes()).hexdigest()
    (b / "manifest.json").write_text(json.dumps(man))
    # Unsigned, the manifest's word for its engine is no excuse: tampered.
    res = rederive(open_bundle(b))
    assert res.engine_changed and res.forged and res.level == "tampered"
    assert "no signature by a trusted key vouches" in res.headline()
    assert arl(["bundle", "verify", str(b)]) == 3
    out = capsys.readouterr().out
    assert "DIFFERENT final: comment c1: method: stored 'fuzzy', recomputed 'exact'" in out
    # Signed by a trusted key, it is an engine change, not tampering.
    key = signing.new_private_key()
    raw = (b / "manifest.json").read_bytes()
    (b / "signature.json").write_text(json.dumps(signing.sign_manifest(raw, key)))
    signing.set_trusted(signing.key_fingerprint(key), "release laptop")
    res = rederive(open_bundle(b))
    assert res.engine_changed and not res.forged and res.level == "rescored"
    assert "Scored by 0.0.9" in res.headline() and "release laptop" in res.headline()
    assert arl(["bundle", "verify", str(b)]) == 3
    out = capsys.readouterr().out
    assert "RESCORED final: comment c1: method: stored 'fuzzy', recomputed 'exact'" in out


def test_tokens_are_re_derived_from_the_trace(claimed, tmp_path, capsys):
    b = _copy(claimed, tmp_path / "tok")
    man = json.loads((b / "manifest.json").read_text())
    man["tokens"] = 5
    (b / "manifest.json").write_text(json.dumps(man))
    assert arl(["bundle", "verify", str(b)]) == 3
    assert "DIFFERENT run: tokens: stored 5, recomputed" in capsys.readouterr().out


def test_previous_format_opens_and_is_marked(capsys):
    b = open_bundle(V1_BUNDLE)
    assert b.format == "arl-bundle/1" and b.old_format and not b.problems and not b.tampered
    res = rederive(b)
    # The engine changed since it was written, and an older bundle does not name its
    # engine; unsigned, "older format" is the bundle's own word and excuses nothing:
    # a difference is tampering (a forger can write an older format too).
    assert "engine not recorded" in res.scored_by
    code = arl(["bundle", "verify", str(V1_BUNDLE)])
    out = capsys.readouterr().out
    if res.differences:
        assert res.forged and code == 3 and "DIFFERENT" in out and "RESCORED" not in out
    else:
        assert code == 0 and "older format" in out


def test_wrong_types_are_problems_not_crashes(claimed, tmp_path, capsys):
    b = _copy(claimed, tmp_path / "types")
    m = json.loads((b / "metrics.json").read_text())
    m["attribution_rate"]["value"] = "100%"
    (b / "metrics.json").write_text(json.dumps(m))
    v = json.loads((b / "verdicts.json").read_text())
    v["final"] = [1, 2, 3]
    (b / "verdicts.json").write_text(json.dumps(v))
    (b / "claims.json").write_text('{"rounds": [], "final": {"comments": 1' + "0" * 5000 + "}}")
    _rehash(b, "metrics.json", "verdicts.json", "claims.json")
    opened = open_bundle(b)
    text = "\n".join(opened.problems)
    assert "metrics.json: attribution_rate.value" in text
    assert "verdicts.json: final.0" in text
    assert "claims.json: not usable JSON" in text
    assert opened.metrics == {} and opened.verdicts == {}
    # show prints what can be read and, like verify, exits 3: nothing here is trustworthy
    assert arl(["bundle", "show", str(b)]) == 3
    assert arl(["bundle", "verify", str(b)]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err


# -- signatures ------------------------------------------------------------------------------


def _signed(src: Path, dest: Path, key: bytes) -> Path:
    """Re-write ``src`` as a signed bundle (the engine's own writer)."""
    return write_bundle(dest, _content(src, key))


def _content(src: Path, key: bytes | None):
    return content_of(open_bundle(src), signing_key=key)


def test_signature_round_trips_through_zip_export(claimed, tmp_path, capsys):
    key = signing.new_private_key()
    fp = signing.key_fingerprint(key)
    b = _signed(claimed, tmp_path / "signed", key)
    assert (b / "signature.json").is_file()
    res = verify_bundle(b)
    assert res.ok and res.signature.state == "signed" and res.signature.fingerprint == fp
    z = tmp_path / "signed.zip"
    assert arl(["bundle", "export", str(b), str(z)]) == 0
    zres = verify_bundle(z)
    assert zres.ok and zres.signature.fingerprint == fp
    capsys.readouterr()
    assert arl(["bundle", "verify", str(z)]) == 0
    assert f"signed by {fp} (an unknown key: not trusted)" in capsys.readouterr().out
    assert arl(["bundle", "trust", fp.replace(" ", ""), "the review team's laptop"]) == 0
    capsys.readouterr()
    assert arl(["bundle", "verify", str(z)]) == 0
    assert (
        f"signed by {fp} (trusted: the review team's laptop, by fingerprint only)"
        in capsys.readouterr().out
    )


def test_bad_signature_and_unknown_signer_told_apart(claimed, tmp_path, capsys):
    key = signing.new_private_key()
    b = _signed(claimed, tmp_path / "signed", key)
    # Unknown signer: a valid signature by a key nobody trusts -> verifies, says so.
    assert verify_bundle(b).signature.state == "signed"
    assert not verify_bundle(b).signature.trusted
    # Bad signature: the manifest changed after signing (hashes still consistent).
    bad = _copy(b, tmp_path / "bad")
    man = json.loads((bad / "manifest.json").read_text())
    man["model"] = "a better model"
    (bad / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    res = verify_bundle(bad)
    assert res.signature.state == "bad" and not res.ok
    assert arl(["bundle", "verify", str(bad)]) == 3
    assert "BAD SIGNATURE: the signature does not match manifest.json" in capsys.readouterr().out
    # A signature re-made with another key but the first key's fingerprint: bad, not unknown.
    other = _copy(b, tmp_path / "other")
    sig = signing.sign_manifest((other / "manifest.json").read_bytes(), signing.new_private_key())
    sig["fingerprint"] = signing.key_fingerprint(key)
    (other / "signature.json").write_text(json.dumps(sig))
    assert verify_bundle(other).signature.state == "bad"
    # Unsigned is neither.
    assert verify_bundle(claimed).signature.state == "unsigned"


# -- caps and refusals ------------------------------------------------------------------------


def test_zip_bomb_of_json_values_is_refused_quickly(claimed, tmp_path):
    """99 MB of ``[],`` is refused in milliseconds, not parsed: zipped, from the zip's
    headers (it inflates over 1,000 times); in a folder, by counting its JSON values."""
    bomb = b"[" + b"[]," * (30 * 1024 * 1024 // 3) + b"[]]"
    z = tmp_path / "bomb.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(claimed.rglob("*")):
            if p.is_file() and p.name != "trace.json":
                zf.write(p, p.relative_to(claimed).as_posix())
        zf.writestr("trace.json", bomb)
    assert z.stat().st_size < 400_000
    with pytest.raises(BundleError, match="zip bomb"):
        open_bundle(z)
    folder = tmp_path / "bomb"
    shutil.copytree(claimed, folder)
    (folder / "trace.json").write_bytes(bomb)
    t0 = time.monotonic()
    b = open_bundle(folder)
    assert time.monotonic() - t0 < 10
    assert any("trace.json holds more than" in p for p in b.problems)


MB = 1024 * 1024
BUNDLE_MANIFEST = b'{"format": "arl-bundle/2", "files": {}}'


def _inflated_bytes(monkeypatch) -> list[int]:
    """Counts the bytes every zip member read returns (what was inflated into memory)."""
    counted: list[int] = []
    real = zipfile.ZipExtFile.read

    def read(self, n=-1):
        data = real(self, n)
        counted.append(len(data))
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", read)
    return counted


def _zeros_zip(path: Path, manifest: bytes, members: dict[str, int], declared: int | None = None):
    """A zip of ``manifest.json`` and members of that many zero bytes; ``declared``: the
    uncompressed size the central directory states for each member (a lying zip)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("manifest.json", manifest)
        for name, size in members.items():
            with zf.open(name, "w") as fh:
                for _ in range(size // MB):
                    fh.write(bytes(MB))
    if declared is not None:
        data = bytearray(path.read_bytes())
        i = data.find(b"PK\x01\x02")
        while i >= 0:
            name_len = int.from_bytes(data[i + 28 : i + 30], "little")
            if bytes(data[i + 46 : i + 46 + name_len]).decode() in members:
                data[i + 24 : i + 28] = declared.to_bytes(4, "little")
            i = data.find(b"PK\x01\x02", i + 4)
        path.write_bytes(bytes(data))
    return path


def test_a_zip_bomb_is_refused_from_its_headers_without_inflating(tmp_path, monkeypatch):
    z = _zeros_zip(tmp_path / "bomb.zip", BUNDLE_MANIFEST, {"a.json": 40 * MB})
    assert z.stat().st_size < 100_000
    counted = _inflated_bytes(monkeypatch)
    with pytest.raises(BundleError, match=r"inflates [\d,]+ times its compressed size.*zip bomb"):
        open_bundle(z)
    assert sum(counted) == 0


def test_a_member_larger_than_declared_stops_at_its_declared_size(tmp_path, monkeypatch):
    """A member that inflates to 30 MB while declaring 1,000 bytes costs about one chunk of
    memory (Python allocations traced), not its real size."""
    import tracemalloc

    z = _zeros_zip(tmp_path / "liar.zip", BUNDLE_MANIFEST, {"a.json": 30 * MB}, declared=1000)
    counted = _inflated_bytes(monkeypatch)
    tracemalloc.start()
    try:
        with pytest.raises(BundleError, match=r"a\.json"):
            open_bundle(z)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sum(counted) <= len(BUNDLE_MANIFEST) * 2 + 1001
    assert peak < 8 * MB, f"{peak:,} bytes"


def test_a_zip_that_is_not_a_bundle_inflates_only_its_manifest(tmp_path, monkeypatch):
    z = tmp_path / "not-a-bundle.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", b"{}")
        zf.writestr("big.bin", os.urandom(3 * MB))  # within every limit and ratio
    counted = _inflated_bytes(monkeypatch)
    with pytest.raises(BundleError, match='no "files" table'):
        open_bundle(z)
    assert sum(counted) == 2
    z = tmp_path / "no-manifest.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("big.bin", os.urandom(3 * MB))
    counted.clear()
    with pytest.raises(BundleError, match=r"no manifest\.json"):
        open_bundle(z)
    assert sum(counted) == 0


def test_an_exported_bundle_with_a_very_repetitive_file_still_opens(claimed, tmp_path):
    """export_zip stores uncompressed a file the reader would take for a zip bomb."""
    b = open_bundle(claimed)
    trace = {**b.trace, "note": "\n" * (4 * MB)}
    folder = write_bundle(tmp_path / "rep", content_of(b, trace=trace))
    z = export_zip(folder, tmp_path / "rep.zip")
    with zipfile.ZipFile(z) as zf:
        assert zf.getinfo("trace.json").compress_type == zipfile.ZIP_STORED
        assert zf.getinfo("verdicts.json").compress_type == zipfile.ZIP_DEFLATED
    assert open_bundle(z).ok


def test_declared_sizes_are_enforced_while_inflating(tmp_path, monkeypatch):
    import engine.bundle.archive as archive

    monkeypatch.setattr(archive, "MAX_FILE_BYTES", 10_000)
    z = tmp_path / "liar.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", b"{}")
        zf.writestr("big.json", b" " * 50_000)
    with pytest.raises(BundleError, match=r"more than the limit|larger than declared"):
        open_bundle(z)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_devices_and_pipes_are_refused(tmp_path, capsys):
    assert arl(["bundle", "verify", "/dev/zero"]) == 2
    fifo = tmp_path / "fifo.zip"
    os.mkfifo(fifo)
    assert arl(["bundle", "show", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert "not a regular file" in err and "Traceback" not in err


def test_export_refuses_the_bundles_own_files_and_folder(claimed, tmp_path, capsys):
    b = _copy(claimed, tmp_path / "b")
    before = (b / "manifest.json").read_bytes()
    assert arl(["bundle", "export", str(b), str(b / "manifest.json")]) == 2
    assert arl(["bundle", "export", str(b), str(b / "copy.zip")]) == 2
    assert arl(["bundle", "export", str(b), str(b / "document" / "x.zip")]) == 2
    err = capsys.readouterr().err
    assert err.count("inside the bundle folder") == 3
    assert (b / "manifest.json").read_bytes() == before
    assert verify_bundle(b).ok


def test_export_never_replaces_a_file_without_force(claimed, tmp_path, capsys):
    dest = tmp_path / "out.zip"
    dest.write_bytes(b"someone's own file")
    assert arl(["bundle", "export", str(claimed), str(dest)]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err
    assert dest.read_bytes() == b"someone's own file"
    assert arl(["bundle", "export", str(claimed), str(dest), "--force"]) == 0
    assert zipfile.is_zipfile(dest) and verify_bundle(dest).ok
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link.zip"
    link.symlink_to(tmp_path / "target.zip")
    for target in (fifo, link):  # never replaced, not even with --force
        assert arl(["bundle", "export", str(claimed), str(target), "--force"]) == 2
        assert "not a regular file" in capsys.readouterr().err
    assert fifo.is_fifo() and link.is_symlink() and not (tmp_path / "target.zip").exists()


def test_export_out_of_disk_leaves_no_tmp(claimed, tmp_path, monkeypatch, capsys):
    def full(self, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(zipfile.ZipFile, "writestr", full)
    dest = tmp_path / "out" / "b.zip"
    assert arl(["bundle", "export", str(claimed), str(dest)]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert not dest.exists() and list(dest.parent.iterdir()) == []
    with pytest.raises(BundleError):
        export_zip(claimed, dest)
    assert list(dest.parent.iterdir()) == []


def test_writer_stubs_what_the_reader_would_refuse(claimed, tmp_path, monkeypatch):
    """A member over the reader's limits is written as a stub (the bundle is
    always written, and verifies); it used to refuse the whole bundle."""
    import engine.bundle.archive as archive

    content = _content(claimed, signing.new_private_key())
    monkeypatch.setattr(archive, "MAX_FILE_BYTES", 5_000)
    out = write_bundle(tmp_path / "big", content)
    m = json.loads((out / "manifest.json").read_text())
    assert m["stubbed"] and all((out / n).stat().st_size < 5_000 for n in m["stubbed"])
    res = verify_bundle(out)
    assert not res.tampered and not res.signature.bad
    assert all("unverified: member too large" in u for u in res.rederivation.unverified)


def test_push_refusal_names_the_limit(monkeypatch):
    import engine.caps as caps

    assert push_refusal("<p>short</p>", "html", 0) is None
    monkeypatch.setattr(caps, "MAX_DOCUMENTS_BYTES", 1_000)
    msg = push_refusal("x" * 600, "html", 0)
    assert msg is not None and "1,000 bytes" in msg
    assert stored_size("a&b", "text") > stored_size("a&b", "html")


def test_a_push_over_the_bundle_limits_is_refused_to_the_model(tmp_path, monkeypatch):
    import engine.caps as caps
    from engine.agent.tools import WorkspaceTools
    from engine.workspace import Workspace

    ws = Workspace(tmp_path / "ws.db")
    doc, v1 = ws.create_document("Memo", "<p>" + "a" * 300 + "</p>", "html")
    tools = WorkspaceTools(ws, doc, [])
    monkeypatch.setattr(caps, "MAX_DOCUMENTS_BYTES", 1_000)
    big = tools.dispatch(
        "push_version",
        json.dumps({"base_version_id": "v1", "content": "<p>" + "b" * 400 + "</p>"}),
    )
    assert not big.ok and "over the limit of 1,000 bytes" in big.result
    small = tools.dispatch(
        "push_version", json.dumps({"base_version_id": "v1", "content": "<p>b</p>"})
    )
    assert small.ok
    ws.close()


def test_the_run_and_re_derivation_word_unusable_usage_alike():
    """No usage, and usage that is not whole numbers, are told apart in the same words by
    the run (engine.agent.config.Usage) and by re-derivation from the trace."""
    from engine.agent.config import Usage
    from engine.bundle.rederive import _trace_tokens

    usage = Usage()
    for sent in (
        None,
        {"prompt_tokens": "3", "completion_tokens": "2", "total_tokens": "5"},
        {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    ):
        usage.add(sent)
    call = {"kind": "model_call", "round": 1, "response": {}, "usage": None}
    trace = {
        "entries": [
            call,
            {**call, "usage_not_whole": True},
            {**call, "round": 2, "usage": {"total_tokens": 5}},
        ]
    }
    said = (
        "the provider reported no token usage for 1 of 3 model call(s); token usage came in "
        "a form that is not whole numbers for 1 of 3 model call(s)"
    )
    assert usage.reason() == said
    assert _trace_tokens(trace, None) == (None, said)
    # A bundle written before the key existed reads as its run said: "reported no".
    old = {"entries": [{**call, "usage_problem": "usage field(s) total_tokens are not ..."}]}
    assert _trace_tokens(old, None)[1] == (
        "the provider reported no token usage for 1 of 1 model call(s)"
    )
