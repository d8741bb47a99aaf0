"""Where a reviewer's decisions on a bundle are written: in the bundle itself when it is the
user's to change, else in the user's own copy of it (``decisions_bundle``).

The rule (``copy_reason``): a bundle shipped with the program (under its ``resources``
folder: the example, the demonstration) or one whose folder this user cannot write (a
read-only mount, another user's folder, an installed program's files) is never written in
place. Its first decision copies it, byte for byte as it was read (members, earlier decisions
too), into the user's bundles folder (``copies_folder``: ``$ARL_HOME/bundles``, else
``bundles`` in the user's data folder, where runs write theirs); later decisions, and a later
opening (``find_copy``), go to that copy. A copy is the same bundle (the same
``manifest.json``, byte for byte) under the original's name, or under
``<name>-<first 8 hex of the manifest's SHA-256>`` when a different bundle has that name.
"""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

from engine.bundle.archive import BundleError, read_files, sha256
from engine.bundle.bundle import write_zip
from engine.bundle.read import manifest_check

SHIPPED = "it is shipped with the program"
READ_ONLY = "its folder cannot be written by you"


@dataclass(frozen=True)
class DecisionsHome:
    """Where decisions on a bundle go: ``bundle`` (a folder or a ``.zip``); ``copied_from``
    the bundle asked for when ``bundle`` is the user's copy of it (None when written in
    place), ``why`` the reason in plain words (``SHIPPED``, ``READ_ONLY``; "" in place)."""

    bundle: Path
    copied_from: Path | None = None
    why: str = ""

    def words(self) -> str:
        """One plain sentence for the user, "" when the bundle is written in place."""
        if self.copied_from is None:
            return ""
        return (
            f"Your decisions are kept in a copy of this bundle in {self.bundle.parent} "
            f"(the original is left as it is: {self.why})."
        )


def copies_folder() -> Path:
    """The user's bundles folder (``engine.workspace.default_home() / "bundles"``)."""
    from engine.workspace import default_home

    return default_home() / "bundles"


def _program_resources() -> Path | None:
    from importlib import resources

    try:
        return Path(str(resources.files("resources"))).resolve()
    except (ModuleNotFoundError, TypeError, OSError):
        return None


def copy_reason(path: str | os.PathLike[str]) -> str:
    """ "" when decisions can be written into the bundle at ``path`` in place, else why not
    (``SHIPPED``: under the program's ``resources`` folder; ``READ_ONLY``: the bundle, or
    the folder holding it, cannot be written by this user; ``os.access``, so a read-only
    file system counts for every user)."""
    p = Path(path)
    try:
        real = p.resolve()
    except OSError:
        real = p.absolute()
    shipped = _program_resources()
    if shipped is not None and real.is_relative_to(shipped):
        return SHIPPED
    # A folder's members are replaced inside it (temporary files and the lock beside it);
    # a zip is rewritten beside itself and renamed over.
    if not (os.access(real, os.W_OK) and os.access(real.parent, os.W_OK)):
        return READ_ONLY
    return ""


def _candidates(path: Path, manifest: bytes) -> list[Path]:
    folder = copies_folder()
    name = path.name
    stem, suffix = (name[: -len(".zip")], ".zip") if name.lower().endswith(".zip") else (name, "")
    return [folder / name, folder / f"{stem}-{sha256(manifest)[:8]}{suffix}"]


def _manifest_of(path: Path) -> bytes | None:
    try:
        return read_files(path, manifest_check(path)).get("manifest.json")
    except (BundleError, OSError):
        return None


def find_copy(path: str | os.PathLike[str]) -> DecisionsHome | None:
    """The user's copy of the bundle at ``path`` (the same ``manifest.json``) in
    ``copies_folder``, when the bundle needs one (``copy_reason``) and one was made; None
    otherwise. Reads the manifests only through the bundle reader's caps; never raises
    for a bundle that cannot be read (None)."""
    p = Path(path)
    why = copy_reason(p)
    if not why:
        return None
    manifest = _manifest_of(p)
    if manifest is None:
        return None
    for c in _candidates(p, manifest):
        if c.exists() and _manifest_of(c) == manifest:
            return DecisionsHome(c, p, why)
    return None


def decisions_bundle(path: str | os.PathLike[str]) -> DecisionsHome:
    """Where the decisions on the bundle at ``path`` are to be written: the bundle itself,
    or the user's copy (``find_copy``), made now when there is none: the bundle's files as
    read (caps, no links followed) written to a hidden temporary name in ``copies_folder``
    and renamed into place, so a copy is whole or absent (a second writer's copy made
    meanwhile is used). Raises BundleError (one line) when the bundle cannot be read or
    the copy cannot be written."""
    p = Path(path)
    why = copy_reason(p)
    if not why:
        return DecisionsHome(p)
    files = read_files(p, manifest_check(p))
    manifest = files["manifest.json"]
    for dest in _candidates(p, manifest):
        if dest.exists():
            if _manifest_of(dest) == manifest:
                return DecisionsHome(dest, p, why)
            continue
        try:
            if _make_copy(dest, files, zipped=not p.is_dir()):
                return DecisionsHome(dest, p, why)
        except OSError as exc:
            raise BundleError(
                f"{dest.parent}: cannot keep a copy of the bundle there ({exc.strerror or exc})"
            ) from None
        if _manifest_of(dest) == manifest:  # another writer made it meanwhile
            return DecisionsHome(dest, p, why)
    raise BundleError(
        f"{copies_folder()}: other bundles already take the names of this bundle's copy"
    )


def _make_copy(dest: Path, files: dict[str, bytes], zipped: bool) -> bool:
    """Write ``files`` as a bundle at ``dest`` (a zip when ``zipped``) through a temporary
    name; False when ``dest`` appeared meanwhile. Raises OSError."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.parent / f".{dest.name}.copying-{uuid.uuid4().hex[:8]}"
    try:
        if zipped:
            with open(tmp, "xb") as fh:
                write_zip(fh, files)
                fh.flush()
                os.fsync(fh.fileno())
        else:
            for name, data in files.items():
                target = tmp / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        return _publish(tmp, dest, zipped)
    finally:
        if tmp.is_dir():
            shutil.rmtree(tmp, ignore_errors=True)
        elif tmp.exists():
            tmp.unlink(missing_ok=True)


def _publish(tmp: Path, dest: Path, zipped: bool) -> bool:
    """Move the finished copy ``tmp`` to ``dest`` unless ``dest`` exists (False then): a
    folder is renamed (onto a non-empty folder that fails), a zip hard-linked (a link never
    replaces a file) where the file system allows it. Raises OSError."""
    if dest.exists():
        return False
    if zipped:
        try:
            os.link(tmp, dest)
            return True
        except FileExistsError:
            return False
        except OSError:
            pass  # no hard links here (FAT, some network shares): rename below
    try:
        os.rename(tmp, dest)
    except OSError:
        if dest.exists():
            return False
        raise
    return True
