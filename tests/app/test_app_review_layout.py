"""The decision and reply panel fits a short, narrow pane (1366 x 768, 1.5x scale): button
rows wrap instead of widening the pane, nothing is cut (the panels scroll), and the
documents keep their height."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from hypothesis import HealthCheck, given, settings, strategies as st
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QPushButton, QWidget

from app.flow import FlowLayout

WORDS = st.text(
    alphabet=st.sampled_from(
        list("AcceptDeclined ")
        + list("\u4e2d\u6587\u6587\u5b57")  # CJK
        + list("\u0642\u0628\u0648\u0644")  # Arabic
        + list("\u0e22\u0e2d\u0e21\u0e23\u0e31\u0e1a")  # Thai
        + ["\U0001f44d", "\u2705"]
    ),
    min_size=1,
    max_size=24,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(WORDS, min_size=1, max_size=8), st.integers(min_value=0, max_value=900))
def test_a_flow_row_wraps_inside_its_width_without_overlap(qtbot, labels, extra):
    box = QWidget()
    qtbot.addWidget(box)
    lay = FlowLayout(box, 4)
    buttons = [QPushButton(t) for t in labels]
    for b in buttons:
        lay.addWidget(b)
    widest = max(b.sizeHint().width() for b in buttons)
    width = widest + extra
    assert lay.minimumSize().width() <= widest
    height = lay.heightForWidth(width)
    lay.setGeometry(QRect(0, 0, width, height))
    rects = [b.geometry() for b in buttons]
    for r in rects:
        assert r.left() >= 0 and r.right() < width and r.bottom() < height, (r, width, height)
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert not a.intersects(b), (a, b)
    one_line = sum(b.sizeHint().width() for b in buttons) + 4 * (len(buttons) - 1)
    lines = len({r.top() for r in rects})
    assert (lines == 1) == (one_line <= width)


def test_the_decision_panel_never_widens_a_narrow_pane(qtbot):
    from app.window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1366, 740)
    w.show()
    side = w.verdicts.decision.parentWidget()
    widest = max(b.sizeHint().width() for b in w.verdicts.decision.buttons.values())
    # the panels' minimum width is a button's, not six side by side
    assert w.verdicts.decision.minimumSizeHint().width() <= widest + 40
    assert w.verdicts.panels_scroll.widget() is side
    # the panel scrolls when short instead of squeezing its text: its own minimum height
    # does not push the documents aside
    assert w.verdicts.panels_scroll.minimumSizeHint().height() < 120
    from app.decisions_panel import DecisionPanel

    panel = DecisionPanel()
    qtbot.addWidget(panel)
    one_row = sum(b.sizeHint().width() for b in panel.buttons.values())
    panel.resize(one_row // 2, 400)
    panel.show()
    qtbot.waitUntil(
        lambda: len({b.geometry().top() for b in panel.buttons.values()}) > 1, timeout=3000
    )
    assert all(b.geometry().right() < panel.width() for b in panel.buttons.values())
