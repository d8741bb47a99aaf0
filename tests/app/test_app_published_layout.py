"""The Published tab gives the document its room: at 1366 x 768 the title column keeps a
readable width and wraps, the other columns elide with the whole text as a tooltip."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

DATA = Path(__file__).resolve().parents[1] / "data"
LONG = (
    "Case Report: Concurrent primary CNS lymphoma and meningothelial meningioma - "
    "nuances of diagnosis and management"
)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    from engine.publish import published

    shared = tmp_path / "shared"
    shared.mkdir()
    monkeypatch.setenv("ARL_PUBLISHED_FOLDER", str(shared))
    published.publish(DATA / "bundle-min", shared)
    return shared


@pytest.mark.parametrize("width", [1366, 1900])
def test_the_document_column_reads_at_small_and_large_sizes(qtbot, folder, width):
    from app.published import DOCUMENT, MIN_DOCUMENT_WIDTH, PublishedView

    view = PublishedView()
    qtbot.addWidget(view)
    view.resize(width, 700)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: view.table.rowCount() == 1)  # checked off the UI thread
    item = view.table.item(0, DOCUMENT)
    qtbot.waitUntil(lambda: view.table.columnWidth(DOCUMENT) >= MIN_DOCUMENT_WIDTH)
    # the document takes what the other columns leave
    total = sum(view.table.columnWidth(c) for c in range(view.table.columnCount()))
    assert total <= view.table.viewport().width() + 1
    assert item.toolTip() == item.text()
    stamp = view.entries[0].finished_at
    from engine.vocabulary import when_words

    # one time format: the cell reads as every other view does ("2 Dec 2026, 04:49 UTC")
    assert view.table.item(0, 0).text() == when_words(stamp) and stamp[:10] not in when_words(stamp)

    # the tooltip reads the time in words ("30 Nov 2026, 22:00 UTC"), never the ISO stamp
    assert view.table.item(0, 0).toolTip() == when_words(stamp) and stamp[:11] not in when_words(
        stamp
    )


def test_a_long_title_wraps_instead_of_vanishing(qtbot, folder):
    from app.published import DOCUMENT, PublishedView

    view = PublishedView()
    qtbot.addWidget(view)
    view.resize(1366, 700)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: view.table.rowCount() == 1)
    view.table.item(0, DOCUMENT).setText(LONG)
    view._fit_document()
    one_line = view.table.fontMetrics().lineSpacing()
    assert view.table.rowHeight(0) >= 2 * one_line  # wrapped onto more lines
    assert view.table.wordWrap()


def test_the_tab_shows_what_the_bundle_copies_say_not_index_json(qtbot, tmp_path, monkeypatch):
    """An index.json edited to call a run signed by a trusted key, and a missing bundle
    copy: the tab shows the copy's own (unsigned) signature with no check mark, and NOT
    CHECKED for the missing one; a trusted signer alone gets the check mark."""
    import json

    from app.published import SIGNATURE, PublishedView, signature_text
    from engine.bundle import signing
    from engine.bundle.read import open_bundle
    from engine.bundle.write import content_of, write_bundle
    from engine.publish import published

    monkeypatch.setenv("ARL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ARL_TRUSTED_KEYS", str(tmp_path / "trusted.json"))
    shared = tmp_path / "shared"
    monkeypatch.setenv("ARL_PUBLISHED_FOLDER", str(shared))
    key = signing.new_private_key()
    base = open_bundle(DATA / "bundle-min")
    signed = write_bundle(tmp_path / "signed", content_of(base, run_id="run-s", signing_key=key))
    published.publish(DATA / "bundle-min", shared)
    published.publish(signed, shared)
    obj = json.loads((shared / "index.json").read_text())
    for run in obj["runs"]:
        run["signature"] = {"state": "signed", "fingerprint": "45ad", "trusted_as": "Legal team"}
    (shared / "index.json").write_text(json.dumps(obj))
    view = PublishedView()
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: view.table.rowCount() == 2)
    texts = [view.table.item(r, SIGNATURE).text() for r in range(2)]
    assert "unsigned" in texts and not any("Legal team" in t or "\u2714" in t for t in texts)
    assert any(t.startswith("\u2022 ") and "not chosen to trust" in t for t in texts)
    # the fingerprint only in the tooltip, with what it is
    fp = signing.key_fingerprint(key)
    assert not any(fp in t for t in texts)
    tips = [view.table.item(r, SIGNATURE).toolTip() for r in range(2)]
    assert any(fp in t and "short form of the signing key" in t for t in tips)
    signing.set_trusted(signing.key_fingerprint(key), "Reviewers")
    missing = next(e for e in view.entries if e.run_id != "run-s")
    (shared / missing.bundle_copy).unlink()
    with qtbot.waitSignal(view.listed, timeout=10000):
        view.refresh()
    by_id = {e.run_id: e for e in view.entries}
    assert signature_text(by_id["run-s"]) == "\u2714 signed by Reviewers, a signer you trust"
    rows = [view.table.item(r, SIGNATURE + 1).text() for r in range(2)]
    assert any(t.startswith("\u26a0 NOT CHECKED") and "missing" in t for t in rows)
    assert "NOT CHECKED" in view.where.text()


def test_open_bundle_opens_the_checked_copy_not_the_path_index_json_names(qtbot, folder, tmp_path):
    """The row's figures were checked from the bundle copy in the folder; index.json's
    original path can be edited to point at another bundle, so Open takes the copy."""
    import json

    from app.published import PublishedView
    from engine.publish import published

    decoy = tmp_path / "decoy"
    decoy.mkdir()
    index = folder / published.INDEX_JSON
    data = json.loads(index.read_text(encoding="utf-8"))
    entries = data["runs"]
    entries[0]["bundle"] = str(decoy)
    index.write_text(json.dumps(data), encoding="utf-8")
    view = PublishedView()
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.table.rowCount() == 1)
    view.table.selectRow(0)
    with qtbot.waitSignal(view.openBundle, timeout=2000) as sig:
        view.open_selected_bundle()
    (opened,) = sig.args
    assert opened == str(folder / view.entries[0].bundle_copy) and opened != str(decoy)
    assert Path(opened).is_file()
