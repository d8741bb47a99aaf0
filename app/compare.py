"""Compare two evidence bundles of the same document and comments: the metrics side by side
and each comment's verdict in both runs (e.g. two models on the same review).

Shows what each bundle says; nothing is computed. Bundles of different documents or
comment sets are still shown, with a warning in words.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import present
from app.bundledata import BundleData, BundleError, load_bundle, start_checks
from app.docview import STYLES
from engine.vocabulary import comment_numbers, error_words


class CompareView(QWidget):
    message = Signal(str)
    compared = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.a: BundleData | None = None
        self.b: BundleData | None = None
        self.start_dir = ""  # where the picker opens (the main window sets the last folder)
        self.pick_a = QPushButton("Choose bundle &A\u2026")
        self.pick_b = QPushButton("Choose bundle &B\u2026")
        self.label_a = QLabel("<i>no bundle A</i>")
        self.label_b = QLabel("<i>no bundle B</i>")
        for lab in (self.label_a, self.label_b):
            lab.setWordWrap(True)
            lab.setTextFormat(Qt.TextFormat.RichText)
        self.note = QLabel(
            "Choose two evidence bundles of the same document and comments, "
            "for instance two models given the same review."
        )
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.RichText)
        self.metrics = QTableWidget(0, 3)
        self.metrics.setAccessibleName("The two runs' metrics side by side")
        self.metrics.setHorizontalHeaderLabels(["Run and metrics", "A", "B"])
        self.verdicts = QTableWidget(0, 7)
        self.verdicts.setAccessibleName("The two runs' verdicts per comment")
        self.verdicts.setHorizontalHeaderLabels(
            [
                "Comment",
                "Quote",
                "Verdict in A",
                "Verdict in B",
                "Same?",
                "Claims (A / B)",
                "Reviewer decisions (A / B)",
            ]
        )
        for t in (self.metrics, self.verdicts):
            t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            t.verticalHeader().setVisible(False)
            t.horizontalHeader().setStretchLastSection(True)
            t.setWordWrap(True)
            t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        top = QHBoxLayout()
        for btn, lab in ((self.pick_a, self.label_a), (self.pick_b, self.label_b)):
            col = QVBoxLayout()
            col.addWidget(btn, 0, Qt.AlignmentFlag.AlignLeft)
            col.addWidget(lab)
            top.addLayout(col, 1)
        self.split = split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.metrics)
        split.addWidget(self.verdicts)
        split.setStretchFactor(0, 0)  # a taller window grows the comment table
        split.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.note)
        lay.addWidget(split, 1)
        split.setSizes([260, 500])
        self.pick_a.clicked.connect(lambda: self._ask("a"))
        self.pick_b.clicked.connect(lambda: self._ask("b"))

    def ask_bundles(self) -> None:
        if self.a is None:
            self._ask("a")
        elif self.b is None:
            self._ask("b")

    def _ask(self, which: str) -> None:
        from app.bundle_picker import pick_bundle

        self._dialog = pick_bundle(
            self,
            f"Choose bundle {which.upper()}: a folder, a .zip, or its manifest.json",
            self.start_dir or str(Path.home()),
            lambda p: self.set_bundle(which, p),
        )

    def set_bundle(self, which: str, path: Path) -> bool:
        try:
            data = load_bundle(path)
        except BundleError as exc:
            self.message.emit(f"Bundle {which.upper()} cannot be opened: {error_words(exc)}")
            return False
        setattr(self, which, data)
        self._label(which, data, path)
        start_checks(data, lambda _r: self._checked(which, data, path))
        self.refresh()
        return True

    def _checked(self, which: str, data: BundleData, path: Path) -> None:
        """The re-derivation is in: a bundle that failed verification now shows the
        engine's re-derived figures (``data`` holds them), so the comparison is redone."""
        if getattr(self, which) is not data:
            return
        self._label(which, data, path)
        self.refresh()

    def _label(self, which: str, data: BundleData, path: Path) -> None:
        """The bundle's name with its checks: TAMPERED, signature, older format."""
        label = self.label_a if which == "a" else self.label_b
        warn = (
            " <b style='color:#B24000'>\u26a0 TAMPERED: fails its checks</b>"
            + (
                "<br><b style='color:#B24000'>" + html.escape(data.figures_headline) + "</b>"
                if data.figures_headline
                else ""
            )
            if data.untrustworthy
            else ""
        )
        sig = f" \u2014 {html.escape(data.signature.words())}" if data.signature is not None else ""
        old = f" \u2014 older format {html.escape(data.format)}" if data.old_format else ""
        label.setText(
            f"<b>{html.escape(data.model)}</b> \u2014 {html.escape(data.title)} "
            f"({html.escape(data.status)}){warn}<br><small>{html.escape(str(path))}{sig}{old}"
            f"</small>"
        )

    def _fit_metrics(self) -> None:
        """Every run and metric row in view without scrolling (up to 420 px): the comment
        table below takes the rest, and any height the window gains or loses."""
        t = self.metrics
        want = t.horizontalHeader().height() + 2 * t.frameWidth() + 2
        want += sum(t.rowHeight(r) for r in range(t.rowCount()))
        t.setMinimumHeight(min(want, 420))
        total = sum(self.split.sizes())
        if total > 0:
            top = min(want, max(total - 160, total // 2))  # the comments keep a few rows
            self.split.setSizes([top, total - top])

    def refresh(self) -> None:
        from engine.compare import compare_bundles

        a, b = self.a, self.b
        if a is None or b is None:
            return
        cmp = compare_bundles(a, b)
        self.note.setText(
            html.escape(" ".join(cmp.notes)) or "Same document and comments in both bundles."
        )
        # What tells the sides apart (model, start time, bundle name), not the model alone.
        self._fill_metrics(cmp, cmp.labels[0].text(), cmp.labels[1].text())
        self._fill_verdicts(cmp)
        self.compared.emit()

    def _fill_metrics(self, cmp, side_a: str, side_b: str) -> None:
        """The run rows and the five metrics, A beside B, under headers naming each side."""
        rows = (
            [(label, x, y) for label, x, y in cmp.run_rows]
            + [
                (
                    present.METRIC_TITLES[name],
                    present.metric_cell(name, x),
                    present.metric_cell(name, y),
                )
                for name, x, y in cmp.metric_rows
            ]
            + _review_rows(self.a, self.b)
        )
        self.metrics.setHorizontalHeaderLabels(["Run and metrics", f"A: {side_a}", f"B: {side_b}"])
        for col, text in ((1, side_a), (2, side_b)):
            self.metrics.horizontalHeaderItem(col).setToolTip(text)
        self.verdicts.setHorizontalHeaderLabels(
            [
                "Comment",
                "Quote",
                "Verdict in A",
                "Verdict in B",
                "Same?",
                "Claims (A / B)",
                "Reviewer decisions (A / B)",
            ]
        )
        self.verdicts.horizontalHeaderItem(2).setToolTip(f"A: {side_a}")
        self.verdicts.horizontalHeaderItem(3).setToolTip(f"B: {side_b}")
        self.metrics.setRowCount(len(rows))
        for r, cells in enumerate(rows):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c and text.startswith("N/A"):
                    f = item.font()
                    f.setItalic(True)
                    item.setFont(f)
                self.metrics.setItem(r, c, item)
        header = self.metrics.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.metrics.resizeRowsToContents()
        self._fit_metrics()

    def _fill_verdicts(self, cmp) -> None:
        """One row per comment: its verdict in A and in B, whether they agree, the claims."""
        self.verdicts.setRowCount(len(cmp.pairs))
        notes = (
            self.a.row_notes if self.a is not None else {},
            self.b.row_notes if self.b is not None else {},
        )
        ids = [
            str(c.get("id")) for d in (self.a, self.b) if d is not None for c in d.comments_before
        ]
        numbers = comment_numbers(list(dict.fromkeys(ids)))  # as the Verdicts view numbers them
        for r, pair in enumerate(cmp.pairs):
            x, y = pair.a, pair.b
            vx = x.get("verdict") if x else None
            vy = y.get("verdict") if y else None
            same = (
                "\u2014 not in both"
                if pair.same is None
                else "\u2713 same"
                if pair.same
                else "\u2260 differs"
            )
            claims = (
                f"{present.claim_text(x.get('claim') if x else None)} / "
                f"{present.claim_text(y.get('claim') if y else None)}"
            )
            n = numbers.get(pair.comment_id)
            cells = [
                f"Comment {n}" if n is not None else f"\u201c{pair.comment_id}\u201d",
                pair.quote,
                present.verdict_label(vx) if vx else "not in this bundle",
                present.verdict_label(vy) if vy else "not in this bundle",
                same,
                claims,
                f"{_decision(self.a, pair.comment_id)} / {_decision(self.b, pair.comment_id)}",
            ]
            for side, col in ((0, 2), (1, 3)):
                if notes[side].get(pair.comment_id):  # what the bundle states differs
                    cells[col] = "\u26a0 " + cells[col]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                side_note = notes[col - 2].get(pair.comment_id) if col in (2, 3) else None
                item.setToolTip(f"{text}\n\u26a0 {side_note}" if side_note else text)
                if col == 0:  # the number is the name; the raw id only here
                    item.setToolTip(f"{text} (id {pair.comment_id})")
                    item.setData(Qt.ItemDataRole.UserRole, pair.comment_id)
                verdict = vx if col == 2 else vy if col == 3 else None
                if verdict in STYLES:
                    s = STYLES[verdict]
                    item.setBackground(QColor(s.line))
                    item.setForeground(QColor(s.badge_text))
                if col == 4 and pair.same is False:
                    f = item.font()
                    f.setBold(True)
                    item.setFont(f)
                self.verdicts.setItem(r, col, item)
        vh = self.verdicts.horizontalHeader()
        for col in range(7):
            vh.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        vh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the quote takes the width
        self.verdicts.resizeRowsToContents()


def _decision(data: BundleData | None, cid: str) -> str:
    """A side's decision on a comment in words ("accepted (Ann)"), "none" or "checking"."""
    from engine.bundle.decisions import DECISION_WORDS

    if data is None or data.decisions is None:
        return "checking\u2026"
    d = data.decisions.latest().get(cid)
    return f"{DECISION_WORDS.get(d.decision, d.decision)} ({d.reviewer})" if d else "none"


def _review_rows(a: BundleData | None, b: BundleData | None) -> list[tuple[str, str, str]]:
    """Reviewed attribution, agreement and awaiting review of each side
    (``engine.bundle.review``); "checking..." until a side's decisions are checked."""
    from engine.bundle.review import review_figures
    from engine.vocabulary import metric_text

    def side(data: BundleData | None) -> tuple[str, str, str]:
        if data is None or data.decisions is None:
            return ("checking\u2026",) * 3
        fig = review_figures(data.verdicts, data.comments_before, data.decisions.latest())
        forged = " (the decisions fail their checks)" if data.decisions.tampered else ""
        return (
            fig.reviewed_text() + forged,
            metric_text("attribution_rate", fig.agreement.to_json()),
            f"{fig.awaiting} of {fig.actionable}",
        )

    x, y = side(a), side(b)
    labels = ("Reviewed attribution", "Agreement with the machine", "Awaiting review")
    return [(label, x[i], y[i]) for i, label in enumerate(labels)]
