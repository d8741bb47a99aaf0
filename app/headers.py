"""A table header whose labels, when a column is narrower than its label, end in "…"
(Qt's styles clip a centred label at both ends: "Comment" read "ommen", "model /
variant" read "l / v"), with the whole label as the section's tooltip.

``ElidingHeader(parent_view)`` replaces a view's horizontal header:
``view.setHorizontalHeader(ElidingHeader(view))``.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QHeaderView, QStyle, QStyleOptionHeader, QToolTip, QWidget

LABEL_MARGIN = 2  # px each side, besides the style's own header margin


class ElidingHeader(QHeaderView):
    """A horizontal header; a label wider than its section is cut at the end with "…"."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setSectionsClickable(True)
        self.setHighlightSections(True)

    def label_room(self, logical: int) -> int:
        """The width (px) a label has in section ``logical``."""
        margin = self.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, self)
        return max(0, self.sectionSize(logical) - 2 * (margin + LABEL_MARGIN))

    def label(self, logical: int) -> str:
        value = self.model().headerData(logical, self.orientation()) if self.model() else None
        return "" if value is None else str(value)

    def shown_label(self, logical: int) -> str:
        """The label as drawn: whole, or cut at the end with "…" to fit its section."""
        return self.fontMetrics().elidedText(
            self.label(logical), Qt.TextElideMode.ElideRight, self.label_room(logical)
        )

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
