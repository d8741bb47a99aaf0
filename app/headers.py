"""A table header whose labels, when a column is narrower than its label, end in "…"
(Qt's styles clip a centred label at both ends: "Comment" read "ommen", "model /
variant" read "l / v"), with the whole label as the section's tooltip.

``ElidingHeader(parent_view)`` replaces a view's horizontal header:
``view.setHorizontalHeader(ElidingHeader(view))``. ``rows_height`` is the height that
shows a table's header and a number of its rows.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyle,
    QStyleOptionHeader,
    QToolTip,
    QWidget,
)

LABEL_MARGIN = 2  # px each side, besides the style's own header margin


def wrapped(text: str, metrics: QFontMetrics, room: int, lines: int) -> list[str]:
    """``text`` broken at its spaces into at most ``lines`` lines of ``room`` pixels in
    ``metrics``' font, the last cut at the end with "…" when the rest does not fit (a word
    wider than ``room`` is cut the same way)."""
    words, out = text.split(), []
    while words and len(out) < lines - 1:
        line = words.pop(0)
        while words and metrics.horizontalAdvance(line + " " + words[0]) <= room:
            line += " " + words.pop(0)
        out.append(metrics.elidedText(line, Qt.TextElideMode.ElideRight, room))
    if words:
        out.append(metrics.elidedText(" ".join(words), Qt.TextElideMode.ElideRight, room))
    return out or [""]


class ElidingHeader(QHeaderView):
    """A horizontal header; a label wider than its section is cut at the end with "…".

    ``lines`` above 1: a label wider than its section is first broken at its spaces onto
    up to that many lines (the header as tall as the longest needs), then cut.
    """

    def __init__(self, parent: QWidget | None = None, lines: int = 1):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.lines = max(1, lines)
        self.setSectionsClickable(True)
        self.setHighlightSections(True)
        self.sectionResized.connect(lambda *_: self.lines > 1 and self._height_follows())

    def _height_follows(self) -> None:
        """The header's height follows its labels' lines (Qt keeps a size hint)."""
        if self.count():
            self.headerDataChanged(self.orientation(), 0, self.count() - 1)

    def sectionSizeFromContents(self, logical: int) -> QSize:
        size = super().sectionSizeFromContents(logical)
        if self.lines > 1:
            n = self.shown_label(logical).count("\n") + 1
            margin = self.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, self)
            size.setHeight(max(size.height(), n * self.fontMetrics().lineSpacing() + 2 * margin))
        return size

    def label_room(self, logical: int) -> int:
        """The width (px) a label has in section ``logical``."""
        margin = self.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, self)
        return max(0, self.sectionSize(logical) - 2 * (margin + LABEL_MARGIN))

    def label(self, logical: int) -> str:
        value = self.model().headerData(logical, self.orientation()) if self.model() else None
        return "" if value is None else str(value)

    def label_width(self, logical: int) -> int:
        """The width (px) section ``logical`` needs to show its label whole."""
        margin = self.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, self)
        text = self.fontMetrics().horizontalAdvance(self.label(logical))
        return text + 2 * (margin + LABEL_MARGIN) + 2

    def least_width(self, logical: int) -> int:
        """The least width (px) section ``logical`` needs to show its label whole on up to
        ``lines`` lines (its widest word at least), found by bisection."""
        metrics, text = self.fontMetrics(), self.label(logical)
        pad = self.label_width(logical) - metrics.horizontalAdvance(text)
        lo = max((metrics.horizontalAdvance(w) for w in text.split()), default=0)
        hi = metrics.horizontalAdvance(text)
        while lo < hi:
            mid = (lo + hi) // 2
            if "\u2026" in "".join(wrapped(text, metrics, mid, self.lines)):
                lo = mid + 1
            else:
                hi = mid
        return lo + pad

    def shown_label(self, logical: int) -> str:
        """The label as drawn: whole, or cut at the end with "…" to fit its section (on up
        to ``lines`` lines, joined by newlines)."""
        metrics, room, text = self.fontMetrics(), self.label_room(logical), self.label(logical)
        if self.lines == 1 or metrics.horizontalAdvance(text) <= room:
            return metrics.elidedText(text, Qt.TextElideMode.ElideRight, room)
        return "\n".join(wrapped(text, metrics, room, self.lines))

    def initStyleOptionForIndex(self, option: QStyleOptionHeader, logical: int) -> None:
        super().initStyleOptionForIndex(option, logical)
        option.text = self.shown_label(logical)

    def event(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.ToolTip:
            logical = self.logicalIndexAt(e.pos())
            if logical >= 0 and self.shown_label(logical) != self.label(logical):
                QToolTip.showText(e.globalPos(), self.label(logical), self)
                return True
        return super().event(e)


def rows_height(table: QAbstractItemView, rows: int) -> int:
    """The height, in pixels, that shows ``table``'s horizontal header and its first
    ``rows`` rows whole (each at its own height; rows it does not have at the default row
    height), with its frame and its horizontal scroll bar's height (the bar comes and goes
    with the columns' widths, and a row under it is hidden)."""
    header = table.horizontalHeader()  # type: ignore[attr-defined]
    vertical = table.verticalHeader()  # type: ignore[attr-defined]
    have = table.model().rowCount() if table.model() is not None else 0
    body = sum(vertical.sectionSize(r) for r in range(min(rows, have)))
    body += max(0, rows - have) * vertical.defaultSectionSize()
    bar = table.horizontalScrollBar().sizeHint().height()
    head = 0 if header.isHidden() else header.sizeHint().height()
    return head + body + bar + 2 * table.frameWidth()
