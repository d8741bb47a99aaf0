"""The published folder is shared (others can write it by design), so a symbolic link
planted there is never followed or copied: by export, listing, checking, opening or
publishing (docs/bundle.md, "The published folder is not trusted")."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.cli.main import main as arl
from engine.publish import published
from tests.engine.test_published import _isolated, runs  # noqa: F401 (fixtures)


@pytest.fixture
def secret(tmp_path) -> Path:
    private = tmp_path / "private"
    private.mkdir()
    (private / "id_ed25519").write_text("PRIVATE KEY MATERIAL")
    (private / "data").mkdir()
    (private / "data" / "workspace.db").write_text("USER DATA")
    return private


@pytest.fixture
def shared(runs, tmp_path) -> Path:  # noqa: F811
    made, _ = runs
    folder = tmp_path / "shared"
    published.publish(made["b-mid"], folder)
    return folder


def _all_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def test_export_copies_no_planted_link(shared, secret, tmp_path, capsys):
    (e,) = published.entries(shared)
    sub = shared / e.scorecard.split("/")[0]
    os.symlink(secret / "id_ed25519", shared / "notes.txt")  # a file link
    os.symlink(secret / "data", shared / "data")  # a folder link
    os.symlink(secret / "id_ed25519", sub / "extra.html")  # a link inside an entry
    (shared / "planted.html").write_text("a plain file nobody published")
    out = tmp_path / "out"
    assert arl(["published", "export", str(out), "--folder", str(shared)]) == 0
    got = _all_bytes(out)
    assert b"PRIVATE KEY" not in got and b"USER DATA" not in got
    assert not any(p.is_symlink() for p in out.rglob("*"))
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert names == {"index.html", "index.json", e.scorecard, e.bundle_copy}


@pytest.mark.parametrize("which", ["scorecard", "bundle_copy", "folder"])
def test_known_files_replaced_by_links_are_not_followed(shared, secret, tmp_path, which):
    (e,) = published.entries(shared)
    sub = shared / e.scorecard.split("/")[0]
    if which == "folder":  # the entry's folder itself becomes a link to a private folder
        real = tmp_path / "moved"
        sub.rename(real)
        for name in ("scorecard.html", "bundle.zip"):
            (secret / "data" / name).write_bytes((real / name).read_bytes())
        os.symlink(secret / "data", sub)
    else:
        target = shared / getattr(e, which)
        target.unlink()
        os.symlink(secret / "id_ed25519", target)
    out = tmp_path / "out"
    published.export(out, shared)
    got = _all_bytes(out)
    assert b"PRIVATE KEY" not in got and b"USER DATA" not in got
    (listed,) = published.entries(shared)
    if which != "scorecard":
        assert "symbolic link" in listed.problem and not listed.metrics


def test_a_linked_index_json_is_not_read(shared, secret, tmp_path):
    fake = secret / "index.json"
    fake.write_text(json.dumps({"runs": [{"bundle_copy": "x/bundle.zip"}]}))
    (shared / "index.json").unlink()
    os.symlink(fake, shared / "index.json")
    assert published.entries(shared) == []
    with pytest.raises(published.PublishError, match="nothing is published"):
        published.export(tmp_path / "out", shared)


def test_publish_never_writes_through_a_planted_link(runs, shared, secret, tmp_path):  # noqa: F811
    made, _ = runs
    (e,) = published.entries(shared)
    victim = secret / "id_ed25519"
    # the temporary names the writer uses, planted as links to a private file
    os.symlink(victim, shared / "index.json.tmp")
    os.symlink(victim, shared / "index.html.tmp")
    os.symlink(victim, shared / e.scorecard.replace(".html", ".html.tmp"))
    published.publish(made["b-mid"], shared)  # republish: the same entry folder
    published.publish(made["c-old"], shared)
    assert victim.read_text() == "PRIVATE KEY MATERIAL"
    assert len(published.entries(shared)) == 2


def test_publish_refuses_an_entry_folder_that_is_a_link(runs, shared, secret):  # noqa: F811
    made, _ = runs
    (e,) = published.entries(shared)
    sub = shared / e.scorecard.split("/")[0]
    for p in sub.iterdir():
        p.unlink()
    sub.rmdir()
    os.symlink(secret / "data", sub)
    with pytest.raises(published.PublishError, match="symbolic link"):
        published.publish(made["b-mid"], shared)
    assert sorted(p.name for p in (secret / "data").iterdir()) == ["workspace.db"]


def test_published_open_refuses_a_linked_page(shared, secret, capsys):
    (e,) = published.entries(shared)
    page = shared / e.scorecard
    page.unlink()
    os.symlink(secret / "id_ed25519", page)
    assert arl(["published", "open", "1", "--folder", str(shared)]) == 2
    assert "symbolic link" in capsys.readouterr().err


def test_a_planted_pipe_does_not_hang_listing_or_export(shared, tmp_path):
    (e,) = published.entries(shared)
    copy = shared / e.bundle_copy
    copy.unlink()
    os.mkfifo(copy)
    (listed,) = published.entries(shared)
    assert listed.problem and not listed.metrics
    published.export(tmp_path / "out", shared)
    assert not (tmp_path / "out" / e.bundle_copy).exists()


def test_a_bidi_override_in_a_title_reorders_nothing_in_the_index(runs, tmp_path):  # noqa: F811
    from engine.bundle.read import open_bundle
    from engine.bundle.write import content_of, write_bundle

    made, _ = runs
    b = open_bundle(made["b-mid"])
    title = "Memo \u202egnp.exe\u202c — مذكرة \u2067عربي\u2069"
    src = write_bundle(tmp_path / "rlo", content_of(b, document_title=title, run_id="run-rlo"))
    folder = tmp_path / "shared-rlo"
    published.publish(src, folder)
    page = (folder / "index.html").read_text(encoding="utf-8")
    assert not any(ch in page for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    assert "[U+202E]gnp.exe[U+202C]" in page and "مذكرة" in page


@pytest.mark.parametrize("where", ["bundle", "index"])
def test_a_full_disk_leaves_no_empty_run_folder(runs, shared, tmp_path, monkeypatch, where):  # noqa: F811
    import errno

    import engine.publish.published as pub

    made, _ = runs
    before = sorted(p.name for p in shared.iterdir())
    index_before = (shared / "index.json").read_bytes()
    real_write = pub._write

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    if where == "bundle":
        monkeypatch.setattr(pub, "_copy_bundle", full)
    else:
        monkeypatch.setattr(
            pub,
            "_write",
            lambda path, text: full() if path.name == "index.json" else real_write(path, text),
        )
    with pytest.raises(published.PublishError, match="No space left"):
        published.publish(made["c-old"], shared)
    assert sorted(p.name for p in shared.iterdir()) == before
    assert (shared / "index.json").read_bytes() == index_before
