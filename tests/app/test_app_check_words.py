"""A revision made by an agent outside this program and checked here ("Check a revision",
``arl score --bundle``) is said as what happened: a check, no run of this program's. The
Metrics view has no "Whole run" column and no "Run completed" line, the Run tab no "Run
of the open bundle", the Published view no "Run finished", the Checks tab no "This run"."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.check_revision import check_files
from engine import vocabulary as vocab

EXAMPLE = Path(__file__).parents[2] / "resources" / "markdown"
DEMO = Path(__file__).parents[2] / "resources" / "demo" / "remote-work-policy-scripted"


@pytest.fixture
def checked(tmp_path) -> Path:
    return check_files(
        str(EXAMPLE / "review.md"),
        str(EXAMPLE / "comments.json"),
        str(EXAMPLE / "revised.md"),
        "1: three days now",
        tmp_path / "out",
    )


def present_row(name: str) -> int:
    """The Metrics table's row of ``name``."""
    return list(vocab.METRIC_NAMES).index(name)


def test_the_metrics_run_and_checks_tabs_say_a_check(qtbot, checked):
    from app.bundledata import load_bundle
    from app.checks_view import ChecksView
    from app.metrics_panel import CHECKED_COLUMN, MetricsPanel
    from app.runview import RunView

    data = load_bundle(checked)
    panel = MetricsPanel()
    qtbot.addWidget(panel)
    panel.show_bundle(data)
    headers = [panel.table.horizontalHeaderItem(c).text() for c in range(panel.table.columnCount())]
    # one column, the revision's: no "Whole run", no "After round 1" of a round never run
    assert headers == [CHECKED_COLUMN, "What it measures"]
    assert (("attribution_rate", CHECKED_COLUMN)) in panel.cells
    intro = panel.intro.text()
    assert vocab.EXTERNAL_STATUS_WORDS in intro and vocab.EXTERNAL_NO_RUN in intro
    assert "Run completed" not in intro and "whole run" not in panel.help.text()
    cost = panel.table.item(present_row("cost_per_attributed_fix"), 1)
    assert "whole run" not in cost.text() and "elsewhere" in cost.text()  # no run took place
    assert cost.toolTip() == cost.text() == vocab.CHECKED_COST_MEANING
    assert panel.table.item(present_row("cost_per_attributed_fix"), 0).toolTip() == cost.text()
    view = RunView(None)
    qtbot.addWidget(view)
    view.show_bundle(data)
    assert "Run of the open bundle" not in view.title.text()
    assert "no run took place in this program" in view.title.text()
    lines = [view.log.item(i).text() for i in range(view.log.count())]
    assert not any(line.startswith("Round ") for line in lines), lines
    assert lines[0].startswith("The revision checked: version revised")
    assert lines[-1].startswith("Final: checked here, no run")
    checks = ChecksView()
    qtbot.addWidget(checks)
    checks.show_bundle(data)
    assert checks.headline.text().startswith("No checks were declared for this revision.")


def test_a_run_keeps_its_run_words(qtbot):
    from app.bundledata import load_bundle
    from app.metrics_panel import MetricsPanel

    panel = MetricsPanel()
    qtbot.addWidget(panel)
    panel.show_bundle(load_bundle(DEMO))
    assert panel.table.horizontalHeaderItem(0).text() == "Whole run"
    last = panel.table.columnCount() - 1
    cost = panel.table.item(present_row("cost_per_attributed_fix"), last).text()
    assert cost.startswith("API usage tokens of the whole run")
    assert "Run completed" in panel.intro.text()


def test_the_published_view_says_checked_not_run_finished(checked, tmp_path):
    from dataclasses import replace

    from app.published import COLUMNS, row_cells
    from engine.publish import published

    published.set_published_folder(tmp_path / "pub")
    published.publish(checked)
    (entry,) = published.entries(tmp_path / "pub")
    assert "Run finished" not in COLUMNS and COLUMNS[0] == "Finished"
    cells, tips = row_cells(entry)
    assert cells[0].startswith("checked ") and vocab.EXTERNAL_NO_RUN in tips[0]
    assert tips[3] == f"{entry.outcome}; a revision made elsewhere, checked here"
    assert row_cells(replace(entry, outcome=""))[0][3] == "checked here (made elsewhere, no run)"
    run_cells, run_tips = row_cells(replace(entry, external=False))
    assert not run_cells[0].startswith("checked") and run_tips[0] == run_cells[0]


def test_the_banner_tooltip_names_a_check_id(qtbot, checked):
    from app.bundledata import load_bundle
    from app.verdicts import banner_tooltip

    data = load_bundle(checked)
    tip = banner_tooltip(data)
    assert "(check id check-" in tip and "run id" not in tip
