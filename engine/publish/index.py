"""The published folder's index page (``index.html``): one row per published run, as
``engine.publish.published.entries`` recomputes it from the run's bundle copy.

Static HTML with inline CSS and a CSP that forbids every fetch and script. The check mark
goes with a trusted signer only; an entry whose bundle copy could not be checked reads NOT
CHECKED with no figures (docs/bundle.md, "The published folder is not trusted").
"""

from __future__ import annotations

from typing import Any

from engine.publish.entry import PublishedEntry
from engine.vocabulary import METRIC_NAMES, html_text, plural, when_words

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; script-src 'none'"

# -- the index page -------------------------------------------------------------------------

_CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1c1c1c;margin:0;
background:#f6f6f4}main{margin:0 auto;padding:1em 1.5em}h1{font-size:1.6em}
table{font-size:.88em}
table{border-collapse:collapse;width:100%;background:#fff;table-layout:fixed}th,td{border:1px solid #ddd;
padding:.4em .45em;text-align:left;vertical-align:top;overflow-wrap:break-word}
code{overflow-wrap:anywhere}.when{white-space:nowrap}
th{background:#eeeeea;overflow-wrap:normal}
.muted{color:#555;font-size:.9em}.na{color:#7a4b00}
.tampered{background:#fbe3e1;color:#7a1d14;font-weight:700}.signed{color:#1e5e27}
.bad{color:#7a1d14;font-weight:700}.scripted{color:#3b2a73}
"""

# Finished (a run, or the check of a revision made elsewhere), model, document, status, the five metrics, signature, checked, bundle.
_WIDTHS = (8, 9, 12, 8, 8, 7, 7, 7, 7, 10, 9, 8)

_SHORT = {
    "attribution_rate": "Attribution",
    "collateral_churn": "Collateral churn",
    "claim_accuracy": "Claim accuracy",
    "cost_per_attributed_fix": "Tokens per fix",
    "rounds_to_converge": "Rounds to converge",
}


def _e(x: Any) -> str:
    """Escaped, bidi formatting controls made visible (``vocabulary.html_text``): a
    published title with U+202E reorders nothing in the index."""
    return html_text(x)


def _when(stamp: str) -> str:
    """HTML of ``2026-11-30T22:00:24Z`` in the one time format (``when_words``): the date,
    and the time on a line of its own (a narrow column, so the index fits 1200 px without
    scrolling sideways): "30 Nov 2026" / "22:00 UTC"."""
    words = when_words(stamp)
    if words != stamp and ", " in words:
        day, time = words.split(", ", 1)
        return f"<span class='when'>{_e(day)}</span><br>{_e(time)}"
    return _e(stamp)


def _run_words(e: PublishedEntry) -> str:
    """A published run as people name it: its document's title and when it finished, in
    the one time format ("Remote work policy, 1 Dec 2026, 00:31 UTC"); never the run id
    ("run-901a758c16f4"), which stays in the link's tooltip."""
    title = e.document_title or "document"
    stamp = e.finished_at or e.created_at or e.published_at
    return f"{title}, {when_words(stamp)}" if stamp else title


def _bundle_cell(e: PublishedEntry) -> str:
    """A relative link to the copy of the bundle in the published folder, named for its
    run (``_run_words``), the run id in its tooltip; an entry published before copies
    were made names its bundle's path (a link to another machine's file would lead
    nowhere)."""
    if e.problem:
        return "<span class='muted'>no bundle that could be checked</span>"
    if e.bundle_copy:
        return (
            f"<a href='{_e(e.bundle_copy)}' title='{_e(e.run_id)}'>{_e(_run_words(e))}</a>"
            "<div class='muted'>its evidence bundle (zip)</div>"
        )
    return f"<span class='muted'>not copied: {_e(e.bundle)}</span>"


def _signature_cell(e: PublishedEntry) -> str:
    """The signature column: the check mark only for a signer the local trusted-keys
    store names (``PublishedEntry.trusted_signer``); a valid signature by an unknown key
    reads neutrally."""
    sig = e.signature or {}
    state = sig.get("state", "")
    if state == "signed" and e.trusted_signer:
        return (
            f"<span class='signed'>\u2714 signed</span> <code>{_e(sig.get('fingerprint'))}</code>"
            f"<div class='muted'>trusted: {_e(e.trusted_signer)}</div>"
        )
    if state == "signed":
        return (
            f"\u2022 signed <code>{_e(sig.get('fingerprint'))}</code>"
            "<div class='muted'>an unknown key: not trusted</div>"
        )
    if state == "bad" and sig.get("uncovered"):
        return (
            "<span class='bad'>NOT COVERED: files changed after signing</span>"
            f"<div class='muted'>{_e(sig.get('line'))}</div>"
        )
    if state == "bad":
        return (
            f"<span class='bad'>BAD SIGNATURE</span><div class='muted'>{_e(sig.get('line'))}</div>"
        )
    return "<span class='muted'>unsigned</span>"


def _model_cell(e: PublishedEntry) -> str:
    """The Model cell: the model's name, else why there is none, in its true cause (a
    revision checked here: ``PublishedEntry.model_words``, never "not recorded")."""
    if e.model:
        return _e(e.model)
    return f"<span class='muted'>{_e(e.model_words)}</span>"


def _metric_cell(name: str, m: Any) -> str:
    from engine import vocabulary

    if not isinstance(m, dict):
        return "<td class='na'>not recorded</td>"
    if m.get("value") is None:
        reason = vocabulary.metric_reason(m)
        short = reason if len(reason) <= 40 else reason[:38] + "\u2026"
        return f"<td class='na' title='{_e(reason)}'>N/A<div class='muted'>{_e(short)}</div></td>"
    frac = vocabulary.metric_fraction(name, m)
    return (
        f"<td class='num'>{_e(vocabulary.metric_value(name, m))}"
        + (f"<div class='muted'>{_e(frac)}</div>" if frac else "")
        + "</td>"
    )


def _review_note(review: dict[str, Any]) -> str:
    """The reviewer decisions' line of a row ("reviewed attribution 67% (2 of 3)", and
    "awaiting review: 1 of 3"); "" for an entry checked before decisions were counted."""
    if not isinstance(review, dict) or not isinstance(review.get("reviewed"), dict):
        return ""
    from engine.vocabulary import metric_fraction, metric_text, metric_value

    rev = review["reviewed"]
    text = metric_text("attribution_rate", rev)
    if review.get("awaiting") and rev.get("value") is not None:  # of the decided ones only
        frac = metric_fraction("attribution_rate", rev)
        text = f"{metric_value('attribution_rate', rev)} ({frac} decided)"
    line = "reviewed attribution " + text
    if review.get("awaiting"):
        line = f"awaiting review: {review['awaiting']} of {review.get('actionable')}; " + line
    return f"<div class='muted'>{_e(line)}</div>"


def render_index(runs: list[PublishedEntry]) -> str:
    """The index page: one row per published run, in the order given (entries as
    ``entries`` recomputes them from their bundle copies)."""
    out = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        "<meta name='referrer' content='no-referrer'>",
        f"<title>Published scorecards</title><style>{_CSS}</style></head><body><main>",
        "<h1>Published scorecards</h1>",
        f"<p class='muted'>{plural(len(runs), 'scorecard')}, newest first. Each scorecard is this "
        "program's own rendering of its evidence bundle. Every row was checked again from "
        "the copy of its bundle in this folder when this page was written: every verdict "
        "and metric re-derived from the bundle's documents, and its signature verified "
        "against the publisher's trusted keys.</p>",
        # Fixed column widths: long names wrap inside their column, so the page never
        # scrolls sideways (checked at 1200 px by tests/app/test_published_index_width.py).
        "<table><colgroup>" + "".join(f"<col style='width:{w}%'>" for w in _WIDTHS) + "</colgroup>",
        "<tr><th>Finished</th><th>Model</th><th>Document</th><th>Status</th>",
    ]
    out.extend(f"<th>{_e(_SHORT[n])}</th>" for n in METRIC_NAMES)
    out.append("<th>Signature</th><th>Checked</th><th>Bundle</th></tr>")
    for e in runs:
        doc = f"<a href='{_e(e.scorecard)}'>{_e(e.document_title or 'document')}</a>"
        if e.problem:
            # Nothing could be checked: say so plainly, show no figure and no mark.
            out.append(
                f"<tr class='tampered'><td>{_when(e.published_at)}<div class='muted'>"
                f"published</div></td><td></td><td>{_e(e.document_title or 'document')}"
                "</td><td></td>"
                + "".join("<td class='na'>not shown</td>" for _ in METRIC_NAMES)
                + "<td><span class='bad'>not checked</span></td>"
                f"<td>NOT CHECKED: {_e(e.problem)}</td>"
                f"<td title='{_e(e.run_id)}'>{_bundle_cell(e)}</td></tr>"
            )
            continue
        cls = " class='tampered'" if e.tampered else ""
        if e.scripted:
            doc += "<div class='scripted muted'>scripted demonstration</div>"
        out.append(
            f"<tr{cls}><td>{_when(e.finished_at or e.created_at)}"
            # a revision made elsewhere: checked then, not a run that finished then
            + ("<div class='muted'>checked here, no run</div>" if e.external else "")
            + "</td>"
            f"<td>{_model_cell(e)}</td><td>{doc}</td><td>{_e(e.status_words)}</td>"
        )
        out.extend(_metric_cell(name, e.metrics.get(name)) for name in METRIC_NAMES)
        check = _e(e.verification)
        if not e.tampered and e.verification.startswith("Every verdict and metric re-derives"):
            check = "\u2714 every figure re-derived"
        if e.figures == "recomputed":
            check += "<div class='muted'>the metrics shown are recomputed from its documents</div>"
        elif e.figures == "unverified":
            check += "<div class='muted'>the metrics shown are the bundle's, unverified</div>"
        check += _review_note(e.review)
        out.append(
            f"<td>{_signature_cell(e)}</td><td title='{_e(e.verification)}'>{check}</td>"
            f"<td>{_bundle_cell(e)}</td></tr>"
        )
    if not runs:
        out.append(f"<tr><td colspan='{7 + len(METRIC_NAMES)}'>Nothing is published yet.</td></tr>")
    out.append("</table></main></body></html>")
    return "".join(out)
