"""``arl suite report ID --html DIR``: one self-contained page (``DIR/index.html``), no
script, no external address (a policy that fetches nothing), charts as inline SVG. Each run's bundle is copied beside it
(``DIR/runs/<n>/``, as published runs are) and every cell links to its scorecard and
bundle. The figures are the report's, built from the runs with each bundle verified
(``engine.suite.tamper``): a TAMPERED run is marked and left out of the statistics.
"""

from __future__ import annotations

import html
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from engine.publish.index import CSP
from engine.suite.report import LABELS, METRICS, build_report, interval_text, mark_tampered
from engine.suite.store import ItemResult
from engine.suite.token_share import token_share_text

__all__ = ["publish_suite_page", "write_html_report", "write_suite_page"]

_CSS = (
    "body{font-family:sans-serif;margin:2em;color:#111}table{border-collapse:collapse}"
    "td,th{border:1px solid #999;padding:4px 8px;vertical-align:top}"
    ".tampered{color:#fff;background:#a00;padding:0 4px;font-weight:bold}"
)


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _svg(report: dict[str, Any], metric: str) -> str:
    """Each combination's 95% interval from the bootstrap (a bar on a 0-100% axis, the
    mean a dot), labelled with its figures and the documents x repeats it rests on (rates
    only). The same intervals the table gives, drawn."""
    rows = [c for c in report["combinations"] if c["metrics"][metric]["interval"]]
    left, width = 230, 300
    h = 26 * len(rows) + 44
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="900" height="{h}" role="img" '
        f'font-family="sans-serif" font-size="12">',
        f"<title>{_e(LABELS[metric])}: for each combination, its average over every "
        "document and repeat and the range that holds its true value with 95% confidence</title>",
    ]
    for tick in (0, 25, 50, 75, 100):
        x = left + width * tick / 100
        parts.append(
            f'<line x1="{x:.1f}" y1="12" x2="{x:.1f}" y2="{h - 22}" stroke="#ccc"/>'
            f'<text x="{x:.1f}" y="{h - 8}" text-anchor="middle">{tick}%</text>'
        )
    for i, c in enumerate(rows):
        iv = c["metrics"][metric]["interval"]
        y = 24 + 26 * i
        x0, x1, xm = (
            left + width * max(0.0, min(1.0, v)) for v in (iv["low"], iv["high"], iv["mean"])
        )
        parts.append(
            f'<text x="0" y="{y + 4}">{_e(c["model"])} / {_e(c["variant"])}</text>'
            f'<line x1="{x0:.1f}" y1="{y}" x2="{x1:.1f}" y2="{y}" stroke="#0072B2" '
            'stroke-width="6"/>'
            f'<circle cx="{xm:.1f}" cy="{y}" r="5" fill="#D55E00"/>'
            f'<text x="{left + width + 14}" y="{y + 4}">{_e(interval_text(metric, iv))}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def write_html_report(report: dict[str, Any], items: list[ItemResult], out: Path) -> Path:
    """Write ``out/index.html`` and copy each run's bundle to ``out/runs/<n>/``. Returns the
    page's path. Raises OSError when the folder cannot be written."""
    out.mkdir(parents=True, exist_ok=True)
    links: dict[str, str] = {}
    for n, it in enumerate(sorted(items, key=lambda r: r.key), 1):
        if it.bundle and Path(it.bundle).is_dir():
            dest = out / "runs" / str(n)
            shutil.copytree(it.bundle, dest, dirs_exist_ok=True)
            links[it.key] = f"runs/{n}"
    body = [f"<h1>Suite {_e(report['suite'])}</h1>"]
    body.append(f"<p>{report['runs']} runs; bootstrap seed {report.get('seed', 0)}.</p>")
    combos = report["combinations"]
    body.append("<table><tr><th>metric</th>")
    body += [f"<th>{_e(c['model'])} / {_e(c['variant'])}</th>" for c in combos]
    body.append("</tr>")
    for m in METRICS:
        body.append(f"<tr><th>{_e(LABELS[m])}</th>")
        body += [f"<td>{_e(interval_text(m, c['metrics'][m]['interval']))}</td>" for c in combos]
        body.append("</tr>")
    body.append("<tr><th>token edits</th>")
    body += [f"<td>{_e(token_share_text(c.get('token_edit_share') or {}))}</td>" for c in combos]
    body.append("</tr></table>")
    for m in ("attribution_rate", "collateral_churn", "claim_accuracy"):
        body.append(
            f"<h2>{_e(LABELS[m])}: 95% intervals</h2>"
            "<p>Bar: the 95% interval of the mean from the seeded bootstrap over documents "
            "x repeats; dot: the mean.</p>" + _svg(report, m)
        )
        note = report["ranking"][m]["note"]
        if note:
            body.append(f"<p>{_e(note)}</p>")
    body.append(
        "<h2>Runs</h2><table><tr><th>document</th><th>combination</th><th>repeat</th>"
        "<th>status</th><th>links</th></tr>"
    )
    for it in sorted(items, key=lambda r: r.key):
        status = _e(it.status)
        if it.reason.startswith("TAMPERED"):
            status = f'<span class="tampered">TAMPERED</span> {_e(it.reason)}'
        elif it.reason:
            status += f": {_e(it.reason)}"
        link = links.get(it.key)
        cell = (
            f'<a href="{link}/scorecard.html">scorecard</a> <a href="{link}/">bundle</a>'
            if link
            else "no bundle"
        )
        body.append(
            f"<tr><td>{_e(it.document)}</td><td>{_e(it.model)} / {_e(it.variant)}</td>"
            f"<td>{it.repeat}</td><td>{status}</td><td>{cell}</td></tr>"
        )
    body.append("</table>")
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        "<meta name='referrer' content='no-referrer'>"
        f"<title>Suite {_e(report['suite'])}</title><style>{_CSS}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )
    path = out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path


def write_suite_page(
    items: list[ItemResult],
    out: Path,
    *,
    name: str,
    fingerprint: str = "",
    seed: int = 0,
    tampered: dict[str, str] | None = None,
) -> Path:
    """The report page of a suite run's ``items`` into ``out`` (``write_html_report``):
    each bundle verified (``engine.suite.tamper``, unless ``tampered`` gives the verdicts
    already), the report built with the suite's ``seed``. The one page ``arl suite report
    --html`` and the Suites tab's Publish write. Raises OSError."""
    from engine.suite.tamper import tampered_runs

    tampered = tampered_runs(items) if tampered is None else tampered
    report = build_report(items, name=name, fingerprint=fingerprint, seed=seed, tampered=tampered)
    return write_html_report(report, mark_tampered(items, tampered), out)


def publish_suite_page(
    items: list[ItemResult],
    suite_id: str,
    *,
    name: str,
    fingerprint: str = "",
    seed: int = 0,
    folder: Path | None = None,
) -> Path:
    """Publish a suite run's page into the publishing folder (``folder``, else the one
    chosen: ``engine.publish.published.published_folder``) at ``suites/<suite id>/index.html``,
    replacing an earlier copy whole: the page and bundle copies are written beside it first,
    so a failure leaves the old one (or nothing). Returns the page's path. Raises
    PublishError (one line naming the folder and the problem): no folder chosen, a link
    planted in the folder, or the folder cannot be written."""
    from engine.publish.check import link_in
    from engine.publish.published import PublishError, published_folder

    base = folder if folder is not None else published_folder()
    if base is None:
        raise PublishError(
            "no publishing folder chosen yet: choose one (Publish in the program asks once)"
        )
    sub = re.sub(r"[^A-Za-z0-9_.-]", "_", suite_id).strip(".") or "suite"
    if link_in(base, f"suites/{sub}") is not None:
        raise PublishError(f"{base}: suites/{sub} is a link; links in it are never followed")
    dest = base / "suites" / sub
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{sub}-", dir=dest.parent))
        try:
            write_suite_page(items, tmp, name=name, fingerprint=fingerprint, seed=seed)
            if dest.exists():
                old = dest.with_name(f".{sub}-old")
                shutil.rmtree(old, ignore_errors=True)
                dest.rename(old)
                tmp.rename(dest)
                shutil.rmtree(old, ignore_errors=True)
            else:
                tmp.rename(dest)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    except OSError as exc:
        raise PublishError(f"{base}: cannot be written ({exc.strerror or exc})") from None
    return dest / "index.html"
