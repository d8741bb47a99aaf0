"""The Suites tab's charts (Qt Charts): each combination's runs, mean and 95% interval
over documents x repeats (the engine's bootstrap), and the trend over suite runs. They draw
what the engine's report says and compute nothing but positions. Okabe-Ito hues (as the
verdicts) and a marker shape per combination, so colour is never the only cue; values on
hover; PNG or SVG export.

Nothing on a chart is cut at 1366 x 768, 1x or 1.5x: the title is short lines (the metric
and its unit; what is drawn; what the intervals rest on) and there is no vertical axis
title (the unit is in the title); the axis and the legend show letters (A, B...) and
suite-run numbers (#1, #2...), and the full names and figures are in wrapped labels beside
the charts (``combo_key``, the trend's caption). In the dark scheme a chart has the dark
theme on the palette's base; every colour has 3:1 against the background in both
(``tests/app/test_theme_contrast.py``)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCharts import (
    QCategoryAxis,
    QChart,
    QChartView,
    QLineSeries,
    QScatterSeries,
    QValueAxis,
)
from PySide6.QtCore import QPointF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QCursor, QPainter, QPen
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QPushButton, QToolTip, QVBoxLayout, QWidget

from app import theme
from app.settings import Settings
from engine.vocabulary import when_words

# Okabe-Ito's blue, orange, bluish green, vermilion, reddish purple and yellow, each at a
# relative luminance between 0.14 and 0.30 (as the verdict marks, ``app.docview.STYLES``),
# and a grey for black: 3:1 against a white chart and against the dark base (WCAG 1.4.11).
PALETTE = ("#0084CE", "#A97500", "#009E73", "#D55E00", "#C15B94", "#8F8A00", "#7F7F7F")
SHAPES = (
    QScatterSeries.MarkerShape.MarkerShapeCircle,
    QScatterSeries.MarkerShape.MarkerShapeRectangle,
    QScatterSeries.MarkerShape.MarkerShapeTriangle,
    QScatterSeries.MarkerShape.MarkerShapeStar,
    QScatterSeries.MarkerShape.MarkerShapePentagon,
    QScatterSeries.MarkerShape.MarkerShapeRotatedRectangle,
)


class ChartPanel(QWidget):
    """One chart with PNG/SVG export. ``clear()`` gives it a fresh QChart."""

    message = Signal(str)

    def __init__(self, title: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.chart = QChart()
        self.view = QChartView(self.chart)
        self.view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.view.setMinimumSize(QSize(250, 280))  # two side by side at 1.5x; a 3-line title
        self._setup(title)
        self.export_btn = QPushButton("Export chart…")
        self.export_btn.clicked.connect(self.ask_export)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.view, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.export_btn)
        lay.addLayout(row)

    def _setup(self, title: str) -> None:
        if theme.is_dark():  # before any series: a theme recolours the series it finds
            self.chart.setTheme(QChart.ChartTheme.ChartThemeDark)
        self.chart.setBackgroundBrush(QColor(theme.chart_background()))
        self.chart.setTitle(title)
        self.chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        self.chart.setAnimationOptions(QChart.AnimationOption.NoAnimation)

    def clear(self) -> None:
        """A fresh chart (the view deletes the old one with its series and axes)."""
        title = self.chart.title()
        self.chart = QChart()
        self._setup(title)
        self.view.setChart(self.chart)

    def ask_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export chart",
            str(Settings().start_folder() / "chart.png"),
            "PNG image (*.png);;SVG (*.svg)",
        )
        if path:
            self.export(Path(path))

    def export(self, path: Path) -> Path:
        """Write the chart as SVG (a ``.svg`` path) or PNG (any other; ``.png`` added)."""
        if path.suffix.lower() == ".svg":
            from PySide6.QtSvg import QSvgGenerator

            gen = QSvgGenerator()
            gen.setFileName(str(path))
            gen.setSize(self.view.size())
            gen.setViewBox(self.view.rect())
            gen.setTitle(self.chart.title())
            painter = QPainter(gen)
            self.view.render(painter)
            painter.end()
        else:
            if path.suffix.lower() != ".png":
                path = path.with_suffix(".png")
            self.view.grab().save(str(path), "PNG")
        self.message.emit(f"Chart saved to {path}")
        return path


def _y_range(axis: QValueAxis, ratio: bool, values: list[float]) -> None:
    """0-100 with ticks every 25 for percentages (a little room so 0 and 100 show whole),
    else 0 to a tenth above the largest value."""
    if ratio:
        axis.setRange(-4.0, 104.0)
        axis.setTickType(QValueAxis.TickType.TicksDynamic)
        axis.setTickAnchor(0.0)
        axis.setTickInterval(25.0)
        axis.setLabelFormat("%d")
    else:
        axis.setRange(0.0, max([*values, 1.0]) * 1.1)
        axis.setLabelFormat("%.3g")


def _hover(series: QScatterSeries, texts: dict[tuple[float, float], str]) -> None:
    """Show the point's text (or its value) in a tooltip while the pointer is on it."""

    def on_hover(point: QPointF, state: bool) -> None:
        if not state:
            QToolTip.hideText()
            return
        key = (round(point.x(), 6), round(point.y(), 6))
        QToolTip.showText(QCursor.pos(), texts.get(key, f"{point.y():.3g}"))

    series.hovered.connect(on_hover)


def _key(x: float, y: float) -> tuple[float, float]:
    return round(x, 6), round(y, 6)


def _line(name: str, colour: QColor, width: int, dashed: bool = False) -> QLineSeries:
    s = QLineSeries()
    s.setName(name)
    pen = QPen(colour)
    pen.setWidth(width)
    if dashed:
        pen.setStyle(Qt.PenStyle.DashLine)
    s.setPen(pen)
    return s


def _attach(chart: QChart, axis_x: QCategoryAxis, axis_y: QValueAxis, legend: set[str]) -> None:
    """Add the axes, attach every series, and show only the named series in the legend."""
    chart.addAxis(axis_x, Qt.AlignmentFlag.AlignBottom)
    chart.addAxis(axis_y, Qt.AlignmentFlag.AlignLeft)
    for s in chart.series():
        s.attachAxis(axis_x)
        s.attachAxis(axis_y)
        if s.name() not in legend:
            for marker in chart.legend().markers(s):
                marker.setVisible(False)
    chart.legend().setVisible(True)


def combo_letter(k: int) -> str:
    """``A``..``Z``, then ``AA``, ``AB``...: the short name of the k-th combination on the
    charts' axis and legend (the full names are in ``combo_key``)."""
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        out = chr(65 + r) + out
    return out


def combo_key(combos: list[dict[str, Any]], said: dict[int, str] | None = None) -> str:
    """The letters, the full names and, from ``said`` (combination index -> words), each
    one's figures: one line per combination (plain text, for a wrapped label beside the
    charts, where nothing is cut)."""
    said = said or {}
    return "\n".join(
        f"{combo_letter(k)} = {c['model']} / {c['variant']}" + (f": {said[k]}" if k in said else "")
        for k, c in enumerate(combos)
    )


def _letter_legend(chart: QChart, combos: list[dict[str, Any]]) -> None:
    """Legend entries are the combination's letter (its marker's colour and shape beside
    it), which always fits; the full names and figures are in ``combo_key``."""
    letters = {_combo_name(c): combo_letter(k) for k, c in enumerate(combos)}
    legend = chart.legend()
    legend.setShowToolTips(True)
    for marker in legend.markers():
        letter = letters.get(marker.series().name())
        if letter is not None:
            marker.setLabel(letter)


def _combo_name(c: dict[str, Any]) -> str:
    """The combination's name as Qt Charts shows it: its axis labels and legend read rich
    text, so a name from a suite file or results file is escaped (never markup)."""
    return html.escape(f"{c['model']} / {c['variant']}")


def _axes() -> tuple[QCategoryAxis, QValueAxis]:
    """The axes; the vertical one has no title (the chart's title names the metric and its
    unit: a rotated title was cut to "attributio…" on a short chart)."""
    x = QCategoryAxis()
    x.setLabelsPosition(QCategoryAxis.AxisLabelsPosition.AxisLabelsPositionOnValue)
    return x, QValueAxis()


def _metric_title(label: str, ratio: bool) -> str:
    """The metric and its unit, escaped for the chart's rich-text title."""
    return html.escape(f"{label} (%)" if ratio else label)


def _spread_title(combos: list[dict[str, Any]], metric: str, label: str, ratio: bool) -> str:
    """The chart's title, with the documents x repeats the intervals rest on (rich text:
    the label is escaped)."""
    shapes = sorted(
        {
            (iv["documents"], iv["repeats"])
            for c in combos
            if (iv := c["metrics"][metric].get("interval")) and iv.get("method") == "bootstrap"
        }
    )
    over = (
        f"over {shapes[0][0]} documents x {shapes[0][1]} repeats"
        if len(shapes) == 1
        else "over documents x repeats (each in the key)"
    )
    return f"{_metric_title(label, ratio)}<br>runs and 95% intervals<br>{over}"


def _interval_bar(
    chart: QChart, k: int, name: str, colour: QColor, words: str, iv: dict[str, Any], scale: float
) -> str:
    """The k-th combination's 95% interval: a bar between two end marks in its shape, the
    interval's words on hover. Returns the words."""
    bar = _line(f"{name}: 95% interval", colour, 4)
    ends = QScatterSeries()
    ends.setName(f"{name}: interval ends")
    ends.setMarkerShape(SHAPES[k % len(SHAPES)])
    ends.setMarkerSize(12)
    ends.setColor(colour)
    ends.setBorderColor(colour)  # the dark chart theme's white border made it a ring
    texts: dict[tuple[float, float], str] = {}
    for v in (iv["low"], iv["high"]):
        bar.append(k + 0.18, v * scale)
        ends.append(k + 0.18, v * scale)
        texts[_key(k + 0.18, v * scale)] = html.escape(f"95% interval: {words}")
    chart.addSeries(bar)
    chart.addSeries(ends)
    _hover(ends, texts)
    return words


def draw_spread(
    chart: QChart,
    combos: list[dict[str, Any]],
    items: list[Any],
    metric: str,
    label: str,
    ratio: bool,
) -> dict[int, str]:
    """Per combination: every finished run (small dots), the mean (a thick line, the
    legend entry) and the 95% interval the engine's bootstrap gives over documents x
    repeats (a vertical bar between two end marks in the combination's shape), its figures
    and the documents x repeats it rests on on hover. Returns combination index -> the
    interval in words (for ``combo_key``)."""
    from engine.suite.report import interval_text

    scale, unit = (100.0, " %") if ratio else (1.0, "")
    chart.setTitle(_spread_title(combos, metric, label, ratio))
    axis_x, axis_y = _axes()
    ys: list[float] = []
    said: dict[int, str] = {}
    for k, combo in enumerate(combos):
        name = _combo_name(combo)
        colour = QColor(PALETTE[k % len(PALETTE)])
        b = combo["metrics"][metric]
        texts: dict[tuple[float, float], str] = {}
        runs = QScatterSeries()
        runs.setName(f"{name}: runs")
        runs.setMarkerSize(7)
        runs.setColor(colour.lighter(140))
        runs.setBorderColor(colour)  # the mark's 3:1 (its fill is lighter)
        for it in items:
            v = ((it.metrics or {}).get(metric) or {}).get("value")
            mine = (it.model, it.variant) == (combo["model"], combo["variant"])
            if mine and it.status == "finished" and isinstance(v, (int, float)):
                runs.append(float(k), v * scale)
                texts[_key(k, v * scale)] = html.escape(
                    f"{it.document} repeat {it.repeat}: {v * scale:.3g}{unit}"
                )
                ys.append(v * scale)
        chart.addSeries(runs)
        _hover(runs, texts)
        iv = b.get("interval")
        if iv is not None:
            said[k] = _interval_bar(chart, k, name, colour, interval_text(metric, iv), iv, scale)
            ys += [iv["low"] * scale, iv["high"] * scale]
        if b["mean"] is not None:
            mean_line = _line(name, colour, 3)
            mean_line.append(k - 0.25, b["mean"] * scale)
            mean_line.append(k + 0.35, b["mean"] * scale)
            chart.addSeries(mean_line)
        axis_x.append(combo_letter(k), float(k))  # a long name would be cut off here
    axis_x.setRange(-0.5, len(combos) - 0.5)
    axis_x.setTitleText("combination")  # the key is above the charts
    _y_range(axis_y, ratio, ys)
    _attach(chart, axis_x, axis_y, {_combo_name(c) for c in combos})
    _letter_legend(chart, combos)
    return said


def _tampered_in(c: dict[str, Any]) -> bool:
    """Whether the engine's report left a TAMPERED run of this combination out."""
    return any(str(f.get("reason", "")).startswith("TAMPERED") for f in c.get("failures") or [])


def _trend_dots(name: str, k: int, colour: QColor, hollow: bool) -> QScatterSeries:
    """A combination's trend points in its shape: filled, or hollow where a TAMPERED run
    was left out of the point's figures (said on hover and in the caption too)."""
    dots = QScatterSeries()
    dots.setName(f"{name} (points, runs left out)" if hollow else f"{name} (points)")
    dots.setMarkerShape(SHAPES[k % len(SHAPES)])
    dots.setMarkerSize(11)
    dots.setColor(colour)
    dots.setBorderColor(colour)
    if hollow:
        dots.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        dots.setPen(QPen(colour, 2))
    return dots


def draw_trend(
    chart: QChart,
    combos: list[dict[str, Any]],
    history: list[dict[str, Any]],
    metric: str,
    label: str,
    ratio: bool,
) -> str:
    """One point per suite run (oldest first) and combination, joined by a line; hover
    tells date, suite run, program version and the instructions by name
    (``engine.suite.report.instructions_names``). A point whose suite run had TAMPERED
    runs (``trend_points`` left them out of its figures) is hollow and says so. Returns
    the caption that lists each point's date, version, instructions and what was left
    out."""
    # the suite report (numpy, about 1 s) only when a trend is drawn, not when the tab is made
    from engine.suite.report import instructions_names, instructions_text, trend_note

    scale, unit = (100.0, " %") if ratio else (1.0, "")
    chart.setTitle(f"{_metric_title(label, ratio)}<br>trend over suite runs")
    axis_x, axis_y = _axes()
    ys: list[float] = []
    names = instructions_names([h["report"] for h in history])
    for k, combo in enumerate(combos):
        name = _combo_name(combo)
        colour = QColor(PALETTE[k % len(PALETTE)])
        line = _line(name, colour, 2)
        dots = {
            False: _trend_dots(name, k, colour, False),
            True: _trend_dots(name, k, colour, True),
        }
        texts: dict[tuple[float, float], str] = {}
        for x, h in enumerate(history):
            c = next((cc for cc in h["report"]["combinations"] if _combo_name(cc) == name), None)
            if c is None or c["metrics"][metric]["mean"] is None:
                continue
            y = c["metrics"][metric]["mean"] * scale
            line.append(float(x), y)
            dots[_tampered_in(c)].append(float(x), y)
            ys.append(y)
            note = trend_note(h) if _tampered_in(c) else ""
            texts[_key(x, y)] = html.escape(
                f"{when_words(h['date']) if h['date'] else 'date not recorded'} — "
                f"{h['suite_id']}\nprogram {h['version']}, "
                f"{instructions_text(c, names)}\nmean {y:.3g}{unit}" + (f"\n{note}" if note else "")
            )
        chart.addSeries(line)
        for series in dots.values():
            chart.addSeries(series)
            _hover(series, texts)
    caption = []
    for x, h in enumerate(history):
        axis_x.append(f"#{x + 1}", float(x))  # the date and version are in the caption
        said = list(dict.fromkeys(instructions_text(c, names) for c in h["report"]["combinations"]))
        when = when_words(h["date"]) if h["date"] else "date not recorded"
        note = trend_note(h)
        caption.append(
            f"#{x + 1} {when}, program {h['version']}, {'; '.join(said)}"
            + (f". {note} (hollow points)" if note else "")
        )
    axis_x.setRange(-0.5, max(0.5, len(history) - 0.5))
    axis_x.setTitleText("suite run (see below)")
    _y_range(axis_y, ratio, ys)
    _attach(chart, axis_x, axis_y, {_combo_name(c) for c in combos})
    _letter_legend(chart, combos)
    return "\n".join(caption[-6:])
