"""Writes resources/corpus/: the built-in corpus that review suites use with zero set-up.

- ``f1000rd/<paper>/``: each F1000RD paper's version 1 (``document.txt``) and its real
  reviewers' sentences anchored to it (``comments.json``), copied from tests/data/f1000rd
  (CC-BY-SA 4.0, derived from F1000RD by UKPLab; see resources/corpus/README.md).
- ``briefs/<name>/``: one short document per one-click brief (written for this project,
  ``document.md`` is kept by hand) with a few reviewer comments, anchored here from the
  quotes below (offsets in UTF-16 units, prefix/suffix of up to 32 characters).
- ``meta.json`` in each: the text length in code points (for size classes) and the source.

Run: ``uv run python tools/make_corpus.py`` (idempotent).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.score.scoring import Version
from engine.text.documents import read_document
from engine.text.utf16 import OffsetMap

OUT = ROOT / "resources" / "corpus"
F1000 = ROOT / "tests" / "data" / "f1000rd" / "docs"

BRIEF_COMMENTS: dict[str, list[tuple[str, str]]] = {
    "policy-memo": [
        (
            "answered within two weeks",
            "Two weeks is too slow for an exception; say five working days.",
        ),
        (
            "Travel to the office is not reimbursed, except for employees who live more than 100 kilometres away.",
            "This contradicts the travel policy: say travel is reimbursed as the travel policy says.",
        ),
        ("Send questions to the people team.", "Give the people team's address or channel."),
    ],
    "incident-report": [
        (
            "but it went to a channel nobody was watching",
            "Name the channel, and say why nobody watched it.",
        ),
        (
            "so the smaller pool caused no errors there",
            "Say this plainly: staging could not have caught it.",
        ),
        (
            "We will run a load test in staging before every change to connection limits.",
            "Who owns this action, and by when?",
        ),
    ],
    "product-spec": [
        ("within two seconds", "Two seconds on which network? State the condition."),
        ("the latest edit wins", "Latest-edit-wins loses data; describe a merge that keeps both."),
        ("half of the households", "Half is vague here: give the number of households."),
    ],
    "release-notes": [
        ("about three times faster", "Say faster than what, measured how."),
        ("The app no longer signs you out after an update.", "Start fixes with what the user saw."),
        (
            "A fix is planned for the next release.",
            "Do not promise a date we cannot keep; remove this.",
        ),
    ],
}


def _anchor(text: str, quote: str) -> dict[str, object]:
    i = text.find(quote)
    if i < 0 or text.find(quote, i + 1) >= 0:
        raise SystemExit(f"quote must occur exactly once: {quote!r}")
    om = OffsetMap(text)
    return {
        "quote": quote,
        "prefix": text[max(0, i - 32) : i],
        "suffix": text[i + len(quote) : i + len(quote) + 32],
        "dom_path": "body",
        "start_offset": om.to_utf16(i),
        "end_offset": om.to_utf16(i + len(quote)),
    }


def _chars(path: Path) -> int:
    kind, raw = read_document(path)
    return len(Version.from_source(raw, kind, "v1").text)


def main() -> None:
    f_out = OUT / "f1000rd"
    if f_out.exists():
        shutil.rmtree(f_out)
    for paper in sorted(p for p in F1000.iterdir() if p.is_dir()):
        d = f_out / paper.name
        d.mkdir(parents=True)
        shutil.copyfile(paper / "v1.txt", d / "document.txt")
        shutil.copyfile(paper / "comments.json", d / "comments.json")
        meta = {"chars": _chars(d / "document.txt"), "source": "F1000RD (UKPLab), CC-BY-SA 4.0"}
        (d / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    for name, specs in BRIEF_COMMENTS.items():
        d = OUT / "briefs" / name
        doc = d / "document.md"
        kind, raw = read_document(doc)
        text = Version.from_source(raw, kind, "v1").text
        comments = [
            {
                "id": f"{name}-c{k}",
                "body": body,
                "author": "reviewer",
                "created_on_version_id": "v1",
                "status": "open",
                "actionable": True,
                "anchor": _anchor(text, quote),
            }
            for k, (quote, body) in enumerate(specs, 1)
        ]
        (d / "comments.json").write_text(
            json.dumps(comments, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        meta = {"chars": len(text), "source": "written for this project"}
        (d / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(OUT)


if __name__ == "__main__":
    main()
