"""A Word file shaped like Google Docs' *Download > Microsoft Word (.docx)* (built here:
tests/helpers/google_docs.py; no real Google export was available to verify against): its
comments land on their ranged words, its suggestions (tracked changes by the suggester) are
read accepted and kept as the document's own tracked changes, the pair scores and bundles,
the verdicts go back into a Word copy and the program's own revision into tracked changes."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.bundle.read import open_bundle, verify_bundle
from engine.diff.marks import change_view
from engine.text import utf16
from engine.text.docx import read_docx
from engine.word_review import tracked_changes_json, tracked_layer, word_comments
from engine.word_revision import word_revision
from tests.helpers.google_docs import SUGGESTER, review_and_suggestions
from tests.helpers.word_tracked import resolve_all


def _words(doc, c) -> str:
    o = utf16.OffsetMap(doc.text)
    return doc.text[o.to_codepoint(c.start) : o.to_codepoint(c.end)]


def test_comments_land_on_their_ranged_words() -> None:
    reviewed, _ = review_and_suggestions()
    doc = read_docx(reviewed)
    assert doc.text.startswith("Quarterly report\nRevenue grew strongly in Q3.")
    got = {c.text: _words(doc, c) for c in doc.comments}
    assert got == {
        "By how much?": "grew strongly",
        "Source?": "Costs were flat.",
        "Be firm.": "will probably maybe\nhire two people",
    }
    comments, unusable = word_comments(doc)
    assert len(comments) == 3 and not unusable
    assert all(c.status == "open" and c.actionable for c in comments)  # no resolved marks


def test_suggestions_are_read_accepted_with_the_suggester_as_author() -> None:
    reviewed, revised = review_and_suggestions()
    d1, d2 = read_docx(reviewed), read_docx(revised)
    assert "grew by 12 %" in d2.text and "grew strongly" not in d2.text
    assert "\nMargins held at 30 %.\n" in d2.text and "probably" not in d2.text
    changes = tracked_changes_json(d2)
    assert changes and {c["author"] for c in changes} == {SUGGESTER}
    assert {c["kind"] for c in changes} == {"insertion", "deletion"}
    # every edit is a suggestion: nothing reads as made without tracking
    spans, untracked = tracked_layer(changes, change_view(d1.text, d2.text).marks)
    assert untracked == 0 and not [s for s in spans if s["kind"] == "untracked"]
    assert {d2.text[s["start"] : s["end"]] for s in spans} >= {"grew by 12 %"}


def test_the_pair_scores_into_a_bundle_with_the_suggestions(tmp_path: Path) -> None:
    reviewed, revised = review_and_suggestions()
    v1, v2 = tmp_path / "review.docx", tmp_path / "revised.docx"
    v1.write_bytes(reviewed)
    v2.write_bytes(revised)
    out, copy = tmp_path / "bundle", tmp_path / "verdicts.docx"
    p = subprocess.run(
        [sys.executable, "-m", "engine.cli.main", "score", "--v1", str(v1), "--v2", str(v2)]
        + ["--bundle", str(out), "--word-copy", str(copy), "--json"],
        capture_output=True,
    )
    assert p.returncode == 0, p.stderr.decode()
    verdicts = {v["comment_id"]: v["verdict"] for v in json.loads(p.stdout)["verdicts"]}
    assert verdicts == {"1": "edited", "2": "untouched", "3": "edited"}
    b = open_bundle(out)
    assert verify_bundle(out).ok
    assert {c["author"] for c in b.tracked_changes["changes"]} == {SUGGESTER}
    # the verdicts back in Word: a reply on each of the three comments
    back = read_docx(copy.read_bytes())
    assert sum(1 for c in back.comments for r in c.replies if "Agent Review Loop" in r.author) == 3
    docx = pytest.importorskip("docx")
    assert docx.Document(io.BytesIO(copy.read_bytes())).paragraphs


def test_the_programs_revision_of_a_google_export_is_tracked_exactly() -> None:
    reviewed, _ = review_and_suggestions()
    doc = read_docx(reviewed)
    new = doc.text.replace("grew strongly", "grew by 12 %").replace(" maybe\n", " ")
    rev = word_revision(reviewed, doc, new, "2026-12-01T12:00:00Z")
    assert rev.notes == ()
    assert read_docx(resolve_all(rev.data, accept=True)).text == new
    assert read_docx(resolve_all(rev.data, accept=False)).text == doc.text


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_libreoffice_reads_the_google_shaped_files(tmp_path: Path) -> None:
    reviewed, revised = review_and_suggestions()
    for name, data in (("review.docx", reviewed), ("revised.docx", revised)):
        (tmp_path / name).write_bytes(data)
    p = subprocess.run(
        ["soffice", "--headless", "--convert-to", "docx:MS Word 2007 XML", "--outdir"]
        + [str(tmp_path / "lo"), str(tmp_path / "review.docx"), str(tmp_path / "revised.docx")],
        capture_output=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    lo1 = read_docx((tmp_path / "lo" / "review.docx").read_bytes())
    lo2 = read_docx((tmp_path / "lo" / "revised.docx").read_bytes())
    assert lo1.text == read_docx(reviewed).text and len(lo1.comments) == 3
    assert lo2.text == read_docx(revised).text
    assert {c.author for c in lo2.changes} == {SUGGESTER}
