"""WCAG contrast of the dark palette's roles as the views use them: text at least 4.5:1
on what it is drawn on, marks (the selection) at least 3:1; the Metrics tab's "What it
measures" column in the dark scheme too (docs/gui.md, "Rules every view keeps")."""

from __future__ import annotations

import pytest

from app.theme import DARK


def _luminance(hex_colour: str) -> float:
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_the_contrast_formula_is_wcags():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize(
    ("fore", "back"),
    [
        ("text", "window"),
        ("text", "base"),
        ("text", "alternate"),
        ("text", "button"),
        ("text", "tooltip"),
        ("link", "base"),
        ("link", "window"),
        ("disabled", "base"),  # placeholder text
    ],
)
def test_dark_text_roles_read_at_4_5_to_1(fore, back):
    assert contrast(DARK[fore], DARK[back]) >= 4.5, (fore, back)


def test_selected_text_and_the_selection_mark():
    assert contrast("#ffffff", DARK["highlight"]) >= 4.5  # HighlightedText on Highlight
    assert contrast(DARK["highlight"], DARK["base"]) >= 3.0  # the selection, a mark
    assert contrast(DARK["highlight"], DARK["window"]) >= 3.0


def test_the_metrics_help_column_reads_in_the_dark_scheme(qapp, monkeypatch):
    from app import theme
    from app.metrics_panel import help_text

    qapp.setProperty("arl_scheme", "dark")
    try:
        colour = help_text().name()
        assert contrast(colour, DARK["base"]) >= 4.5 and contrast(colour, DARK["window"]) >= 4.5
    finally:
        theme.apply(qapp)
    qapp.setProperty("arl_scheme", "light")
    assert contrast(help_text().name(), "#ffffff") >= 4.5


def _indicator_contrast(qapp, widget_class) -> float:
    """The most contrast any pixel of an unticked indicator has against the dark base, as
    the dark scheme paints it (Fusion; ``app.theme.Indicators``)."""
    from PySide6.QtWidgets import QStyle, QStyleOptionButton

    from app import theme

    box = widget_class("Scroll v1 and v2 together")
    box.resize(box.sizeHint())
    option = QStyleOptionButton()
    option.initFrom(box)
    element = (
        QStyle.SubElement.SE_CheckBoxIndicator
        if widget_class.__name__ == "QCheckBox"
        else QStyle.SubElement.SE_RadioButtonIndicator
    )
    rect = box.style().subElementRect(element, option, box)
    image = box.grab().toImage()
    ratio = image.devicePixelRatio()
    seen = {
        image.pixelColor(int(x * ratio), int(y * ratio)).name()
        for x in range(rect.left(), rect.right() + 1)
        for y in range(rect.top(), rect.bottom() + 1)
    }
    assert theme.is_dark()
    return max(contrast(c, DARK["base"]) for c in seen)


@pytest.mark.parametrize("kind", ["QCheckBox", "QRadioButton"])
def test_an_unticked_indicator_has_a_3_to_1_outline_in_the_dark_scheme(qapp, monkeypatch, kind):
    from PySide6 import QtWidgets

    from app import theme

    monkeypatch.setenv("ARL_THEME", "dark")
    theme.apply(qapp)
    try:
        assert _indicator_contrast(qapp, getattr(QtWidgets, kind)) >= 3.0
    finally:
        monkeypatch.setenv("ARL_THEME", "light")
        theme.apply(qapp)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_chart_colour_has_3_to_1_on_the_chart(scheme):
    from app.suites.charts import PALETTE
    from app.theme import CHART_BACKGROUND

    for colour in PALETTE:
        assert contrast(colour, CHART_BACKGROUND[scheme]) >= 3.0, (colour, scheme)
