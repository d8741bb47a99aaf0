"""A revised Word file's own tracked changes in the bundle (tracked_changes.json, an
arl-bundle/3 member) and the v2 pane's layer of them (engine.word_review.tracked_layer):
tracked insertions with their author, the program's edits that no tracked change accounts
for marked as made without tracking; the program's diff stays the truth."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings, strategies as st

from engine.bundle.read import open_bundle, verify_bundle
from engine.diff.marks import change_view
from engine.text.docx import read_docx
from engine.word_review import tracked_changes_json, tracked_layer
from tests.helpers.word_files import Note, deleted, end, ins, make_docx, para, run, start

DATA = Path(__file__).resolve().parents[1] / "data"


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    body = (
        para(run("The budget "), start(0), run("rose a lot"), end(0), run(" this year."))
        + para(start(1), run("Staff numbers are fine."), end(1))
        + para(run("Nobody asked about this line."))
    )
    notes = [Note(0, "How much?", para_id="00000001"), Note(1, "Check.", para_id="00000002")]
    v1 = tmp_path / "review.docx"
    v1.write_bytes(make_docx(body, notes))
    revised = (
        para(
            run("The budget "),
            start(0),
            deleted("rose a lot"),
            ins(run("rose by 12 %")),
            end(0),
            run(" this year."),
        )
        + para(start(1), run("Staff numbers are fine."), end(1))
        + para(run("Nobody asked about this sentence."))  # changed, not tracked
    )
    v2 = tmp_path / "revised.docx"
    v2.write_bytes(make_docx(revised, notes))
    return v1, v2


def test_the_layer_marks_tracked_and_untracked_edits(tmp_path: Path) -> None:
    v1, v2 = _pair(tmp_path)
    d1, d2 = read_docx(v1.read_bytes()), read_docx(v2.read_bytes())
    changes = tracked_changes_json(d2)
    assert changes and {c["author"] for c in changes} == {"Agent"}
    spans, untracked = tracked_layer(changes, change_view(d1.text, d2.text).marks)
    words = {s["kind"]: d2.text[s["start"] : s["end"]] for s in spans if s["kind"] != "tracked"}
    tracked = [d2.text[s["start"] : s["end"]] for s in spans if s["kind"] == "tracked"]
    assert tracked == ["rose by 12 %"]
    assert [s["label"] for s in spans if s["kind"] == "tracked"] == ["tracked: inserted by Agent"]
    # the untracked edit: "line" -> "sentence" (the diff keeps the letters they share)
    assert list(words) == ["untracked"] and words["untracked"] and words["untracked"] in "sentence"
    assert untracked >= 1
    assert tracked_changes_json(d1) is None


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.text(alphabet="abc 中😀\n", min_size=1, max_size=30),
    st.text(alphabet="abc 中😀\n", max_size=30),
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 6)), max_size=3),
)
def test_untracked_spans_are_exactly_the_edits_no_tracked_change_touches(
    old: str, new: str, tracked_at: list[tuple[int, int]]
) -> None:
    from engine.text.utf16 import utf16_length

    n = utf16_length(new)
    changes = [
        {
            "kind": "insertion",
            "start": min(a, n),
            "end": min(a + k, n),
            "text": "",
            "author": "A",
            "date": "",
        }
        for a, k in tracked_at
    ]
    marks = change_view(old, new).marks
    spans, untracked = tracked_layer(changes, marks)
    ins = [(m.start, m.end) for m in marks if m.kind == "inserted"]
    touched = [
        (m.start, m.end)
        for m in marks
        if m.kind == "inserted"
        and any(c["start"] <= m.end and m.start <= c["end"] for c in changes)
    ]
    flagged = [(s["start"], s["end"]) for s in spans if s["kind"] == "untracked"]
    assert flagged == [x for x in ins if x not in touched]
    assert untracked >= len(flagged)
    for s in spans:
        assert 0 <= s["start"] <= s["end"] <= n


def test_the_bundle_keeps_the_tracked_changes_and_verifies(tmp_path: Path) -> None:
    v1, v2 = _pair(tmp_path)
    out = tmp_path / "bundle"
    p = subprocess.run(
        [sys.executable, "-m", "engine.cli.main", "score", "--v1", str(v1), "--v2", str(v2)]
        + ["--bundle", str(out)],
        capture_output=True,
    )
    assert p.returncode == 0, p.stderr.decode()
    b = open_bundle(out)
    assert b.tracked_changes is not None and b.tracked_changes["version"] == "v2"
    assert b.tracked_changes["changes"] == tracked_changes_json(read_docx(v2.read_bytes()))
    assert "tracked_changes.json" in b.manifest["files"]
    assert verify_bundle(out).ok
    # forged: the manifest's hash no longer matches
    member = out / "tracked_changes.json"
    doc = json.loads(member.read_text(encoding="utf-8"))
    doc["changes"][0]["author"] = "Someone else"
    member.write_text(json.dumps(doc), encoding="utf-8")
    assert verify_bundle(out).tampered
    # a bad shape is a problem named by the member
    doc["changes"][0]["start"] = "3"
    member.write_text(json.dumps(doc), encoding="utf-8")
    assert any("tracked_changes.json" in p for p in open_bundle(out).problems)


def test_a_pair_without_tracked_changes_and_older_bundles_have_none(tmp_path: Path) -> None:
    v1, _ = _pair(tmp_path)
    out = tmp_path / "same"
    p = subprocess.run(
        [sys.executable, "-m", "engine.cli.main", "score", "--v1", str(v1), "--v2", str(v1)]
        + ["--bundle", str(out)],
        capture_output=True,
    )
    assert p.returncode == 0, p.stderr.decode()
    assert open_bundle(out).tracked_changes is None
    assert not (out / "tracked_changes.json").exists()
    old = tmp_path / "old"
    shutil.copytree(DATA / "bundle-min", old)
    b = open_bundle(old)
    assert b.tracked_changes is None and verify_bundle(old).ok
