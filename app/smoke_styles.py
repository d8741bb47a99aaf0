"""A ``--smoke-test`` check of the frozen build: the page's own style sheet is read
(``tinycss2`` and ``cssselect2``, imported lazily by the hidden-text rule of
docs/verdicts.md, so a build could lack them unnoticed)."""

from __future__ import annotations


def smoke_styles() -> str:
    """The page's own style sheet is read (``tinycss2`` and ``cssselect2``, imported lazily
    by the hidden-text rule, so a frozen build could lack them unnoticed): a change only
    inside text a ``<style>`` rule hides reads untouched, flagged. "" or the problem."""
    try:
        from engine.models import Anchor, Comment
        from engine.score.scoring import Version, score

        page = "<style>.h{display:none}</style><p>Pay <span class=h>%s</span> in May.</p>"
        v1, v2 = Version.from_source(page % "a", "html"), Version.from_source(page % "b", "html")
        anchor = Anchor(quote="Pay a in May.", start_offset=0, end_offset=13)
        verdict = score(v1, v2, [Comment(id="c1", body="x", anchor=anchor)]).verdicts[0]
    except Exception as exc:  # a missing library (ImportError)
        return f"the page's style sheet could not be read ({type(exc).__name__}: {exc})"
    if verdict.verdict != "untouched" or not verdict.hidden_only:
        return f"a change to hidden text read {verdict.verdict}"
    print("styles: hidden text found through the page's style sheet", flush=True)
    return ""
