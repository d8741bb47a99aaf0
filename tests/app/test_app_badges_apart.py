"""Two badges whose texts start close together on one line stood one over the other, the
first hidden ("The fee is due in May 😀 Please read the handbook before Monday 📘 Our
office ...", three short comments; a new user's screenshots, stop 41). On each line, left to
right, a badge now starts no sooner than a few pixels after the one before it ends
(``resources/web/arl-page.js``, ``spreadBadges``), and each stays on its text's line."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from tests.app.test_app_badges_inside import js, show

TEXT = "Aa Bb Cc Dd. Welcome to the team. The fee is due in June. Our office opens at nine."


def test_badges_of_texts_close_together_on_one_line_do_not_overlap(qtbot, view):
    html = (
        "<!doctype html><html><head><meta charset=utf-8><title>t</title></head>"
        f"<body><p>{TEXT}</p></body></html>"
    )
    # four spans starting one or two letters apart, and one far along the line
    starts = [0, 3, 6, 9, TEXT.index("Our")]
    spans = [
        {"id": f"c{k}", "kind": "edited", "start": s, "end": s + 2, "label": f"\u270e {k} edited"}
        for k, s in enumerate(starts)
    ]
    show(qtbot, view, html, spans)  # the document view of tests/app/conftest.py
    qtbot.wait(150)
    boxes = {i: tuple(v) for i, v in js(qtbot, view, "__arl.badgeEdges()").items()}
    assert set(boxes) == {s["id"] for s in spans}
    row = sorted(boxes.values())
    for (_l0, r0, t0), (l1, _r1, t1) in zip(row, row[1:]):
        assert t0 == t1  # one line
        assert l1 >= r0, row  # apart
    # a badge whose text stands far from the others keeps its place at its text
    far = js(qtbot, view, f"__arl.rangeFor({starts[-1]},{starts[-1] + 2}).getClientRects()[0].left")
    assert abs(boxes["c4"][0] - far) < 1.5, (boxes["c4"], far)
