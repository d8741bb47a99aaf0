"""The scorecard page of an evidence bundle: one self-contained HTML document for people
who never read JSON (no script, inline CSS, a CSP that forbids every fetch).

``render_scorecard(manifest, verdicts, metrics, comments_before, comments_after, claims,
tampered=...) -> str``; the JSON arguments have the shapes of the bundle's files (see
``engine.bundle``). ``METRIC_LABELS``: metric name -> (label, meaning).
"""

from __future__ import annotations

import html
from typing import Any

from engine import vocabulary as vocab
from engine.bundle.scorecard_css import CSS as _CSS
from engine.vocabulary import METRIC_NAMES, STALE_ANCHOR_MESSAGE, VERIFICATION_MESSAGE

# The words come from engine.vocabulary (one vocabulary), shaped for this page.
VERDICT_LABELS = {
    v: (
        vocab.VERDICT_ICONS[v],
        vocab.VERDICT_LABELS[v].capitalize(),
        vocab.VERDICT_MEANINGS[v][0].upper() + vocab.VERDICT_MEANINGS[v][1:] + ".",
    )
    for v in vocab.VERDICTS
}
"""verdict -> (icon, label, meaning)."""
METHOD_WORDS = {**vocab.METHOD_WORDS, "none": ""}
METRIC_LABELS: dict[str, tuple[str, str]] = {
    n: (vocab.METRIC_TITLES[n], vocab.METRIC_MEANINGS[n]) for n in vocab.METRIC_NAMES
}
"""metric name -> (label, meaning)."""


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def _fmt_num(x: Any) -> str:
    if isinstance(x, float) and not x.is_integer():
        return f"{x:,.2f}"
    if isinstance(x, (int, float)):
        return f"{int(x):,}"
    return _e(x)


def agent_mode_of(manifest: dict[str, Any]) -> dict[str, Any]:
    """The run's agent mode: the manifest's ``agent_mode``, or ``settings.agent_mode`` where
    the run records it; {} when neither is a table."""
    mode = manifest.get("agent_mode")
    settings = manifest.get("settings")
    if not isinstance(mode, dict) and isinstance(settings, dict):
        mode = settings.get("agent_mode")
    return mode if isinstance(mode, dict) else {}


def _agent_mode(mode: dict[str, Any]) -> str:
    return vocab.agent_mode_words(mode)


def _metric_row(name: str, m: dict[str, Any], extra: str = "", note: str = "") -> str:
    label, meaning = METRIC_LABELS.get(name, (name, ""))
    if m.get("value") is None:
        value = '<span class="na">N/A</span>'
        detail = f'<span class="na">Not measurable:</span> {_e(vocab.metric_reason(m))}'
    else:
        value = _e(vocab.metric_value(name, m))
        detail = _e(vocab.metric_detail(name, m))
    if extra:
        detail += f"<div class='muted'>{_e(extra)}</div>"
    if note:
        detail += f"<div class='line differs'>\u26a0 {_e(note)}</div>"
    return (
        f"<tr><th>{_e(label)}<div class='muted'>{_e(meaning)}</div></th>"
        f"<td class='num'>{value}</td><td>{detail}</td></tr>"
    )


def _nothing_changed(manifest: dict[str, Any], metrics: dict[str, Any]) -> str:
    """The first thing to say when the agent changed nothing ("" otherwise): no revision
    pushed, or revisions whose text equals the given version's."""
    versions = [v for v in manifest.get("versions") or [] if isinstance(v, dict)]
    pushed = [v for v in versions if v.get("round") is not None]
    if versions and not pushed:
        return "The agent changed nothing: it pushed no revision of the document."
    churn = metrics.get("collateral_churn")
    if pushed and isinstance(churn, dict) and churn.get("value") is None:
        if str(churn.get("reason") or "").startswith("nothing changed"):
            return (
                "The agent changed nothing: its revision has the same text as the document "
                "it was given."
            )
    return ""


def render_scorecard(
    manifest: dict[str, Any],
    verdicts: dict[str, Any],
    metrics: dict[str, Any],
    comments_before: list[dict[str, Any]],
    comments_after: list[dict[str, Any]],
    claims: dict[str, Any],
    *,
    tampered: list[str] | None = None,
    checks: list[tuple[str, str]] | None = None,
    figures_note: str = "",
    row_notes: dict[str, str] | None = None,
    metric_notes: dict[str, str] | None = None,
    review: tuple[str, str] = ("", ""),
    checks_card: tuple[str, str] = ("", ""),
) -> str:
    """The scorecard page: one self-contained HTML document, no script, inline CSS, a CSP
    that forbids every fetch. For people who never read JSON. ``figures_note``: where the
    figures come from when they are not the bundle's stated ones
    (``engine.bundle.shown``); ``row_notes`` / ``metric_notes``: comment id / metric name
    -> what the bundle states and what was recomputed, printed on that row; ``review``:
    the reviewer decisions' banner and section (``engine.bundle.scorecard_review``);
    ``checks_card``: the declared checks' banner and section
    (``engine.bundle.scorecard_checks``). The banners' order: TAMPERED, changes requested,
    awaiting review, token edits, then the rest (``engine.vocabulary.OUTCOMES``)."""
    title = str(manifest.get("document_title") or "document")
    final = verdicts.get("final") or []
    from engine.score.metrics import coverage_of

    coverage = coverage_of(final, comments_before)
    out = _head(title)
    banners = _banners(manifest, metrics, tampered or [], figures_note)
    at = 1 if tampered else 0
    if checks_card[0]:
        banners.insert(at, checks_card[0])
        at += 1
    if review[0]:
        banners.insert(at, review[0])
        at += 1
    if token := _token_edits_banner(final):
        banners.insert(at, token)
        at += 1
    if hidden := vocab.hidden_only_words(final):
        banners.insert(
            at,
            f"<div class='banner awaiting'><b>Hidden text.</b> {_e(hidden)}: counted as "
            "unchanged, as a reader sees the page.</div>",
        )
    out += banners
    out += _facts(manifest, title, checks or [], vocab.never_reached_of(metrics))
    out.append(f"<p>{_e(_summary(final, comments_before, coverage))}</p>")
    out += _metrics_table(metrics, coverage, metric_notes or {})
    if checks_card[1]:
        out.append(checks_card[1])
    if review[1]:
        out.append(review[1])
    out += _verdicts_table(final, comments_before, row_notes or {})
    out += _reopened(comments_after, _numbers(comments_before, comments_after))
    out += _unusable(verdicts.get("unusable") or [], comments_before)
    out += _unusable_report(claims)
    out.append(
        "<p class='muted'>Verdicts are computed from the text of the two versions, "
        "never from the agent's word. Offsets and evidence are in the bundle's "
        "verdicts.json and trace.json.</p></main></body></html>"
    )
    return "".join(out)


def _token_edits_banner(final: list[Any]) -> str:
    """ "4 edited, 3 of them token edits: only the letter case changed" (docs/verdicts.md,
    "Token edits"), or "" when no verdict is a token edit."""
    edited, kinds = vocab.token_edit_items(final)
    if not kinds:
        return ""
    return (
        f"<div class='banner awaiting'><b>Token edits.</b> {edited} edited, "
        f"{_e(vocab.token_edits_words(kinds))}. A token edit is still an edit; check that "
        "it is the fix the comment asked for.</div>"
    )


def _head(title: str) -> list[str]:
    """The page's head (CSP, title, CSS) and its heading."""
    return [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
        "style-src 'unsafe-inline'\">",
        f"<title>Scorecard: {_e(title)}</title><style>{_CSS}</style></head><body><main>",
        f"<h1>Scorecard: {_e(title)}</h1>",
    ]


def _banners(
    manifest: dict[str, Any], metrics: dict[str, Any], tampered: list[str], figures_note: str
) -> list[str]:
    """The banners, most important first: tampered, scripted, nothing changed, status."""
    out = []
    if tampered:
        said = (
            _e(figures_note)
            if figures_note
            else "This evidence bundle failed its checks; do not trust these figures."
        )
        out.append(
            f"<div class='banner tampered'><b>TAMPERED.</b> {said}<ul>"
            + "".join(f"<li>{_e(t)}</li>" for t in tampered)
            + "</ul></div>"
        )
    if manifest.get("scripted"):
        out.append(
            "<div class='banner scripted'>SCRIPTED DEMONSTRATION: the agent's answers "
            "were played by a script, not produced by a real model. The verdicts and "
            "metrics are computed exactly as for a real run.</div>"
        )
    if nothing := _nothing_changed(manifest, metrics):
        out.append(f"<div class='banner nothing'>{_e(nothing)}</div>")
    status = str(manifest.get("status", ""))
    status_words = {
        "completed": "The run completed",
        "cancelled": "The run was cancelled",
        "failed": "The run failed",
    }.get(status, f"Run status: {status}")
    reason = vocab.plain_reason(str(manifest.get("reason") or ""))
    if status == "completed" and vocab.is_external(manifest):
        # what happened: a check of a revision, no run of this program's
        status_words, reason = vocab.EXTERNAL_STATUS_WORDS, vocab.EXTERNAL_NO_RUN
    out.append(
        f"<div class='banner {_e(status)}'>{_e(status_words)}"
        + (f": {_e(reason)}" if reason else "")
        + ".</div>"
    )
    return out


def _facts(
    manifest: dict[str, Any], title: str, checks: list[tuple[str, str]], never_reached: str = ""
) -> list[str]:
    """The "About this run" table: model, endpoint, times, rounds, tokens (N/A with
    ``never_reached`` for a run that never reached the model), checks. A revision checked
    here says each fact it lacks with its cause (``vocab.external_fact``) and its one time
    as "Checked on"."""
    tokens = manifest.get("tokens")

    def fact(field: str) -> Any:
        return vocab.external_fact(manifest, field, manifest.get(field))

    times = (
        [("Checked on", vocab.when_words(str(manifest.get("finished_at") or "")))]
        if vocab.is_external(manifest)
        else [
            ("Run started", vocab.when_words(str(manifest.get("created_at") or ""))),
            ("Run finished", vocab.when_words(str(manifest.get("finished_at") or ""))),
        ]
    )
    facts = [
        ("Model", fact("model")),
        ("Endpoint", fact("base_url")),
        *times,
        ("Rounds run", fact("rounds")),
        (
            "Tokens used",
            f"N/A \u2014 {never_reached}"
            if never_reached
            else f"{tokens:,}"
            if isinstance(tokens, int)
            else fact("tokens")
            if vocab.is_external(manifest)
            else "not reported by the provider",
        ),
        ("Document", title),
        ("Kind of document", vocab.document_kind_words(manifest, title)),
        ("Program", f"Agent Review Loop {manifest.get('app_version', '')}"),
        *([("Agent mode", _agent_mode(mode))] if (mode := agent_mode_of(manifest)) else []),
    ]
    facts.extend(checks)
    # The run is named by when it ran (vocab.run_words); its id only in the hover title.
    run = (
        f"<tr><th>{vocab.run_or_check(manifest).capitalize()}</th><td title='{_e(manifest.get('run_id') or '')}'>"
        f"{_e(vocab.run_words(manifest))}</td></tr>"
    )
    return [
        f"<h2>About this {vocab.run_or_check(manifest)}</h2><table class='facts'>",
        # an empty cell would read as nothing at all: a fact the bundle lacks says so
        *(
            f"<tr><th>{_e(k)}</th><td>{_e(v if v not in (None, '') else 'not recorded')}</td></tr>"
            for k, v in facts
        ),
        run,
        "</table>",
    ]


def _summary(final: list[Any], comments_before: list[dict[str, Any]], coverage: Any) -> str:
    """One sentence of what the text shows for the comments that counted.

    "Completed" says the run ended normally, not that the agent did well: the banner is
    neutral, and this sentence says what the text shows."""
    open_actionable = {
        c.get("id")
        for c in comments_before
        if c.get("actionable", True) and c.get("status", "open") == "open"
    }
    counts = {k: 0 for k in VERDICT_LABELS}
    for v in final:
        if v.get("comment_id") in open_actionable or v.get("verdict") == "stale_anchor":
            counts[v.get("verdict")] = counts.get(v.get("verdict"), 0) + 1
    actionable = counts["edited"] + counts["untouched"] + counts["deleted"]
    claimed = sum(1 for v in final if v.get("claim") == "addressed")
    summary = (
        f"Of {vocab.plural(actionable, 'comment')} the agent had to address, the text shows "
        f"{counts['edited']} edited, {counts['deleted']} deleted and "
        f"{counts['untouched']} untouched."
    )
    if counts["stale_anchor"]:
        n = counts["stale_anchor"]
        summary += (
            f" {vocab.plural(n, 'comment')} had a stale anchor and "
            f"{'was' if n == 1 else 'were'} not counted."
        )
    if claimed:
        summary += f" The agent claimed {vocab.plural(claimed, 'comment')} addressed."
    if coverage is not None and coverage.no_claim:
        summary += f" Its report has {coverage.text()}."
    return summary


def _metrics_table(metrics: dict[str, Any], coverage: Any, notes: dict[str, str]) -> list[str]:
    """The five metrics, each with its value or N/A and how it was measured."""
    out = [
        "<h2>Metrics</h2><table><tr><th>Metric</th><th>Value</th><th>How it was measured</th></tr>"
    ]
    for name in METRIC_NAMES:
        if name in metrics:
            extra = coverage.text() if name == "claim_accuracy" and coverage else ""
            out.append(_metric_row(name, metrics[name], extra, notes.get(name, "")))
    out.append(
        "</table><p class='muted'>N/A means the metric could not be measured; the "
        "reason is given. It never stands for zero.</p>"
    )
    return out


def _numbers(*groups: list[dict[str, Any]]) -> dict[str, int]:
    """comment id -> its number ("Comment 3", ``engine.vocabulary.comment_numbers``)."""
    ids: list[str] = []
    for group in groups:
        ids += [
            str(c.get("id")) for c in group if isinstance(c, dict) and str(c.get("id")) not in ids
        ]
    return vocab.comment_numbers(ids)


def _named(cid: Any, numbers: dict[str, int]) -> str:
    """A comment's name in a cell: "Comment 3" in bold, its raw id in the tooltip."""
    n = numbers.get(str(cid))
    if n is None:
        return f"<b>{_e(cid)}</b>"
    return f"<b title='{_e(cid)}'>Comment {n}</b>"


def _verdicts_table(
    final: list[dict[str, Any]], comments_before: list[dict[str, Any]], notes: dict[str, str]
) -> list[str]:
    """One row per comment: its body, verdict, the text before and after, the claim."""
    bodies = {c.get("id"): c.get("body", "") for c in comments_before}
    numbers = _numbers(comments_before, [{"id": v.get("comment_id")} for v in final])
    out = [
        "<h2>Verdicts, comment by comment</h2><table class='verdicts'><colgroup>"
        "<col style='width:21%'><col style='width:18%'><col style='width:21%'>"
        "<col style='width:21%'><col style='width:19%'></colgroup><tr><th>Comment</th>"
        "<th>Verdict</th><th>Before (v1)</th><th>After (v2)</th>"
        "<th>Agent's claim</th></tr>"
    ]
    out.extend(
        _verdict_row(
            v,
            str(bodies.get(v.get("comment_id"), "")),
            notes.get(str(v.get("comment_id")), ""),
            numbers,
        )
        for v in final
    )
    if not final:
        out.append("<tr><td colspan='5'>No verdicts were computed.</td></tr>")
    out.append("</table>")
    return out


def _verdict_row(v: Any, body: str, note: str = "", numbers: dict[str, int] | None = None) -> str:
    icon, label, meaning = VERDICT_LABELS.get(v.get("verdict"), ("?", v.get("verdict"), ""))
    cid = v.get("comment_id")
    body = body if len(body) <= 300 else body[:297] + "..."
    before = (v.get("v1") or {}).get("text")
    after = (v.get("v2") or {}).get("text")
    method = v.get("method")
    how_words = METHOD_WORDS.get(str(method), str(method or ""))
    how = f"<div class='muted'>{_e(how_words)}</div>" if how_words else ""
    msg = v.get("message")
    extra = _message_line(str(msg)) if msg else ""
    if v.get("token_edit") is True:
        kind = v.get("token_edit_kind") or "a small change"
        extra += f"<div class='line'>A token edit \u2014 {_e(kind)}</div>"
    if v.get("hidden_only") is True:
        extra += "<div class='line'>Only hidden text changed</div>"
    if note:
        extra += f"<div class='line differs'>\u26a0 {_e(note)}</div>"
    # A stale anchor was never looked for: "gone" would read as a deletion.
    missing = _STALE_CELLS if v.get("verdict") == "stale_anchor" else ("not found", "gone")
    return (
        f"<tr><td>{_named(cid, numbers or {})}<div class='quote'>{_e(body)}</div></td>"
        f"<td><span class='v v-{_e(v.get('verdict'))}' title='{_e(meaning)}'>"
        f"{icon} {_e(label)}</span>{how}{extra}</td>"
        f"<td class='quote'>{_e(before) if before is not None else f'<i>{missing[0]}</i>'}</td>"
        f"<td class='quote'>{_e(after) if after is not None else f'<i>{missing[1]}</i>'}</td>"
        f"<td>{_claim_cell(v)}</td></tr>"
    )


#: The Before / After cells of a stale anchor, which has neither span.
_STALE_CELLS = ("not in the version the agent was given", "not looked for")


def _claim_cell(v: dict[str, Any]) -> str:
    """The agent's claim for one verdict, and whether the text agrees with it."""
    claim = v.get("claim")
    if claim is None:
        return "<span class='muted'>no claim</span>"
    agrees = v.get("claim_agrees")
    verdict_word = (
        "agrees with the text" if agrees else "contradicted by the text" if agrees is False else ""
    )
    return f"{_e(vocab.claim_words(claim))}<div class='muted'>{_e(verdict_word)}</div>"


def _message_line(message: str, tag: str = "div") -> str:
    """An exact warning line as people read it (``vocab.message_sentence``), the exact line
    kept as its title (hover), for whoever searches the CLI's words."""
    said = vocab.message_sentence(message)
    if said == message:
        return f"<{tag} class='line'>{_e(message)}</{tag}>"
    return f"<{tag} class='line' title='{_e(message)}'>{_e(said)}.</{tag}>"


def _reopened(comments_after: list[dict[str, Any]], numbers: dict[str, int]) -> list[str]:
    """The integrity control: comments reopened because their text did not change."""
    reopened = [
        (c.get("id"), vocab.reply_words(r.get("author"), str(r.get("body") or "")))
        for c in comments_after
        for r in c.get("thread") or []
        if r.get("kind") == "reopen"
    ]
    if not reopened:
        return []
    out = [
        "<h2>Integrity control</h2><p>Comments the agent marked resolved although "
        "their text did not change were reopened:</p><ul>"
    ]
    for cid, body in reopened:
        line = STALE_ANCHOR_MESSAGE if "not in the version" in body else VERIFICATION_MESSAGE
        out.append(
            f"<li>{_named(cid, numbers)}: {_message_line(line, 'span')}"
            f"<div class='muted'>{_e(body)}</div></li>"
        )
    out.append("</ul>")
    return out


def _unusable(
    unusable: list[Any], comments_before: list[dict[str, Any]] | None = None
) -> list[str]:
    """Comments that could not be scored, each called by its number ("Comment 3", the raw
    id in the tooltip, as every other row) with the reason in words (``plain_reason``)."""
    if not unusable:
        return []
    pairs = []
    for u in unusable:
        if isinstance(u, dict):
            u = (u.get("comment_id"), u.get("reason"))
        if isinstance(u, (list, tuple)) and len(u) == 2:
            pairs.append((str(u[0]), str(u[1] or "")))
    numbers = _numbers(comments_before or [], [{"id": cid} for cid, _ in pairs])
    out = ["<h2>Comments that could not be scored</h2><ul>"]
    out.extend(
        f"<li>{_named(cid, numbers)}: {_e(vocab.plain_reason(why))}</li>" for cid, why in pairs
    )
    out.append("</ul>")
    return out


def _unusable_report(claims: dict[str, Any]) -> list[str]:
    """The plain reason the agent's final report could not be used ([] when it could)."""
    final_claims = claims.get("final") if isinstance(claims, dict) else None
    if not (isinstance(final_claims, dict) and final_claims.get("usable") is False):
        return []
    return [
        "<p><b>The agent's report could not be used:</b> "
        f"{_e(vocab.plain_reason(str(final_claims.get('problem') or '')))} (the "
        "parser's detail is in the bundle's claims.json)</p>"
    ]
