"""The scorecard in dark colours (``engine.bundle.scorecard.DARK_RULES``): every text colour
reads at 4.5:1 on what it is drawn on (WCAG 1.4.3), and the page carries the dark rules for
a reader's dark preference and for the program's dark scheme (the ``arl-dark`` mark)."""

from __future__ import annotations

import re

import pytest

from engine.bundle.scorecard_css import CSS as _CSS, DARK_RULES


def _lum(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) / 255 for i in (0, 2, 4))

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_lum(a), _lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _decl(body: str, name: str) -> str | None:
    m = re.search(rf"(?:^|;){name}:(#[0-9a-fA-F]{{6}})", body)
    return m.group(1) if m else None


RULES = dict(DARK_RULES)
PAGE = _decl(RULES["body"], "background")
TABLE = _decl(RULES["table"], "background")
HEAD = _decl(RULES["th"], "background")


@pytest.mark.parametrize(("selectors", "body"), DARK_RULES)
def test_every_dark_text_colour_reads_on_its_background(selectors, body):
    colour = _decl(body, "color")
    if colour is None:
        return
    own = _decl(body, "background")
    for back in [own] if own else [PAGE, TABLE, HEAD]:
        assert contrast(colour, back) >= 4.5, (selectors, colour, back)


def test_text_without_a_colour_of_its_own_reads_on_every_dark_background():
    text = _decl(RULES["body"], "color")
    for selectors, body in DARK_RULES:
        back = _decl(body, "background")
        if back and _decl(body, "color") is None:
            assert contrast(text, back) >= 4.5, selectors


def test_the_page_has_the_dark_rules_for_a_browser_and_for_the_program():
    assert "@media (prefers-color-scheme:dark){:root{color-scheme:dark}body{" in _CSS
    assert ":root.arl-dark .v-edited{" in _CSS and ":root.arl-dark body{" in _CSS
    assert ":root.arl-dark .failed,:root.arl-dark .tampered{" in _CSS
