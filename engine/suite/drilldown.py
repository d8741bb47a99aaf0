"""One document of a suite, every combination side by side (docs/suites.md, "One
document"): for each comment on the document, the final verdict each run of each model
and variant gave it, with the agent's claim where it disagrees: the Compare view for N
runs. ``arl suite report ID --document DOC`` prints it; the Suites tab shows it as a table.

``document_verdicts(items, document, tampered) -> {"document", "columns", "rows"}``:
``columns``: one per run of the document, by key order (model / variant, then repeat):
``{"title", "combination", "repeat", "status"}``; ``rows``: one per comment on the
document, in the document's comment order: ``{"number", "comment_id", "quote", "cells"}``
with one cell per column: the verdict's label (``engine.vocabulary.verdict_label``), or
why the run has none ("failed: ...", "TAMPERED: ...", "not run"). The verdicts are read
from each run's bundle; a bundle that cannot be read says so in its cells.
"""

from __future__ import annotations

from typing import Any

from engine.bundle.archive import BundleError
from engine.bundle.read import open_bundle
from engine.suite.store import ItemResult
from engine.vocabulary import claim_words, plain_reason, plural, verdict_label

__all__ = ["document_names", "document_verdicts", "render_document"]


def document_names(items: list[ItemResult]) -> list[str]:
    """The suite's documents, sorted."""
    return sorted({it.document for it in items})


def _cell(v: dict[str, Any] | None) -> str:
    if v is None:
        return "not scored in this run"
    text = verdict_label(str(v.get("verdict")))
    if v.get("claim") and v.get("claim_agrees") is False:
        text += f" (the agent claimed: {claim_words(str(v['claim']))})"
    return text


def document_verdicts(
    items: list[ItemResult], document: str, tampered: dict[str, str] | None = None
) -> dict[str, Any]:
    """See the module docstring. Raises KeyError when no run of the suite reviewed
    ``document`` (its message names the documents there are)."""
    tampered = tampered or {}
    runs = sorted(
        (it for it in items if it.document == document),
        key=lambda r: (r.model, r.variant, r.repeat, r.key),
    )
    if not runs:
        raise KeyError(
            f"no run of this suite reviewed {document!r}; its documents: "
            + ", ".join(document_names(items))
        )
    columns, per_run = [], []
    comments: dict[str, str] = {}
    order: list[str] = []
    for it in runs:
        combination = f"{it.model} / {it.variant}"
        columns.append(
            {
                "title": f"{combination}, repeat {it.repeat}",
                "combination": combination,
                "repeat": it.repeat,
                "status": it.status,
            }
        )
        why = ""
        verdicts: dict[str, dict[str, Any]] = {}
        if it.key in tampered:
            why = f"TAMPERED: {tampered[it.key]}"
        elif it.status != "finished":
            why = f"failed: {plain_reason(it.reason)}" if it.reason else "not run"
        if it.bundle:
            try:
                b = open_bundle(it.bundle)
            except (BundleError, OSError, ValueError) as exc:
                why = why or f"its bundle cannot be read ({exc})"
            else:
                for c in b.comments_before:
                    if c.id not in comments:
                        comments[c.id] = c.anchor.quote or ""
                        order.append(c.id)
                final = b.verdicts.get("final") if isinstance(b.verdicts, dict) else None
                for v in final or []:
                    if isinstance(v, dict):
                        verdicts[str(v.get("comment_id"))] = v
        per_run.append((why, verdicts))
    rows = []
    for n, cid in enumerate(order, 1):
        cells = [why or _cell(verdicts.get(cid)) for why, verdicts in per_run]
        rows.append({"number": n, "comment_id": cid, "quote": comments[cid], "cells": cells})
    return {"document": document, "columns": columns, "rows": rows}


def render_document(table: dict[str, Any]) -> str:
    """The drill-down in plain words, one block per comment, one line per run."""
    lines = [
        f"Document {table['document']}: {plural(len(table['rows']), 'comment')}, "
        f"{plural(len(table['columns']), 'run')} (each combination and repeat)."
    ]
    if not table["rows"]:
        lines.append("No run of it has a readable bundle, so there are no verdicts to show.")
    width = max((len(c["title"]) for c in table["columns"]), default=0)
    for row in table["rows"]:
        quote = " ".join(row["quote"].split())
        if len(quote) > 70:
            quote = quote[:69] + "…"
        lines += ["", f"Comment {row['number']} on \u201c{quote}\u201d:"]
        for col, cell in zip(table["columns"], row["cells"]):
            lines.append(f"  {col['title']:<{width}}  {cell}")
    return "\n".join(lines)
