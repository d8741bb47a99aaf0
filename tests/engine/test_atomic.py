"""engine.atomic: the one write-then-rename. A file is written whole or not at all, never
through a link, and nothing is left behind."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings, strategies as st

from engine.atomic import replacing, write_atomic


def test_a_failure_in_the_middle_leaves_the_old_file_and_no_temporary(tmp_path):
    p = tmp_path / "out" / "scores.json"
    p.parent.mkdir()
    p.write_bytes(b"old")
    with pytest.raises(RuntimeError), replacing(p) as fh:
        fh.write(b"half of the new")
        raise RuntimeError("killed")
    assert p.read_bytes() == b"old"
    assert sorted(x.name for x in p.parent.iterdir()) == ["scores.json"]


def test_a_link_at_the_temporary_name_is_removed_never_written_through(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    p = tmp_path / "index.html"
    (tmp_path / "index.html.tmp").symlink_to(victim)  # planted by someone else
    write_atomic(p, "<p>new</p>")
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert p.read_text(encoding="utf-8") == "<p>new</p>" and not p.is_symlink()
    assert not (tmp_path / "index.html.tmp").exists()


def test_a_link_at_the_path_is_replaced_not_its_target(tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("theirs", encoding="utf-8")
    p = tmp_path / "published.json"
    p.symlink_to(target)
    write_atomic(p, "{}")
    assert target.read_text(encoding="utf-8") == "theirs"
    assert not p.is_symlink() and p.read_text(encoding="utf-8") == "{}"


def test_a_temporary_name_of_its_own_and_durable(tmp_path):
    folder = tmp_path / "bundle"
    folder.mkdir()
    dest = folder / "decisions.json"
    tmp = tmp_path / ".bundle.decisions.json.tmp"  # beside the folder, never inside it
    write_atomic(dest, b"[]", tmp=tmp, durable=True)
    assert dest.read_bytes() == b"[]" and not tmp.exists()
    assert sorted(os.listdir(folder)) == ["decisions.json"]


def test_a_missing_folder_is_an_os_error_and_writes_nothing(tmp_path):
    with pytest.raises(OSError):
        write_atomic(tmp_path / "no" / "such" / "file.txt", "x")
    assert not (tmp_path / "no").exists()


@settings(max_examples=50, deadline=None)
@given(
    st.text(
        st.characters(blacklist_categories=("Cs",)),  # text Python can write as UTF-8
        max_size=200,
    )
)
def test_text_in_any_script_is_written_as_its_exact_utf8(tmp_path_factory, text):
    """CJK, Arabic, Thai, emoji, CR and CRLF alike: the bytes are the text's UTF-8, with no
    newline translation."""
    p = tmp_path_factory.mktemp("w") / "out.txt"
    write_atomic(p, text + "\r\n請 مرحبا สวัสดี 👍🏽\r")
    assert p.read_bytes() == (text + "\r\n請 مرحبا สวัสดี 👍🏽\r").encode("utf-8")
