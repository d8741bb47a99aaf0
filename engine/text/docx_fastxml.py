"""A faster XML parse for mammoth: lxml builds the same tree its minidom parse builds.

mammoth reads every part of a ``.docx`` with ``mammoth.docx.xmlparser.parse_xml``:
``xml.dom.minidom`` (pure Python over expat), then a walk converting each node to its own
``XmlElement``/``XmlText``. On a 100-page document that is half of mammoth's time.
:func:`parse_xml` here builds the identical tree from an lxml parse (C): the same names
(``prefix:local`` for the namespaces mammoth maps, ``{uri}local`` for the others), the same
attributes (namespace declarations left out), the same text nodes in the same order
(comments and processing instructions dropped, the text around them kept as separate
nodes, as minidom's walk keeps them). :func:`install` puts it in place of the original
in ``mammoth.docx.office_xml`` (where mammoth calls it), once, only when that module has
the names this relies on; the parity test (``tests/engine/test_docx_fastxml.py``) compares
both parses on every part of the real Word files, as the HTML fast path is compared with
its reference. A DTD is refused before mammoth runs (``engine.text.docx``), so entities
never differ. A part nested deeper than Python's recursion limit raises RecursionError, as
the original does.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["install", "parse_xml"]

_installed = False


def parse_xml(fileobj: Any, namespace_mapping: Any = None) -> Any:
    """mammoth's ``parse_xml(fileobj, namespace_mapping)``, built from an lxml parse."""
    from lxml import etree
    from mammoth.docx.xmlparser import XmlElement, XmlText

    prefixes = {} if namespace_mapping is None else {u: p for p, u in namespace_mapping}
    names: dict[str, str] = {}

    def name_of(tag: str) -> str:
        name = names.get(tag)
        if name is None:
            name = tag
            if tag.startswith("{"):
                uri, local = tag[1:].split("}", 1)
                prefix = prefixes.get(uri)
                if prefix is not None:
                    name = f"{prefix}:{local}"
            names[tag] = name
        return name

    def convert(el: Any) -> Any:
        children = []
        if el.text:
            children.append(XmlText(el.text))
        for child in el:
            if isinstance(child.tag, str):
                children.append(convert(child))
            if child.tail:
                children.append(XmlText(child.tail))
        attributes = {name_of(k): v for k, v in el.attrib.items()}
        return XmlElement(name_of(el.tag), attributes, children)

    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True
    )
    return convert(etree.parse(fileobj, parser).getroot())


def install() -> None:
    """Use :func:`parse_xml` for mammoth's reading of parts (once; a mammoth without the
    expected module layout keeps its own parse)."""
    global _installed
    if _installed:
        return
    _installed = True
    try:
        from mammoth.docx import office_xml, xmlparser
    except ImportError:  # pragma: no cover - mammoth is a dependency
        return
    if getattr(office_xml, "parse_xml", None) is xmlparser.parse_xml and hasattr(
        xmlparser, "XmlText"
    ):
        office_xml.parse_xml = parse_xml
