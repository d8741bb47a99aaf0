"""The Verdicts view in the reader's words: no program terms on screen ("offsets
repaired", "1 decision kept"), the exact term kept where it is explained."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app import present
from app.decisions_panel import DecisionPanel


def _decision(**kw):
    base = dict(decision="accept", reason="", reviewer="Ana", decided_at="2026-12-01T10:23:05Z")
    base.update(kw)
    return SimpleNamespace(**base)


@pytest.mark.parametrize("method", ["exact", "none", "diff"])
def test_a_repaired_place_is_said_once_by_the_note_not_by_how_it_was_found(method):
    """ "Found in v2 by: not found in the new version; its saved place no longer
    held the quoted words, so it was found again by them" contradicted itself. The repair
    is about v1; the note says it, once, in words; "how it was found in v2" does not."""
    from engine import vocabulary as vocab

    item = {"method": method, "offsets_repaired": True, "note": vocab.NOTE_OFFSETS_REPAIRED}
    text = present.method_text(item)
    assert text == vocab.METHOD_WORDS[method]
    note = vocab.note_sentence(item["note"])
    assert note == "the comment's saved position had shifted; it was found again by its words"
    assert "offset" not in note and "repaired" not in note


def test_a_token_edit_is_named_once_and_explained():
    from engine import vocabulary as vocab

    item = {
        "method": "diff",
        "similarity": 0.2,
        "v1": {"text": "Friday"},
        "v2": {"text": "FRIDAY"},
        "token_edit": True,
        "token_edit_kind": "only the letter case changed",
        "note": "the text the revision put in place of the quote; token edit: only the letter "
        "case changed",
    }
    shown = present.method_text(item) + " " + vocab.note_sentence(item["note"])
    assert "token edit" not in present.method_text(item)
    assert "a token edit \u2014 only the letter case changed" in shown
    assert "token edit:" not in shown


@pytest.mark.parametrize("n", [1, 2, 5])
def test_a_decision_says_what_came_before_it_in_words(qtbot, n):
    panel = DecisionPanel()
    qtbot.addWidget(panel)
    d = _decision()
    row = {"verdict": "edited", "decision": d, "counted": True}
    panel.show_comment(row, [_decision()] * n)
    text = panel.state.text()
    assert "kept" not in text and "1 Dec 2026, 10:23 UTC" in text
    if n == 1:
        assert "earlier" not in text
    else:
        words = "1 earlier decision" if n == 2 else f"{n - 1} earlier decisions"
        assert f"it replaces {words}, still in the record" in text


# -- decisions while the bundle is checked -------------------------------------------------

DATA = Path(__file__).resolve().parents[1] / "data"


def _decided_bundle(tmp_path: Path) -> Path:
    """bundle-min with comment c1 accepted by Ann (signed with this test's own key)."""
    from arl_keys.signing import signing_key
    from engine.bundle.adjudicate import adjudicate

    bundle = tmp_path / "decided"
    shutil.copytree(DATA / "bundle-min", bundle)
    adjudicate(bundle, "c1", "accept", "", "Ann Reviewer", signing_key().material)
    return bundle


def _opened(qtbot, window, path):
    with qtbot.waitSignal(window.bundleOpened, timeout=30000):
        assert window.open_bundle(path, remember=False)
    return window.verdicts


def test_decisions_being_checked_never_read_no_decision_yet(qtbot, tmp_path):
    from app.window import MainWindow

    bundle = _decided_bundle(tmp_path)
    window = MainWindow()
    qtbot.addWidget(window)
    view = _opened(qtbot, window, bundle)
    # The re-derivation waits for the first screen: the decisions are not checked yet.
    assert view.data.rederivation is None and view.data.decisions_pending
    row = view.rows.index(next(r for r in view.rows if r["id"] == "c1"))
    view.table.selectRow(row)
    cells = [view.table.item(r, 8).text() for r in range(len(view.rows))]
    assert all(c in ("checking\u2026", "") for c in cells), cells
    assert cells[row] == "checking\u2026"
    state = view.decision.state.text()
    assert "No decision yet" not in state and "Checking the reviewer decisions" in state
    # Once checked, the real decision, and the other comments' "no decision yet"
    qtbot.waitUntil(lambda: view.data.rederivation is not None, timeout=60000)
    qtbot.waitUntil(lambda: view.table.item(row, 8).text() == "\u2713 accepted", timeout=10000)
    view.table.selectRow(row)
    assert "Decided:" in view.decision.state.text()
    assert "checking\u2026" not in [view.table.item(r, 8).text() for r in range(len(view.rows))]


def test_a_bundle_without_decisions_says_so_at_once(qtbot):
    from app.window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    view = _opened(qtbot, window, DATA / "bundle-min")
    assert view.data.rederivation is None  # still held for the first screen
    assert not view.data.decisions_pending and view.data.decisions is not None
    assert "No decision yet" in view.decision.state.text()
    assert "checking\u2026" not in [view.table.item(r, 8).text() for r in range(len(view.rows))]
    # the awaiting-review headline needs no wait either
    assert "Awaiting review" in view.banner.text()
    qtbot.waitUntil(lambda: view.data.rederivation is not None, timeout=60000)  # settle


# -- a deleted comment's place in v2 ----------------------------------------------------------


def _long_deletion(tmp_path: Path) -> tuple[Path, str]:
    """A 150-paragraph memo whose paragraph 120, under comment c1, is deleted in v2."""
    from engine.models import Anchor, Comment
    from engine.run.external import ExternalRevision, check_revision
    from engine.score.scoring import Version

    paras = [f"Paragraph {i} sets out rule number {i} of the travel policy." for i in range(150)]
    gone = "Return the laptop within five working days of leaving, 員工 😀."
    paras[120] = gone
    v1 = "".join(f"<p>{p}</p>" for p in paras)
    v2 = "".join(f"<p>{p}</p>" for i, p in enumerate(paras) if i != 120)
    text = Version.from_source(v1, "html").text
    start = text.index(gone)
    start16 = len(text[:start].encode("utf-16-le")) // 2
    end16 = start16 + len(gone.encode("utf-16-le")) // 2
    anchor = Anchor(quote=gone, start_offset=start16, end_offset=end16)
    c = Comment("c1", "Keep this rule.", anchor, author="Ana")
    rev = ExternalRevision("Travel policy", "html", v1, v2, [c], "Addressed all review comments.")
    folder, _ = check_revision(rev, folder=tmp_path / "long")
    return folder, paras[121]


def test_a_deleted_comment_scrolls_v2_to_where_its_text_stood(qtbot, tmp_path):
    from app.window import MainWindow

    bundle, next_paragraph = _long_deletion(tmp_path)
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    view = window.verdicts
    with qtbot.waitSignal(view.rendered, timeout=60000):
        window.open_bundle(bundle, remember=False)
    qtbot.waitUntil(lambda: view.change_cv is not None, timeout=30000)
    qtbot.waitUntil(lambda: not view._pending_views, timeout=30000)
    assert view.rows[0]["verdict"] == "deleted"
    place = view._stood_at(view.rows[0]["item"])
    assert place == view.change_cv.b.index(next_paragraph)  # the next paragraph's start
    spans = [sp for sp in view._spans()[1] if sp["id"] == "c1"]
    assert spans == [spans[0]] and spans[0]["start"] == spans[0]["end"] == place
    # selecting it marks the place in v2 and scrolls there
    view.v2.scroll_to_offset(0)
    with qtbot.waitCallback(timeout=10000) as cb:
        view.v2.focus_span("c1", cb)
    assert cb.args[0] is True
    with qtbot.waitCallback(timeout=10000) as cb:
        view.v2.run_js("window.scrollY", cb)
    assert cb.args[0] > 1000
    with qtbot.waitCallback(timeout=10000) as cb:
        view.v2.top_offset(cb)
    top = cb.args[0]
    assert top is not None and top <= place < top + 2000
    assert "a caret in v2 marks where it stood" in view.detail.toPlainText()


def test_the_banner_names_a_forged_decision_by_its_comment_number(qtbot, tmp_path):
    from app.window import MainWindow
    from engine.bundle import signing
    from engine.bundle.adjudicate import new_decision_files, write_decisions
    from engine.bundle.decisions import Decision
    from engine.bundle.read import open_bundle

    bundle = tmp_path / "forged"
    shutil.copytree(DATA / "bundle-min", bundle)
    key = signing.new_private_key()
    ident = signing.trust_key(signing.public_key(key), "Ann")
    d = Decision("c1", 1, "untouched", "accept", "", "Ann", ident, "2026-12-01T10:23:05Z")
    write_decisions(bundle, new_decision_files(open_bundle(bundle).manifest_bytes, [], [], d, key))
    window = MainWindow()
    qtbot.addWidget(window)
    view = _opened(qtbot, window, bundle)
    qtbot.waitUntil(lambda: "decisions fail their checks" in view.banner.text(), timeout=60000)
    banner = view.banner.text()
    assert "the decision on comment 1 (Ann, 1 Dec 2026, 10:23 UTC)" in banner
    assert "comment c1" not in banner and "2026-12-01T" not in banner


def test_the_status_bar_names_a_long_or_broken_title_on_one_line(qtbot, tmp_path):
    import json

    from app.window import MainWindow

    bundle = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", bundle)
    m = json.loads((bundle / "manifest.json").read_text())
    m["document_title"] = "Policy\n\nfor " + "remote " * 60 + "work"
    (bundle / "manifest.json").write_text(json.dumps(m))  # (tampered: still opens)
    window = MainWindow()
    qtbot.addWidget(window)
    _opened(qtbot, window, bundle)
    said = window.statusBar().currentMessage()
    assert "\n" not in said and said.startswith("Opened \u201cPolicy for remote remote")
    assert "\u2026\u201d, the run of " in said and len(said) < 200
    assert str(bundle) in window.statusBar().toolTip()
    window.statusBar().showMessage("something else")
    assert window.statusBar().toolTip() == ""  # the tooltip belonged to that message
    qtbot.waitUntil(lambda: window.data.rederivation is not None, timeout=60000)  # settle
