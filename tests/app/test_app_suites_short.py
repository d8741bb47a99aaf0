"""The Suites tab on a short screen (1366 x 768 at 1.5x: 910 x 466 for the tab): the runs
table showed one or two rows of 30 px beside a drill-down of three; the drill-down's run
labels ran past the table's edge, cut mid-word ("smollm2-135m no-to")."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("PySide6.QtCharts")

from app.headers import ElidingHeader, rows_height


@pytest.fixture
def example(qtbot):
    from app.suites import SuitesView, example_suite_path

    v = SuitesView()
    qtbot.addWidget(v)
    v.resize(910, 466)
    v.show()
    assert v.open_results(example_suite_path())
    table = v.document_view.table
    qtbot.waitUntil(lambda: table.rowCount() > 0, timeout=30000)
    qtbot.wait(50)
    return v


def whole_rows(table) -> int:
    """How many rows the table's viewport shows whole from its top."""
    room, n = table.viewport().height(), 0
    for r in range(table.rowCount()):
        if table.rowViewportPosition(r) + table.rowHeight(r) > room:
            break
        n += 1
    return n


def test_the_runs_table_shows_its_least_rows_and_takes_the_room_left(example):
    from app.suites.view import RUN_ROWS_LEAST

    runs = example.runs
    assert runs.rowCount() >= 12
    assert whole_rows(runs) >= RUN_ROWS_LEAST
    # The drill-down takes no more height than its rows need: the rest went to the runs.
    drill = example.document_view.table
    assert drill.height() <= rows_height(drill, drill.rowCount()) + 2
    # A row is one line of text, not a style's 30 px default.
    assert runs.rowHeight(0) <= runs.fontMetrics().height() + 10


def test_the_drill_downs_run_labels_are_whole_on_up_to_three_lines(example, qtbot):
    drill = example.document_view.table
    header = drill.horizontalHeader()
    assert isinstance(header, ElidingHeader) and header.lines == 3
    for c in range(1, drill.columnCount()):
        label, shown = header.label(c), header.shown_label(c)
        assert "repeat" in label
        assert "\u2026" not in shown and shown.replace("\n", " ") == label, (label, shown)
        assert 1 <= shown.count("\n") + 1 <= 3
    # The header is as tall as its labels' lines.
    lines = max(header.shown_label(c).count("\n") + 1 for c in range(drill.columnCount()))
    assert header.height() >= lines * header.fontMetrics().lineSpacing()
    # A column the reader narrows ends its label in "…", whole in the tooltip.
    drill.setColumnWidth(1, 40)
    assert header.shown_label(1).endswith("\u2026")


def test_the_model_and_variant_column_fits_and_names_each_run(example, qtbot):
    """At 1366 x 768 and 1.5x the model / variant column was left 26 px ("…"): it keeps
    at least its header's width and takes the room the others leave; each cell starts with
    its combination's letter, as on the charts, so two cut names still differ, and the
    whole name is in its tooltip and in the key beside the charts."""
    from app.suites.charts import combo_letter

    runs = example.runs
    header = runs.horizontalHeader()
    assert header.model().headerData(1, Qt.Orientation.Horizontal) == "model / variant"
    assert runs.columnWidth(1) >= header.sectionSizeFromContents(1).width()
    assert "\u2026" not in header.shown_label(1)  # the header itself whole
    combos = example.report["combinations"]
    letters = {(c["model"], c["variant"]): combo_letter(k) for k, c in enumerate(combos)}
    seen = set()
    for r, it in enumerate(example.items):
        cell = runs.item(r, 1)
        name = f"{it.model} / {it.variant}"
        assert cell.text() == f"{letters[(it.model, it.variant)]}: {name}"
        assert name in cell.toolTip()
        assert f"{letters[(it.model, it.variant)]} = {name}" in example.combo_key.text()
        # what the cell shows, cut to its width, keeps the letter
        shown = runs.fontMetrics().elidedText(
            cell.text(), Qt.TextElideMode.ElideRight, runs.columnWidth(1) - 8
        )
        assert shown.startswith(letters[(it.model, it.variant)] + ": smoll")
        seen.add(shown[:2])
    assert len(seen) == len(combos) >= 2  # the cut cells of two combinations differ
    # a wider tab gives the column its whole text
    example.resize(2400, 900)
    qtbot.waitUntil(lambda: runs.columnWidth(1) >= runs.sizeHintForColumn(1), timeout=5000)
