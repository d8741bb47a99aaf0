"""Reading a Word ``.docx`` package safely: the zip's members within limits, and XML parts.

A ``.docx`` is an Open Packaging Conventions zip (ECMA-376 Part 2). :func:`read_package`
takes its bytes and returns ``{member name: bytes}`` after every check, each failure a
:class:`PackageError` whose ``str()`` is one plain phrase (the caller names the file):

- an old binary Word file (an OLE2/CFB compound file, ``.doc``) and an encrypted or
  password-protected ``.docx`` (also a CFB file, one that holds an ``EncryptedPackage``
  stream, MS-OFFCRYPTO 2.3.4.4) are told apart by reading the compound file's directory
  with ``olefile``;
- a zip bomb is refused before it is inflated, by the limits and the reading the
  evidence-bundle reader applies (``engine.safe_zip``: entries, bytes per member and in
  all, the inflation ratio), and each member is inflated in chunks and stopped at its
  declared size;
- a zip that is no Word document (no ``[Content_Types].xml`` or no main document part
  named by ``_rels/.rels``) "is not a Word document that can be read (…)", the part
  missing said in words;
- a Strict Open XML file (ISO/IEC 29500 Strict) is read under the Transitional
  WordprocessingML namespace (its declarations renamed, nothing else changed).

:func:`parse_xml` parses one part with lxml, refusing a DTD (ECMA-376 Part 2, 8.1.4: a
package's XML never has one; refusing it rules out entity expansion and external
entities) and never touching the network.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from typing import Any

from engine import safe_zip

__all__ = [
    "Package",
    "PackageError",
    "parse_xml",
    "read_package",
]

_CFB = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_OFFICE_DOCUMENT = (
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument",
    "http://purl.oclc.org/ooxml/officeDocument/relationships/officeDocument",
)
_REL_NS = "{http://schemas.openxmlformats.org/package/2006/relationships}"


class PackageError(ValueError):
    """A ``.docx`` cannot be read. ``str()`` is one phrase without the file name."""


class Package:
    """The members of a Word package (``files``: name -> bytes) and its main part's name
    (``main``, usually ``word/document.xml``)."""

    def __init__(self, files: dict[str, bytes], main: str) -> None:
        self.files = files
        self.main = main

    def related(self, part: str, kind: str) -> str | None:
        """The member a relationship of ``part`` whose type ends in ``/kind`` points to
        (``"footnotes"``, ``"comments"``, ``"commentsExtended"``...), else None."""
        for rel_type, target in self.relationships(part):
            if rel_type.rsplit("/", 1)[-1] == kind:
                return target
        return None

    def relationships(self, part: str) -> list[tuple[str, str]]:
        """(type, target member name) of each internal relationship of ``part``."""
        folder, name = posixpath.split(part)
        rels = self.files.get(posixpath.join(folder, "_rels", name + ".rels"))
        if rels is None:
            return []
        out = []
        for rel in parse_xml(rels, "relationships").iter(_REL_NS + "Relationship"):
            if rel.get("TargetMode") == "External":
                continue
            target = rel.get("Target") or ""
            full = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
            out.append((rel.get("Type") or "", posixpath.normpath(full)))
        return out


def _compound_file_problem(data: bytes) -> str:
    """Why a CFB (OLE2) file is not readable here: encrypted .docx or an old binary file."""
    import olefile

    try:
        ole = olefile.OleFileIO(io.BytesIO(data))
    except Exception:  # a damaged compound file: olefile raises several kinds
        return "an old binary Microsoft Office file (.doc), not a .docx; save it as .docx from Word"
    with ole:
        names = {"/".join(entry).lower() for entry in ole.listdir(streams=True, storages=True)}
    if "encryptedpackage" in names:
        return (
            "is password-protected (encrypted); open it in Word, remove the password "
            "(File > Info > Protect Document) and save it again"
        )
    if "worddocument" in names:
        return "an old binary Word document (.doc), not a .docx; save it as .docx from Word"
    return "an old binary Microsoft Office file (not a .docx); save it as .docx from Word"


#: A file named .docx that is not a zip package at all (the zip module's own words, "File is
#: not a zip file", said nothing to a reader).
NOT_A_DOCX = "is not a Word document (its name ends in .docx, but inside it is not a .docx file)"


#: A zip that is not a Word package, said before what is missing: "report.docx: is not a Word
#: document that can be read (it is a zip file, but its main text is missing)"; "not a
#: valid Word package (no [Content_Types].xml)" named the package's parts to a reader.
NOT_READABLE = "is not a Word document that can be read"


def read_package(data: bytes) -> Package:
    """The members of a ``.docx`` given as bytes, every limit checked. Raises PackageError."""
    if data.startswith(_CFB):
        raise PackageError(_compound_file_problem(data))
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError):
        raise PackageError(NOT_A_DOCX) from None
    with zf:
        infos = _check_headers(zf.infolist(), len(data))
        files: dict[str, bytes] = {}
        total = 0
        for info in infos:
            member = _inflate(zf, info, total)
            total += len(member)
            files[info.filename] = member
    if "[Content_Types].xml" not in files:
        raise PackageError(
            f"{NOT_READABLE} (it is a zip file, but its list of contents is missing)"
        )
    package = Package(files, "")
    main = next(
        (t for kind, t in package.relationships("") if kind in _OFFICE_DOCUMENT),
        None,
    )
    if main is None or main not in files:
        raise PackageError(f"{NOT_READABLE} (it is a zip file, but its main text is missing)")
    package.main = main
    _strict_to_transitional(files)
    return package


# ISO/IEC 29500 Strict names the WordprocessingML namespace differently from Transitional
# (what Word writes by default and what this reader's paths name). A Strict part is read
# under the Transitional name: only the namespace declarations change, so every element
# keeps its place and its text.
_STRICT_W = b"http://purl.oclc.org/ooxml/wordprocessingml/main"
_TRANSITIONAL_W = b"http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_STRICT_DECLARATION = re.compile(rb'(xmlns(?::[\w.-]+)?\s*=\s*["\'])' + re.escape(_STRICT_W))


def _strict_to_transitional(files: dict[str, bytes]) -> None:
    for name, data in files.items():
        if name.endswith(".xml") and _STRICT_W in data:
            files[name] = _STRICT_DECLARATION.sub(lambda m: m.group(1) + _TRANSITIONAL_W, data)


def _check_headers(infos: list[zipfile.ZipInfo], zip_size: int) -> list[zipfile.ZipInfo]:
    """The members to inflate, once every header passed the limits (``engine.safe_zip``)
    and no part appears twice. Raises PackageError."""
    limits = safe_zip.Limits()
    out = []
    seen: set[str] = set()
    try:
        safe_zip.check_totals(infos, limits)
        for info in infos:
            if info.is_dir():
                continue
            safe_zip.check_member(info, zip_size, "part", limits)
            if info.filename in seen:
                raise PackageError(f"{NOT_READABLE} (it holds its part {info.filename} twice)")
            seen.add(info.filename)
            out.append(info)
    except safe_zip.ZipLimitError as exc:
        raise PackageError(str(exc)) from None
    return out


def _inflate(zf: zipfile.ZipFile, info: zipfile.ZipInfo, total: int) -> bytes:
    """One member (``engine.safe_zip.inflate``; ``total``: bytes inflated before it).
    Raises PackageError."""
    try:
        return safe_zip.inflate(zf, info, total, "part", safe_zip.Limits())
    except safe_zip.ZipLimitError as exc:
        raise PackageError(str(exc)) from None


def parse_xml(data: bytes, what: str) -> Any:
    """The root element of one XML part (an ``lxml.etree._Element``). Raises PackageError
    naming ``what`` when it is not well-formed XML or declares a DTD."""
    from lxml import etree

    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True
    )
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        if "Excessive depth" in str(exc):  # libxml2's cap on element nesting
            raise PackageError(f"its {what} is nested too deeply to be read") from None
        raise PackageError(f"its {what} is not well-formed XML ({exc})") from None
    if root.getroottree().docinfo.doctype:
        raise PackageError(f"its {what} declares a DTD, which a Word document never does")
    return root
