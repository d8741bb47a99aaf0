"""Comparing two evidence bundles of the same review: which facts differ, the run's cost and
length side by side, and each comment's verdict in both runs.

``compare_bundles(a, b)`` takes what two opened bundles state (the manifest, metrics,
verdicts and comments, as ``engine.bundle`` reads them; any object with those attributes
will do) and returns a ``Comparison``: a label for each side that tells the two runs apart
(``SideLabel``: model, when the run started, the bundle's folder name or run id), warnings
in plain words, run rows (model, mode, status, tokens, wall time, rounds), and one
``VerdictPair`` per comment. The desktop program's Compare tab renders it; it computes
nothing of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from engine import vocabulary as vocab
from engine.bundle.scorecard import agent_mode_of

__all__ = [
    "BundleFacts",
    "Comparison",
    "SideLabel",
    "VerdictPair",
    "compare_bundles",
    "run_seconds",
    "side_labels",
]


class BundleFacts(Protocol):
    """What a comparison reads of an opened bundle."""

    manifest: dict[str, Any]
    metrics: dict[str, Any]
    verdicts: list[dict[str, Any]]
    comments_before: list[dict[str, Any]]
    v1: str


@dataclass(frozen=True)
class VerdictPair:
    """One comment in both runs. ``a``/``b``: the verdict dicts, None when absent."""

    comment_id: str
    quote: str
    a: dict[str, Any] | None
    b: dict[str, Any] | None

    @property
    def same(self) -> bool | None:
        """True/False when both runs scored it, None when one did not."""
        if self.a is None or self.b is None:
            return None
        return self.a.get("verdict") == self.b.get("verdict")


@dataclass(frozen=True)
class SideLabel:
    """What tells one side of a comparison apart from the other. ``model``: the manifest's
    model; ``started``: when the run started, ``YYYY-MM-DD HH:MM UTC`` (seconds added when
    both runs started in the same minute; "" when unrecorded); ``name``: the bundle's folder
    (or zip) name, else its run id (the run id is added when both names are the same)."""

    model: str
    started: str
    name: str

    def text(self) -> str:
        """One line: ``model · started · name`` (empty parts left out)."""
        return " \u00b7 ".join(x for x in (self.model, self.started, self.name) if x)


@dataclass
class Comparison:
    """``labels``: one ``SideLabel`` per side (A, B), to head their columns with.
    ``notes``: plain sentences a reader must see first (different documents or comments,
    a run that did not complete, a scripted run, the same run on both sides).
    ``run_rows``: (label, A text, B text). ``metric_rows``: (metric name, A metric, B
    metric) as stated. ``pairs``: per comment."""

    labels: tuple[SideLabel, SideLabel] = (SideLabel("", "", ""), SideLabel("", "", ""))
    notes: list[str] = field(default_factory=list)
    run_rows: list[tuple[str, str, str]] = field(default_factory=list)
    metric_rows: list[tuple[str, Any, Any]] = field(default_factory=list)
    pairs: list[VerdictPair] = field(default_factory=list)
    same_document: bool = True
    same_comments: bool = True


def _iso(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def run_seconds(manifest: dict[str, Any]) -> float | None:
    """Wall time of the run from its manifest's ``created_at`` and ``finished_at``, or None
    when either is missing or malformed."""
    start, end = _iso(manifest.get("created_at")), _iso(manifest.get("finished_at"))
    if start is None or end is None or end < start:
        return None
    return (end - start).total_seconds()


def _started(manifest: dict[str, Any], seconds: bool) -> str:
    """When the run started, ``YYYY-MM-DD HH:MM[:SS] UTC`` ("UTC" only when the manifest's
    time says its zone); "" when unrecorded or malformed."""
    when = _iso(manifest.get("created_at"))
    if when is None:
        return ""
    text = "%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M"
    if when.tzinfo is not None:
        return when.astimezone(UTC).strftime(text) + " UTC"
    return when.strftime(text)


def _bundle_name(d: Any) -> str:
    path = getattr(d, "path", None)
    if path is not None:
        name = Path(path).name
        if name == "manifest.json":
            name = Path(path).parent.name
        if name:
            return name
    return str(d.manifest.get("run_id") or "")


def side_labels(a: BundleFacts, b: BundleFacts) -> tuple[SideLabel, SideLabel]:
    """A label for each side that tells the runs apart: the model, when the run started and
    the bundle's name (see ``SideLabel``). Two rounds or two prompts of one model differ by
    time and name, not by model."""
    ma, mb = a.manifest, b.manifest
    same_minute = _started(ma, False) == _started(mb, False) and _started(ma, True) != _started(
        mb, True
    )
    na, nb = _bundle_name(a), _bundle_name(b)
    ra, rb = str(ma.get("run_id") or ""), str(mb.get("run_id") or "")
    if na == nb and ra != rb:  # two copies named alike: the run ids tell them apart
        na = na if na == ra else f"{na} (run {ra})"
        nb = nb if nb == rb else f"{nb} (run {rb})"
    return (
        SideLabel(str(ma.get("model") or "unknown model"), _started(ma, same_minute), na),
        SideLabel(str(mb.get("model") or "unknown model"), _started(mb, same_minute), nb),
    )


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "N/A — the bundle does not record when the run started and ended"
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m} min {s} s"
    h, m = divmod(m, 60)
    return f"{h} h {m} min"


def _mode(manifest: dict[str, Any]) -> str:
    mode = agent_mode_of(manifest)
    return str(mode["ran"]) if mode.get("ran") else "tools"


def _rounds(manifest: dict[str, Any]) -> str:
    r = manifest.get("rounds")
    if isinstance(r, int) and not isinstance(r, bool):
        pushes = sum(
            1
            for v in manifest.get("versions") or []
            if isinstance(v, dict) and str(v.get("name", "")).startswith("round-")
        )
        return f"{vocab.plural(r, 'round')}, {vocab.plural(pushes, 'push', 'pushes')}"
    return "N/A — not recorded"


def _tokens(d: BundleFacts) -> str:
    """The run's tokens in words: N/A "the model was never reached: ..." for a run that
    never reached it (whatever its manifest says: 0 in bundles written before null was)."""
    return vocab.tokens_text(d.manifest.get("tokens"), vocab.never_reached_of(d.metrics))


def _comment_key(d: BundleFacts) -> list[tuple[str, str]]:
    return sorted(
        (str(c.get("id")), str((c.get("anchor") or {}).get("quote"))) for c in d.comments_before
    )


def checks_words(d: Any) -> str:
    """A side's declared checks in words (docs/checks.md): "changes requested (...)",
    "no check blocks: 80% (4 of 5) passed", or "none declared"; the re-derived results
    when the side has been checked (``d.rederivation.checks``)."""
    from engine.bundle.scorecard_checks import shown_check_sets

    recomputed = getattr(getattr(d, "rederivation", None), "checks", None)
    dec = getattr(d, "decisions", None)
    accepted = dec.accepted_checks() if dec is not None else None
    sets = shown_check_sets(getattr(d, "checks", None), recomputed, accepted)
    final = next((s for label, s in sets if label == "Final"), None)
    if final is None:
        return "none declared"
    gate = final.gate()
    if gate.blocked:
        failing = ", ".join(
            f"{r.title} {vocab.CHECK_STATUS_WORDS[r.status]}" for r in gate.blocking
        )
        return f"{vocab.CHANGES_REQUESTED} ({failing})"
    return f"no check blocks: {final.rate()} passed"


def compare_bundles(a: BundleFacts, b: BundleFacts) -> Comparison:
    """Compare two opened bundles (see the module docstring). Never raises on odd content:
    what a bundle does not state reads N/A with the reason."""
    cmp = Comparison(labels=side_labels(a, b))
    cmp.same_document = a.v1 == b.v1
    cmp.same_comments = _comment_key(a) == _comment_key(b)
    if not cmp.same_document:
        cmp.notes.append(
            "These bundles start from different documents: the comparison may not be fair."
        )
    if not cmp.same_comments:
        cmp.notes.append(
            "These bundles have different comments: only comments present in "
            "both can be compared row by row."
        )
    for d, n in ((a, "A"), (b, "B")):
        m = d.manifest
        if m.get("status") != "completed":
            cmp.notes.append(
                f"Run {n} did not complete ({m.get('status')}: "
                f"{vocab.plain_reason(str(m.get('reason') or ''))})."
            )
        if m.get("scripted"):
            cmp.notes.append(f"Run {n} is a scripted demonstration, not a real model.")
    ma, mb = a.manifest, b.manifest
    if ma.get("run_id") and ma.get("run_id") == mb.get("run_id"):
        cmp.notes.append(
            f"A and B are the same run (run id {ma.get('run_id')}): the columns will match."
        )
    cmp.run_rows = [
        ("model", str(ma.get("model", "?")), str(mb.get("model", "?"))),
        ("agent mode", _mode(ma), _mode(mb)),
        ("how the run ended", str(ma.get("status", "?")), str(mb.get("status", "?"))),
        ("tokens used", _tokens(a), _tokens(b)),
        ("time", _duration(run_seconds(ma)), _duration(run_seconds(mb))),
        ("rounds", _rounds(ma), _rounds(mb)),
        ("declared checks", checks_words(a), checks_words(b)),
    ]
    cmp.metric_rows = [
        (name, a.metrics.get(name), b.metrics.get(name)) for name in vocab.METRIC_NAMES
    ]

    def key(d: BundleFacts, v: dict[str, Any]) -> str:
        cid = str(v.get("comment_id"))
        if cmp.same_comments:
            return cid
        # Different comment sets: a row pairs the same id only with the same quote.
        quote = next(
            (
                str((c.get("anchor") or {}).get("quote"))
                for c in d.comments_before
                if str(c.get("id")) == cid
            ),
            "",
        )
        return cid + "\x00" + quote

    va = {key(a, v): v for v in a.verdicts if isinstance(v, dict)}
    vb = {key(b, v): v for v in b.verdicts if isinstance(v, dict)}
    quotes = {
        str(c.get("id")): str((c.get("anchor") or {}).get("quote") or "")
        for c in [*a.comments_before, *b.comments_before]
    }
    for k in [*va, *(k for k in vb if k not in va)]:
        x, y = va.get(k), vb.get(k)
        cid = k.split("\x00", 1)[0]
        quote = ((x or y or {}).get("v1") or {}).get("text") or quotes.get(cid, "")
        cmp.pairs.append(VerdictPair(cid, str(quote), x, y))
    return cmp
