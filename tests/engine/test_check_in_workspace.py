"""A revision checked here is recorded in the workspace as the user's own run
(``engine.run.external.check_revision`` with ``workspace``, ``Workspace.record_check``):
found by the bundle's run id, its comments as they stand after the check, in one
transaction; a workspace that cannot take it leaves the bundle as written."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from engine.comments_io import load_comments
from engine.run.external import ExternalRevision, check_revision
from engine.score.scoring import Version
from engine.threads import answer, run_document
from engine.workspace import Workspace, WorkspaceError

EXAMPLE = Path(__file__).parents[2] / "resources" / "markdown"


def _revision(message: str = "c1: three days now") -> ExternalRevision:
    v1 = (EXAMPLE / "review.md").read_text(encoding="utf-8")
    v2 = (EXAMPLE / "revised.md").read_text(encoding="utf-8")
    comments, _ = load_comments(EXAMPLE / "comments.json", Version.from_source(v1, "markdown").text)
    return ExternalRevision("Remote work policy", "markdown", v1, v2, comments, message)


def test_the_check_is_found_by_its_run_id(tmp_path: Path) -> None:
    rev = _revision()
    with Workspace(tmp_path / "ws.sqlite3") as ws:
        folder, _ = check_revision(rev, tmp_path / "bundles", workspace=ws)
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        run_id = manifest["run_id"]
        doc = run_document(ws, run_id)
        assert doc is not None
        run = ws.run(run_id)
        assert run.status == "completed" and run.bundle == str(folder)
        assert ws.document(doc).title == "Remote work policy"
        assert [v.raw for v in ws.versions(doc)] == [rev.v1, rev.v2]
        after = json.loads((folder / "comments.after.json").read_text())["comments"]
        assert {c.id: c.status for c in ws.comments(doc)} == {c["id"]: c["status"] for c in after}
        # its threads can be answered, where the next round reads them
        c = answer(ws, doc, "c2", "reply", "Still two days in the second paragraph.", "Ann")
        assert c.thread[-1].body.startswith("Still two days")


def test_without_a_workspace_nothing_is_recorded(tmp_path: Path) -> None:
    folder, _ = check_revision(_revision(), tmp_path / "bundles")
    run_id = json.loads((folder / "manifest.json").read_text())["run_id"]
    with Workspace(tmp_path / "ws.sqlite3") as ws:
        assert run_document(ws, run_id) is None and ws.documents() == []


def test_recording_is_all_or_nothing(tmp_path: Path) -> None:
    rev = _revision()
    with Workspace(tmp_path / "ws.sqlite3") as ws:
        versions = (("v1", rev.v1), ("revised", rev.v2))
        ws.record_check("check-1", "T", "markdown", versions, rev.comments, "r", "b")
        with pytest.raises(WorkspaceError, match="already in the workspace"):
            ws.record_check("check-1", "T", "markdown", versions, rev.comments, "r", "b")
        with pytest.raises(WorkspaceError, match="unknown document kind"):
            ws.record_check("check-2", "T", "docx", versions, rev.comments, "r", "b")
        assert len(ws.documents()) == 1 and len(ws.runs()) == 1  # nothing half-written


def test_a_workspace_that_refuses_leaves_the_bundle_written(tmp_path, caplog) -> None:
    class Refusing(Workspace):
        def record_check(self, *args, **kwargs):
            raise WorkspaceError("the workspace is busy or read-only")

    with Refusing(tmp_path / "ws.sqlite3") as ws, caplog.at_level(logging.WARNING):
        folder, _ = check_revision(_revision(), tmp_path / "bundles", workspace=ws)
    assert (folder / "manifest.json").is_file()
    assert "not recorded in the workspace" in caplog.text
