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
    from engine import published

    shared = tmp_path / "shared"
    shared.mkdir()
    monkeypatch.setenv("ARL_PUBLISHED_FOLDER", str(shared))
    published.publish(DATA / "bundle-min", shared)
    return shared


@pytest.mark.parametrize("width", [1366, 1900])
def test_the_document_column_reads_at_small_and_large_sizes(qtbot, folder, width):
    from app.published import DOCUMENT, MIN_DOCUMENT_WIDTH, PublishedView, when_text

    view = PublishedView()
    qtbot.addWidget(view)
    view.resize(width, 700)
    view.show()
    qtbot.waitExposed(view)
    assert view.table.rowCount() == 1
    item = view.table.item(0, DOCUMENT)
    qtbot.waitUntil(lambda: view.table.columnWidth(DOCUMENT) >= MIN_DOCUMENT_WIDTH)
    # the document takes what the other columns leave
    total = sum(view.table.columnWidth(c) for c in range(view.table.columnCount()))
    assert total <= view.table.viewport().width() + 1
    assert item.toolTip() == item.text()
    stamp = view.entries[0].finished_at
    assert view.table.item(0, 0).text() == when_text(stamp) and "T" not in when_text(stamp)
    assert view.table.item(0, 0).toolTip() == stamp


def test_a_long_title_wraps_instead_of_vanishing(qtbot, folder):
    from app.published import DOCUMENT, PublishedView

    view = PublishedView()
    qtbot.addWidget(view)
    view.resize(1366, 700)
    view.show()
    qtbot.waitExposed(view)
    view.table.item(0, DOCUMENT).setText(LONG)
    view._fit_document()
    one_line = view.table.fontMetrics().lineSpacing()
    assert view.table.rowHeight(0) >= 2 * one_line  # wrapped onto more lines
    assert view.table.wordWrap()
