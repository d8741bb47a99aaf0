"""Evidence bundles: layout, manifest hashes, tamper detection, safe zips, scorecard."""

from __future__ import annotations

import asyncio
import json
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from engine.agent.config import AgentConfig
from engine.bundle.archive import BundleError
from engine.bundle.bundle import export_zip, extract_zip, publish_scorecard
from engine.bundle.read import FORMAT, open_bundle, verify_bundle
from engine.cli.main import main as arl
from engine.models import Comment
from engine.run.start import prepare_document, run_review
from engine.score.scoring import Version
from engine.text.text_page import text_as_html
from engine.workspace import Workspace
from tests.helpers.scripted_server import (
    SAMPLE_HTML,
    ClaimWithoutEditing,
    FixEverything,
    ScriptedServer,
    sample_comments,
)

LAYOUT = {
    "manifest.json",
    "document/v1.html",
    "document/v2.html",
    "document/round-1.html",
    "comments.before.json",
    "comments.after.json",
    "claims.json",
    "trace.json",
    "verdicts.json",
    "metrics.json",
    "scorecard.html",
}


def make_bundle(tmp_path: Path, agent=None, scripted=False, rounds=1) -> Path:
    ws = Workspace(tmp_path / "ws.db")
    text = Version.from_source(SAMPLE_HTML).text
    doc = prepare_document(
        ws,
        "Remote work policy",
        SAMPLE_HTML,
        "html",
        [Comment.from_json(c) for c in sample_comments(text)],
    )
    with ScriptedServer(agent or FixEverything()) as srv:
        cfg = AgentConfig(base_url=srv.base_url, model=srv.model, backoff_initial=0.01)
        outcome = asyncio.run(
            run_review(ws, doc, cfg, rounds=rounds, out_dir=tmp_path / "bundles", scripted=scripted)
        )
    ws.close()
    return outcome.bundle


@pytest.fixture(scope="module")
def bundle_dir(tmp_path_factory):
    return make_bundle(tmp_path_factory.mktemp("b"))


def _copy(src: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "copy"
    shutil.copytree(src, dest)
    return dest


def test_layout_and_manifest(bundle_dir):
    files = {p.relative_to(bundle_dir).as_posix() for p in bundle_dir.rglob("*") if p.is_file()}
    assert files == LAYOUT
    m = json.loads((bundle_dir / "manifest.json").read_text())
    assert m["format"] == FORMAT and m["status"] == "completed"
    assert m["model"] == "scripted-model" and m["base_url"].startswith("http://127.0.0.1:")
    assert set(m["files"]) == LAYOUT - {"manifest.json"}
    for key in ("app_version", "created_at", "finished_at", "run_id", "tokens", "rounds"):
        assert m[key] is not None
    verdicts = json.loads((bundle_dir / "verdicts.json").read_text())
    assert verdicts["rounds"][0]["round"] == 1 and len(verdicts["final"]) == 3
    item = verdicts["final"][0]
    assert set(item) >= {
        "comment_id",
        "verdict",
        "v1",
        "v2",
        "method",
        "markup_changed",
        "claim",
        "claim_agrees",
        "message",
        "confidence",
        "offsets_repaired",
        "approximate",
        "note",
        "reopen_reason",
    }
    metrics = json.loads((bundle_dir / "metrics.json").read_text())
    assert set(metrics) == {
        "attribution_rate",
        "collateral_churn",
        "claim_accuracy",
        "cost_per_attributed_fix",
        "rounds_to_converge",
    }
    trace = json.loads((bundle_dir / "trace.json").read_text())
    kinds = {e["kind"] for e in trace["entries"]}
    assert {"model_call", "tool_call"} <= kinds
    assert trace["usage"]["total_tokens"] == m["tokens"]


def test_open_bundle_reading_api(bundle_dir):
    b = open_bundle(bundle_dir)
    assert b.ok and b.status == "completed" and not b.scripted
    assert [v.name for v in b.versions] == ["v1", "round-1", "v2"]
    assert b.version("v1").source == SAMPLE_HTML
    assert len(b.comments_before) == 3 and all(c.status == "open" for c in b.comments_before)
    assert all(c.status == "resolved" for c in b.comments_after)
    assert b.metrics["attribution_rate"].value == 1.0
    assert b.final_claims is not None and b.final_claims.usable
    again = b.rescore().to_json(extended=True)
    stored = [{k: v for k, v in x.items() if k != "reopen_reason"} for x in b.verdicts["final"]]
    assert again["verdicts"] == stored
    assert again["metrics"] == json.loads((bundle_dir / "metrics.json").read_text())


def test_tampered_file_is_named(bundle_dir, tmp_path, capsys):
    b = _copy(bundle_dir, tmp_path)
    v2 = b / "document" / "v2.html"
    v2.write_text(v2.read_text().replace("UP TO TWO", "up to two"))
    (b / "metrics.json").unlink()
    (b / "extra.txt").write_text("smuggled")
    res = verify_bundle(b)
    assert not res.ok
    assert dict(res.bad) == {
        "document/v2.html": "SHA-256 does not match the manifest",
        "metrics.json": "missing",
        "extra.txt": "not listed in the manifest",
    }
    opened = open_bundle(b)
    assert set(opened.tampered) == {"document/v2.html", "metrics.json", "extra.txt"}
    assert not opened.ok
    assert arl(["bundle", "verify", str(b)]) == 3
    out = capsys.readouterr().out
    assert "TAMPERED document/v2.html" in out and "TAMPERED metrics.json" in out
    assert arl(["bundle", "verify", str(bundle_dir)]) == 0


def test_zip_export_open_and_verify(bundle_dir, tmp_path):
    z = export_zip(bundle_dir, tmp_path / "run.zip")
    assert verify_bundle(z).ok
    b = open_bundle(z)
    assert b.ok and b.version("v2").source == open_bundle(bundle_dir).version("v2").source
    assert arl(["bundle", "verify", str(z)]) == 0
    out = extract_zip(z, tmp_path / "x")
    assert verify_bundle(out).ok
    # a zip with a top-level folder also opens
    z2 = tmp_path / "nested.zip"
    with zipfile.ZipFile(z) as src, zipfile.ZipFile(z2, "w") as dst:
        for info in src.infolist():
            dst.writestr("bundle/" + info.filename, src.read(info))
    assert verify_bundle(z2).ok


def _evil_zip(path: Path, entries: dict[str, bytes], link: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        if link:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return path


@pytest.mark.parametrize(
    "entries,link,needle",
    [
        ({"manifest.json": b"{}", "../evil.txt": b"x"}, None, "outside the bundle"),
        ({"manifest.json": b"{}", "/abs/evil.txt": b"x"}, None, "absolute path"),
        ({"manifest.json": b"{}", "C:/evil.txt": b"x"}, None, "absolute path"),
        ({"manifest.json": b"{}"}, "link", "symbolic link"),
        ({"a.txt": b"x"}, None, "no manifest.json"),
        ({"manifest.json": b"not json"}, None, "not a JSON file"),
    ],
)
def test_unsafe_or_malformed_zips_are_refused_in_one_line(tmp_path, entries, link, needle, capsys):
    z = _evil_zip(tmp_path / "evil.zip", entries, link)
    with pytest.raises(BundleError) as err:
        open_bundle(z)
    assert needle in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(BundleError):
        extract_zip(z, tmp_path / "out")
    assert not (tmp_path / "evil.txt").exists()
    assert arl(["bundle", "verify", str(z)]) == 2
    err_text = capsys.readouterr().err
    assert len(err_text.strip().splitlines()) == 1 and "Traceback" not in err_text


def test_too_many_entries_and_not_a_zip(tmp_path, monkeypatch):
    import engine.bundle.archive as bundle

    monkeypatch.setattr(bundle, "MAX_ENTRIES", 5)
    z = _evil_zip(tmp_path / "many.zip", {f"f{i}": b"x" for i in range(6)})
    with pytest.raises(BundleError, match="more than the limit of 5"):
        open_bundle(z)
    monkeypatch.setattr(bundle, "MAX_TOTAL_BYTES", 1000)
    z = _evil_zip(tmp_path / "big.zip", {"manifest.json": b"{}", "big": b"0" * 5000})
    with pytest.raises(BundleError, match="uncompressed"):
        open_bundle(z)
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(BundleError, match="not a readable zip"):
        open_bundle(junk)


def test_scorecard_is_self_contained_and_plain(bundle_dir):
    card = (bundle_dir / "scorecard.html").read_text()
    low = card.lower()
    assert "<script" not in low and "src=" not in low and "href=" not in low
    assert "default-src 'none'" in card
    assert "scripted-model" in card and "Attribution rate" in card
    assert "3 of 3 actionable comments edited" in card
    assert "Edited" in card and "Run started" in card


def test_scorecard_says_na_reasons_and_verification(tmp_path):
    b = open_bundle(make_bundle(tmp_path, ClaimWithoutEditing()))
    card = b.scorecard_html
    assert "N/A" in card and "Not measurable" in card
    assert "did not converge" in card
    assert "VERIFICATION: MODEL CLAIMED ADDRESSED - ANCHORED TEXT UNCHANGED" in card
    assert "Untouched" in card and "Not changed" not in card


def test_scripted_bundle_says_so(tmp_path):
    b = open_bundle(make_bundle(tmp_path, scripted=True))
    assert b.scripted and "scripted" in b.manifest["scripted_note"].lower()
    assert "SCRIPTED DEMONSTRATION" in b.scorecard_html


def test_publish_scorecard_into_the_workspace(bundle_dir, tmp_path):
    with Workspace(tmp_path / "pub.db") as ws:
        doc = publish_scorecard(ws, bundle_dir)
        row = ws.document(doc)
        assert row.kind == "html" and row.title.startswith("Scorecard: Remote work policy")
        page = ws.head(doc).raw
        # This program's own rendering, with the checks' results, never the bundle's page.
        assert "re-derives exactly" in page and "Signature" in page
        assert "TAMPERED" not in row.title and "<script" not in page


def test_text_wrapper_keeps_text_content():
    for text in ["plain", "\nleading newline", "a < b & c > d", "emoji 😀 and\ttabs\n\n"]:
        assert Version.from_source(text_as_html(text)).text == text


@pytest.mark.parametrize(
    ("name", "data", "looks"),
    [
        ("report.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "looks like a PDF document"),
        ("shot.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "looks like a PNG image"),
        ("page.html", b"<!DOCTYPE html><html><body>x</body></html>", "looks like an HTML page"),
        ("notes.txt", "plain words, ünïcode".encode(), "looks like a text file"),
        ("blob.bin", b"\x00\x01\x02\x03" * 10, "looks like a binary file"),
        ("empty.zip", b"", "looks like an empty file"),
    ],
)
def test_a_file_that_is_not_a_bundle_says_what_it_looks_like(tmp_path, name, data, looks):
    """Not "not a readable zip file (File is not a zip file)": what the file looks like
    and what an evidence bundle is, in one line."""
    p = tmp_path / name
    p.write_bytes(data)
    with pytest.raises(BundleError) as err:
        open_bundle(p)
    msg = str(err.value)
    assert msg == (
        f"{p}: {looks}, not an evidence bundle "
        "(an evidence bundle is a folder with manifest.json, or a .zip of one)"
    )
    assert "File is not a zip file" not in msg


def test_a_zip_or_folder_without_manifest_and_a_manifest_itself(tmp_path):
    z = tmp_path / "letter.docx"  # a zip, but not a bundle
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("word/document.xml", "<w:document/>")
    with pytest.raises(BundleError, match=r"it has no manifest\.json \(an evidence bundle is a"):
        open_bundle(z)
    with pytest.raises(BundleError, match=r"it has no manifest\.json \(an evidence bundle is a"):
        open_bundle(tmp_path)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "manifest.json").write_text("{}")
    with pytest.raises(BundleError, match="give the folder that holds it"):
        open_bundle(tmp_path / "b" / "manifest.json")
