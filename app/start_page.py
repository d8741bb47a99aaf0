"""The Start tab: what the program does, the example and demo runs, a new run, opening a
bundle (one picker for folders and zips), and the recent bundles."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPalette, QTextDocument, QTextOption
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

PAD = 4  # pixels around an item's text


class RecentDelegate(QStyledItemDelegate):
    """Draws a Recent bundles line in full, wrapped to the list's width.

    Qt's own item drawing sized a two-line item by the primary font and then cut its last
    line to "…" when a fallback font (CJK) made the lines taller: a Chinese title's
    detail line was lost. Here one ``QTextDocument`` lays the text out for both the size and
    the painting (fallback fonts included), wrapping anywhere when a line has no spaces.
    """

    def _document(self, option: QStyleOptionViewItem, text: str) -> QTextDocument:
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(option.font)
        opt = QTextOption()
        opt.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        doc.setDefaultTextOption(opt)
        doc.setPlainText(text)
        view = option.widget
        width = view.viewport().width() if view is not None else option.rect.width()
        doc.setTextWidth(max(40, width - 2 * PAD - 4))
        return doc

    def sizeHint(self, option, index):
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        doc = self._document(opt, opt.text)
        return QSize(int(doc.idealWidth()) + 2 * PAD, int(doc.size().height()) + 2 * PAD)

    def paint(self, painter, option, index):
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text = opt.text
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        doc = self._document(opt, text)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        ctx.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(role))
        painter.save()
        painter.translate(opt.rect.left() + PAD, opt.rect.top() + PAD)
        painter.setClipRect(0, 0, opt.rect.width() - PAD, opt.rect.height() - PAD)
        doc.documentLayout().draw(painter, ctx)
        painter.restore()


class StartPage(QWidget):
    """What a new user sees first: what this program does and the two ways to begin."""

    def __init__(self, parent=None):
        super().__init__(parent)
        title = QLabel("<h1>Agent Review Loop</h1>")
        intro = QLabel(
            "<p>An AI agent revises a document and says it "
            "<i>addressed all review comments</i>. This program checks that claim against "
            "the text itself: every comment is found again in the new version and gets a "
            "verdict \u2014 <b>edited</b>, <b>untouched</b>, <b>deleted</b> or <b>stale "
            "anchor</b> \u2014 computed from the words, never from the agent's word.</p>"
        )
        intro.setWordWrap(True)
        big = intro.font()
        big.setPointSizeF(big.pointSizeF() * 1.15)  # in points, so it follows the scale
        intro.setFont(big)
        style = self.style()
        SP = QStyle.StandardPixmap
        # Qt's own icons, not emoji: emoji show as empty boxes on stock Linux fonts.
        self.example_btn = QPushButton(
            style.standardIcon(SP.SP_MediaPlay), "  Browse the example run  (no API key needed)"
        )
        self.demo_btn = QPushButton(
            "See every kind of verdict  (a scripted demonstration: no model, no key)"
        )
        self.demo_btn.setFlat(True)
        self.demo_btn.setCursor(Qt.CursorShape.PointingHandCursor)
        self.demo_btn.setStyleSheet("text-align: left; text-decoration: underline;")
        self.demo_btn.setToolTip(
            "A scripted agent fixes one comment, claims a fix it did not "
            "make, deletes a sentence, changes text nobody commented on "
            "and meets a comment made on an older draft. The verdicts "
            "and metrics are the engine's own."
        )
        self.setup_btn = QPushButton(style.standardIcon(SP.SP_FileIcon), "  Set up a new run\u2026")
        self.check_btn = QPushButton(
            style.standardIcon(SP.SP_FileDialogDetailedView),
            "  Check a revision made elsewhere\u2026",
        )
        self.check_btn.setToolTip(
            "You reviewed a document and an agent revised it somewhere else: check every "
            "comment against the words, with what the agent said as its claim"
        )
        self.open_btn = QPushButton(
            style.standardIcon(SP.SP_DirOpenIcon),
            "  Open an evidence bundle (folder or .zip)\u2026",
        )
        for b in (self.example_btn, self.setup_btn, self.check_btn, self.open_btn):
            b.setMinimumHeight(44)
            b.setIconSize(QSize(20, 20))
            f = b.font()
            f.setPointSizeF(f.pointSizeF() * 1.15)
            b.setFont(f)
        self.example_btn.setDefault(True)
        self.example_note = QLabel()
        self.example_note.setWordWrap(True)
        self.recent_label = QLabel("<b>Recent bundles</b>")
        self.recent = self._recent_list()

        col = QVBoxLayout()
        col.addWidget(title)
        col.addWidget(intro)
        col.addSpacing(12)
        col.addWidget(self.example_btn)
        col.addWidget(self.example_note)
        col.addWidget(self.demo_btn)
        col.addWidget(self.setup_btn)
        col.addWidget(self.check_btn)
        col.addWidget(self.open_btn)
        col.addSpacing(12)
        col.addWidget(self.recent_label)
        col.addWidget(self.recent)
        col.addStretch(1)
        self._centre(col)

    def _centre(self, col: QVBoxLayout) -> None:
        """The column, 760 wide at most, centred, in a scroll area filling the page."""
        box = QWidget()
        box.setLayout(col)
        box.setMaximumWidth(760)
        # Centred by stretches, not by an alignment (which would give the column its size
        # hint and cut its wrapped paragraphs mid-line), and in a scroll area, so a short
        # screen (1366 x 768 at 1.5x) scrolls instead of cutting.
        page = QWidget()
        row = QHBoxLayout(page)
        row.addStretch(1)
        row.addWidget(box, 100)
        row.addStretch(1)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(page)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll)

    def _recent_list(self) -> QListWidget:
        """The Recent bundles list: one line per bundle, laid out by ``RecentDelegate``."""
        recent = QListWidget()
        recent.setAccessibleName("Recent bundles")
        recent.setMaximumHeight(200)
        recent.setWordWrap(True)
        recent.setTextElideMode(Qt.TextElideMode.ElideRight)
        recent.setItemDelegate(RecentDelegate(recent))
        recent.setResizeMode(QListWidget.ResizeMode.Adjust)  # re-wrap on resize
        recent.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        recent.setSpacing(2)
        return recent

    def set_recent(self, paths: list[str], described: dict[str, str] | None = None) -> None:
        """List ``paths`` (newest first): each by its title, model, date and outcome once
        ``described`` has them (read in a worker), by path until then; the path is the
        tooltip and the item's ``UserRole`` data."""
        self.recent.clear()
        for p in paths:
            line = (described or {}).get(p) or p
            item = QListWidgetItem(line)
            item.setToolTip(p if line == p else f"{line}\n{p}")
            item.setData(Qt.ItemDataRole.UserRole, p)
            self.recent.addItem(item)
        self.recent_label.setVisible(bool(paths))
        self.recent.setVisible(bool(paths))
