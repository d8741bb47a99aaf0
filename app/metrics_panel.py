"""The Metrics panel: the five metrics for the run and per round, as the engine wrote them.

Each cell is a number with its numerator and denominator in words, or "N/A" with the
engine's reason. A metric that could not be measured is never shown as a zero.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import present
from app.bundledata import BundleData
from engine import vocabulary as vocab
from engine.vocabulary import plural

#: The one column of a revision made elsewhere and checked here (not "Whole run": no run
#: took place in this program).
CHECKED_COLUMN = "The revision checked"
NA_BRUSH = QBrush(QColor(128, 128, 128, 60), Qt.BrushStyle.BDiagPattern)
# The explanations are quieter than the figures but still read: #4D4D4D on white is about
# 8:1 (the placeholder grey it replaces was under the 4.5:1 of WCAG AA for small text).
HELP_TEXT = QColor("#4D4D4D")  # the light scheme's; help_text() picks the scheme's


def help_text() -> QColor:
    """The "What it measures" column's colour: the scheme's secondary text
    (``app.theme.muted``, at least 4.5:1 on the base), never light grey's on dark."""
    from app.theme import muted

    return QColor(muted())


class MetricsPanel(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.intro.setTextFormat(Qt.TextFormat.RichText)
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)  # wrap, never cut with "..."
        self.table.setAccessibleName("The five metrics")
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.review = QLabel()
        self.review.setWordWrap(True)
        self.review.setTextFormat(Qt.TextFormat.RichText)
        self.review.setAccessibleName("Reviewed by people")
        self.help = QLabel()
        self.help.setWordWrap(True)
        self.help.setTextFormat(Qt.TextFormat.RichText)
        lay = QVBoxLayout(self)
        lay.addWidget(self.intro)
        # The table takes the room the words below it leave (it scrolls when that is less
        # than its rows need), never more than its rows: a fixed height drew the words over
        # its last row when the window was short (1366x768 at 150 %).
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.review)
        lay.addWidget(self.help)
        lay.addStretch(0)
        self.cells: dict[tuple[str, str], str] = {}
        self.data: BundleData | None = None

    def show_metrics(
        self,
        run: dict[str, Any],
        rounds: list[tuple[int, dict[str, Any]]],
        status: str = "completed",
        reason: str = "",
        scripted: bool = False,
        coverage: str = "",
        notes: dict[str, str] | None = None,
        headline: str = "",
        deleted: int = 0,
        external: bool = False,
    ) -> None:
        """``run``: name -> metric object; ``rounds``: [(round, {name: metric})].

        A finished run's last round ends where the run ends: where that round's own record
        is N/A (it was written while the run was still going), its column shows the
        whole-run value. An earlier round of a finished run shows a metric measured only at
        the run's end (``present.RUN_END_METRICS``) as not measured after each round, so no
        finished run says "the run has not finished".

        ``deleted``: how many final verdicts are ``deleted`` (the engine's verdicts, counted
        as stored); when any, the whole-run attribution cell says they are not counted as
        attributed (the metric counts edited comments only, docs/metrics.md).

        ``external``: a revision made elsewhere and checked here: no run and no round of
        this program's, so one column, the revision checked (``CHECKED_COLUMN``)."""
        if external:
            rounds = []
        columns = (
            [CHECKED_COLUMN if external else "Whole run"]
            + [f"After round {n}" for n, _ in rounds]
            + ["What it measures"]
        )
        sources = [run] + [m for _, m in rounds]
        if rounds and status != "running":
            last = dict(sources[-1]) if isinstance(sources[-1], dict) else {}
            for name in present.METRIC_ORDER:
                if present.metric_is_na(last.get(name)) and isinstance(run, dict):
                    last[name] = run.get(name)
            sources[-1] = last
        self.table.clear()
        self.table.setColumnCount(len(columns))
        self.table.setRowCount(len(present.METRIC_ORDER))
        self.table.setHorizontalHeaderLabels(columns)
        self.table.setVerticalHeaderLabels([present.METRIC_TITLES[n] for n in present.METRIC_ORDER])
        self.cells.clear()
        finished = status != "running"
        for r, name in enumerate(present.METRIC_ORDER):
            meaning = vocab.metric_meaning(name, external)
            for c, src in enumerate(sources):
                m = src.get(name) if isinstance(src, dict) else None
                text = present.metric_cell(name, m)
                earlier_round = finished and 0 < c < len(sources) - 1
                if earlier_round and name in present.RUN_END_METRICS and present.metric_is_na(m):
                    text = present.NOT_PER_ROUND
                if c == 0 and name == "claim_accuracy" and coverage:
                    text += f"\n{coverage}"
                if c == 0 and name == "attribution_rate" and deleted:
                    text += (
                        f"\ndeleted: {deleted}, not counted as attributed "
                        "(only edited comments count)"
                    )
                note = (notes or {}).get(name, "") if c == 0 else ""
                if note:
                    text += f"\n\u26a0 {note}"
                self.cells[(name, columns[c])] = text
                self.table.setItem(r, c, _metric_item(text, meaning, m, c == 0, bool(note)))
            help_item = QTableWidgetItem(meaning)
            help_item.setToolTip(meaning)
            help_item.setForeground(help_text())
            self.table.setItem(r, len(sources), help_item)
        for c in range(len(sources)):
            self.table.setColumnWidth(c, 300 if c == 0 else 240)
        self._fit_rows()
        self.intro.setText(
            (f"<b>{html.escape(headline)}</b><br>" if headline else "")
            + _intro(status, reason, scripted, external)
        )
        self.help.setText(_below(bool(rounds), external))

    def _fit_rows(self) -> None:
        """Three lines per metric (enough for the wrapped reasons), whatever the view's
        state: measuring wrapped text in a hidden tab gives nonsense heights."""
        line = self.table.fontMetrics().lineSpacing()
        row = 4 * line + 12
        vh = self.table.verticalHeader()
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(row)
        for r in range(self.table.rowCount()):
            self.table.setRowHeight(r, row)
        header = self.table.horizontalHeader().sizeHint().height()
        frame = 2 * self.table.frameWidth() + 4
        bar = self.table.horizontalScrollBar().sizeHint().height()
        self.table.setMinimumHeight(header + row + frame + bar)
        self.table.setMaximumHeight(header + row * self.table.rowCount() + frame + bar)

    def show_bundle(self, data: BundleData) -> None:
        """Show ``data``'s figures now, and again once its re-derivation is in (a bundle
        that failed verification then shows the engine's re-derived figures)."""
        from app.bundledata import start_checks

        self.data = data
        self._fill(data)
        start_checks(data, lambda _r: self.data is data and self._fill(data))

    def showEvent(self, event: Any) -> None:
        """Decisions taken in the Verdicts view since the last look are shown."""
        if self.data is not None:
            self.review.setText(review_html(self.data))
        super().showEvent(event)

    def _fill(self, data: BundleData) -> None:
        from engine.score.metrics import coverage_of

        self.review.setText(review_html(data))
        cov = coverage_of(data.verdicts, data.comments_before)
        self.show_metrics(
            data.metrics,
            data.round_metrics,
            data.status,
            data.reason,
            scripted=data.scripted,
            coverage=cov.text() if cov is not None else "",
            notes=data.metric_notes,
            headline=data.figures_headline,
            deleted=sum(
                1 for v in data.verdicts if isinstance(v, dict) and v.get("verdict") == "deleted"
            ),
            external=data.external,
        )


def review_html(data: BundleData) -> str:
    """The reviewed figures beside the machine's (``engine.bundle.review``), in words;
    "checking..." before the decisions could be checked (they need the re-derivation)."""
    from engine import vocabulary as vocab
    from engine.bundle.review import review_figures

    if data.decisions is None:
        return "<i>Reviewed by people: checking the decisions\u2026</i>"
    fig = review_figures(data.verdicts, data.comments_before, data.decisions.latest())
    text = (
        "<b>Reviewed by people.</b> Reviewed attribution: <b>"
        + html.escape(fig.reviewed_text())
        + "</b> (of the comments decided: edited and accepted, overridden to addressed, or "
        "the deletion was the fix). "
        "Agreement with the machine: <b>"
        + html.escape(vocab.metric_text("attribution_rate", fig.agreement.to_json()))
        + "</b>."
    )
    if data.decisions.tampered:
        text += " <b>The decisions fail their checks and count for nothing.</b>"
    if fig.awaiting:
        text = (
            f"<b>Awaiting review: {fig.awaiting} of {plural(fig.actionable, 'actionable comment')}"
            "</b> have no decision yet (decide them in the Verdicts tab). " + text
        )
    return text


def _metric_item(text: str, meaning: str, m: Any, whole_run: bool, noted: bool) -> QTableWidgetItem:
    """A metric cell, what it measures (``meaning``) its tooltip: italic on grey when N/A,
    bold in the whole-run column, warm when a note says the figure was not what the bundle
    stated."""
    item = QTableWidgetItem(text)
    item.setToolTip(meaning)
    f = item.font()
    if present.metric_is_na(m):
        f.setItalic(True)
        item.setBackground(NA_BRUSH)
    elif whole_run:
        f.setBold(True)
    item.setFont(f)
    if noted:
        item.setBackground(QColor("#fde8e0"))
        item.setForeground(QColor("#4a1400"))
    return item


def _below(rounds: bool, external: bool) -> str:
    """The line below the table: why it has no column per round, when it has none."""
    if external:
        return "<i>No round ran in this program: the figures are those of the revision checked.</i>"
    if rounds:
        return ""
    return "<i>This bundle records the metrics of the whole run only, not of each round.</i>"


def _intro(status: str, reason: str, scripted: bool, external: bool = False) -> str:
    """The line above the table: how the run ended, and what that means for the figures;
    for a revision checked here (``external``), that it was checked and no run took place."""
    state = present.STATUS_WORDS.get(status, f"Run status: {status}")
    if external and status == "completed":
        state, reason = vocab.EXTERNAL_STATUS_WORDS, vocab.EXTERNAL_NO_RUN
    note = ""
    if status != "completed":
        note = (
            " Metrics that could not be measured because of this say N/A with the "
            "reason; none is shown as zero."
        )
    if scripted:
        note += (
            " <b>Scripted demonstration</b>: a script, not a model, made these "
            "revisions; the metrics are the engine's own measurements of them."
        )
    return (
        f"<b>{html.escape(state)}</b>" + (": " + html.escape(reason) if reason else "") + "." + note
    )
