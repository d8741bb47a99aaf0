"""The Suites tab: opening suite results (the shipped example and others), the report and
its charts, exporting a chart, opening a run's bundle, starting a suite against the
scripted server, and bad input said plainly."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtCharts")

from PySide6.QtCharts import QCategoryAxis
from PySide6.QtCore import Qt

from engine.suite.store import SuiteStore, read_results
from engine.suite.suite import load_suite
from tests.helpers.scripted_server import (
    ClaimWithoutEditing,
    FixEverything,
    ScriptedServer,
)


@pytest.fixture
def view(qtbot):
    from app.suites import SuitesView

    v = SuitesView()
    qtbot.addWidget(v)
    v.resize(1300, 800)
    return v


def _suite_file(folder: Path, urls: dict[str, str], repeats: int = 2) -> Path:
    lines = ['name = "ui"', "rounds = 1", f"repeats = {repeats}", 'documents = ["briefs"]']
    for name, url in urls.items():
        lines += [
            "[[models]]",
            f'name = "{name}"',
            f'base_url = "{url}"',
            'model = "scripted-model"',
        ]
    p = folder / "suite.toml"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


@pytest.fixture
def results(tmp_path):
    """A real suite run (two scripted models, two repeats) written as suite-results.json."""
    with ScriptedServer(FixEverything()) as a, ScriptedServer(ClaimWithoutEditing()) as b:
        from app.suites import SuitesView  # noqa: F401  (Qt Charts present)
        from engine.suite.runner import SuiteLimits, execute_suite, new_suite_run
        from engine.suite.store import write_results
        from engine.suite.suite import expand_items

        suite = load_suite(_suite_file(tmp_path, {"fixer": a.base_url, "claimer": b.base_url}))
        items = expand_items(suite)
        with SuiteStore() as store:
            sid = new_suite_run(store, suite, items, tmp_path / "out", None, {})
            asyncio.run(
                execute_suite(
                    store, suite, sid, items, SuiteLimits(concurrency=4), key_for=lambda m: None
                )
            )
            write_results(store, sid)
            return Path(store.run_row(sid).out_dir)


def test_report_table_and_charts_follow_the_engine_report(view, results, tmp_path):
    said: list[str] = []
    view.message.connect(said.append)
    assert view.open_results(results)
    # the status line names the suite and when it ran, never its folder or id
    assert said and said[-1].startswith(
        "Opened the results of the suite \u201cui\u201d, the run started "
    )
    assert results.name not in said[-1] and str(results) not in said[-1]
    headers = [
        view.report_table.horizontalHeaderItem(c).text()
        for c in range(view.report_table.columnCount())
    ]
    assert headers == ["metric", "claimer / default", "fixer / default"]
    cells = {
        view.report_table.item(r, 0).text(): [view.report_table.item(r, c).text() for c in (1, 2)]
        for r in range(view.report_table.rowCount())
    }
    assert cells["attribution"] == [
        "0% [0% to 0%] over 4 documents x 2 repeats",
        "100% [100% to 100%] over 4 documents x 2 repeats",
    ]
    assert cells["collateral churn"][0].startswith("N/A — ")  # never a zero for "unmeasured"
    # the chart: one legend entry per combination, points for every finished run
    names = {s.name() for s in view.spread_chart.chart.series()}
    assert {"fixer / default", "claimer / default"} <= names
    runs = [s for s in view.spread_chart.chart.series() if s.name() == "fixer / default: runs"]
    # a name never cut off on the axis: letters there, the full names in the key and legend
    axis = next(a for a in view.spread_chart.chart.axes() if isinstance(a, QCategoryAxis))
    assert axis.categoriesLabels() == ["A", "B"]
    assert view.combo_key.text() == (
        "A = claimer / default: 0% [0% to 0%] over 4 documents x 2 repeats\n"
        "B = fixer / default: 100% [100% to 100%] over 4 documents x 2 repeats"
    )
    markers = view.spread_chart.chart.legend().markers()
    legend = {m.label() for m in markers if m.series().name().endswith("/ default")}
    assert legend == {"A", "B"}  # a letter always fits; the names and figures are in the key
    # the bar is the engine's 95% interval, not the min-max of the repeats
    bars = {s.name(): s for s in view.spread_chart.chart.series()}
    bar = bars["fixer / default: 95% interval"]
    iv = view.report["combinations"][1]["metrics"]["attribution_rate"]["interval"]
    assert [p.y() for p in bar.points()] == [iv["low"] * 100, iv["high"] * 100]
    assert view.spread_chart.chart.title() == (
        "attribution (%)<br>runs and 95% intervals<br>over 4 documents x 2 repeats"
    )
    assert not any("spread" in n or "repeat means" in n for n in bars)
    assert view.spread_chart.chart.legend().showToolTips()
    assert runs and runs[0].count() == 8
    view.chart_metric.setCurrentIndex(view.chart_metric.findData("claim_accuracy"))
    assert "claim accuracy" in view.spread_chart.chart.title()
    png = view.spread_chart.export(tmp_path / "c.png")
    svg = view.trend_chart.export(tmp_path / "t.svg")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in svg.read_bytes()[:400]


def test_double_clicking_a_run_opens_its_bundle(view, results, qtbot):
    view.open_results(results)
    with qtbot.waitSignal(view.openBundle, timeout=2000) as sig:
        view._open_run(0, 0)
    assert (Path(sig.args[0]) / "manifest.json").is_file()


def test_unreadable_results_are_said_plainly(view, tmp_path, monkeypatch):
    shown = {}
    monkeypatch.setattr(view, "_error", lambda title, text: shown.update(title=title, text=text))
    assert not view.open_results(tmp_path)
    assert "suite-results.json" in shown["text"]
    bad = tmp_path / "suite-results.json"
    bad.write_text(
        json.dumps(
            {
                "format": "arl-suite-results/1",
                "suite": "x",
                "fingerprint": "f",
                "items": [{"key": 5}],
            }
        ),
        encoding="utf-8",
    )
    assert not view.open_results(tmp_path)
    assert "item 1" in shown["text"]


def test_starting_a_suite_from_the_view_runs_it_and_reports(view, tmp_path):
    with ScriptedServer(FixEverything()) as srv:
        view.suite = load_suite(_suite_file(tmp_path, {"fixer": srv.base_url}, repeats=1))
        view.concurrency.setValue(2)
        asyncio.run(view._run_suite())
    assert view.runs.rowCount() == 4
    assert {view.runs.item(r, 3).text() for r in range(4)} == {"finished"}
    assert "finished" in view.heading.text()
    with SuiteStore() as store:
        assert [r.status for r in store.runs()] == ["finished"]
    assert view.report is not None and view.report["combinations"][0]["finished"] == 4


def test_new_suite_writes_a_template_and_shows_its_estimate(view, tmp_path, qtbot):
    assert view.new_suite(tmp_path / "fresh")
    assert (tmp_path / "fresh.toml").is_file()
    qtbot.waitUntil(lambda: " run" in view.estimate.toPlainText(), timeout=20000)
    assert view.start_btn.isEnabled() and view.edit_btn.isEnabled()
    assert "fresh" in view.heading.text()


def test_the_example_suite_opens_with_no_key_and_shows_real_runs(view):
    from app.suites import example_suite_path

    folder = example_suite_path()
    data = read_results(folder)
    assert view.open_results(folder)
    assert view.runs.rowCount() == len(data["items"]) >= 6
    assert "smollm2" in view.report_table.horizontalHeaderItem(1).text()
    assert view.spread_chart.chart.series() and view.trend_chart.chart.series()
    for it in view.items:  # every run of the example keeps its evidence bundle
        assert it.bundle and (Path(it.bundle) / "manifest.json").is_file()


def test_names_from_a_suite_never_render_as_markup_in_the_charts(view, results, tmp_path):
    from engine.suite.store import read_results

    data = read_results(results)
    for it in data["items"]:
        it["model"] = "<h1 style=color:red>X</h1><img src=file:///etc/hosts>"
    (results / "suite-results.json").write_text(json.dumps(data), encoding="utf-8")
    assert view.open_results(results)
    from PySide6.QtCharts import QCategoryAxis

    axis = next(a for a in view.spread_chart.chart.axes() if isinstance(a, QCategoryAxis))
    assert axis.categoriesLabels() == ["A"]  # letters on the axis; names in the key
    markers = view.spread_chart.chart.legend().markers()
    labels = [m.label() for m in markers if m.series().name().endswith("/ default")]
    assert labels == ["A"]  # the legend names by letter: no name in it to render
    assert view.combo_key.textFormat() == Qt.TextFormat.PlainText
    assert "A = <h1 style=color:red>X</h1>" in view.combo_key.text()
    names = [s.name() for s in view.spread_chart.chart.series()]
    assert all("<img" not in n for n in names)
    header = view.report_table.horizontalHeaderItem(1).text()  # a table item is plain text
    assert header.startswith("<h1 style=color:red>X</h1>")


def test_the_estimate_table_keeps_its_columns(view):
    from PySide6.QtWidgets import QPlainTextEdit

    # a fixed-width table: wrapped lines broke its columns apart at 1366 x 768
    assert view.estimate.lineWrapMode() == QPlainTextEdit.LineWrapMode.NoWrap


def test_opening_a_suite_shows_its_last_run_from_the_command_line(view, results, tmp_path, qtbot):
    # ``results`` ran the suite "ui" as `arl suite run` does (the results store, no view).
    data = read_results(results)
    view.open_suite(tmp_path / "suite.toml")
    qtbot.waitUntil(lambda: view.runs.rowCount() == len(data["items"]) > 0, timeout=20000)
    assert view.report is not None and len(view.report["combinations"]) == 2
    assert "Below: its last run" in view.subheading.text()
    assert view.start_btn.isEnabled()  # the estimate and Start are still there


def test_one_document_shows_every_combination_side_by_side(view, results, qtbot):
    assert view.open_results(results)
    dv = view.document_view
    assert dv.picker.count() == 4  # the four brief documents
    qtbot.waitUntil(lambda: dv.table_data is not None, timeout=20000)
    headers = [dv.table.horizontalHeaderItem(c).text() for c in range(dv.table.columnCount())]
    assert headers == [
        "comment",
        "claimer / default, repeat 1",
        "claimer / default, repeat 2",
        "fixer / default, repeat 1",
        "fixer / default, repeat 2",
    ]
    assert dv.table.rowCount() == len(dv.table_data["rows"]) > 0
    row = [dv.table.item(0, c).text() for c in range(1, 5)]
    assert row[2] == row[3] == "\u270e edited"
    assert row[0].startswith("\u25cb untouched (the agent claimed: addressed")
    assert dv.table.item(0, 0).text().startswith("Comment 1: ")
    before = dv.table_data
    dv.picker.setCurrentIndex(1)
    qtbot.waitUntil(lambda: dv.table_data is not before, timeout=20000)
    assert dv.table_data["document"] == dv.picker.itemText(1)


def test_publish_writes_the_report_page_and_offers_open(
    view, results, qtbot, tmp_path, monkeypatch
):
    monkeypatch.setenv("ARL_PUBLISHED_FOLDER", str(tmp_path / "shared"))
    assert view.open_results(results)
    assert view.publish_btn.isEnabled()
    messages: list[str] = []
    view.message.connect(messages.append)
    view.publish()
    qtbot.waitUntil(lambda: view.published_page is not None, timeout=30000)
    sid = read_results(results)["suite_id"]
    page = tmp_path / "shared" / "suites" / sid / "index.html"
    assert view.published_page == page and page.is_file()
    text = page.read_text(encoding="utf-8")
    assert "over 4 documents x 2 repeats" in text and "<script" not in text
    # the same page the command line writes
    from engine.suite.html_report import write_suite_page
    from engine.suite.store import results_items

    data = read_results(results)
    same = write_suite_page(
        results_items(data, results),
        tmp_path / "cli",
        name=data["suite"],
        fingerprint=data["fingerprint"],
        seed=int(data.get("seed") or 0),
    )
    assert same.read_bytes() == page.read_bytes()
    box = view.publish_box
    assert box.informativeText() == str(page)
    assert [b.text() for b in box.buttons() if b.text() == "Open"] == ["Open"]
    assert any(m == f"Published the suite report: {page}" for m in messages)


def test_a_tampered_run_is_left_out_of_the_tabs_statistics(view, results, qtbot):
    """As arl suite report: each bundle checked (off the UI thread), a forged figure makes
    its run a failure with its reason, left out of the statistics."""
    data = read_results(results)
    victim = next(i for i in data["items"] if i["model"] == "fixer")
    bundle = (
        results / victim["bundle"]
        if not Path(victim["bundle"]).is_absolute()
        else Path(victim["bundle"])
    )
    figures = bundle / "metrics.json"
    forged = json.loads(figures.read_text(encoding="utf-8"))
    forged["attribution_rate"] = {"value": 0.01, "numerator": 1, "denominator": 100}
    figures.write_text(json.dumps(forged), encoding="utf-8")
    assert view.open_results(results)

    def fixer():
        return next(c for c in view.report["combinations"] if c["model"] == "fixer")

    qtbot.waitUntil(lambda: fixer()["failed"] == 1, timeout=30000)
    assert fixer()["failures"][0]["reason"].startswith("TAMPERED: ")
    assert fixer()["metrics"]["attribution_rate"]["n"] == 7
    statuses = [view.runs.item(r, 3).text() for r in range(view.runs.rowCount())]
    assert sum(s.startswith("failed: TAMPERED") for s in statuses) == 1


def test_the_run_controls_keep_their_words_in_a_narrow_pane(qtbot):
    """1366 x 768 at 1.5x leaves the left pane about 480 px: every label, the permission
    box and Start / Cancel get at least the width their words need (no "Runs at or",
    "Let the", "art the sui")."""
    from PySide6.QtWidgets import QAbstractButton, QLabel

    from app.suites import SuitesView

    v = SuitesView()
    qtbot.addWidget(v)
    big = v.font()
    big.setPointSizeF(big.pointSizeF() * 1.5)  # the words as wide as at 1.5x
    v.setFont(big)
    v._show_planning(True)
    assert v.minimumSizeHint().width() <= 911 * 1.5  # the screen's width, 1366 px
    v.resize(1366, 720)
    v.show()
    qtbot.waitExposed(v)
    for w in v.planning.findChildren(QLabel) + v.planning.findChildren(QAbstractButton):
        if w.isVisible() and w.text():
            assert w.width() >= w.sizeHint().width(), w.text()


def _title_lines(chart) -> list[str]:
    import html
    import re

    return [html.unescape(re.sub("<[^>]+>", "", p)) for p in chart.title().split("<br>")]


@pytest.mark.parametrize("scale", [1.0, 1.5])
def test_nothing_on_the_charts_is_cut_at_1366_by_768(view, results, qtbot, scale):
    """Each title line, axis title and legend label fits the chart it is on, with the tab
    as large as a 1366 x 768 screen gives it (1.5x: fewer, larger pixels)."""
    from PySide6.QtGui import QFontMetrics

    view.resize(int(1366 / scale), int(700 / scale))
    view.show()
    assert view.open_results(results)
    qtbot.waitUntil(lambda: bool(view.history), timeout=30000)
    for metric in ("attribution_rate", "cost_per_attributed_fix", "rounds_to_converge"):
        view.chart_metric.setCurrentIndex(view.chart_metric.findData(metric))
        for panel in (view.spread_chart, view.trend_chart):
            chart = panel.chart
            room = panel.view.width() - 24  # the chart's own margins
            wide = QFontMetrics(chart.titleFont())
            for line in _title_lines(chart):
                assert wide.horizontalAdvance(line) <= room, (metric, line, room)
            for axis in chart.axes():
                if axis.orientation() == Qt.Orientation.Vertical:
                    assert axis.titleText() == ""  # the unit is in the title: nothing rotated
                else:
                    text = axis.titleText()
                    assert QFontMetrics(axis.titleFont()).horizontalAdvance(text) <= room, text
            labels = [
                m.label() for m in chart.legend().markers() if m.series().name().endswith("default")
            ]
            assert labels and all(len(label) <= 2 for label in labels), labels


def test_the_subheading_says_the_suite_run_in_words(view, results):
    import re

    data = read_results(results)
    assert view.open_results(results)
    text = view.subheading.text()
    assert data["suite_id"] not in text and not re.search(r"\d{4}-\d\d-\d\dT", text)
    assert text.startswith("The suite run started ") and " UTC " in text
    assert data["suite_id"] in view.subheading.toolTip()
    assert data["suite_id"] in view.heading.toolTip()


def test_a_tampered_run_is_hollow_in_the_trend_and_said(view, results, qtbot):
    """The trend is built from checked bundles (engine.suite.report.trend_points): a forged
    figure is left out of its point, which is hollow, and the caption says why."""
    data = read_results(results)
    victim = next(i for i in data["items"] if i["status"] == "finished")
    figures = results / victim["bundle"] / "metrics.json"
    forged = json.loads(figures.read_text(encoding="utf-8"))
    forged["attribution_rate"] = {"value": 0.01, "numerator": 1, "denominator": 100}
    figures.write_text(json.dumps(forged), encoding="utf-8")
    assert view.open_results(results)
    qtbot.waitUntil(lambda: bool(view.history), timeout=30000)
    assert list(view.history[-1]["tampered"]) == [victim["key"]]
    hollow = [
        s
        for s in view.trend_chart.chart.series()
        if s.name().endswith("(points, runs left out)") and s.count()
    ]
    name = f"{victim['model']} / {victim['variant']}"
    assert [s.name() for s in hollow] == [f"{name} (points, runs left out)"]
    assert "its bundle is TAMPERED" in view.trend_caption.text()
    assert "hollow points" in view.trend_caption.text()
    # the reason does not push attribution and tokens out of sight: elided, whole on hover
    view.show()
    qtbot.wait(50)
    row = next(r for r in range(view.runs.rowCount()) if "TAMPERED" in view.runs.item(r, 3).text())
    status = view.runs.item(row, 3)
    assert view.runs.columnWidth(3) < view.runs.fontMetrics().horizontalAdvance(status.text())
    assert status.text() in status.toolTip()
    tokens_end = view.runs.columnViewportPosition(5) + view.runs.columnWidth(5)
    widths = [view.runs.columnWidth(c) for c in range(6)]
    assert tokens_end <= view.runs.viewport().width(), (widths, view.runs.viewport().width())


def test_the_charts_follow_the_scheme_when_it_changes(view, results, qapp, monkeypatch):
    from PySide6.QtCharts import QChart

    from app import theme

    assert view.open_results(results)
    assert view.spread_chart.chart.backgroundBrush().color().name() == "#ffffff"
    monkeypatch.setenv("ARL_THEME", "dark")
    try:
        theme.apply(qapp)
        qapp.processEvents()
        for panel in (view.spread_chart, view.trend_chart):
            assert panel.chart.theme() == QChart.ChartTheme.ChartThemeDark
            assert panel.chart.backgroundBrush().color().name() == theme.DARK["base"]
    finally:
        monkeypatch.setenv("ARL_THEME", "light")
        theme.apply(qapp)
    qapp.processEvents()
    assert view.spread_chart.chart.backgroundBrush().color().name() == "#ffffff"
