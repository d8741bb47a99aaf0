"""The Suites tab's charts (Qt Charts): each combination's runs, mean and 95% interval
over documents x repeats (the engine's bootstrap), and the trend over suite runs. They draw what the engine's report says and compute nothing
but positions. Okabe-Ito colours (as the verdicts) and a marker shape per combination, so
colour is never the only cue; values on hover; PNG or SVG export."""

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
from PySide6.QtGui import QColor, QCursor, QPainter, QPen
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QPushButton, QToolTip, QVBoxLayout, QWidget

from app.settings import Settings
from engine.vocabulary import when_words

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
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
        self.view.setMinimumSize(QSize(320, 240))
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


def combo_key(combos: list[dict[str, Any]]) -> str:
    """The letters and the full names (plain text, for a label beside the charts)."""
    return "   ".join(
        f"{combo_letter(k)} = {c['model']} / {c['variant']}" for k, c in enumerate(combos)
    )


def _letter_legend(chart: QChart, combos: list[dict[str, Any]]) -> None:
    """Legend entries read ``A: model / variant`` (the axis shows only the letter); a name
    the legend must shorten is whole in its tooltip."""
    letters = {_combo_name(c): combo_letter(k) for k, c in enumerate(combos)}
    legend = chart.legend()
    legend.setShowToolTips(True)
    for marker in legend.markers():
        letter = letters.get(marker.series().name())
        if letter is not None:
            marker.setLabel(f"{letter}: {marker.series().name()}")


def _combo_name(c: dict[str, Any]) -> str:
    """The combination's name as Qt Charts shows it: its axis labels and legend read rich
    text, so a name from a suite file or results file is escaped (never markup)."""
    return html.escape(f"{c['model']} / {c['variant']}")


def _axes(title: str) -> tuple[QCategoryAxis, QValueAxis]:
    x = QCategoryAxis()
    x.setLabelsPosition(QCategoryAxis.AxisLabelsPosition.AxisLabelsPositionOnValue)
    y = QValueAxis()
    y.setTitleText(title)
    return x, y


def _spread_title(combos: list[dict[str, Any]], metric: str, label: str) -> str:
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
        else "over documents x repeats (each in the legend)"
    )
    return f"{html.escape(label)}: runs and 95% intervals<br>{over}"


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
) -> None:
    """Per combination: every finished run (small dots), the mean (a thick line, the
    legend entry) and the 95% interval the engine's bootstrap gives over documents x
    repeats (a vertical bar between two end marks in the combination's shape), its figures
    and the documents x repeats it rests on in the legend and on hover."""
    from engine.suite.report import interval_text

    scale, unit = (100.0, " %") if ratio else (1.0, "")
    chart.setTitle(_spread_title(combos, metric, label))
    axis_x, axis_y = _axes(label + unit)
    ys: list[float] = []
    said: dict[str, str] = {}
    for k, combo in enumerate(combos):
        name = _combo_name(combo)
        colour = QColor(PALETTE[k % len(PALETTE)])
        b = combo["metrics"][metric]
        texts: dict[tuple[float, float], str] = {}
        runs = QScatterSeries()
        runs.setName(f"{name}: runs")
        runs.setMarkerSize(7)
        runs.setColor(colour.lighter(140))
        runs.setBorderColor(colour)
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
            said[name] = _interval_bar(chart, k, name, colour, interval_text(metric, iv), iv, scale)
            ys += [iv["low"] * scale, iv["high"] * scale]
        if b["mean"] is not None:
            mean_line = _line(name, colour, 3)
            mean_line.append(k - 0.25, b["mean"] * scale)
            mean_line.append(k + 0.35, b["mean"] * scale)
            chart.addSeries(mean_line)
        axis_x.append(combo_letter(k), float(k))  # a long name would be cut off here
    axis_x.setRange(-0.5, len(combos) - 0.5)
    axis_x.setTitleText("combination (key above)")
    _y_range(axis_y, ratio, ys)
    _attach(chart, axis_x, axis_y, {_combo_name(c) for c in combos})
    _letter_legend(chart, combos)
    for marker in chart.legend().markers():
        words = said.get(marker.series().name())
        if words is not None:
            marker.setLabel(f"{marker.label()}: {html.escape(words)}")


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
    (``engine.suite.report.instructions_names``). Returns the caption
    that lists each point's version and instructions."""
    # the suite report (numpy, about 1 s) only when a trend is drawn, not when the tab is made
    from engine.suite.report import instructions_names, instructions_text

    scale, unit = (100.0, " %") if ratio else (1.0, "")
    chart.setTitle(f"{label}: trend over suite runs")
    axis_x, axis_y = _axes(label + unit)
    ys: list[float] = []
    names = instructions_names([h["report"] for h in history])
    for k, combo in enumerate(combos):
        name = _combo_name(combo)
        colour = QColor(PALETTE[k % len(PALETTE)])
        line = _line(name, colour, 2)
        dots = QScatterSeries()
        dots.setName(f"{name} (points)")
        dots.setMarkerShape(SHAPES[k % len(SHAPES)])
        dots.setMarkerSize(11)
        dots.setColor(colour)
        texts: dict[tuple[float, float], str] = {}
        for x, h in enumerate(history):
            c = next((cc for cc in h["report"]["combinations"] if _combo_name(cc) == name), None)
            if c is None or c["metrics"][metric]["mean"] is None:
                continue
            y = c["metrics"][metric]["mean"] * scale
            line.append(float(x), y)
            dots.append(float(x), y)
            ys.append(y)
            texts[_key(x, y)] = html.escape(
                f"{when_words(h['date']) if h['date'] else 'date not recorded'} — "
                f"{h['suite_id']}\nprogram {h['version']}, "
                f"{instructions_text(c, names)}\nmean {y:.3g}{unit}"
            )
        chart.addSeries(line)
        chart.addSeries(dots)
        _hover(dots, texts)
    caption = []
    for x, h in enumerate(history):
        axis_x.append(html.escape(f"#{x + 1} v{h['version']}"), float(x))
        said = list(dict.fromkeys(instructions_text(c, names) for c in h["report"]["combinations"]))
        when = when_words(h["date"]) if h["date"] else "date not recorded"
        caption.append(f"#{x + 1} {when}, program {h['version']}, {'; '.join(said)}")
    axis_x.setRange(-0.5, max(0.5, len(history) - 0.5))
    axis_x.setTitleText("suite run (see below)")
    _y_range(axis_y, ratio, ys)
    _attach(chart, axis_x, axis_y, {_combo_name(c) for c in combos})
    _letter_legend(chart, combos)
    return "\n".join(caption[-6:])
