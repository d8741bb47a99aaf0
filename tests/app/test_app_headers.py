"""A column narrower than its label: the label is cut at the end with "…", the whole
label in its tooltip (Qt clipped a centred label at both ends: "Comment" read "ommen")."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtWidgets import QTableWidget

from app.headers import ElidingHeader


@pytest.mark.parametrize(
    "label", ["model / variant", "Comment", "評論のコメント", "تعليق المراجع", "✍ comment 😀"]
)
def test_a_narrow_column_ends_its_label_with_an_ellipsis(qtbot, label):
    t = QTableWidget(1, 2)
    qtbot.addWidget(t)
    t.setHorizontalHeader(ElidingHeader(t))
    t.setHorizontalHeaderLabels([label, "x"])
    h = t.horizontalHeader()
    assert isinstance(h, ElidingHeader)
    h.resizeSection(0, 400)
    assert h.shown_label(0) == label
    h.resizeSection(0, h.fontMetrics().horizontalAdvance(label) // 2 + 20)
    shown = h.shown_label(0)
    assert shown.endswith("\u2026") and shown != label
    assert label.startswith(shown[:-1].replace("\u200d", ""))  # Arabic keeps its joining
    assert h.fontMetrics().horizontalAdvance(shown) <= h.label_room(0)


def test_the_verdict_and_suite_run_tables_use_it(qtbot):
    from app.verdicts import VerdictTable

    t = VerdictTable()
    qtbot.addWidget(t)
    assert isinstance(t.horizontalHeader(), ElidingHeader)
    assert t.horizontalHeader().label(0) == t.model().headerData(
        0, t.horizontalHeader().orientation()
    )
