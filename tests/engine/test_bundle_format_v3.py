"""arl-bundle/3: written now; /1 and /2 still open; a /3 field in an older manifest is refused."""

from __future__ import annotations

import json
from pathlib import Path

from engine.bundle.formats import FORMAT_V2, FORMAT_V3, FORMATS, NEW_IN_V3
from engine.bundle.read import open_bundle, verify_bundle
from engine.bundle.schema import check_file
from engine.bundle.write import FORMAT

ROOT = Path(__file__).resolve().parents[2]
DEMO = next((ROOT / "resources" / "demo").glob("*/manifest.json")).parent


def test_the_writer_writes_format_3_and_the_reader_reads_all_three():
    assert FORMAT == FORMAT_V3 == "arl-bundle/3"
    assert FORMATS == ("arl-bundle/1", "arl-bundle/2", "arl-bundle/3")


def test_a_shipped_format_2_bundle_still_opens_and_verifies():
    bundle = open_bundle(DEMO)
    assert bundle.format == FORMAT_V2
    assert verify_bundle(DEMO).ok


def _manifest(fmt: str, **extra: object) -> dict[str, object]:
    manifest = json.loads((DEMO / "manifest.json").read_text(encoding="utf-8"))
    manifest["format"] = fmt
    manifest.update(extra)
    return manifest


def test_a_field_new_in_format_3_is_a_problem_in_an_older_manifest():
    assert NEW_IN_V3 == ("stubbed", "markdown_renderer", "markdown_note", "word_versions")
    for field, value in (("stubbed", ["trace.json"]), ("word_versions", ["v1", "v2"])):
        assert check_file("manifest.json", _manifest(FORMAT_V3, **{field: value}), FORMAT_V3) == []
        problems = check_file("manifest.json", _manifest(FORMAT_V2, **{field: value}), FORMAT_V2)
        assert len(problems) == 1
        assert f"{field} is a field of arl-bundle/3, not of arl-bundle/2" in problems[0]
    assert check_file("manifest.json", _manifest(FORMAT_V2), FORMAT_V2) == []


def test_an_unknown_format_is_refused_naming_the_ones_read(tmp_path: Path) -> None:
    import shutil

    import pytest

    from engine.bundle.archive import BundleError

    copy = tmp_path / "b"
    shutil.copytree(DEMO, copy)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["format"] = "arl-bundle/4"
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(BundleError, match="arl-bundle/3"):
        open_bundle(copy)


def test_the_manifests_shape_is_checked_after_the_documents_and_listed_first(tmp_path: Path):
    """``open_bundle`` hands the documents on before it checks the manifest's shape (the
    pages start while pydantic loads); the problems still come in the order the files are
    read: the manifest's first, then a version's."""
    import shutil

    copy = tmp_path / "b"
    shutil.copytree(DEMO, copy)
    manifest = _manifest(FORMAT_V2, word_versions=["v1", "v2"])
    manifest["versions"] = manifest["versions"] + [manifest["versions"][0]]  # v1 twice
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    seen: list[list[str]] = []
    bundle = open_bundle(copy, lambda versions: seen.append([v.name for v in versions]))
    assert seen and "v1" in seen[0]
    assert "word_versions is a field of arl-bundle/3" in bundle.problems[0]
    assert any("version 'v1' is listed twice" in p for p in bundle.problems[1:])
