"""The GUI says what re-derivation and signatures found: forged figures, engine changes,
signed/unsigned/bad marks, the older bundle format."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from app.window import MainWindow
from engine.bundle import signing
from engine.bundle.bundle import trust_signer
from engine.bundle.read import open_bundle
from engine.bundle.write import content_of, write_bundle

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A bundle this engine writes now (tests/data/bundle-min may predate an engine
    change, which re-derivation rightly reports as such)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "make_fixture_bundle",
        Path(__file__).resolve().parents[2] / "tools" / "make_fixture_bundle.py",
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.build(tmp_path_factory.mktemp("fresh") / "bundle")


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("ARL_TRUSTED_KEYS", str(tmp_path / "trusted.json"))
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


def _open(qtbot, window, path):
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        assert window.open_bundle(path)
    qtbot.waitUntil(lambda: window.data.rederivation is not None, timeout=30000)


def forge(src: Path, dest: Path) -> Path:
    """A copy of ``src`` whose c2 verdict says edited, with the manifest re-hashed."""
    shutil.copytree(src, dest)
    v = json.loads((dest / "verdicts.json").read_text())
    for item in v["final"]:
        if item["comment_id"] == "c2":
            item["verdict"] = "edited"
    (dest / "verdicts.json").write_text(json.dumps(v))
    man = json.loads((dest / "manifest.json").read_text())
    man["files"]["verdicts.json"] = hashlib.sha256(
        (dest / "verdicts.json").read_bytes()
    ).hexdigest()
    (dest / "manifest.json").write_text(json.dumps(man))
    return dest


def test_forged_bundle_banner_names_the_comment(qtbot, window, tmp_path, fresh):
    path = forge(fresh, tmp_path / "forged")
    _open(qtbot, window, path)
    assert window.data.tampered == []  # the hashes alone are fooled
    banner = window.verdicts.banner.text()
    assert "TAMPERED" in banner
    # In words on screen; the exact line (field names, stored/recomputed) in the tooltip.
    assert (
        "final version, comment 2: the verdict: the bundle says edited, its documents "
        "show untouched" in banner
    )
    assert (
        "final: comment c2: verdict: stored 'edited', recomputed 'untouched'"
        in window.verdicts.banner.toolTip()
    )
    assert "border:2px solid" in window.verdicts.banner.styleSheet()
    # One headline and one list, first of all (not "failed" once per check).
    assert banner.count("TAMPERED") == 1 and banner.count("<ul>") == 1
    assert banner.index("TAMPERED: do not trust") < banner.index(", the run of ")


def test_intact_bundle_banner_has_no_alarm(qtbot, window, fresh):
    _open(qtbot, window, fresh)
    banner = window.verdicts.banner.text()
    assert "TAMPERED" not in banner and "Re-deriving" not in banner
    assert "unsigned" in banner


def test_signed_bundle_shows_its_fingerprint_and_trust(qtbot, window, tmp_path, fresh):
    key = signing.new_private_key()
    fp = signing.key_fingerprint(key)
    path = write_bundle(tmp_path / "signed", content_of(open_bundle(fresh), signing_key=key))
    _open(qtbot, window, path)
    # In words on screen; the fingerprint, and what it is, in the tooltip.
    banner = window.verdicts.banner.text()
    assert "signed by a key you have not chosen to trust" in banner and fp not in banner
    tip = window.verdicts.banner.toolTip()
    assert f"signed by {fp} (an unknown key: not trusted)" in tip
    assert "short form of the signing key" in tip
    signing.set_trusted(fp, "the review team's laptop")
    _open(qtbot, window, path)
    banner = window.verdicts.banner.text()
    assert "signed by the review team&#x27;s laptop, a signer you trust" in banner
    assert fp not in banner
    bad = tmp_path / "bad"
    shutil.copytree(path, bad)
    man = (bad / "manifest.json").read_text().replace("scripted-model", "gpt-9")
    (bad / "manifest.json").write_text(man)
    _open(qtbot, window, bad)
    assert "BAD SIGNATURE" in window.verdicts.banner.text()


def test_older_format_opens_and_says_so(qtbot, window):
    _open(qtbot, window, DATA / "bundle-v1-demo")
    banner = window.verdicts.banner.text()
    # Unsigned, "older format" is the bundle's own word: its differences read TAMPERED
    # (the engine's verdict, engine.bundle.judge_bundle), beside the older-format note.
    assert "Older bundle format" in banner and "TAMPERED" in banner
    assert window.verdicts.table.rowCount() >= 4


def test_forged_bundle_scorecard_tab_and_exports_say_tampered(qtbot, window, tmp_path, fresh):
    path = forge(fresh, tmp_path / "forged")
    # The bundle's own page is never exported: a script in it must not come out.
    card = path / "scorecard.html"
    card.write_text(card.read_text().replace("</body>", "<script>alert(1)</script></body>"))
    man = json.loads((path / "manifest.json").read_text())
    man["files"]["scorecard.html"] = hashlib.sha256(card.read_bytes()).hexdigest()
    (path / "manifest.json").write_text(json.dumps(man))
    _open(qtbot, window, path)
    i = window.tabs.indexOf(window.scorecard)
    assert "TAMPERED" in window.tabs.tabText(i)
    assert window.scorecard.info.text().startswith("TAMPERED")
    out = tmp_path / "card.html"
    window.scorecard.export_html(str(out))
    html = out.read_text(encoding="utf-8")
    assert "TAMPERED" in html and "comment c2: verdict: stored" in html
    assert "<script" not in html and "Content-Security-Policy" in html
    assert "default-src 'none'" in html


def test_intact_bundle_scorecard_is_the_programs_own(qtbot, window, tmp_path, fresh):
    _open(qtbot, window, fresh)
    i = window.tabs.indexOf(window.scorecard)
    assert "TAMPERED" not in window.tabs.tabText(i)
    out = tmp_path / "card.html"
    window.scorecard.export_html(str(out))
    html = out.read_text(encoding="utf-8")
    assert "TAMPERED" not in html and "re-derives exactly" in html
    assert "Signature" in html and "unsigned" in html


def test_one_click_publish_and_the_published_view(qtbot, window, tmp_path, fresh, monkeypatch):
    from engine.publish import published

    monkeypatch.setenv("ARL_PUBLISHED_FOLDER", str(tmp_path / "shared"))
    (tmp_path / "shared").mkdir()
    _open(qtbot, window, fresh)
    with qtbot.waitSignal(window.scorecard.publishedToFolder, timeout=30000) as blocker:
        window.scorecard.publish_btn.click()
    page = Path(blocker.args[0])
    assert page.is_file() and (tmp_path / "shared" / "index.html").is_file()
    said = window.statusBar().currentMessage()  # the run in words, not its folder name
    assert said.startswith("Published \u201c") and ", the run of " in said
    assert Path(fresh).name not in said.split(" to ")[0]
    view = window.published
    qtbot.waitUntil(lambda: view.table.rowCount() == 1)  # checked off the UI thread
    assert view.table.item(0, 1).text() == "scripted-model"
    assert published.entries()[0].bundle == str(Path(fresh).resolve())
    view.table.selectRow(0)
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        view.open_btn.click()
    # Open bundle opens the checked copy in the published folder, not the original path
    opened = window.data.path
    assert opened.is_relative_to(tmp_path / "shared") and opened.name == "bundle.zip"
    assert window.data.manifest["run_id"] == open_bundle(fresh).manifest["run_id"]


NOTE = "the bundle says edited; recomputed from its documents: untouched"


def test_signed_bundle_edited_after_signing_shows_the_recomputed_verdict(
    qtbot, window, tmp_path, fresh
):
    """The newcomer's edit (c2 untouched -> edited in verdicts.json, manifest left alone):
    the table, the document marks, Metrics and the header show what the documents say,
    the row says what the bundle states, and the header never says signed."""
    key = signing.new_private_key()
    fp = signing.key_fingerprint(key)
    path = write_bundle(tmp_path / "signed", content_of(open_bundle(fresh), signing_key=key))
    v = json.loads((path / "verdicts.json").read_text())
    for item in v["final"]:
        if item["comment_id"] == "c2":
            item["verdict"] = "edited"
    (path / "verdicts.json").write_text(json.dumps(v))
    _open(qtbot, window, path)
    view = window.verdicts
    qtbot.waitUntil(lambda: view.table.item(1, 7).text() == NOTE, timeout=10000)
    r = view.table.ids.index("c2")
    assert view.table.item(r, 1).text() == "\u25cb untouched"
    assert view.table.item(r, 0).text().startswith("\u26a0")
    assert not view.table.isColumnHidden(7)
    spans = [s for s in view._spans()[1] if s["id"] == "c2"]
    assert spans and all(s["kind"] == "untouched" for s in spans)
    banner = view.banner.text()
    assert (
        "THE SIGNATURE DOES NOT COVER THESE FILES: verdicts.json does not match what was "
        "signed" in banner
    )
    assert fp not in banner and fp in view.banner.toolTip()
    assert "\u2714" not in banner and "signed by" not in banner
    assert "recomputed from its own documents" in banner
    assert "recomputed from its own documents" in window.metrics.intro.text()
    out = tmp_path / "card.html"
    window.scorecard.export_html(str(out))
    page = out.read_text(encoding="utf-8")
    assert "TAMPERED" in page and NOTE in page
    assert "stamped TAMPERED" in window.statusBar().currentMessage()


def test_a_forged_claim_is_said_in_words_the_exact_terms_in_the_tooltip(
    qtbot, window, tmp_path, fresh
):
    """claim_agrees edited to true on c2 (its claim disagrees with the text): the row reads
    "the agent's claim agreed with the text; recomputed …, it does not", never
    "claim_agrees True"; the field's exact name and values are in the tooltip."""
    path = write_bundle(tmp_path / "forged", content_of(open_bundle(fresh)))
    v = json.loads((path / "verdicts.json").read_text())
    for item in v["final"]:
        if item["comment_id"] == "c2":
            assert item["claim_agrees"] is False
            item["claim_agrees"] = True
    (path / "verdicts.json").write_text(json.dumps(v))
    _open(qtbot, window, path)
    view = window.verdicts
    r = view.table.ids.index("c2")
    want = (
        "the bundle says the agent's claim agreed with the text; recomputed from its "
        "documents, it does not"
    )
    qtbot.waitUntil(lambda: view.table.item(r, 7).text() == want, timeout=10000)
    from PySide6.QtCore import Qt

    tip = view.table.model_.data(view.table.model_.index(r, 7), Qt.ItemDataRole.ToolTipRole)
    assert "Exactly: final: comment c2: claim_agrees: stored True, recomputed False" in tip


def test_intact_bundle_has_no_check_column(qtbot, window, fresh):
    _open(qtbot, window, fresh)
    assert window.verdicts.table.isColumnHidden(7)
    assert all(not window.verdicts.table.item(r, 0).text().startswith("\u26a0") for r in range(3))


def test_the_check_mark_is_for_a_trusted_signer_only(qtbot, window, tmp_path, fresh):
    """A valid signature by a key the user never trusted reads with a neutral mark; the
    check mark appears once the key is trusted."""
    key = signing.new_private_key()
    fp = signing.key_fingerprint(key)
    path = write_bundle(tmp_path / "signed", content_of(open_bundle(fresh), signing_key=key))
    _open(qtbot, window, path)
    banner = window.verdicts.banner.text()
    assert "\u2022 signed by a key you have not chosen to trust" in banner and fp not in banner
    assert "\u2714" not in banner
    trust_signer(open_bundle(path), "Reviewers")  # as "Trust this signer" does
    _open(qtbot, window, path)
    assert "\u2714 signed by Reviewers, a signer you trust" in window.verdicts.banner.text()


def test_a_bundle_that_cannot_be_checked_reads_tampered(qtbot, window, tmp_path, fresh):
    """A trace.json whose usage does not fit its shape: nothing "differs", but the token
    figures cannot be re-derived, so the engine's verdict (and the banner) is TAMPERED."""
    dest = tmp_path / "schema"
    shutil.copytree(fresh, dest)
    trace = json.loads((dest / "trace.json").read_text())
    trace["usage"] = "lots"
    (dest / "trace.json").write_text(json.dumps(trace))
    man = json.loads((dest / "manifest.json").read_text())
    man["files"]["trace.json"] = hashlib.sha256((dest / "trace.json").read_bytes()).hexdigest()
    (dest / "manifest.json").write_text(json.dumps(man))
    (dest / "signature.json").unlink(missing_ok=True)
    _open(qtbot, window, dest)
    banner = window.verdicts.banner.text()
    assert "TAMPERED" in banner and "trace.json" in banner
    assert "re-derives exactly" not in banner


def test_trust_this_signer_records_the_whole_key(qtbot, window, tmp_path, fresh):
    key = signing.new_private_key()
    path = write_bundle(tmp_path / "signed", content_of(open_bundle(fresh), signing_key=key))
    _open(qtbot, window, path)
    window.scorecard.trust("Reviewers")
    stored = json.loads((tmp_path / "trusted.json").read_text())
    assert stored == {signing.key_id(signing.public_key(key)): "Reviewers"}
    assert window.data.signature.trusted and not window.data.signature.trusted_by_fingerprint
