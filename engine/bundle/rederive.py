"""Re-derive a bundle's verdicts and metrics, and name every difference from what it states.

Why this module is long: the per-round and the final re-derivation share every comparison
helper and the verdict on the result (``Rederivation``); the cross-check with the trace is
its own module (``engine.bundle.rederive_trace``).

A bundle's ``verdicts.json`` and ``metrics.json`` are claims like any other. ``rederive(b)``
scores the bundle's own documents again with this program's engine, from its own comments
(``comments.before.json``), the agent's reports (``claims.json``) and the token usage of its
model calls (``trace.json``), round by round and for v1 against v2, and compares field by
field. What is taken as given, and why:

- rounds to converge: a stated value must equal the number of pushes, and
  ``comments.after.json`` must leave no actionable comment open; a stated N/A keeps its
  reason (whether the run converged depends on the agent's resolve calls, not on the text);
- the integrity control's reopen reasons: each reopened comment's verdict in that round must
  be ``untouched`` or ``stale_anchor`` and its reason must be on the comment's thread in
  ``comments.after.json``.

The engine that wrote the bundle is named in its manifest (``app_version`` and, from format
``arl-bundle/2``, ``engine.scoring_digest``); an ``arl-bundle/1`` bundle names none. That
record is the bundle's own word: a difference is reported as an engine change ("scored by
0.1.0 ...", ``level == "rescored"``) only when a signature by a TRUSTED key covers the
manifest; otherwise the difference is tampering (``tampered``), whatever the manifest says.

Cross-checked against ``trace.json`` (the run's own record of the model and tool calls):
every round the trace shows scored has its round record and no record names a round the
trace does not show; a comment the trace shows resolved in a round whose re-derived verdict
there is ``untouched`` or ``stale_anchor`` is in that round's ``reopened``; the status of
every comment in ``comments.after.json`` follows from the trace's resolve calls and the
rounds' reopens; ``given_version_id`` is the one the trace's run started with.

A figure that cannot be re-derived is never reported as re-derived: a file that does not
fit its schema, or a version that cannot be scored, is a ``problem``; any problem, or files
that fail the manifest check (``files_tampered``), makes the result ``tampered``.

``rederive(bundle, signature=None) -> Rederivation``; CPU-bound (a full scoring per round):
run it off the UI thread. Never raises for a bad bundle: what cannot be re-derived is a
``problem``.

The result also keeps what was recomputed (``final``, ``rounds``): a bundle that fails
verification is shown with these figures (``engine.bundle.shown``).

Why this module is long: re-scoring each round and the final part and comparing them field
by field is one procedure over one reading of the bundle; its helpers share that reading.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import __version__
from engine.bundle.differences import Difference, round_version
from engine.bundle.rederive_checks import rederive_checks
from engine.bundle.rederive_external import check_external, is_external
from engine.bundle.rederive_trace import cross_check_trace
from engine.vocabulary import EXTERNAL_USAGE, plural

#: The modules whose code decides a verdict or a metric (every engine module that
#: ``engine.score`` imports, directly or not; paths under ``engine/``); their digest names the
#: scoring engine in a bundle's manifest, so a change of engine is told apart from tampering.
#: tests/engine/test_contracts.py checks the list against the import graph.
SCORING_MODULES = (
    "collector.py",
    "diff/align.py",
    "diff/churn.py",
    "diff/cleanup.py",
    "diff/diffing.py",
    "diff/hunks.py",
    "diff/myers.py",
    "diff/tokens.py",
    "diff/warp.py",
    "models.py",
    "redact.py",
    "safe_io.py",
    "safe_zip.py",
    "score/anchoring/changes.py",
    "score/anchoring/claims.py",
    "score/anchoring/context.py",
    "score/anchoring/gates.py",
    "score/anchoring/index.py",
    "score/anchoring/locate.py",
    "score/anchoring/mapped.py",
    "score/anchoring/neighbours.py",
    "score/anchoring/reanchor.py",
    "score/anchoring/records.py",
    "score/anchoring/sentences.py",
    "score/anchoring/shared_places.py",
    "score/anchoring/stage_context.py",
    "score/anchoring/stage_fuzzy.py",
    "score/anchoring/stage_kept.py",
    "score/anchoring/stage_moved.py",
    "score/anchoring/stage_place.py",
    "score/anchoring/stage_repeated.py",
    "score/anchoring/stage_rewritten.py",
    "score/anchoring/thresholds.py",
    "score/anchoring/words.py",
    "score/integrity.py",
    "score/metrics.py",
    "score/scoring.py",
    "score/seen.py",
    "score/token_edits.py",
    "score/unseen.py",
    "text/bmp_twin.py",
    "text/css.py",
    "text/css_hiding.py",
    "text/documents.py",
    "text/docx.py",
    "text/docx_changes.py",
    "text/docx_comments.py",
    "text/docx_fastxml.py",
    "text/docx_marks.py",
    "text/docx_package.py",
    "text/docx_ranges.py",
    "text/docx_styles.py",
    "text/encoding.py",
    "text/encoding_labels.py",
    "text/html_markup.py",
    "text/html_text.py",
    "text/invisible.py",
    "text/markdown.py",
    "text/nesting_bound.py",
    "text/normalize.py",
    "text/rendering.py",
    "text/sentence_stops.py",
    "text/utf16.py",
    "vocabulary.py",
)


def scoring_digest() -> str:
    """First 12 hex digits of SHA-256 over the scoring modules' source, or ``""`` when the
    source is not available (a frozen build): then only the version tells engines apart."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent.parent  # engine/
    for name in SCORING_MODULES:
        try:
            h.update(name.encode() + b"\0" + (root / name).read_bytes())
        except OSError:
            return ""
    return h.hexdigest()[:12]


def engine_identity() -> dict[str, str]:
    """``{"version", "scoring_digest"}`` of this program, as a manifest records it."""
    return {"version": __version__, "scoring_digest": scoring_digest()}


#: ``Rederivation.level``: every figure re-derives; the figures differ only as an engine
#: change that a trusted signature vouches for; or the figures cannot be taken as true.
LEVELS = ("verified", "rescored", "tampered")


@dataclass
class Rederivation:
    """``differences``: every disagreement; ``problems``: what could not be re-derived;
    ``scored_by``: the engine the manifest names; ``engine_changed``: it is not this one
    (the manifest's own word); ``vouched_by``: the name of the trusted signer whose
    signature covers that word, else ""; ``skipped``: cross-checks with the trace that
    could not run (``engine.bundle.rederive_trace``), as plain phrases."""

    differences: list[Difference] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    scored_by: str = ""
    this_engine: str = ""
    engine_changed: bool = False
    #: The bundle's files fail its manifest check: no difference is an engine change then.
    files_tampered: bool = False
    #: What this program computes from the bundle's own documents: the final scoring
    #: (``score(...).to_json(extended=True)``: verdicts, metrics, unusable, collateral) and
    #: each round's, keyed by the round's number; None / absent where it could not score.
    final: dict[str, Any] | None = None
    rounds: dict[Any, dict[str, Any]] = field(default_factory=dict)
    vouched_by: str = ""
    skipped: list[str] = field(default_factory=list)
    #: Figures that depend on a member written as a stub (too large for the bundle's
    #: limits), as lines ending "unverified: member too large": never compared, never
    #: counted as differences, never tampered (``set_aside_stubbed``).
    unverified: list[str] = field(default_factory=list)
    #: The declared checks recomputed (``engine.bundle.rederive_checks``): "round N checks" /
    #: "final checks" -> ``engine.checks.results.CheckSet``; empty without checks.
    checks: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.differences and not self.problems and not self.files_tampered

    @property
    def excused(self) -> bool:
        """The differences are an engine change a trusted signer vouches for."""
        return self.engine_changed and bool(self.vouched_by)

    @property
    def tampered(self) -> bool:
        """The stated figures cannot be taken as true: something could not be re-derived,
        or a difference is not an engine change vouched for by a trusted signature. This
        is the one field every view reads (verify, show, publish, the GUI). A bundle whose
        files fail the manifest check is tampered whatever it re-derives."""
        return (
            bool(self.problems)
            or self.files_tampered
            or (bool(self.differences) and not self.excused)
        )

    @property
    def forged(self) -> bool:
        """The older name of ``tampered`` (views read either)."""
        return self.tampered

    @property
    def level(self) -> str:
        """One of ``LEVELS``: ``verified``, ``rescored`` or ``tampered``."""
        if self.tampered:
            return "tampered"
        return "rescored" if self.differences else "verified"

    def headline(self) -> str:
        """One sentence summing up the result."""
        n = len(self.differences)
        if self.problems:
            more = (
                f", and {plural(n, 'stated figure')} {'differs' if n == 1 else 'differ'}"
                if n
                else ""
            )
            return (
                "The figures could not all be re-derived ("
                + "; ".join(self.problems[:3])
                + f"){more}: what cannot be checked is not taken as true, so the bundle is "
                "treated as TAMPERED."
            )
        if not self.differences and self.files_tampered:
            return (
                "Every stated verdict and metric re-derives from the bundle's own documents, "
                "but its files fail the manifest check."
            )
        if not self.differences and self.unverified:
            return (
                "Every figure that could be checked re-derives exactly from the bundle's own "
                f"files; {plural(len(self.unverified), 'member')} "
                f"{'was' if len(self.unverified) == 1 else 'were'} too large for the bundle and "
                "were written as stubs, so what depends on them is unverified: member too "
                "large."
            )
        if not self.differences:
            return "Every verdict and metric re-derives exactly from the bundle's own files."
        if self.files_tampered:
            return (
                f"{_stated(n)} from what the bundle's own "
                "documents show, and its files fail the manifest check: these figures were "
                "changed after scoring."
            )
        if self.excused:
            return (
                f"Scored by {self.scored_by}; this program ({self.this_engine}) scores it "
                f"differently in {plural(n, 'place')}: an engine change, vouched for by the trusted "
                f"signer {self.vouched_by!r}."
            )
        if self.engine_changed:
            return (
                f"{_stated(n)} from what this program derives "
                f"from the bundle's own documents. The manifest says another engine scored "
                f"it ({self.scored_by}), but no signature by a trusted key vouches for that, "
                "so the figures are treated as TAMPERED."
            )
        return (
            f"{_stated(n)} from what the bundle's own documents "
            "show, with the same engine: these figures were changed after scoring."
        )


def _stated(n: int) -> str:
    """``1 stated verdict or metric differs``, ``2 stated verdicts or metrics differ``."""
    if n == 1:
        return "1 stated verdict or metric differs"
    return f"{plural(n, 'stated verdict')} or metrics differ"


def _engine_name(manifest: dict[str, Any]) -> tuple[str, str]:
    """(version, digest) of the engine that wrote the bundle."""
    eng = manifest.get("engine")
    digest = str(eng.get("scoring_digest", "")) if isinstance(eng, dict) else ""
    return str(manifest.get("app_version") or "an unknown version"), digest


def _trace_tokens(trace: Any, up_to_round: int | None) -> tuple[int | None, str]:
    """Tokens of the model calls (of rounds <= ``up_to_round``; all when None), None when a
    call reported none, with the reason the run gives (``vocabulary.usage_reason``: a
    call's entry says ``usage_not_whole`` when its usage came as something else than whole
    numbers; bundles from before that key say every such call "reported no" usage, as their
    run did)."""
    from engine.vocabulary import usage_reason

    entries = trace.get("entries") if isinstance(trace, dict) else None
    calls = unreported = not_whole = known = 0
    for e in entries if isinstance(entries, list) else []:
        if not isinstance(e, dict) or e.get("kind") != "model_call":
            continue
        if e.get("response") is None:  # failed or cancelled: the run counted no usage
            continue
        rnd = e.get("round")
        if up_to_round is not None and isinstance(rnd, int) and rnd > up_to_round:
            continue
        calls += 1
        usage = e.get("usage")
        total = usage.get("total_tokens") if isinstance(usage, dict) else None
        if isinstance(total, int) and not isinstance(total, bool):
            known += total
        elif e.get("usage_not_whole") is True:
            not_whole += 1
        else:
            unreported += 1
    if unreported or not_whole:
        return None, usage_reason(calls, unreported, not_whole)
    return known, ""


def _never_reached(bundle: Any) -> str:
    """``never_reached_reason`` of the bundle's run (its manifest's status, its trace's
    entries), as the run itself decided it; "" for a bundle with no trace."""
    from engine.score.metrics import never_reached_reason

    trace = bundle.trace
    if not trace:
        return ""
    entries = trace.get("entries") if isinstance(trace, dict) else None
    return never_reached_reason(str(bundle.manifest.get("status")), entries)


def _compare_items(
    where: str,
    stored: list[dict[str, Any]],
    again: list[dict[str, Any]],
    out: list[Difference],
    *,
    only_stored_keys: bool,
) -> None:
    by_id = {str(v.get("comment_id")): v for v in again}
    seen = set()
    for s in stored:
        cid = str(s.get("comment_id"))
        seen.add(cid)
        r = by_id.get(cid)
        if r is None:
            out.append(Difference(where, cid, "verdict", s.get("verdict"), "no such comment"))
            continue
        keys = list(s) if only_stored_keys else sorted(set(s) | set(r))
        for k in keys:
            if k in ("comment_id", "reopen_reason"):
                continue
            if s.get(k) != r.get(k):
                out.append(Difference(where, cid, k, s.get(k), r.get(k)))
    for cid, r in by_id.items():
        if cid not in seen:
            out.append(Difference(where, cid, "verdict", "missing", r.get("verdict")))


def _compare_metrics(
    where: str, stored: Any, again: dict[str, dict[str, Any]], out: list[Difference]
) -> None:
    stored = stored if isinstance(stored, dict) else {}
    for name in sorted(set(stored) | set(again)):
        s, r = stored.get(name), again.get(name)
        if s != r and not _older_no_revision(name, s, r):
            shown_s, shown_r = _metric(name, s), _metric(name, r)
            if shown_s == shown_r:  # differs beyond what the words show
                shown_s, shown_r = s, r
            out.append(Difference(where, None, f"metric {name}", shown_s, shown_r))


def _older_no_revision(name: str, stored: Any, again: Any) -> bool:
    """A bundle written before a run with no revision made the attribution rate N/A
    (``engine.score.metrics.no_revision_reason``) stored "0% (0 of N)" for the same fact,
    and still verifies."""
    from engine.score.metrics import NO_REVISION

    return (
        name == "attribution_rate"
        and isinstance(stored, dict)
        and stored.get("numerator") == 0
        and isinstance(again, dict)
        and str(again.get("reason") or "").startswith(NO_REVISION)
    )


def _metric(name: str, m: Any) -> Any:
    """A metric as people read it ("67% (2 of 3)")."""
    from engine import vocabulary

    if not isinstance(m, dict):
        return m
    try:
        return vocabulary.metric_text(name, m)
    except (TypeError, ValueError):
        return f"{m.get('value')} ({m.get('numerator')} / {m.get('denominator')})"


def _unusable(obj: Any) -> list[list[str]]:
    out = []
    for u in obj if isinstance(obj, list) else []:
        if isinstance(u, dict):
            out.append([str(u.get("comment_id")), str(u.get("reason"))])
        elif isinstance(u, (list, tuple)) and len(u) == 2:
            out.append([str(u[0]), str(u[1])])
    return out


def rederive(bundle: Any, signature: Any = None) -> Rederivation:
    """Re-derive ``bundle`` (an ``engine.bundle.Bundle``) and compare. ``signature``: its
    ``engine.bundle.signing.SignatureStatus`` (checked here when None); only a trusted one makes
    an engine change an excuse. See the module docstring for what is recomputed, what is
    cross-checked and what is taken as given."""
    res = _engines(bundle)
    if signature is None:
        from engine.bundle import signing

        signature = signing.check_bundle(bundle)
    if getattr(signature, "trusted", False):
        res.vouched_by = str(signature.trusted_as)
    if bundle.tampered:
        res.files_tampered = True
    # A file that does not fit its shape is read as empty: every check that needs it
    # would pass vacuously, so it is a problem, never a silent skip.
    res.problems.extend(f"cannot be checked: {p}" for p in bundle.problems)
    try:
        v1 = bundle.version("v1").to_version()
        v2 = bundle.version("v2").to_version()
    except (KeyError, ValueError) as exc:
        res.problems.append(f"the bundle's documents cannot be read ({exc})")
        return res
    external = is_external(bundle)
    never = _never_reached(bundle)
    total, total_reason = (
        (None, EXTERNAL_USAGE)
        if external
        else (None, never)
        if never
        else _trace_tokens(bundle.trace, None)
    )
    stated = bundle.manifest.get("tokens")
    # A run that never reached the model measured no tokens (null); bundles written before
    # that was stored said 0 for the same fact, and still verify.
    if bundle.trace and stated != total and not (never and stated == 0):
        res.differences.append(Difference("run", None, "tokens", stated, total))
    again_rounds = _rederive_rounds(bundle, v1, res)
    _rederive_final(bundle, v1, v2, (total, total_reason), res)
    rederive_checks(bundle, v1, res)

    stubbed = dict(getattr(bundle, "stubbed", None) or {})
    if "trace.json" in stubbed:
        res.skipped = ["the checks against trace.json (unverified: member too large)"]
    elif external:
        final_items = res.final["verdicts"] if res.final else []
        res.skipped = check_external(bundle, final_items, res.differences)
    else:
        res.skipped = cross_check_trace(bundle, again_rounds, res.differences)
    set_aside_stubbed(stubbed, res)
    return res


#: What depends on a member that may be written as a stub: the figures named (by
#: ``Difference.field``) and their description. A stubbed member not listed here (a
#: document version, comments.before.json, verdicts.json, metrics.json) leaves every
#: figure unverified; scorecard.html is a display that no figure depends on.
STUB_DEPENDENTS: dict[str, tuple[frozenset[str], str]] = {
    "claims.json": (
        frozenset({"claim", "claim_agrees", "message", "metric claim_accuracy"}),
        "the agent's claims and claim accuracy",
    ),
    "trace.json": (
        frozenset({"tokens", "metric cost_per_attributed_fix"}),
        "token counts, cost per attributed fix and the checks against the trace",
    ),
    "comments.after.json": (
        frozenset({"metric rounds_to_converge", "reopen reason", "status in comments.after.json"}),
        "rounds to converge, the reopen reasons and the final comment statuses",
    ),
    "scorecard.html": (frozenset(), "the scorecard page (a display; no figure depends on it)"),
}


def set_aside_stubbed(stubbed: dict[str, Any], res: Rederivation) -> None:
    """Move every difference that depends on a stubbed member out of ``differences``
    and say, for each stubbed member, which figures are "unverified: member too large"
    (``res.unverified``). A stub is a member the writer could not fit, not a forgery: the
    rest of the bundle is checked as always."""
    if not stubbed:
        return
    every = any(name not in STUB_DEPENDENTS for name in stubbed)
    fields: set[str] = set()
    for name in sorted(stubbed):
        stub = stubbed[name] if isinstance(stubbed[name], dict) else {}
        size = stub.get("size")
        sized = f"{size:,} bytes" if isinstance(size, int) else "its size unknown"
        what = STUB_DEPENDENTS[name][1] if name in STUB_DEPENDENTS else "every verdict and metric"
        res.unverified.append(f"{name} ({sized}): {what}: unverified: member too large")
        if name in STUB_DEPENDENTS:
            fields |= STUB_DEPENDENTS[name][0]
    kept = []
    for d in res.differences:
        if every or d.field in fields:
            continue
        kept.append(d)
    res.differences = kept


def _engines(bundle: Any) -> Rederivation:
    """A new result naming the engine that scored ``bundle`` and this program's, and
    whether they differ."""
    res = Rederivation()
    version, digest = _engine_name(bundle.manifest)
    mine = engine_identity()
    res.scored_by = version + (f" (scoring {digest})" if digest else "")
    res.this_engine = mine["version"] + (
        f" (scoring {mine['scoring_digest']})" if mine["scoring_digest"] else ""
    )
    # An older bundle names no scoring engine: a difference there may be an engine change,
    # but only a trusted signature makes that believable (``Rederivation.tampered``).
    unrecorded = not digest and bool(getattr(bundle, "old_format", False))
    if unrecorded:
        res.scored_by += " (engine not recorded: an older bundle)"
    res.engine_changed = (
        version != mine["version"]
        or unrecorded
        or bool(digest and mine["scoring_digest"] and digest != mine["scoring_digest"])
    )
    return res


def _given(bundle: Any, v1: Any) -> str:
    return str(bundle.manifest.get("given_version_id") or v1.version_id)


def _verdicts_of(bundle: Any) -> dict[str, Any]:
    return bundle.verdicts if isinstance(bundle.verdicts, dict) else {}


def _claims_of(bundle: Any) -> dict[str, Any]:
    return bundle.claims if isinstance(bundle.claims, dict) else {}


def _rederive_rounds(bundle: Any, v1: Any, res: Rederivation) -> dict[int, list[dict[str, Any]]]:
    """Score each round's version again and compare with its record in verdicts.json.
    Returns each round's recomputed verdict items (for the cross-check with the trace)."""
    out: dict[int, list[dict[str, Any]]] = {}
    trace = bundle.trace
    old = bool(getattr(bundle, "old_format", False))
    diffs = res.differences
    reports = {
        r.get("round"): r.get("report")
        for r in _claims_of(bundle).get("rounds") or []
        if isinstance(r, dict)
    }
    reopen_bodies = {
        c.id: [r.body for r in c.thread if r.kind == "reopen"] for c in bundle.comments_after
    }
    prev_tokens: int | None = 0
    for record in _verdicts_of(bundle).get("rounds") or []:
        rnd = record.get("round")
        where = f"round {rnd}"
        tokens, reason = (
            (None, EXTERNAL_USAGE)
            if is_external(bundle)
            else _trace_tokens(trace, rnd if isinstance(rnd, int) else None)
        )
        # An older bundle's record is checked on every field it carries: "older format"
        # is the bundle's own word and skips nothing it states.
        if trace and (not old or "tokens" in record):
            round_tokens = (
                tokens - prev_tokens if tokens is not None and prev_tokens is not None else None
            )
            if record.get("tokens") != round_tokens:
                diffs.append(Difference(where, None, "tokens", record.get("tokens"), round_tokens))
        prev_tokens = tokens
        vid = str(record.get("version_id"))
        bv = round_version(bundle, vid)
        if bv is None:
            diffs.append(Difference(where, None, "version", vid, "not in the bundle"))
            continue
        again = _score(
            bundle,
            v1,
            bv.to_version(),
            reports.get(rnd),
            (tokens, reason),
            (None, "the run has not finished"),
            f"{where} could not be scored",
            res,
        )
        if again is None:
            continue
        res.rounds[rnd] = again
        if isinstance(rnd, int):
            out[rnd] = again["verdicts"]
        _compare_items(
            where, record.get("verdicts") or [], again["verdicts"], diffs, only_stored_keys=old
        )
        _compare_metrics(where, record.get("metrics"), again["metrics"], diffs)
        if not old or "unusable" in record:
            _compare_unusable(where, record.get("unusable"), again, diffs)
        if not old or "collateral" in record:
            _compare_collateral(where, record.get("collateral"), again, diffs)
        if not old or "reopened" in record:
            _check_reopened(where, record, again["verdicts"], reopen_bodies, diffs)
    return out


def _score(
    bundle: Any,
    v1: Any,
    version: Any,
    report: Any,
    tokens: tuple[int | None, str],
    rounds: tuple[int | None, str],
    failure: str,
    res: Rederivation,
    final: bool = False,
) -> dict[str, Any] | None:
    """``score(...).to_json(extended=True)`` of ``version`` against v1; None (and a
    problem naming ``failure``) when scoring raises. ``final``: the final scoring, N/A
    throughout for a failed run whose trace has no model answer (as the run scored it)."""
    from engine.models import claims_from_json
    from engine.score.metrics import apply_no_revision, no_revision_reason
    from engine.score.scoring import score

    never = _never_reached(bundle) if final else ""

    try:
        result = score(
            v1,
            version,
            bundle.comments_before,
            claims=claims_from_json(report),
            given_version_id=_given(bundle, v1),
            tokens=tokens[0] if bundle.trace else bundle.manifest.get("tokens"),
            tokens_reason=tokens[1],
            rounds_to_converge=rounds[0],
            rounds_reason=rounds[1],
            never_reached=never,
        )
    except Exception as exc:  # a bug must not hide the bundle: say it
        res.problems.append(f"{failure} ({type(exc).__name__}: {exc})")
        return None
    if final:  # cancelled or failed before any push, as the run scored it
        revised = version.version_id != _given(bundle, v1)
        status = str(bundle.manifest.get("status"))
        apply_no_revision(result.metrics, no_revision_reason(status, revised))
    return result.to_json(extended=True)


def _compare_unusable(
    where: str, stored: Any, again: dict[str, Any], diffs: list[Difference]
) -> None:
    if _unusable(stored) != _unusable(again["unusable"]):
        diffs.append(Difference(where, None, "unusable comments", stored, again["unusable"]))


def _compare_collateral(
    where: str, stored: Any, again: dict[str, Any], diffs: list[Difference]
) -> None:
    if stored != again["collateral"]:
        diffs.append(
            Difference(
                where, None, "collateral ranges", len(stored or []), len(again["collateral"])
            )
        )


def _rounds_to_converge(bundle: Any) -> tuple[int | None, str]:
    """Rounds to converge as the final scoring takes it: a stated value must equal the
    number of pushes and leave no actionable comment open; a stated N/A keeps its reason."""
    stored = bundle.metrics.get("rounds_to_converge")
    if stored is None:
        return None, ""
    if stored.value is None:
        return None, stored.reason
    verdicts = _verdicts_of(bundle)
    stale_or_unusable = {str(u[0]) for u in _unusable(verdicts.get("unusable"))} | {
        str(v.get("comment_id"))
        for v in verdicts.get("final") or []
        if v.get("verdict") == "stale_anchor"
    }
    before_open = {
        c.id for c in bundle.comments_before if c.actionable and c.status == "open"
    } - stale_or_unusable
    still_open = [c.id for c in bundle.comments_after if c.id in before_open and c.status == "open"]
    if still_open:
        return None, (
            f"comments.after.json leaves {plural(len(still_open), 'actionable comment')} open, "
            "so the run did not converge"
        )
    return sum(1 for v in bundle.versions if v.name.startswith("round-")), ""


def _rederive_final(
    bundle: Any, v1: Any, v2: Any, tokens: tuple[int | None, str], res: Rederivation
) -> None:
    """The final scoring, v1 against v2 with the last report, compared with the bundle's
    final verdicts and metrics."""
    verdicts = _verdicts_of(bundle)
    old = bool(getattr(bundle, "old_format", False))
    diffs = res.differences
    again = _score(
        bundle,
        v1,
        v2,
        _claims_of(bundle).get("final"),
        tokens,
        _rounds_to_converge(bundle),
        "the final verdicts could not be scored",
        res,
        final=True,
    )
    if again is None:
        return
    res.final = again
    _compare_items(
        "final", verdicts.get("final") or [], again["verdicts"], diffs, only_stored_keys=old
    )
    stored_metrics = {k: m.to_json() for k, m in bundle.metrics.items()}
    _compare_metrics("final", stored_metrics, again["metrics"], diffs)
    _compare_unusable("final", verdicts.get("unusable"), again, diffs)
    if verdicts.get("collateral") is not None:
        _compare_collateral("final", verdicts.get("collateral"), again, diffs)


def _check_reopened(
    where: str,
    record: dict[str, Any],
    again: list[dict[str, Any]],
    reopen_bodies: dict[str, list[str]],
    diffs: list[Difference],
) -> None:
    by_id = {str(v.get("comment_id")): v for v in again}
    stated = {
        str(r.get("comment_id")): str(r.get("reason"))
        for r in record.get("reopened") or []
        if isinstance(r, dict)
    }
    for cid, reason in stated.items():
        verdict = (by_id.get(cid) or {}).get("verdict")
        if verdict not in ("untouched", "stale_anchor"):
            diffs.append(Difference(where, cid, "reopened although", "untouched", verdict))
        if reason not in reopen_bodies.get(cid, []):
            diffs.append(
                Difference(where, cid, "reopen reason", reason, "not on the comment's thread")
            )
    for v in record.get("verdicts") or []:
        cid = str(v.get("comment_id"))
        if v.get("reopen_reason") != stated.get(cid):
            diffs.append(
                Difference(where, cid, "reopen_reason", v.get("reopen_reason"), stated.get(cid))
            )
