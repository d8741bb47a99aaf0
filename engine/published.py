"""Publishing scorecards to a folder others can open: a shared drive, a synced folder, a
repository checkout.

The folder (chosen once: ``published_folder()`` / ``set_published_folder()``, kept in
``<data folder>/published.json``; ``ARL_PUBLISHED_FOLDER`` overrides it) holds::

    index.html                      every published run, newest first: date, model,
                                    document, status, the five metrics, signature and
                                    verification; links to each scorecard and bundle
    index.json                      the same list for programs (``PublishedEntry`` items)
    <stamp>-<run id>/scorecard.html this program's own scorecard of the run
                                    (``engine.bundle.own_scorecard``): self-contained
    <stamp>-<run id>/bundle.zip     a copy of the evidence bundle itself, so whoever opens
                                    the shared folder reaches the evidence (the index links
                                    it relatively, never as a file:// path of this machine)

Every page is static HTML with inline CSS and a CSP that forbids every fetch and script:
it reads the same in any browser with no network and no scripts. A signed bundle publishes
its fingerprint and verification status; a tampered or forged one is published marked
TAMPERED (in the index and on its scorecard), never silently, with the figures this
program re-derives from its documents (``engine.bundle_shown``), not the ones it states.

``publish(bundle_path) -> PublishedEntry``; ``entries() -> list[PublishedEntry]`` (newest
first); ``export(dest)`` copies the published folder elsewhere. Raises ``PublishError``
(one line) when the folder cannot be written.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.models import METRIC_NAMES

INDEX_HTML = "index.html"
INDEX_JSON = "index.json"
BUNDLE_COPY = "bundle.zip"
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; script-src 'none'"


class PublishError(ValueError):
    """Publishing failed; ``str()`` is one line naming the folder and the problem."""


@dataclass
class PublishedEntry:
    """One published run. ``scorecard``: path of its page relative to the folder;
    ``bundle``: absolute path of the bundle it came from; ``metrics``: name -> metric JSON;
    ``signature``: ``{"state", "fingerprint", "trusted_as", "line", "uncovered"}``;
    ``verification``: one sentence; ``tampered``: any check failed; ``bundle_copy``: the
    copy of the bundle in the folder, relative to it ("" for entries published before
    copies were made); ``figures``: where ``metrics`` come from (``stated``,
    ``recomputed`` for a bundle that failed verification, or ``unverified``)."""

    run_id: str
    model: str
    document_title: str
    status: str
    created_at: str
    finished_at: str
    published_at: str
    bundle: str
    scorecard: str
    metrics: dict[str, Any] = field(default_factory=dict)
    signature: dict[str, str] = field(default_factory=dict)
    verification: str = ""
    tampered: bool = False
    scripted: bool = False
    bundle_copy: str = ""
    figures: str = "stated"

    @classmethod
    def from_json(cls, obj: Any) -> PublishedEntry | None:
        if not isinstance(obj, dict):
            return None
        try:
            return cls(**{k: obj[k] for k in cls.__dataclass_fields__ if k in obj})
        except TypeError:
            return None


# -- the folder ------------------------------------------------------------------------------


def _config_path() -> Path:
    from engine.workspace import default_home

    return default_home() / "published.json"


def published_folder() -> Path | None:
    """The folder chosen for publishing, or None when none was chosen yet."""
    env = os.environ.get("ARL_PUBLISHED_FOLDER")
    if env:
        return Path(env)
    try:
        obj = json.loads(_config_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    folder = obj.get("folder") if isinstance(obj, dict) else None
    return Path(folder) if isinstance(folder, str) and folder else None


def set_published_folder(folder: str | os.PathLike[str]) -> Path:
    """Remember ``folder`` as the publishing folder (created). Raises PublishError."""
    p = Path(folder).expanduser().resolve()
    try:
        p.mkdir(parents=True, exist_ok=True)
        cfg = _config_path()
        cfg.parent.mkdir(parents=True, exist_ok=True)
        tmp = cfg.with_name(cfg.name + ".tmp")
        tmp.write_text(json.dumps({"folder": str(p)}, indent=1) + "\n", encoding="utf-8")
        tmp.replace(cfg)
    except OSError as exc:
        raise PublishError(f"{p}: cannot be used for publishing ({exc.strerror or exc})") from None
    return p


def _folder(folder: str | os.PathLike[str] | None) -> Path:
    p = Path(folder) if folder is not None else published_folder()
    if p is None:
        raise PublishError(
            "no publishing folder chosen yet: give one (--folder DIR, or Publish in the "
            "program asks once)"
        )
    return p


# -- publishing -----------------------------------------------------------------------------


def entries(folder: str | os.PathLike[str] | None = None) -> list[PublishedEntry]:
    """Every published run of the folder, newest first (by run end, then publication)."""
    p = Path(folder) if folder is not None else published_folder()
    if p is None:
        return []
    try:
        data = (p / INDEX_JSON).read_bytes()
    except OSError:
        return []
    if len(data) > 16 * 1024 * 1024:
        return []
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return []
    items = obj.get("runs") if isinstance(obj, dict) else None
    out = [e for e in (PublishedEntry.from_json(i) for i in items or []) if e is not None]
    out.sort(key=lambda e: (e.finished_at or e.created_at, e.published_at), reverse=True)
    return out


def _stamp(text: str) -> str:
    digits = re.sub(r"[^0-9]", "", text)[:14]
    return digits or datetime.now(UTC).strftime("%Y%m%d%H%M%S")


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:60] or "run"


def publish(
    bundle_path: str | os.PathLike[str], folder: str | os.PathLike[str] | None = None
) -> PublishedEntry:
    """Publish one bundle: write its scorecard page and rewrite the index. Re-publishing a
    run replaces its entry. Raises ``engine.bundle.BundleError`` for an unreadable bundle,
    PublishError when the folder cannot be written."""
    from engine import signing
    from engine.bundle import open_bundle, own_scorecard, trust_marks
    from engine.bundle_shown import shown_figures
    from engine.rederive import rederive

    dest = _folder(folder)
    src = Path(bundle_path).resolve()
    b = open_bundle(src)
    sig = signing.check_bundle(b)
    red = rederive(b)
    marks = trust_marks(b, red, sig)
    page = own_scorecard(b, red, sig)
    shown = shown_figures(b, red, sig)
    run_id = str(b.manifest.get("run_id") or src.name)
    sub = f"{_stamp(str(b.manifest.get('finished_at') or ''))}-{_safe(run_id)}"
    entry = PublishedEntry(
        run_id=run_id,
        model=b.model,
        document_title=b.document_title,
        status=b.status,
        created_at=str(b.manifest.get("created_at") or ""),
        finished_at=str(b.manifest.get("finished_at") or ""),
        published_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        bundle=str(src),
        scorecard=f"{sub}/scorecard.html",
        bundle_copy=f"{sub}/{BUNDLE_COPY}",
        figures=shown.source,
        metrics=shown.metrics,
        signature={
            "state": sig.state,
            "fingerprint": sig.fingerprint,
            "trusted_as": sig.trusted_as,
            "line": sig.line(),
            "uncovered": ", ".join(sig.uncovered),
        },
        verification=(
            "TAMPERED: " + marks[0]
            if marks
            else (red.headline() if red is not None else "not re-derived")
        ),
        tampered=bool(marks),
        scripted=b.scripted,
    )
    old = [e for e in entries(dest) if e.run_id != run_id]
    runs = sorted(
        [entry, *old],
        key=lambda e: (e.finished_at or e.created_at, e.published_at),
        reverse=True,
    )
    try:
        (dest / sub).mkdir(parents=True, exist_ok=True)
        _copy_bundle(src, dest / sub / BUNDLE_COPY)
        _write(dest / sub / "scorecard.html", page)
        _write(dest / INDEX_JSON, json.dumps({"runs": [asdict(e) for e in runs]}, indent=1))
        _write(dest / INDEX_HTML, render_index(runs))
    except OSError as exc:
        raise PublishError(f"{dest}: cannot write ({exc.strerror or exc})") from None
    return entry


def _copy_bundle(src: Path, dest: Path) -> None:
    """The bundle as one zip in the published folder: a zip is copied byte for byte, a
    folder exported (``engine.bundle.export_zip``: its files byte for byte, so a signed
    bundle still verifies). Raises PublishError."""
    from engine.bundle import BundleError, export_zip

    try:
        if src.is_dir():
            export_zip(src, dest, overwrite=True)
        else:
            tmp = dest.with_name(dest.name + ".tmp")
            try:
                shutil.copyfile(src, tmp)
                tmp.replace(dest)
            finally:
                tmp.unlink(missing_ok=True)
    except BundleError as exc:
        raise PublishError(f"{dest.parent}: cannot copy the bundle ({exc})") from None
    except OSError as exc:
        raise PublishError(f"{dest}: cannot write ({exc.strerror or exc})") from None


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def export(dest: str | os.PathLike[str], folder: str | os.PathLike[str] | None = None) -> Path:
    """Copy the published folder (index and scorecards) to ``dest`` (created; must be
    empty or absent). Raises PublishError."""
    src = _folder(folder)
    out = Path(dest)
    if out.exists() and any(out.iterdir()):
        raise PublishError(f"{out}: not empty; export into a new folder")
    if not (src / INDEX_JSON).is_file():
        raise PublishError(f"{src}: nothing is published there yet")
    try:
        shutil.copytree(src, out, dirs_exist_ok=True)
    except OSError as exc:
        raise PublishError(f"{out}: cannot write ({exc.strerror or exc})") from None
    return out


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

# Run finished, model, document, status, the five metrics, signature, checked, bundle.
_WIDTHS = (8, 9, 12, 8, 8, 7, 7, 7, 7, 10, 9, 8)

_SHORT = {
    "attribution_rate": "Attribution",
    "collateral_churn": "Collateral churn",
    "claim_accuracy": "Claim accuracy",
    "cost_per_attributed_fix": "Tokens per fix",
    "rounds_to_converge": "Rounds to converge",
}


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def _when(stamp: str) -> str:
    """HTML of ``2026-11-30T22:00:24Z``: the date, and the time on a line of its own (a
    narrow column, so the index fits 1200 px without scrolling sideways)."""
    if re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp):
        return f"<span class='when'>{stamp[:10]}</span><br>{stamp[11:19]} UTC"
    return _e(stamp)


def _bundle_cell(e: PublishedEntry) -> str:
    """A relative link to the copy of the bundle in the published folder; an entry
    published before copies were made names its bundle's path (a link to another
    machine's file would lead nowhere)."""
    if e.bundle_copy:
        return f"<a href='{_e(e.bundle_copy)}'>bundle.zip</a>"
    return f"<span class='muted'>not copied: {_e(e.bundle)}</span>"


def render_index(runs: list[PublishedEntry]) -> str:
    """The index page: one row per published run, in the order given."""
    from engine import vocabulary

    out = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        "<meta name='referrer' content='no-referrer'>",
        f"<title>Published scorecards</title><style>{_CSS}</style></head><body><main>",
        "<h1>Published scorecards</h1>",
        f"<p class='muted'>{len(runs)} run(s), newest first. Each scorecard is this "
        "program's own rendering of its evidence bundle, checked when published: every "
        "verdict and metric re-derived from the bundle's documents, and its signature "
        "verified.</p>",
        # Fixed column widths: long names wrap inside their column, so the page never
        # scrolls sideways (checked at 1200 px by tests/app/test_published_index_width.py).
        "<table><colgroup>" + "".join(f"<col style='width:{w}%'>" for w in _WIDTHS) + "</colgroup>",
        "<tr><th>Run finished</th><th>Model</th><th>Document</th><th>Status</th>",
    ]
    out.extend(f"<th>{_e(_SHORT[n])}</th>" for n in METRIC_NAMES)
    out.append("<th>Signature</th><th>Checked</th><th>Bundle</th></tr>")
    for e in runs:
        cls = " class='tampered'" if e.tampered else ""
        sig = e.signature or {}
        state = sig.get("state", "")
        if state == "signed":
            who = f"trusted: {sig.get('trusted_as')}" if sig.get("trusted_as") else "unknown key"
            sig_cell = (
                f"<span class='signed'>signed</span> <code>{_e(sig.get('fingerprint'))}</code>"
                f"<div class='muted'>{_e(who)}</div>"
            )
        elif state == "bad" and sig.get("uncovered"):
            sig_cell = (
                "<span class='bad'>NOT COVERED: files changed after signing</span>"
                f"<div class='muted'>{_e(sig.get('line'))}</div>"
            )
        elif state == "bad":
            sig_cell = f"<span class='bad'>BAD SIGNATURE</span><div class='muted'>{_e(sig.get('line'))}</div>"
        else:
            sig_cell = "<span class='muted'>unsigned</span>"
        doc = f"<a href='{_e(e.scorecard)}'>{_e(e.document_title or 'document')}</a>"
        if e.scripted:
            doc += "<div class='scripted muted'>scripted demonstration</div>"
        out.append(
            f"<tr{cls}><td>{_when(e.finished_at or e.created_at)}</td>"
            f"<td>{_e(e.model)}</td><td>{doc}</td><td>{_e(e.status)}</td>"
        )
        for name in METRIC_NAMES:
            m = e.metrics.get(name)
            if not isinstance(m, dict):
                out.append("<td class='na'>not recorded</td>")
            elif m.get("value") is None:
                reason = vocabulary.metric_reason(m)
                short = reason if len(reason) <= 40 else reason[:38] + "\u2026"
                out.append(
                    f"<td class='na' title='{_e(reason)}'>N/A"
                    f"<div class='muted'>{_e(short)}</div></td>"
                )
            else:
                frac = vocabulary.metric_fraction(name, m)
                out.append(
                    f"<td class='num'>{_e(vocabulary.metric_value(name, m))}"
                    + (f"<div class='muted'>{_e(frac)}</div>" if frac else "")
                    + "</td>"
                )
        check = _e(e.verification)
        if not e.tampered and e.verification.startswith("Every verdict and metric re-derives"):
            check = "\u2714 every figure re-derived"
        if e.figures == "recomputed":
            check += "<div class='muted'>the metrics shown are recomputed from its documents</div>"
        elif e.figures == "unverified":
            check += "<div class='muted'>the metrics shown are the bundle's, unverified</div>"
        out.append(
            f"<td>{sig_cell}</td><td title='{_e(e.verification)}'>{check}</td>"
            f"<td>{_bundle_cell(e)}<div class='muted'>{_e(e.run_id)}</div></td></tr>"
        )
    if not runs:
        out.append(f"<tr><td colspan='{7 + len(METRIC_NAMES)}'>Nothing is published yet.</td></tr>")
    out.append("</table></main></body></html>")
    return "".join(out)
