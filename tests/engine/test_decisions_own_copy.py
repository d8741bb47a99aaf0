"""A bundle the user must not change (shipped with the program, or in a folder they cannot
write) is never written by a decision: the first one copies it into the user's bundles
folder (engine.bundle.own_copy), later ones and a reopening go to that copy."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from engine.bundle import signing
from engine.bundle.adjudicate import adjudicate
from engine.bundle.bundle import export_zip
from engine.bundle.decisions import DECISIONS_FILE
from engine.bundle.own_copy import (
    READ_ONLY,
    SHIPPED,
    copies_folder,
    copy_reason,
    decisions_bundle,
    find_copy,
)
from engine.bundle.read import open_bundle, verify_bundle
from engine.cli.main import main as arl

DATA = Path(__file__).resolve().parents[1] / "data"
EXAMPLE = Path(str(resources.files("resources").joinpath("example")))


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) and its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _example_bundle() -> Path:
    found = [p.parent for p in EXAMPLE.glob("*/manifest.json")]
    assert found, "the shipped example bundle is missing"
    return found[0]


def test_the_shipped_example_is_copied_and_never_written():
    bundle = _example_bundle()
    before = _snapshot(EXAMPLE)
    cids = [c["id"] for c in json.loads((bundle / "comments.before.json").read_bytes())["comments"]]
    key = signing.new_private_key()
    assert copy_reason(bundle) == SHIPPED
    assert find_copy(bundle) is None
    first = adjudicate(bundle, cids[0], "accept", "", "Tess", key)
    second = adjudicate(bundle, cids[1], "accept", "", "Tess", key)
    assert _snapshot(EXAMPLE) == before  # not a byte changed, no lock or temporary file
    home = first.home
    assert home.copied_from == bundle and home.why == SHIPPED
    assert home.bundle.parent == copies_folder() and second.home.bundle == home.bundle
    assert str(copies_folder()) in home.words() and "shipped with the program" in home.words()
    res = verify_bundle(home.bundle)
    assert res.ok, res.decisions.problems
    assert set(res.decisions.latest()) == {cids[0], cids[1]}
    assert open_bundle(home.bundle).manifest_bytes == open_bundle(bundle).manifest_bytes
    again = find_copy(bundle)
    assert again is not None and again.bundle == home.bundle
    assert copy_reason(home.bundle) == ""  # the copy is the user's: written in place


def test_the_cli_decides_into_the_copy_and_lists_the_copys_decisions(capsys, monkeypatch):
    bundle = _example_bundle()
    before = _snapshot(EXAMPLE)
    cid = json.loads((bundle / "comments.before.json").read_bytes())["comments"][0]["id"]
    monkeypatch.setenv("ARL_REVIEWER", "Tess")
    assert arl(["bundle", "adjudicate", str(bundle), cid, "--decision", "accept"]) == 0
    out = capsys.readouterr().out
    assert "Your decisions are kept in a copy of this bundle in" in out
    assert str(copies_folder()) in out
    assert arl(["bundle", "decisions", str(bundle)]) == 0
    out = capsys.readouterr().out
    assert f"DECISION comment {cid}: accept" in out and "The copy, listed here:" in out
    assert _snapshot(EXAMPLE) == before


def test_a_writable_bundle_is_written_in_place(tmp_path):
    b = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", b)
    assert copy_reason(b) == "" and find_copy(b) is None
    done = adjudicate(b, "c1", "accept", "", "Ann", signing.new_private_key())
    assert done.home.bundle == b and done.home.copied_from is None and done.home.words() == ""
    assert (b / DECISIONS_FILE).is_file() and not copies_folder().exists()


@pytest.mark.parametrize("name", ["b", "审阅 报告", "مراجعة", "รายงาน", "memo 📝"])
def test_a_copy_name_taken_by_another_bundle_gets_the_manifests_hash(tmp_path, monkeypatch, name):
    import engine.bundle.own_copy as own_copy

    shipped = tmp_path / "shipped"
    shutil.copytree(DATA / "bundle-min", shipped / name)
    monkeypatch.setattr(own_copy, "_program_resources", lambda: shipped.resolve())
    other = copies_folder() / name
    shutil.copytree(DATA / "bundle-min", other)
    manifest = json.loads((other / "manifest.json").read_text(encoding="utf-8"))
    manifest["run_id"] = "another-run"
    (other / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    home = decisions_bundle(shipped / name)
    assert home.why == SHIPPED
    assert home.bundle.parent == copies_folder() and home.bundle.name.startswith(f"{name}-")
    assert len(home.bundle.name) == len(name) + 1 + 8
    assert decisions_bundle(shipped / name).bundle == home.bundle  # found, not copied again
    found = find_copy(shipped / name)
    assert found is not None and found.bundle == home.bundle
    assert json.loads((other / "manifest.json").read_text(encoding="utf-8"))["run_id"] == (
        "another-run"
    )


_DECIDE = """
import json, sys
from engine.bundle import signing
from engine.bundle.adjudicate import adjudicate
from engine.bundle.own_copy import copy_reason
reason = copy_reason(sys.argv[1])
done = adjudicate(sys.argv[1], "c1", "accept", "", "Ann", signing.new_private_key())
print(json.dumps({"why": reason, "bundle": str(done.home.bundle)}))
"""


def _decide_read_only(folder: Path, bundle: Path) -> dict[str, str]:
    """Decide on ``bundle`` (inside ``folder``) while ``folder`` cannot be written: by its
    mode for a user, by a read-only bind mount for root (whom modes do not stop)."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    cmd = [sys.executable, "-c", _DECIDE, str(bundle)]
    if os.geteuid() != 0:
        modes = [(p, p.stat().st_mode) for p in [folder, *folder.rglob("*")] if p.is_dir()]
        for p, _ in modes:
            p.chmod(0o555)
        try:
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)
        finally:
            for p, mode in modes:
                p.chmod(mode)
    else:
        if not shutil.which("unshare"):
            pytest.skip("running as root without unshare: no folder here is read-only for root")
        f = str(folder)
        script = f'mount --bind "{f}" "{f}" && mount -o remount,bind,ro "{f}" || exit 97; exec "$@"'
        out = subprocess.run(
            ["unshare", "-m", "sh", "-c", script, "sh", *cmd],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        if out.returncode == 97 or "unshare failed" in out.stderr:
            pytest.skip(f"cannot make a read-only mount here: {out.stderr.strip()[:200]}")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("zipped", [False, True])
def test_a_bundle_in_a_read_only_folder_is_copied_first(tmp_path, zipped):
    folder = tmp_path / "readonly"
    folder.mkdir()
    if zipped:
        bundle = folder / "b.zip"
        export_zip(DATA / "bundle-min", bundle)
    else:
        bundle = folder / "b"
        shutil.copytree(DATA / "bundle-min", bundle)
    before = _snapshot(folder)
    got = _decide_read_only(folder, bundle)
    assert got["why"] == READ_ONLY
    assert _snapshot(folder) == before
    copy = Path(got["bundle"])
    assert copy.parent == copies_folder() and copy.name == bundle.name
    assert copy.is_dir() != zipped
    res = verify_bundle(copy)
    assert res.ok, res.decisions.problems
    assert set(res.decisions.latest()) == {"c1"}
    assert not [p for p in copies_folder().iterdir() if "copying" in p.name]
