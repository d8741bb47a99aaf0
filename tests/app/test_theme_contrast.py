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
