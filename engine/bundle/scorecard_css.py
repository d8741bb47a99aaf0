"""The scorecard page's style sheet: light, and the same page in dark colours for a
reader whose browser asks for dark and for the program's dark scheme (the ``arl-dark``
mark on the page's root, ``resources/web/arl-early.js``). Inline in the page (its CSP
allows inline styles only)."""

from __future__ import annotations

__all__ = ["CSS", "DARK_RULES"]

CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1c1c1c;margin:0;
background:#f6f6f4}main{max-width:70em;margin:0 auto;padding:1.5em}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ccc}
.banner{padding:.7em 1em;border-radius:6px;margin:.8em 0;font-weight:600}
.nothing,.awaiting{background:#fff4d6;border:1px solid #b07a00}
.completed{background:#e8eef6;border:1px solid #5a7ca8}.cancelled{background:#fff4d6;
border:1px solid #c9a227}.failed{background:#fbe3e1;border:1px solid #c0463b}
.scripted{background:#e9e4f7;border:2px dashed #6a4fb3;color:#3b2a73}
.tampered{background:#fbe3e1;border:2px solid #c0463b;color:#7a1d14}
table{border-collapse:collapse;width:100%;background:#fff;margin:.5em 0}
table.verdicts{table-layout:fixed}table.verdicts td:first-child{overflow-wrap:anywhere}
th,td{border:1px solid #ddd;padding:.45em .6em;text-align:left;vertical-align:top}
th{background:#eeeeea;font-weight:600}td.num{white-space:nowrap;font-weight:600}
.facts th{width:14em}.na{color:#7a4b00;font-weight:600}.muted{color:#555;font-size:.92em}
.v{white-space:nowrap;font-weight:600;padding:.1em .3em;border-radius:4px}
.v-edited{background:#dcefdc;color:#1e5e27}.v-untouched{background:#fde2cf;color:#8a3a00}
.v-deleted{background:#e3e3f7;color:#2f2f7a}.v-stale_anchor{background:#eee;color:#444}
.quote{font-family:ui-serif,Georgia,serif;white-space:pre-wrap;word-break:break-word}
.line{font-family:ui-monospace,monospace;font-size:.9em}
.differs{font-family:inherit;font-weight:600;color:#7a1d14;background:#fbe3e1}
"""

# The same page in dark colours, text at 4.5:1 or more on what it is drawn on
# (tests/engine/test_scorecard_dark.py): for a reader whose browser asks for dark
# (prefers-color-scheme), and inside the program in its dark scheme, whose view marks the
# page's root ``arl-dark`` (resources/web/arl-early.js, #arl-dark); the page is the same
# bytes either way.
DARK_RULES: tuple[tuple[str, str], ...] = (
    ("body", "color:#e8e8e8;background:#1f1f1f"),
    ("h2", "border-bottom-color:#555"),
    (".nothing,.awaiting,.cancelled", "background:#3a3000;border-color:#d9a400;color:#f3e6c0"),
    (".completed", "background:#1d2a3a;border-color:#6f93c4;color:#dbe6f5"),
    (".failed,.tampered", "background:#3d1815;border-color:#e0685c;color:#ffd2cc"),
    (".scripted", "background:#2a2340;border-color:#a48ae0;color:#ddd3ff"),
    ("table", "background:#262626"),
    ("th,td", "border-color:#4a4a4a"),
    ("th", "background:#303030;color:#e8e8e8"),
    (".na", "color:#f0b860"),
    (".muted", "color:#b0b0b0"),
    (".v-edited", "background:#16391c;color:#8fdc9a"),
    (".v-untouched", "background:#4a2408;color:#ffb27a"),
    (".v-deleted", "background:#24244a;color:#c4c4ff"),
    (".v-stale_anchor", "background:#333333;color:#d0d0d0"),
    (".differs", "color:#ffd2cc;background:#3d1815"),
)


def _dark_css() -> str:
    """``DARK_RULES`` under the reader's dark preference and under the program's mark."""

    def rules(prefix: str) -> str:
        out = []
        for selectors, body in DARK_RULES:
            scoped = ",".join(prefix + one for one in selectors.split(","))
            out.append(f"{scoped}{{{body}}}")
        return "".join(out)

    return (
        f"@media (prefers-color-scheme:dark){{:root{{color-scheme:dark}}{rules('')}}}\n"
        f":root.arl-dark{{color-scheme:dark}}{rules(':root.arl-dark ')}\n"
    )


CSS += _dark_css()
