"""The lxml parse given to mammoth (engine.text.docx_fastxml) builds exactly the tree
mammoth's own minidom parse builds, on every XML part of real and built Word files."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from mammoth.docx import office_xml, xmlparser

from engine.text import docx_fastxml
from tests.helpers.word_files import Note, end, make_docx, para, run, start

DATA = Path(__file__).resolve().parents[1] / "data" / "docx"
BUILT = make_docx(
    para(run("a "), start(0), run("b <&> c"), end(0), "<!-- a comment -->", run(" d"))
    + '<w:p><?pi x?><w:r><w:t xml:space="preserve">  spaced  </w:t></w:r></w:p>',
    [Note(0, "note", para_id="00000001")],
)


def parts() -> list[tuple[str, bytes]]:
    out = []
    files = {
        p.name: p.read_bytes() for p in sorted(DATA.glob("*.docx")) if p.name != "encrypted.docx"
    }
    files["built.docx"] = BUILT
    for name, data in files.items():
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for member in zf.namelist():
                if member.endswith((".xml", ".rels")):
                    out.append((f"{name}:{member}", zf.read(member)))
    return out


PARTS = parts()


@pytest.mark.parametrize(("where", "xml"), PARTS, ids=[w for w, _ in PARTS])
def test_same_tree_as_mammoth_minidom_parse(where: str, xml: bytes) -> None:
    mapping = office_xml._namespaces
    assert docx_fastxml.parse_xml(io.BytesIO(xml), mapping) == xmlparser.parse_xml(
        io.BytesIO(xml), mapping
    )
    assert docx_fastxml.parse_xml(io.BytesIO(xml)) == xmlparser.parse_xml(io.BytesIO(xml))


def test_installed_only_over_the_original() -> None:
    docx_fastxml.install()
    assert office_xml.parse_xml is docx_fastxml.parse_xml
