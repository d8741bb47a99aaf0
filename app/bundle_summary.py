"""One line about a bundle for the Recent list: document title, model, date and outcome.

Reads only the bundle's ``manifest.json`` (a folder's, or the one inside a ``.zip``), with a
size cap, so it is quick and safe on a stranger's file; runs in a worker thread
(``app.jobs.run_in_thread``). Nothing is verified here: opening the bundle does that.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from engine.vocabulary import untitled_words, when_words

MAX_MANIFEST_BYTES = 2_000_000


def read_manifest(path: str | Path) -> dict[str, Any] | None:
    """The manifest of a bundle folder or zip; None when it cannot be read."""
    p = Path(path)
    try:
        if p.is_dir():
            f = p / "manifest.json"
            if not f.is_file() or f.stat().st_size > MAX_MANIFEST_BYTES:
                return None
            raw = f.read_bytes()
        elif p.is_file() and zipfile.is_zipfile(p):
            with zipfile.ZipFile(p) as z:
                names = [n for n in z.namelist() if n.rsplit("/", 1)[-1] == "manifest.json"]
                if not names:
                    return None
                name = min(names, key=len)
                if z.getinfo(name).file_size > MAX_MANIFEST_BYTES:
                    return None
                raw = z.read(name)
        else:
            return None
        data = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, zipfile.BadZipFile, RuntimeError):
        return None
    return data if isinstance(data, dict) else None


def summary(path: str | Path) -> str:
    """Two lines: ``“Title”`` then ``model · 2026-11-30 · completed`` (what is known); the
    file name when the manifest cannot be read."""
    m = read_manifest(path)
    if m is None:
        return f"{Path(path).name} (cannot be read)"
    # never the folder name ("run-20261201-..."): a bundle with no title is named in words
    title = str(m.get("document_title") or "").strip() or untitled_words(m)
    if len(title) > 80:
        title = title[:77] + "\u2026"
    bits = []
    if m.get("model"):
        bits.append(str(m["model"]))
    when = str(m.get("finished_at") or m.get("created_at") or "")
    if when:
        bits.append(when_words(when))
    if m.get("status"):
        bits.append(str(m["status"]) + (" (scripted)" if m.get("scripted") else ""))
    return f"\u201c{title}\u201d" + ("\n" + " \u00b7 ".join(bits) if bits else "")


def summaries(paths: list[str]) -> list[tuple[str, str]]:
    """``[(path, summary)]`` for the Recent list; two bundles with the same summary (two
    copies of one run) each say their folder on a line of their own."""
    lines = [summary(p) for p in paths]
    counts: dict[str, int] = {}
    for line in lines:
        counts[line] = counts.get(line, 0) + 1
    return [
        (p, line + "\nin " + folder_words(p) if counts[line] > 1 else line)
        for p, line in zip(paths, lines, strict=True)
    ]


def folder_words(path: str | Path) -> str:
    """The folder holding ``path``, the home folder written ``~``."""
    parent = Path(path).parent
    try:
        rel = parent.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(parent)
    return "~" if rel == "." else "~/" + rel
