"""The evidence bundle's format names (docs/bundle.md, "Format"), apart from their shapes.

``engine.bundle.schema`` types each member with pydantic, which costs a quarter of a
second to import; opening a bundle needs these names before any member is checked (the
window and the pages start with them), so they live here, free of imports.
"""

from __future__ import annotations

FORMAT_V1 = "arl-bundle/1"
FORMAT_V2 = "arl-bundle/2"
FORMAT_V3 = "arl-bundle/3"
FORMATS = (FORMAT_V1, FORMAT_V2, FORMAT_V3)
# manifest fields that arl-bundle/3 added (None, or absent, in an older manifest)
NEW_IN_V3 = ("stubbed", "markdown_renderer", "markdown_note", "word_versions")
