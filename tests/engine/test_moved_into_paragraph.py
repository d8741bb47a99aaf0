"""A paragraph moved to the end of another one, in HTML whose paragraphs have no space
between them in ``body.textContent``: its quote stands in v2 word for word and should read
`untouched`. Found by the long profile of tests/engine/test_deleted_span_properties.py on
F1000RD 8-1459 (CC BY 4.0, /work/shared/data/f1000rd), paragraph 35; it reads `deleted`
since at least 93b1bd4, and `deleted` agrees with a claim of "addressed": marked open."""

from __future__ import annotations

import pytest

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text.utf16 import to_utf16

_P1 = "Software available from : http://bioconductor.org/packages/HDCytoData"
_P2 = "Source code available from : https://github.com/lmweber/HDCytoData"
_P3 = "Archived source code at time of publication : https://doi.org/10.5281/zenodo.3362847 26"
_P4 = "Licence : MIT License"


def _html(*paras: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in paras)
    return f"<!DOCTYPE html><html><body>{body}</body></html>"


@pytest.mark.xfail(strict=True, reason="a paragraph moved into another reads deleted")
def test_a_paragraph_moved_into_another_reads_untouched() -> None:
    v1 = Version.from_source(_html(_P1, _P2, _P3, _P4), "html", "v1")
    v2 = Version.from_source(_html(_P2, f"{_P3} {_P1}", _P4), "html", "v2")
    quote = "http://bioconductor.org"
    s = v1.text.index(quote)
    e = s + len(quote)
    anchor = Anchor(
        quote,
        v1.text[max(0, s - 32) : s],
        v1.text[e : e + 32],
        start_offset=to_utf16(v1.text, s),
        end_offset=to_utf16(v1.text, e),
    )
    (verdict,) = score(v1, v2, [Comment("c0", "fix", anchor)]).verdicts
    assert verdict.verdict == "untouched"
