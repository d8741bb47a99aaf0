"""The files `arl score` is given, checked before anything is scored
(engine.cli.score_files): a --word-copy never over an input file, nor over an existing file
without --force; a document that is a comments file; a Word file given as --comments; a
--bundle that names a file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from engine.cli.main import main as arl_main
from tests.engine.test_docx_cli import arl, review

COMMENTS = [
    {
        "id": "c1",
        "body": "fix this",
        "anchor": {"quote": "Fees are due in June.", "start_offset": 0, "end_offset": 21},
    }
]


def _html_pair(tmp_path: Path) -> tuple[Path, Path, Path]:
    a, b, c = tmp_path / "a.html", tmp_path / "b.html", tmp_path / "comments.json"
    a.write_text("<p>Fees are due in June. Call the office.</p>", encoding="utf-8")
    b.write_text("<p>Fees are due in July. Call the office.</p>", encoding="utf-8")
    c.write_text(json.dumps(COMMENTS), encoding="utf-8")
    return a, b, c


def _run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = arl_main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("which", ["v1", "v2"])
def test_word_copy_never_writes_over_an_input_even_with_force(tmp_path: Path, which: str) -> None:
    v1, v2 = review(tmp_path)
    target = {"v1": v1, "v2": v2}[which]
    before = _digest(target)
    for extra in ((), ("--force",)):
        code, out, err = arl("score", "--v1", v1, "--v2", v2, "--word-copy", target, *extra)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert f"would write over the --{which} file" in err and str(target) in err
        assert _digest(target) == before


def test_word_copy_through_another_path_to_the_input_is_refused(tmp_path: Path) -> None:
    v1, v2 = review(tmp_path)
    link = tmp_path / "link.docx"
    link.symlink_to(v2)
    before = _digest(v2)
    code, _, err = arl("score", "--v1", v1, "--v2", v2, "--word-copy", link, "--force")
    assert code == 2 and "--v2 file" in err and _digest(v2) == before
    # the same file by a path spelt another way
    other = tmp_path / "sub" / ".." / "revised.docx"
    (tmp_path / "sub").mkdir()
    code, _, err = arl("score", "--v1", v1, "--v2", v2, "--word-copy", other, "--force")
    assert code == 2 and "--v2 file" in err and _digest(v2) == before


def test_word_copy_over_an_existing_file_needs_force(tmp_path: Path) -> None:
    v1, v2 = review(tmp_path)
    out = tmp_path / "notes.html"
    out.write_text("my notes", encoding="utf-8")
    code, _, err = arl("score", "--v1", v1, "--v2", v2, "--word-copy", out)
    assert code == 2 and err.count("\n") == 1
    assert "already exists" in err and "--force" in err and str(out) in err
    assert out.read_text(encoding="utf-8") == "my notes"
    code, _, err = arl("score", "--v1", v1, "--v2", v2, "--word-copy", out, "--force")
    assert code == 0, err
    from engine.text.docx import read_docx

    assert read_docx(out.read_bytes()).comments


def test_a_comments_file_given_as_a_document_is_refused_with_the_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, c = _html_pair(tmp_path)
    as_text = tmp_path / "comments.txt"  # the same JSON under a document's extension
    as_text.write_text(c.read_text(encoding="utf-8"), encoding="utf-8")
    for option, args in (
        ("v1", ("--v1", c, "--v2", b)),
        ("v2", ("--v1", a, "--v2", c)),
        ("v1", ("--v1", as_text, "--v2", b)),
    ):
        code, out, err = _run(capsys, "score", *args, "--comments", c)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert f"given as --{option}" in err
        assert "this looks like a comments file; pass it with --comments" in err


def test_any_json_file_as_a_document_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, c = _html_pair(tmp_path)
    for text in ('{"name": "x"}', "[1, 2]", "not json at all", ""):
        j = tmp_path / "data.json"
        j.write_text(text, encoding="utf-8")
        code, _, err = _run(capsys, "score", "--v1", j, "--v2", b, "--comments", c)
        assert code == 2 and err.count("\n") == 1 and "a JSON file, not a document" in err
    # an ordinary document that begins with a bracket is still scored
    a.write_text("[Draft] Fees are due in June. Call the office.", encoding="utf-8")
    t = tmp_path / "a.txt"
    a.rename(t)
    code, out, err = _run(capsys, "score", "--v1", t, "--v2", b, "--comments", c)
    assert code == 0 and "c1:" in out, err


def test_a_word_file_given_as_comments_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, _ = _html_pair(tmp_path)
    v1, _ = review(tmp_path)
    renamed = tmp_path / "review.bin"  # a .docx under another name: its ZIP signature says
    renamed.write_bytes(v1.read_bytes())
    for given in (v1, renamed):
        code, _, err = _run(capsys, "score", "--v1", a, "--v2", b, "--comments", given)
        assert code == 2 and err.count("\n") == 1 and "byte" not in err
        assert "this is a Word document; comments are read from a Word file given as --v1" in err


def test_a_bundle_over_a_file_names_the_bundle_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, c = _html_pair(tmp_path)
    taken = tmp_path / "afile"
    taken.write_text("keep", encoding="utf-8")
    code, out, err = _run(
        capsys, "score", "--v1", a, "--v2", b, "--comments", c, "--bundle", taken, "--tokens", "5"
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"arl: --bundle {taken}: is a file") and "--tokens" not in err
    assert taken.read_text(encoding="utf-8") == "keep"
