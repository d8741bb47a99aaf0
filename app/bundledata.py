"""What the GUI shows of an evidence bundle, read through ``engine.bundle`` (nothing computed).

``load_bundle(path) -> BundleData`` opens a folder or zip offline with
``engine.bundle.open_bundle`` (hash check, safe zip reading) and flattens what the views need.
Raises ``BundleError`` (one plain sentence) when the bundle cannot be read at all; a bundle
whose hashes fail still loads, with ``tampered`` naming the files.

An ``arl-bundle/2`` bundle is lossless: each verdict's evidence (confidence, notes, flags,
reopen reason) and the collateral ranges come from the bundle itself. Only for an older
``arl-bundle/1`` bundle does ``annotate(data)`` ask the engine to score v1 and v2 again for
what it does not store; the views say so.

``start_checks(data, listener)`` re-derives every verdict and metric from the bundle's own
files (``engine.bundle.rederive``) on a worker thread (``app.jobs``), once per opened bundle, and
calls each listener on the UI thread with the ``Rederivation`` (``data.rederivation``).
``data.signature`` is the ``engine.bundle.signing.SignatureStatus`` (checked on load).

Offsets in verdicts and collateral ranges count UTF-16 code units of each version's body
textContent, as the engine wrote them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import vocabulary as vocab
from engine.bundle.archive import BundleError as EngineBundleError
from engine.bundle.read import open_bundle


class BundleError(Exception):
    """The bundle cannot be opened; ``str()`` is one plain sentence for people (logged as
    that line alone, ``app.jobs``)."""

    said_in_words = True


@dataclass
class BundleData:
    path: Path
    manifest: dict[str, Any]
    v1: str  # HTML to render (a text document comes wrapped in <pre>)
    v2: str
    kind: str = "html"  # the document's own kind: html | text
    rounds: list[tuple[int, str]] = field(default_factory=list)
    comments_before: list[dict[str, Any]] = field(default_factory=list)
    comments_after: list[dict[str, Any]] = field(default_factory=list)
    claims: Any = None
    verdict_rounds: list[dict[str, Any]] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    unusable: list[Any] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    round_metrics: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    scorecard: str = ""
    tampered: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    collateral: list[dict[str, int]] | None = None
    extended: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: Any = None  # the engine's Bundle
    format: str = ""
    old_format: bool = False
    signature: Any = None  # engine.bundle.signing.SignatureStatus
    reopened: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> last reopen
    rederivation: Any = None  # engine.bundle.rederive.Rederivation, once checked
    checks: Any = None  # the bundle's checks.json (docs/checks.md); None: no checks
    rederive_error: str = ""
    # What the views show (engine.bundle.shown): "stated", "recomputed" (the bundle failed
    # verification; verdicts/metrics above are re-derived) or "unverified"; the notes say
    # per comment id / metric name what the bundle states and what was recomputed.
    shown_source: str = "stated"
    figures_headline: str = ""
    row_notes: dict[str, str] = field(default_factory=dict)
    row_terms: dict[str, str] = field(default_factory=dict)  # the same in exact terms
    metric_notes: dict[str, str] = field(default_factory=dict)
    # The reviewer decisions (engine.bundle.decisions.DecisionsCheck), checked once the
    # re-derivation is in (each names the verdict the engine derives now).
    decisions: Any = None
    # engine.bundle.own_copy.DecisionsHome.words() once this bundle's decisions are kept in
    # the user's copy of it (a shipped or read-only bundle): ``path`` is then the copy's.
    kept_copy: str = ""
    # The bundle asked for (the shipped or read-only original) when ``path`` is the copy.
    copied_from: str = ""
    _listeners: list[Callable[[Any], None]] = field(default_factory=list, repr=False)
    _index: dict[bool, Any] = field(default_factory=dict, repr=False)
    _checking: bool = False
    _held: bool = False  # hold_checks: the re-derivation waits for release_checks
    _title: str | None = field(default=None, repr=False)  # ``title``, once worked out

    @property
    def forged(self) -> bool:
        """Stated figures the same engine does not re-derive (after the check ran)."""
        return bool(self.rederivation is not None and self.rederivation.forged)

    @property
    def untrustworthy(self) -> bool:
        """Tampered files, forged figures or a bad signature: every view and export
        carries a TAMPERED mark."""
        sig_bad = self.signature is not None and self.signature.bad
        forged_decisions = self.decisions is not None and self.decisions.tampered
        return bool(self.tampered) or self.forged or sig_bad or forged_decisions

    def tamper_marks(self) -> list[str]:
        """Plain lines saying why the bundle is untrustworthy ([] when it is not)."""
        out = [f"{n} does not match the manifest" for n in self.tampered]
        if self.forged:
            out.append(self.rederivation.headline())
            out.extend(d.line() for d in self.rederivation.differences[:20])
        if self.signature is not None and self.signature.bad:
            out.append(self.signature.line())
        if self.decisions is not None:
            out.extend(self.decisions.problems[:10])
        return out

    @property
    def decisions_pending(self) -> bool:
        """The bundle holds reviewer decisions that are still being checked (they count
        only once the re-derivation says which verdict each was taken on): the views say
        "checking", never "no decision yet". A bundle without decision files has its
        (empty) decisions at once, from ``load_bundle``."""
        has_files = bool(getattr(self.source, "decision_files", None))
        return self.decisions is None and has_files and not self.rederive_error

    @property
    def status(self) -> str:
        return str(self.manifest.get("status") or "unknown")

    @property
    def reason(self) -> str:
        return vocab.plain_reason(str(self.manifest.get("reason") or ""))  # "1 comment", not "(s)"

    @property
    def model(self) -> str:
        if self.external:
            return "an agent that ran elsewhere"
        return str(self.manifest.get("model") or "unknown model")

    @property
    def external(self) -> bool:
        """A revision made outside this program (``engine.run.external``;
        ``engine.vocabulary.is_external``)."""
        return vocab.is_external(self.manifest)

    @property
    def scripted(self) -> bool:
        return bool(self.manifest.get("scripted"))

    @property
    def title(self) -> str:
        """The document's title for people, never the bundle's folder name: the manifest's,
        else the title or first heading of the version the agent was given
        (``engine.text.titles.document_title`` of its source), else "Untitled check of 2 Dec 2026, 14:29
        UTC" (``vocab.untitled_words``)."""
        return self.named_title or vocab.untitled_words(self.manifest)

    @property
    def named_title(self) -> str:
        """The manifest's title, else the given version's title or first heading; ""."""
        if self._title is None:
            stated = str(self.manifest.get("document_title") or "").strip()
            self._title = stated or _source_title(self.source)
        return self._title

    @property
    def tokens(self) -> int | None:
        t = self.manifest.get("tokens")
        return t if isinstance(t, int) else None

    def comment(self, cid: str, after: bool = False) -> dict[str, Any] | None:
        """The comment ``cid`` (the first of that id) as the bundle has it before the run,
        or after it (``after``: falling back to before). Looked up by an index built once
        per list (5,000 comments each looked up by the table were 25 million steps)."""
        comments = self.comments_after if after else self.comments_before
        key = (id(comments), len(comments))
        index = self._index.get(after)
        if index is None or index[0] != key:
            by_id: dict[str, dict[str, Any]] = {}
            for c in comments:
                by_id.setdefault(str(c.get("id")), c)
            index = self._index[after] = (key, by_id)
        found = index[1].get(cid)
        if found is not None:
            return found
        return self.comment(cid, False) if after else None


def _ranges(obj: Any) -> list[dict[str, int]] | None:
    """Collateral ranges as ``{start, end}`` (v2, UTF-16), from either stored shape."""
    if not isinstance(obj, list):
        return None
    out = []
    for r in obj:
        if not isinstance(r, dict):
            continue
        s, e = r.get("start", r.get("v2_start")), r.get("end", r.get("v2_end"))
        if isinstance(s, int) and isinstance(e, int) and 0 <= s <= e:
            out.append({"start": s, "end": e})
    return out


def shown_versions(versions: list[Any]) -> tuple[str, str] | None:
    """(v1, v2) HTML to render from a bundle's versions (v2 is v1 when nothing was
    pushed); None without a v1."""
    by_name: dict[str, str] = {}
    for v in versions:
        by_name.setdefault(v.name, v.html)
    v1 = by_name.get("v1")
    if v1 is None:
        return None
    return v1, by_name.get("v2", v1)


def _early(on_documents: Callable[[str, str], None]) -> Callable[[list[Any]], None]:
    """``open_bundle``'s ``on_versions`` for ``load_bundle``'s ``on_documents``."""

    def early(versions: list[Any]) -> None:
        pair = shown_versions(versions)
        if pair is not None:
            on_documents(*pair)

    return early


def _source_title(bundle: Any) -> str:
    """The title or first heading of ``bundle``'s v1 as its source reads (the one rule,
    ``engine.text.titles.document_title``; no file name to fall back on): "" when it has
    none or the bundle cannot give its v1."""
    from engine.text.titles import document_title

    if bundle is None:  # no engine bundle behind the data (a test's)
        return ""
    try:
        v1 = bundle.version("v1")
    except KeyError:  # no v1 in it
        return ""
    return document_title("", v1.kind, v1.source)


def _no_v1(path: Path, problems: list[str]) -> BundleError:
    """The error of a bundle whose manifest names no v1: why, in the words of the problem
    with its versions where there is one ("manifest.json: versions: Input should be a
    valid list"), as `arl bundle verify` says it; another field's problem is no reason."""
    why = next(
        (
            p
            for p in problems
            if p.startswith(("manifest.json: versions", "manifest.json: 'versions'"))
        ),
        "",
    )
    return BundleError(
        f"{path}: its manifest names no version v1 to show"
        + (f" ({why})" if why else ' (no entry named "v1" in its versions)')
    )


def load_bundle(
    path: str | Path, on_documents: Callable[[str, str], None] | None = None
) -> BundleData:
    """Open a bundle folder or zip. Raises BundleError when it cannot be read at all.

    ``on_documents(v1, v2)`` (on the worker thread) gets the HTML to render as soon as the
    document versions are read, before the records are parsed: the views start the
    pages while the rest is read (``BundleData.v1``/``v2`` are the same strings)."""
    path = Path(path)
    try:
        b = open_bundle(path, None if on_documents is None else _early(on_documents))
    except EngineBundleError as exc:
        raise BundleError(str(exc)) from None
    except OSError as exc:
        raise BundleError(f"{path}: cannot be read ({exc.strerror or exc})") from None

    def html_of(name: str) -> str | None:
        try:
            return b.version(name).html
        except KeyError:
            return None

    problems = list(b.problems)
    v1 = html_of("v1")
    if v1 is None:
        raise _no_v1(path, problems)
    v2 = html_of("v2")
    if v2 is None:
        v2 = v1
    rounds = [(int(v.round or 0), v.html) for v in b.versions if v.name.startswith("round-")]
    verdicts_obj = b.verdicts if isinstance(b.verdicts, dict) else {}
    verdict_rounds = [r for r in verdicts_obj.get("rounds") or [] if isinstance(r, dict)]
    final = [v for v in verdicts_obj.get("final") or [] if isinstance(v, dict)]
    round_metrics = [
        (int(r.get("round", i)), r["metrics"])
        for i, r in enumerate(verdict_rounds, 1)
        if isinstance(r.get("metrics"), dict)
    ]
    reopened: dict[str, dict[str, Any]] = {}
    for r in verdict_rounds:
        for item in r.get("reopened") or []:
            if isinstance(item, dict):
                reopened[str(item.get("comment_id"))] = dict(item, round=r.get("round"))
    from engine.bundle import signing

    extended = (
        {} if b.old_format else {str(v.get("comment_id")): v for v in final if "confidence" in v}
    )
    data = BundleData(
        path=path,
        manifest=b.manifest,
        v1=v1,
        v2=v2,
        kind=b.document_kind,
        rounds=rounds,
        comments_before=[c.to_json() for c in b.comments_before],
        comments_after=[c.to_json() for c in b.comments_after],
        claims=b.claims,
        verdict_rounds=verdict_rounds,
        verdicts=final,
        unusable=list(verdicts_obj.get("unusable") or []),
        metrics={k: m.to_json() for k, m in b.metrics.items()},
        round_metrics=round_metrics,
        scorecard=b.scorecard_html,
        tampered=list(b.tampered),
        problems=problems,
        collateral=_ranges(verdicts_obj.get("collateral")),
        extended=extended,
        source=b,
        format=b.format,
        old_format=b.old_format,
        signature=signing.check_bundle(b),
        reopened=reopened,
        checks=b.checks,
    )
    apply_shown(data)
    return data


def follow_copy(data: BundleData, home: Any) -> bool:
    """Point ``data`` at the bundle its decisions were written to (``home``, an
    ``engine.bundle.own_copy.DecisionsHome``): the user's copy of a shipped or read-only
    bundle. True when that moved it (the first decision, or a reopening of the original)."""
    if home is None or home.copied_from is None or Path(data.path) == home.bundle:
        return False
    data.path = home.bundle
    if data.source is not None:
        data.source.path = home.bundle
    data.kept_copy = home.words()
    data.copied_from = str(home.copied_from)
    return True


def apply_shown(data: BundleData) -> None:
    """Put in ``data`` the figures the views show (``engine.bundle.shown``): the stated
    ones, or, when the bundle failed verification, the ones the engine re-derived from its
    documents, with the notes naming what the bundle states. Computes nothing itself."""
    from engine.bundle.shown import shown_figures

    b = data.source
    if data.rederivation is not None or not getattr(b, "decision_files", None):
        # (no decision file: nothing to check, "no decision yet" is true at once)
        from engine.bundle.decisions import check_decisions

        data.decisions = check_decisions(b, data.rederivation)
    shown = shown_figures(b, data.rederivation, data.signature)
    data.shown_source = shown.source
    data.figures_headline = shown.headline
    data.row_notes = dict(shown.row_notes)
    data.row_terms = dict(shown.row_terms)
    data.metric_notes = dict(shown.metric_notes)
    if shown.source == "stated":
        return
    data.verdicts = [v for v in shown.final if isinstance(v, dict)]
    data.metrics = dict(shown.metrics)
    data.verdict_rounds = shown.rounds
    data.round_metrics = [
        (int(r.get("round", i)), r["metrics"])
        for i, r in enumerate(shown.rounds, 1)
        if isinstance(r.get("metrics"), dict)
    ]
    data.unusable = list(shown.unusable)
    if shown.source == "recomputed":
        data.collateral = _ranges(shown.collateral)
        data.extended = {str(v.get("comment_id")): v for v in data.verdicts}


def hold_checks(data: BundleData) -> None:
    """``start_checks`` on ``data`` only records its listeners until ``release_checks``
    (the Verdicts view holds the re-derivation until its documents show their marks)."""
    data._held = True


def release_checks(data: BundleData) -> None:
    """Start the re-derivation held by ``hold_checks`` (nothing when it was not held, or
    has started)."""
    if data._held:
        data._held = False
        start_checks(data)


def start_checks(data: BundleData, listener: Callable[[Any], None] | None = None) -> None:
    """Re-derive ``data`` off the UI thread (once); ``listener(rederivation)`` is called on
    the UI thread when it is done (at once when it already is). A re-derivation that
    raises leaves ``data.rederive_error`` set and calls listeners with None. While held
    (``hold_checks``) the listener is recorded and the work waits for ``release_checks``."""
    if listener is not None:
        if data.rederivation is not None or data.rederive_error:
            listener(data.rederivation)
            return
        data._listeners.append(listener)
    if data._held or data._checking or data.rederivation is not None or data.rederive_error:
        return
    data._checking = True
    from app.jobs import run_in_thread
    from engine.bundle.rederive import rederive

    def done(result: Any) -> None:
        data.rederivation = result
        _notify(data)

    def failed(exc: BaseException) -> None:
        from engine.vocabulary import error_words

        data.rederive_error = error_words(exc)
        _notify(data)

    run_in_thread(lambda: rederive(data.source), done, failed)


def _notify(data: BundleData) -> None:
    apply_shown(data)
    data._checking = False
    listeners, data._listeners = data._listeners, []
    for fn in listeners:
        fn(data.rederivation)


def rederive_now(data: BundleData) -> Any:
    """The re-derivation, computed here if it has not run yet (for exports)."""
    if data.rederivation is None and not data.rederive_error:
        from engine.bundle.rederive import rederive

        data.rederivation = rederive(data.source)
        apply_shown(data)
    return data.rederivation


def annotate(data: BundleData) -> tuple[list[dict[str, int]], dict[str, dict[str, Any]]]:
    """Collateral ranges and extended verdict fields, from the engine's rescoring of the
    bundle's own files. Returns ``(collateral, {comment_id: extended item})``. CPU-bound;
    raises whatever the engine raises (callers show it in words)."""
    result = data.source.rescore()
    out = result.to_json(extended=True)
    collateral = _ranges(out.get("collateral")) or []
    extended = {str(v["comment_id"]): v for v in out.get("verdicts", [])}
    return collateral, extended
