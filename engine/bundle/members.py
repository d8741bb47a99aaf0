"""A bundle's member files as ``engine.bundle.read`` takes them: ``FileReader`` reads each
as text, JSON (its shape checked by ``engine.bundle.schema``) or comments, never raising
(what cannot be read is a line in ``problems``); ``stubs_of`` finds the members written as
stubs (docs/bundle.md, "Stubs").
"""

from __future__ import annotations

from typing import Any

from engine.bundle.archive import SIGNATURE_FILE, BundleError, load_json, read_stub
from engine.models import Comment, comment_from_checked


def stubs_of(
    manifest: dict[str, Any], files: dict[str, bytes]
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The members the manifest lists in ``stubbed`` that hold a stub (name -> stub), and a
    problem line for each listed name that is not a stub (the manifest and the signature
    are never stubs)."""
    listed = manifest.get("stubbed")
    if not isinstance(listed, list):
        return {}, []
    stubs: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for name in listed:
        if not isinstance(name, str) or name in ("manifest.json", SIGNATURE_FILE):
            problems.append(f"manifest.json: {name!r} cannot be a stubbed member")
            continue
        data = files.get(name)
        stub = read_stub(data) if data is not None else None
        if stub is None:
            problems.append(f"{name} is listed in 'stubbed' but does not hold a stub")
            continue
        stubs[name] = stub
    return stubs, problems


class FileReader:
    """Reads a bundle's member files as text, JSON or comments, never raising: what cannot
    be read is a line in ``problems`` and the caller gets a default of the right type."""

    def __init__(self, files: dict[str, bytes], fmt: str, problems: list[str]) -> None:
        self.files = files
        self.fmt = fmt
        self.problems = list(problems)
        self.stubs: dict[str, dict[str, Any]] = {}
        """Members written as stubs: read as empty, without a problem."""

    def text(self, name: str) -> str:
        if name in self.stubs:
            return ""
        data = self.files.get(name)
        if data is None:
            self.problems.append(f"{name} is missing")
            return ""
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            self.problems.append(f"{name} is not UTF-8")
            return data.decode("utf-8", "replace")

    def json(self, name: str, default: Any) -> Any:
        """The parsed file when it fits its shape; else ``default`` and a problem line (a
        view never sees a value of the wrong type). A stubbed member: ``default``."""
        if name in self.stubs:
            return default
        data = self.files.get(name)
        if data is None:
            self.problems.append(f"{name} is missing")
            return default
        try:
            obj = load_json(data, name)
        except BundleError as exc:
            self.problems.append(str(exc))
            return default
        from engine.bundle.schema import check_file

        shape = check_file(name, obj, self.fmt)
        if shape:
            self.problems.extend(shape)
            return default
        return obj

    def comments(self, name: str) -> list[Comment]:
        obj = self.json(name, {"comments": []})
        items = obj.get("comments", []) if isinstance(obj, dict) else obj
        out = []
        for item in items if isinstance(items, list) else []:
            try:
                out.append(comment_from_checked(item))  # the shape: checked by json()
            except ValueError as exc:
                self.problems.append(f"{name}: {exc}")
        return out
