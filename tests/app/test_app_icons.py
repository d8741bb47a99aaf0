"""Icons are drawn, never characters a stock font lacks.

An emoji or a rare symbol shows as an empty box on a stock Linux font set (DejaVu is what
Debian and most distributions install by default). The Run tab draws every event's icon as
an image (``app.icons``); every other character outside ASCII that the program writes in
its own strings is one of a short list of typographic marks and verdict icons that DejaVu
Sans has, checked against the font file itself where it is installed.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Every character outside ASCII that app/ (and the verdict icons of engine/vocabulary.py)
# may write. Each is in DejaVu Sans (test below); a new one must be added here knowingly.
ALLOWED = set("·—’“”•…ℹ↺≠△▶▸○✓✔✕✗✎✍⚠⚑€×−")
# Whole strings that are data the program processes and never shows, with where they are.
NEVER_SHOWN = {
    "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22\u0e07\u0e48\u0e32\u0e22": "app/main.py: the smoke test's "
    "input for ICU's Thai word breaks",
    "\ufeff": "app/hints.py: the byte-order mark a parser drops before the first tag",
}


def _string_chars(path: Path) -> dict[str, int]:
    """Non-ASCII characters in the string literals of a Python file -> first line."""
    out: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in NEVER_SHOWN:
                continue
            for ch in node.value:
                if ord(ch) > 127:
                    out.setdefault(ch, node.lineno)
    return out


def _program_files() -> list[Path]:
    return sorted((ROOT / "app").rglob("*.py")) + [ROOT / "engine" / "vocabulary.py"]


def test_program_strings_use_only_characters_stock_fonts_have():
    bad = []
    for path in _program_files():
        for ch, line in _string_chars(path).items():
            if ch not in ALLOWED:
                bad.append(f"{path.relative_to(ROOT)}:{line}: U+{ord(ch):04X} {ch!r}")
    assert not bad, "draw these as icons (app/icons.py), not characters:\n" + "\n".join(bad)


def test_the_check_finds_an_emoji(tmp_path):
    f = tmp_path / "x.py"
    f.write_text('A = "\\U0001f50f signed"\nB = "\\u23f9 stop"\n', encoding="utf-8")
    assert set(_string_chars(f)) == {"\U0001f50f", "\u23f9"}
    assert not set(_string_chars(f)) <= ALLOWED


DEJAVU = [
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/TTF/DejaVuSans.ttf"),
]


def test_allowed_characters_are_in_dejavu_sans(qapp):
    font = next((p for p in DEJAVU if p.is_file()), None)
    if font is None:
        pytest.skip("DejaVu Sans is not installed here")
    from PySide6.QtGui import QRawFont

    raw = QRawFont(str(font), 12)
    assert raw.isValid()
    missing = [f"U+{ord(c):04X} {c}" for c in sorted(ALLOWED) if not raw.supportsCharacter(ord(c))]
    assert not missing
    assert not raw.supportsCharacter(0x1F50F)  # the check can fail: no emoji there


def test_every_engine_event_has_a_drawn_icon(qapp):
    from app import icons
    from engine import events

    kinds = [
        name
        for name, cls in inspect.getmembers(events, inspect.isclass)
        if issubclass(cls, events.RunEvent) and cls is not events.RunEvent
    ]
    assert kinds
    assert not [k for k in kinds if k not in icons.EVENT_ICONS]
    for name in icons.ICON_NAMES:
        ic = icons.icon(name)
        assert not ic.isNull(), name
        assert not ic.pixmap(16, 16).isNull(), name


def test_run_log_lines_carry_an_icon_and_start_with_words(qtbot):
    from app.runview import RunView
    from engine import events as ev

    view = RunView()
    qtbot.addWidget(view)
    view._on_event(
        ev.RoundStarted(run_id="r", round=1, max_rounds=2, version_id="v1", unresolved=3)
    )
    view._add("signed", "The evidence bundle will be signed with key 1234.")
    view.cancel()  # nothing running: no line
    assert view.log.count() == 2
    for i in range(view.log.count()):
        item = view.log.item(i)
        assert not item.icon().isNull()
        assert re.match(r"[A-Za-z0-9]", item.text()), item.text()
    assert view.log.item(0).data(256) == "round"  # Qt.UserRole


def test_demo_builder_writes_no_emoji():
    text = (ROOT / "tools" / "make_demo_bundle.py").read_text(encoding="utf-8")
    doc = re.search(r'DOC = """(.*?)"""', text, re.S)
    assert doc is not None
    odd = {c for c in doc.group(1) if ord(c) > 127} - ALLOWED
    assert not odd, odd


def test_the_shipped_demo_documents_show_no_empty_box():
    docs = sorted((ROOT / "resources" / "demo").glob("*/document/*.html"))
    if not docs:
        pytest.skip("no demo bundle in this checkout")
    odd = {c for p in docs for c in p.read_text(encoding="utf-8") if ord(c) > 127} - ALLOWED
    assert not odd, odd  # its heading had an emoji (an empty box on stock fonts)
