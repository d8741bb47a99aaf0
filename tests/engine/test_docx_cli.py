"""`arl text review.docx` and `arl score --v1 review.docx --v2 revised.docx`: comments from
the reviewed file, claims from the revised file's resolved marks (README, "Word")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers.word_files import Note, deleted, end, ins, make_docx, para, run, start


def arl(*args: object) -> tuple[int, str, str]:
    p = subprocess.run(
        [sys.executable, "-m", "engine.cli.main", *map(str, args)], capture_output=True
    )
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def review(tmp_path: Path) -> tuple[Path, Path]:
    body = (
        para(run("The budget "), start(0), run("rose a lot"), end(0), run(" this year."))
        + para(start(1), run("Staff numbers are fine."), end(1))
        + para(start(2), run("Unclear sentence here."), end(2))
        + para(run("A point comment"), '<w:r><w:commentReference w:id="3"/></w:r>')
    )
    notes = [
        Note(0, "How much?", para_id="00000001", durable="11"),
        Note(1, "Check this.", para_id="00000002", durable="12"),
        Note(2, "Rewrite.", para_id="00000003", durable="13"),
        Note(3, "Point.", para_id="00000004", durable="14"),
    ]
    v1 = tmp_path / "review.docx"
    v1.write_bytes(make_docx(body, notes))
    # The agent: a tracked edit inside comment 1's range, resolves 1 and 2 (2 unchanged:
    # the VERIFICATION line), replies on 1.
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
        + para(start(2), run("Unclear sentence here."), end(2))
        + para(run("A point comment"), '<w:r><w:commentReference w:id="3"/></w:r>')
    )
    notes[0].done = notes[1].done = True
    notes.append(Note(4, "Gave the figure.", author="Agent", para_id="00000005", parent="00000001"))
    v2 = tmp_path / "revised.docx"
    v2.write_bytes(make_docx(revised, notes))
    return v1, v2


def test_text_prints_what_the_offsets_index(tmp_path: Path) -> None:
    v1, _ = review(tmp_path)
    code, out, err = arl("text", v1)
    assert (code, err) == (0, "")
    assert out == (
        "The budget rose a lot this year.\nStaff numbers are fine.\nUnclear sentence here.\n"
        "A point comment"
    )


def test_score_two_word_files_without_comments_or_claims_files(tmp_path: Path) -> None:
    v1, v2 = review(tmp_path)
    code, out, err = arl("score", "--v1", v1, "--v2", v2, "--json")
    assert code == 0, err
    result = json.loads(out)
    verdicts = {v["comment_id"]: v for v in result["verdicts"]}
    assert verdicts["1"]["verdict"] == "edited" and verdicts["1"]["v1"]["text"] == "rose a lot"
    assert verdicts["1"]["v2"]["text"] == "rose by 12 %"
    assert verdicts["1"]["claim"] == "addressed" and verdicts["1"]["claim_agrees"] is True
    assert verdicts["2"]["verdict"] == "untouched" and verdicts["2"]["claim"] == "addressed"
    assert verdicts["2"]["claim_agrees"] is False
    assert verdicts["3"]["claim"] is None
    assert "4" not in verdicts
    assert "comment 4 skipped: its range is missing" in err
    assert "VERIFICATION" in err and "(comment 2: resolved)" in err
    assert "Traceback" not in err


def test_score_summary_reads_in_plain_words(tmp_path: Path) -> None:
    v1, v2 = review(tmp_path)
    code, out, err = arl("score", "--v1", v1, "--v2", v2)
    assert code == 0, err
    assert "3 comments scored: 1 edited, 2 untouched" in out
    assert "review.docx: comment 4 skipped" in out


def test_html_v1_still_needs_a_comments_file(tmp_path: Path) -> None:
    doc = tmp_path / "a.html"
    doc.write_text("<p>x</p>", encoding="utf-8")
    code, out, err = arl("score", "--v1", doc, "--v2", doc)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--comments" in err


def test_bad_word_files_exit_2_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "memo.docx"
    bad.write_bytes(b"not a zip at all")
    for args in (("text", bad), ("score", "--v1", bad, "--v2", bad)):
        code, out, err = arl(*args)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and "memo.docx: is not a Word document" in err


def test_word_copy_is_written_whole(tmp_path: Path) -> None:
    v1, v2 = review(tmp_path)
    out = tmp_path / "verdicts.docx"
    code, _, err = arl("score", "--v1", v1, "--v2", v2, "--word-copy", out)
    assert code == 0, err
    assert "wrote" in err and "3 verdict replies written; 1 comment reopened" in err
    assert "(ies)" not in err and "(s)" not in err
    from engine.text.docx import read_docx

    back = read_docx(out.read_bytes())
    assert [len(c.replies) for c in back.comments if c.problem is None] == [2, 1, 1]
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []


def test_word_copy_needs_word_files(tmp_path: Path) -> None:
    doc = tmp_path / "a.html"
    doc.write_text("<p>words here</p>", encoding="utf-8")
    comments = tmp_path / "c.json"
    comments.write_text(
        '[{"id": "c1", "body": "x", "anchor": {"quote": "words", "start_offset": 0, "end_offset": 5}}]',
        encoding="utf-8",
    )
    out = tmp_path / "verdicts.docx"
    code, _, err = arl(
        "score", "--v1", doc, "--v2", doc, "--comments", comments, "--word-copy", out
    )
    assert code == 2 and err.count("\n") == 1 and "--word-copy needs" in err
    assert not out.exists()


def test_run_takes_the_comments_from_a_word_file(tmp_path: Path, capsys) -> None:
    from engine.bundle.read import verify_bundle
    from engine.cli.main import main
    from tests.helpers.scripted_server import FixEverything, ScriptedServer

    doc = Path(__file__).resolve().parents[2] / "resources" / "word" / "review.docx"
    with ScriptedServer(FixEverything()) as srv:
        code = main(
            ["run", "--yes", "--doc", str(doc), "--base-url", srv.base_url, "--model", srv.model]
            + ["--out", str(tmp_path / "bundles"), "--json"]
        )
    out, err = capsys.readouterr()
    assert code == 0, out + err
    last = json.loads(out)
    assert last["status"] == "completed" and verify_bundle(last["bundle"]).ok
    assert last["metrics"]["attribution_rate"]["denominator"] == 4
    # the manifest says the reviewed version was a Word file; the scorecard says so in words
    manifest = json.loads((Path(last["bundle"]) / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["word_versions"] == ["v1"] and manifest["document_kind"] == "html"
    card = (Path(last["bundle"]) / "scorecard.html").read_text(encoding="utf-8")
    assert "a Word document (.docx); the agent&#x27;s versions are pages" in card


def test_run_on_html_still_needs_a_comments_file(tmp_path: Path) -> None:
    doc = tmp_path / "a.html"
    doc.write_text("<p>x</p>", encoding="utf-8")
    code, out, err = arl(
        "run", "--yes", "--doc", doc, "--base-url", "http://127.0.0.1:9/v1", "--model", "m"
    )
    assert code == 2 and err.count("\n") == 1 and "--comments" in err


def test_a_bundle_of_two_word_files_keeps_the_claims_of_the_resolved_marks(tmp_path: Path) -> None:
    v1, v2 = review(tmp_path)
    bundle = tmp_path / "bundle"
    code, out, err = arl("score", "--v1", v1, "--v2", v2, "--bundle", bundle, "--json")
    assert code == 0, err
    claims = {v["comment_id"]: v["claim"] for v in json.loads(out)["verdicts"]}
    assert claims == {"1": "addressed", "2": "addressed", "3": None}
    message = json.loads((bundle / "agent" / "message.txt").read_text(encoding="utf-8"))
    assert [c["comment_id"] for c in message["comments"]] == ["1", "2"]
    code, _, err = arl("bundle", "verify", bundle)
    assert code == 0, err
    final = json.loads((bundle / "verdicts.json").read_text(encoding="utf-8"))["final"]
    assert {v["comment_id"]: v["claim"] for v in final} == claims
    # both inputs were Word files: the manifest says so, the scorecard never says "(html)"
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["word_versions"] == ["v1", "v2"]
    card = (bundle / "scorecard.html").read_text(encoding="utf-8")
    # the title is the file's name, which says ".docx": the kind does not say it again
    title = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))["document_title"]
    assert title.endswith(".docx")
    assert f"<th>Document</th><td>{title}</td>" in card
    assert "<th>Kind of document</th><td>a Word document</td>" in card
    assert "(html)" not in card and "(.docx)" not in card


def test_word_copy_of_a_revision_that_deleted_a_commented_paragraph(tmp_path: Path) -> None:
    from tests.engine.test_docx_write import _python_docx_pair

    v1, v2 = tmp_path / "travel.docx", tmp_path / "travel-revised.docx"
    for path, data in zip((v1, v2), _python_docx_pair(drop_comment=False), strict=True):
        path.write_bytes(data)
    out = tmp_path / "verdicts.docx"
    code, _, err = arl("score", "--v1", v1, "--v2", v2, "--word-copy", out)
    assert code == 0, err
    assert (
        "1 of them on a comment the revised file had lost, put back in place" in err
        and "no place" not in err
    )
