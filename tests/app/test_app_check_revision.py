"""Check a revision made elsewhere, in the window (app.check_revision): the Start tab's
button and the File menu open the dialog; its bundle is written, verifies and opens."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.check_revision import CheckRevisionDialog, check_files
from engine.bundle.read import open_bundle, verify_bundle

EXAMPLE = Path(__file__).parents[2] / "resources" / "markdown"


def test_check_files_writes_a_bundle_that_verifies(tmp_path):
    path = check_files(
        str(EXAMPLE / "review.md"),
        str(EXAMPLE / "comments.json"),
        str(EXAMPLE / "revised.md"),
        "1: three days now",
        tmp_path,
    )
    assert (path / "agent" / "message.txt").read_text() == "1: three days now"
    assert verify_bundle(path).ok


def test_a_missing_comments_file_is_said_in_words(tmp_path):
    from engine.models import InputError

    with pytest.raises(InputError, match="choose the file of its comments"):
        check_files(str(EXAMPLE / "review.md"), "", str(EXAMPLE / "revised.md"), "", tmp_path)


def test_the_dialog_checks_and_says_what_went_wrong(qtbot, tmp_path):
    dlg = CheckRevisionDialog(None, None, out_dir=tmp_path)
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.start_check()
    assert "Choose the version you reviewed" in dlg.status.text()
    dlg.reviewed.path.setText(str(EXAMPLE / "review.md"))
    dlg.revised.path.setText(str(tmp_path / "missing.md"))
    dlg.start_check()
    qtbot.waitUntil(lambda: "Could not check" in dlg.status.text(), timeout=10000)
    assert "not found" in dlg.status.text()
    dlg.revised.path.setText(str(EXAMPLE / "revised.md"))
    dlg.comments.path.setText(str(EXAMPLE / "comments.json"))
    dlg.message.setPlainText("Addressed all review comments.")
    dlg.tokens.setText("twelve")
    dlg.start_check()
    assert "Tokens: type a whole number" in dlg.status.text()
    dlg.tokens.setText("12,000")
    with qtbot.waitSignal(dlg.checked, timeout=20000) as blocker:
        dlg.start_check()
    assert verify_bundle(Path(blocker.args[0])).ok
    manifest = open_bundle(Path(blocker.args[0])).manifest
    assert manifest["tokens"] is None and manifest["agent_mode"]["typed_tokens"] == 12000
    from app.bundledata import load_bundle
    from app.runview import RunView

    view = RunView(None)
    qtbot.addWidget(view)
    view.show_bundle(load_bundle(Path(blocker.args[0])))
    label = view.tokens_label.text()
    assert label.startswith("Tokens used: not measured: the revision was made by an agent")
    assert "you typed: tokens 12,000 (typed, not measured)" in label


def test_a_docx_that_is_not_one_is_said_in_one_line_of_words(qtbot, tmp_path):
    """Was "not a valid Word package (not a readable zip: File is not a zip file)"."""
    bad = tmp_path / "not-a-doc.docx"
    bad.write_bytes(b"just some text, saved with the wrong name")
    dlg = CheckRevisionDialog(None, None, out_dir=tmp_path)
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.reviewed.path.setText(str(bad))
    dlg.revised.path.setText(str(EXAMPLE / "revised.md"))
    dlg.comments.path.setText(str(EXAMPLE / "comments.json"))
    dlg.start_check()
    qtbot.waitUntil(lambda: "Could not check" in dlg.status.text(), timeout=10000)
    text = dlg.status.text()
    assert "not-a-doc.docx: is not a Word document (its name ends in .docx, but inside" in text
    assert "zip" not in text.replace(str(tmp_path), "")


@pytest.fixture
def window(qtbot):
    from app.window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


def test_the_window_offers_it_on_the_start_tab_and_in_the_file_menu(qtbot, window):
    assert "Check a revision" in window.start.check_btn.text()
    assert window.act_check.text().replace("&", "").startswith("Check a revision")
    window.start.check_btn.click()
    assert isinstance(window._check_dialog, CheckRevisionDialog)
    window._check_dialog.reject()


def test_the_dialog_fits_the_screen_with_its_buttons_always_visible(qtbot):
    """At 1366 x 768 and 1.5x the screen is 911 x 512: the dialog is no taller than the
    screen's room, its body scrolls, its buttons are outside the scroll area."""
    from PySide6.QtWidgets import QScrollArea

    dlg = CheckRevisionDialog(None, None)
    qtbot.addWidget(dlg)
    room = dlg.screen().availableGeometry()
    assert dlg.width() <= room.width() and dlg.height() <= room.height()
    scroll = dlg.findChild(QScrollArea)
    assert scroll is not None and scroll.widget().isAncestorOf(dlg.message)
    assert not scroll.widget().isAncestorOf(dlg.buttons)
    from app.check_revision import fit_to_screen

    class Short:
        def availableGeometry(self):
            from PySide6.QtCore import QRect

            return QRect(0, 0, 911, 512)

    dlg.screen = lambda: Short()  # type: ignore[method-assign]
    fit_to_screen(dlg, 820, 560)
    assert dlg.height() <= 512 * 0.9 + 1 and dlg.width() == 819


def test_a_checked_revision_opens_as_your_own_run(qtbot, window, tmp_path):
    """The bundle a check has just written is in the user's workspace: its thread box
    answers (no "This run is not in your workspace"), and a reply goes there."""
    from app.thread_box import NOT_IN_WORKSPACE

    path = check_files(
        str(EXAMPLE / "review.md"),
        str(EXAMPLE / "comments.json"),
        str(EXAMPLE / "revised.md"),
        "1: three days now",
        tmp_path,
    )
    with qtbot.waitSignal(window.bundleOpened, timeout=30000):
        window.open_bundle(path, remember=False)
    # nothing was pushed here: v2 is the revision checked, not "after 1 push"
    assert window.verdicts.v2_title.text().endswith("the revision you checked (made elsewhere)")
    box = window.verdicts.thread
    qtbot.waitUntil(lambda: box.document_id is not None, timeout=10000)
    window.verdicts.select_comment("c2")
    qtbot.waitUntil(lambda: "In your workspace" in box.state.text(), timeout=10000)
    assert box.state.text() != NOT_IN_WORKSPACE and not box.continue_btn.isVisible()
    assert box.reply.isEnabled()
    box.author = lambda: "Ann"
    box.reply.setText("The second paragraph still says two days.")
    with qtbot.waitSignal(box.answered, timeout=10000):
        box.act("reply")
    from engine.workspace import Workspace

    with Workspace() as ws:
        assert ws.comment(box.document_id, "c2").thread[-1].author == "Ann"


def test_comments_made_by_selecting_words_are_used_for_the_check(qtbot, tmp_path):
    """No comments file for a Markdown revision: the dialog opens the wizard's own comment
    editor on the reviewed version, and the check uses the comments made there."""
    from PySide6.QtWidgets import QWizard

    from app.comments_editor import CommentsEditor
    from app.wizard.comments_page import CommentsPage
    from engine.score.scoring import Version

    dlg = CheckRevisionDialog(None, None, out_dir=tmp_path)
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.edit_comments()
    assert "Choose the version you reviewed first" in dlg.status.text()
    dlg.reviewed.path.setText(str(EXAMPLE / "review.md"))
    dlg.revised.path.setText(str(EXAMPLE / "revised.md"))
    dlg.edit_comments()
    qtbot.waitUntil(lambda: isinstance(dlg._editor, CommentsEditor), timeout=10000)
    editor = dlg._editor
    page = editor.page
    assert type(page) is CommentsPage  # the wizard's editor, not a second one
    raw = (EXAMPLE / "review.md").read_text(encoding="utf-8")
    text = Version.from_source(raw, "markdown").text
    quote = "two days per week"
    start = len(text[: text.index(quote)].encode("utf-16-le")) // 2
    end = start + len(quote.encode("utf-16-le")) // 2
    qtbot.waitUntil(lambda: page.view.is_ready, timeout=20000)
    with qtbot.waitSignal(page.view.anchorSelected, timeout=20000, check_params_cb=bool):
        page.view.select_offsets(start, end)
    assert page.anchor["quote"] == quote
    page.body.setPlainText("Three days, as the board decided.")
    page.add_from_selection()
    finish = editor.button(QWizard.WizardButton.FinishButton)
    assert finish.isEnabled()
    finish.click()
    assert [c.body for c in dlg.made] == ["Three days, as the board decided."]
    assert "1 comment made by selecting words" in dlg.made_label.text()
    with qtbot.waitSignal(dlg.checked, timeout=30000) as blocker:
        dlg.start_check()
    b = open_bundle(Path(blocker.args[0]))
    assert verify_bundle(Path(blocker.args[0])).ok
    assert [(c.anchor.quote, c.body) for c in b.comments_before] == [
        (quote, "Three days, as the board decided.")
    ]
    # another reviewed file: the comments made on the first are not used silently
    dlg.reviewed.path.setText(str(EXAMPLE / "revised.md"))
    dlg.start_check()
    assert "on another file" in dlg.status.text()


def test_a_word_file_or_comments_file_without_comments_says_it_has_none(tmp_path):
    """Not "no comment in it can be used on the reviewed version" for a file that has no
    comment at all: it says it has none (and, for Word, what to do); a file whose comments
    cannot be used says that, with their number and the first reason."""
    import json

    from engine.models import InputError

    docx = Path(__file__).parents[1] / "data" / "docx"
    with pytest.raises(
        InputError,
        match=r"this Word file has no comments \(add them in Word, or by selecting words\)",
    ):
        check_files(
            str(docx / "mammoth-tables.docx"), "", str(docx / "mammoth-simple-list.docx"), ""
        )
    empty = tmp_path / "none.json"
    empty.write_text(json.dumps({"comments": []}))
    review, revised = str(EXAMPLE / "review.md"), str(EXAMPLE / "revised.md")
    with pytest.raises(InputError, match="this file has no comments in it") as got:
        check_files(review, str(empty), revised, "", tmp_path)
    assert str(empty) in str(got.value)
    stray = json.loads((EXAMPLE / "comments.json").read_text())
    for c in stray["comments"]:
        del c["anchor"]
    far = tmp_path / "far.json"
    far.write_text(json.dumps(stray))
    n = len(stray["comments"])
    why = f"none of its {n} comments can be used \\(comment c1: no anchor object; {n - 1} more"
    with pytest.raises(InputError, match=why):
        check_files(review, str(far), revised, "", tmp_path)
