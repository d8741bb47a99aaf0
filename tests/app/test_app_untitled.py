"""A bundle whose manifest holds no document title is never named by its folder
("run-20261201-..."): its document's title or first heading, else in words ("Untitled
check of 2 Dec 2026, 14:29 UTC"), in the window's title, the Run tab, the banner and the
Recent list."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("PySide6")

from app.bundle_summary import summary
from app.bundledata import BundleData
from app.verdicts import bundle_name_html

FOLDER = Path("/nowhere/run-20261201-003100-run-901a758c16f4")
RUN = {"created_at": "2026-12-01T00:31:00Z", "status": "completed"}
CHECK = {**RUN, "agent_mode": {"ran": "external"}}


class _Source:
    """The engine bundle's v1, as ``BundleData.source`` gives it."""

    def __init__(self, kind: str, source: str) -> None:
        self.v1 = SimpleNamespace(kind=kind, source=source)

    def version(self, name: str):
        if name != "v1":
            raise KeyError(name)
        return self.v1


@pytest.mark.parametrize(
    ("manifest", "source", "kind", "said"),
    [
        ({**RUN, "document_title": "Memo"}, "<h1>Other</h1>", "html", "Memo"),
        (RUN, "<title>Leave</title><h1>Other</h1>", "html", "Leave"),
        (RUN, "<p>Intro</p><h2>Travel policy</h2>", "html", "Travel policy"),
        (RUN, "Some words\n\n# Remote work\n", "markdown", "Remote work"),
        (RUN, "\n\nLeave rules\nsecond line", "text", "Leave rules"),
        (RUN, "<p>no heading at all</p>", "html", "Untitled run of 1 Dec 2026, 00:31 UTC"),
        (CHECK, "<p>none</p>", "html", "Untitled check of 1 Dec 2026, 00:31 UTC"),
        ({"status": "completed"}, "", "html", "Untitled document"),
    ],
)
def test_a_bundle_with_no_title_is_named_in_words(manifest, source, kind, said) -> None:
    data = BundleData(path=FOLDER, manifest=dict(manifest), v1="<title>v1</title>", v2="")
    data.source = _Source(kind, source)
    assert data.title == said
    assert "run-2026" not in data.title and "run-2026" not in bundle_name_html(data)


def test_the_banner_says_no_title_once() -> None:
    data = BundleData(path=FOLDER, manifest=dict(CHECK), v1="<p>x</p>", v2="")
    assert bundle_name_html(data) == (
        "<b>A document with no title</b>, the check of 1 Dec 2026, 00:31 UTC"
    )


def test_the_recent_list_names_an_untitled_bundle_in_words(tmp_path) -> None:
    folder = tmp_path / "run-20261201-003100-run-901a758c16f4"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({**RUN, "model": "m"}), encoding="utf-8")
    first = summary(folder).splitlines()[0]
    assert first == "\u201cUntitled run of 1 Dec 2026, 00:31 UTC\u201d"
