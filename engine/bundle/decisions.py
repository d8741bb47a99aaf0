"""The reviewer's decisions on a bundle's verdicts: ``decisions.json``, signed in
``decisions.signature.json`` by each reviewer's own key.

A person accepts or overrides each verdict (``DECISIONS``). The decisions live outside the
manifest, so the run's own signature (``signature.json`` over ``manifest.json``) stays
valid; each reviewer signs their own decisions with an Ed25519 signature over
``decision_payload``: the SHA-256 of the exact ``manifest.json`` bytes, the reviewer's
public key and every decision of that key, in file order (canonical JSON). So a decision
edited by hand, moved to another comment or to another bundle, or signed by another key
fails its signature; several reviewers sit side by side, each signature covering only its
own decisions. A decision is never edited: a revision is appended, and the latest
(``decided_at``, then file order) counts.

``decisions.json``: ``{"decisions": [{"comment_id", "round", "verdict", "decision",
"reason", "reviewer", "reviewer_key", "decided_at"}]}``: ``round`` is the run's round the
verdict is of (the manifest's ``rounds``: the final verdict, v1 against v2); ``verdict``
the verdict decided on, as this program derived it when deciding; ``reviewer_key`` the
signer's ``engine.bundle.signing.key_id``; ``decided_at`` UTC ISO 8601. A decision's
subject is a comment or a declared check: a check's decision carries ``check`` (the
check's name, ``placeholders`` ... ``command:<name>``; ``comment_id`` is then ""), its
``verdict`` is the check's result decided on (``fail``), and it can only ``accept`` that
FAIL, with a reason (``engine.bundle.check_decisions``). An accepted FAIL no longer blocks the
outcome (``DecisionsCheck.accepted_checks``, ``engine.checks.results.CheckSet.accepted``).
``decisions.signature.json``: ``{"manifest_sha256", "signatures": [{"algorithm":
"Ed25519", "reviewer", "public_key", "fingerprint", "signature", "previous"}]}``
(``previous``: the signature over the reviewer's decisions before their last one, kept
while a write is under way; see ``engine.bundle.adjudicate.write_decisions``).

Checking (``check_decisions``, called by ``engine.bundle.read.judge_bundle``): the files fit
their shapes, they were signed for this manifest, every decision is covered by a signature
that verifies, every signer is a trusted key (the reviewer's own key is trusted as theirs
when they decide: ``engine.bundle.adjudicate``), the writer's rules hold (a reason for every override; no
plain accept of a ``deleted`` verdict), and each decision names the verdict the engine
derives now. A different verdict is tampering ("decided on a different verdict"), except
when only the engine changed (the run's stated verdict is the one decided on and a trusted
signer vouches for the engine change): then CHECK.

The figures (``engine.bundle.review``): reviewed attribution = (edited and accepted + overridden
to addressed + the deletion was the fix) / actionable comments decided; agreement with the machine
= decisions that agree (``agrees_with_machine``) / decisions; "awaiting review: N" =
actionable comments with no decision.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from engine.bundle.archive import BundleError, load_json, sha256

DECISIONS_FILE = "decisions.json"
DECISIONS_SIGNATURE_FILE = "decisions.signature.json"
#: The members that sit outside the manifest's ``files`` table (beside ``signature.json``).
DECISION_FILES = (DECISIONS_FILE, DECISIONS_SIGNATURE_FILE)

DecisionWord = Literal[
    "accept", "addressed", "not-addressed", "deletion-is-fix", "declined", "another-round"
]
DECISIONS: tuple[DecisionWord, ...] = get_args(DecisionWord)
#: The decisions other than ``accept`` (all a ``deleted`` verdict offers).
OVERRIDES: tuple[DecisionWord, ...] = DECISIONS[1:]
#: A verdict as a decision (the attribution rate counts only ``edited``).
MACHINE_SAYS = {"edited": "addressed", "untouched": "not-addressed", "deleted": "not-addressed"}
#: Plain words for each decision (what a view shows; the word above is the record's).
DECISION_WORDS: dict[str, str] = {
    "accept": "accepted: the verdict stands",
    "addressed": "addressed",
    "not-addressed": "not addressed",
    "deletion-is-fix": "the deletion was the fix",
    "declined": "declined (won't fix)",
    "another-round": "needs another round",
}
#: A one-line reason, at most this many characters; a reviewer name at most
#: ``MAX_NAME``; a bundle at most ``MAX_DECISIONS`` decisions (every revision counts).
MAX_REASON = 1000
MAX_NAME = 200
MAX_DECISIONS = 50_000


class DecisionError(ValueError):
    """A decision cannot be made or written; ``str()`` is one line for people."""


@dataclass(frozen=True)
class Decision:
    """One decision (see the module docstring for the fields)."""

    comment_id: str
    round: int
    verdict: str
    decision: str
    reason: str
    reviewer: str
    reviewer_key: str
    decided_at: str
    check: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "comment_id": self.comment_id,
            "round": self.round,
            "verdict": self.verdict,
            "decision": self.decision,
            "reason": self.reason,
            "reviewer": self.reviewer,
            "reviewer_key": self.reviewer_key,
            "decided_at": self.decided_at,
        }
        if self.check:  # absent on a comment's decision: older signatures stay valid
            out["check"] = self.check
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Decision:
        """From a shape-checked ``decisions.json`` item."""
        return cls(
            str(obj["comment_id"]),
            int(obj["round"]),
            str(obj["verdict"]),
            str(obj["decision"]),
            str(obj["reason"]),
            str(obj["reviewer"]),
            str(obj["reviewer_key"]),
            str(obj["decided_at"]),
            str(obj.get("check") or ""),
        )

    @property
    def agrees(self) -> bool:
        return agrees_with_machine(self.verdict, self.decision)


def agrees_with_machine(verdict: str, decision: str) -> bool:
    """An accept, or the decision the verdict means (``MACHINE_SAYS``): no override."""
    return decision == "accept" or MACHINE_SAYS.get(verdict) == decision


def rule_problem(verdict: str, decision: str, reason: str) -> str | None:
    """The writer's rule a decision breaks, as a sentence, or None: a decision is one of
    ``DECISIONS``; an override (not ``agrees_with_machine``) needs a one-line reason; a
    ``deleted`` verdict offers no plain accept (say whether the deletion was the fix)."""
    if decision not in DECISIONS:
        return f"{decision!r} is not a decision (one of {', '.join(DECISIONS)})"
    if verdict == "deleted" and decision == "accept":
        return (
            "a deleted passage offers no plain accept: say whether the deletion was the fix "
            "(deletion-is-fix) or not-addressed"
        )
    if not agrees_with_machine(verdict, decision) and not reason.strip():
        return f"{decision} overrides the verdict: give a one-line reason"
    if "\n" in reason or "\r" in reason or len(reason) > MAX_REASON:
        return f"the reason must be one line of at most {MAX_REASON} characters"
    return None


def allowed_decisions(verdict: str) -> tuple[DecisionWord, ...]:
    """The decisions a verdict offers (a ``deleted`` one no plain accept)."""
    return OVERRIDES if verdict == "deleted" else DECISIONS


# -- checking --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Signer:
    """One reviewer's key: ``names`` the reviewer names its decisions carry; ``state``
    ``signed`` (verifies) or ``bad``; ``trusted_as`` the local trusted-keys name, or ""."""

    names: tuple[str, ...]
    fingerprint: str
    key_id: str
    state: Literal["signed", "bad"]
    count: int
    trusted_as: str = ""
    reason: str = ""

    def line(self) -> str:
        """ "decisions by Ann: 4, signed by 3f2a ... (trusted: Ann's laptop)"."""
        who = ", ".join(self.names) or "nobody"
        if self.state == "bad":
            return f"decisions by {who}: {self.count}, BAD SIGNATURE: {self.reason}"
        trust = f"trusted: {self.trusted_as}" if self.trusted_as else "an unknown key: not trusted"
        return f"decisions by {who}: {self.count}, signed by {self.fingerprint} ({trust})"


@dataclass
class DecisionsCheck:
    """What ``check_decisions`` found. ``decisions``: every decision, in file order;
    ``problems``: findings that make the bundle tampered; ``engine_changes``: decisions
    whose verdict differs only because the engine changed (CHECK)."""

    present: bool = False
    decisions: list[Decision] = field(default_factory=list)
    signers: list[Signer] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    engine_changes: list[str] = field(default_factory=list)
    #: problem index -> (the decision it is about, what is wrong with it): for
    #: ``problem_words``, which names the decision's subject as people call it.
    about: dict[int, tuple[Decision, str]] = field(default_factory=dict)

    def decision_problem(self, d: Decision, what: str) -> None:
        """Record that decision ``d`` is wrong: ``what`` (words after its subject). The
        exact line names the file, the raw comment id and the ISO time (as ``arl bundle
        verify`` prints it); ``problem_words`` says it for people."""
        subject = f"check {d.check}" if d.check else f"comment {d.comment_id}"
        self.about[len(self.problems)] = (d, what)
        self.problems.append(f"{DECISIONS_FILE}: {subject} ({d.reviewer}, {d.decided_at}): {what}")

    def problem_words(self, names: Mapping[str, str]) -> list[str]:
        """``problems`` for people: a decision's subject as the program calls it
        ("comment 2", ``names``: ``engine.vocabulary.comment_names``; an id it lacks
        quoted; a check by its name), who took it and when in words ("Ann, 1 Dec 2026,
        10:23 UTC"); a problem with the files as it is."""
        from engine.vocabulary import when_words

        out = []
        for i, line in enumerate(self.problems):
            if i not in self.about:
                out.append(line)
                continue
            d, what = self.about[i]
            if d.check:
                subject = f"the decision on the check \u201c{d.check}\u201d"
            else:
                called = names.get(d.comment_id, f"comment \u201c{d.comment_id}\u201d")
                subject = f"the decision on {called}"
            out.append(f"{subject} ({d.reviewer}, {when_words(d.decided_at)}): {what}")
        return out

    @property
    def tampered(self) -> bool:
        return bool(self.problems)

    @property
    def level(self) -> str:
        """``verified``, ``rescored`` (CHECK: an engine change) or ``tampered``."""
        if self.problems:
            return "tampered"
        return "rescored" if self.engine_changes else "verified"

    def latest(self) -> dict[str, Decision]:
        """comment id -> the decision that counts (the latest, across reviewers). Empty
        when the decisions are tampered: a forged decision counts for nothing."""
        return {} if self.tampered else latest([d for d in self.decisions if not d.check])

    def accepted_checks(self) -> dict[str, str]:
        """check name -> the reason its FAIL was accepted (the latest decision on each
        check). Empty when the decisions are tampered."""
        if self.tampered:
            return {}
        picked = latest([replace(d, comment_id=d.check) for d in self.decisions if d.check])
        return {name: d.reason for name, d in picked.items() if d.decision == "accept"}

    def lines(self) -> list[str]:
        """What ``arl bundle verify|show`` print of the decisions (without prefixes)."""
        if not self.present:
            return ["no reviewer decisions"]
        out = [s.line() for s in self.signers]
        for d in self.decisions:
            why = f": {d.reason}" if d.reason else ""
            if d.check:
                out.append(
                    f"check {d.check}: {d.decision} (on {d.verdict.upper()}) "
                    f"by {d.reviewer} at {d.decided_at}{why}"
                )
                continue
            out.append(
                f"comment {d.comment_id}: {d.decision} (on {d.verdict}, round {d.round}) "
                f"by {d.reviewer} at {d.decided_at}{why}"
            )
        return out


def latest(decisions: list[Decision]) -> dict[str, Decision]:
    """comment id -> its latest decision (``decided_at``, then file order)."""
    out: dict[str, Decision] = {}
    for d in decisions:
        prev = out.get(d.comment_id)
        if prev is None or d.decided_at >= prev.decided_at:
            out[d.comment_id] = d
    return out


def decision_payload(manifest_sha256: str, public_key_b64: str, items: list[Any]) -> bytes:
    """The bytes a reviewer signs: canonical JSON (sorted keys, no spaces, ASCII) of the
    manifest's SHA-256, the reviewer's public key (base64) and their decisions in order."""
    obj = {"manifest_sha256": manifest_sha256, "public_key": public_key_b64, "decisions": items}
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def parse_files(bundle: Any, res: DecisionsCheck) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The two files parsed and shape-checked ([] / {} and a problem when not)."""
    from engine.bundle.schema import check_file

    files = getattr(bundle, "decision_files", {}) or {}
    parsed: dict[str, Any] = {}
    for name in DECISION_FILES:
        if name not in files:
            continue
        try:
            obj = load_json(files[name], name)
        except BundleError as exc:
            res.problems.append(str(exc))
            continue
        shape = check_file(name, obj)
        if shape:
            res.problems.extend(shape)
            continue
        parsed[name] = obj
    if DECISIONS_FILE in files and DECISIONS_SIGNATURE_FILE not in files:
        res.problems.append(f"{DECISIONS_FILE}: the decisions are not signed")
    if DECISIONS_SIGNATURE_FILE in files and DECISIONS_FILE not in files:
        res.problems.append(f"{DECISIONS_SIGNATURE_FILE}: signs decisions that are missing")
    items = (parsed.get(DECISIONS_FILE) or {}).get("decisions") or []
    return items, parsed.get(DECISIONS_SIGNATURE_FILE) or {}


def check_decisions(
    bundle: Any, rederivation: Any = None, trusted: dict[str, str] | None = None
) -> DecisionsCheck:
    """Check an opened bundle's decisions (see the module docstring). ``rederivation``:
    ``engine.bundle.rederive.rederive(bundle)`` (the verdicts the engine derives now; without it
    the verdicts decided on are not checked, and that is a problem); ``trusted``: the
    trusted-keys store (``engine.bundle.signing.load_trusted()`` when None). Never raises."""
    res = DecisionsCheck(present=bool(getattr(bundle, "decision_files", None)))
    if not res.present:
        return res
    items, sig_file = parse_files(bundle, res)
    if res.problems:
        return res
    res.decisions = [Decision.from_json(i) for i in items]
    manifest_sha = sha256(bundle.manifest_bytes)
    if sig_file.get("manifest_sha256") != manifest_sha:
        res.problems.append(
            f"{DECISIONS_SIGNATURE_FILE}: signed for another run's manifest "
            "(decisions moved from another bundle, or the manifest changed)"
        )
        return res
    _check_signers(items, sig_file, manifest_sha, trusted, res)
    _check_rules_and_verdicts(bundle, rederivation, res)
    return res


def _check_signers(
    items: list[dict[str, Any]],
    sig_file: dict[str, Any],
    manifest_sha: str,
    trusted: dict[str, str] | None,
    res: DecisionsCheck,
) -> None:
    from engine.bundle import signing

    names = trusted if trusted is not None else signing.load_trusted()
    by_key: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by_key.setdefault(str(item["reviewer_key"]), []).append(item)
    entries: dict[str, dict[str, Any]] = {}
    for entry in sig_file.get("signatures") or []:
        try:
            pub = base64.b64decode(str(entry["public_key"]), validate=True)
        except ValueError:
            res.problems.append(f"{DECISIONS_SIGNATURE_FILE}: a public key is not base64")
            continue
        entries[signing.key_id(pub)] = entry
    for key, group in by_key.items():
        reviewers = tuple(dict.fromkeys(str(i["reviewer"]) for i in group))
        entry = entries.get(key)
        if entry is None:
            res.problems.append(
                f"{DECISIONS_FILE}: the decisions of {', '.join(reviewers)} carry no signature"
            )
            continue
        payloads = [decision_payload(manifest_sha, str(entry["public_key"]), group)]
        status = signing.verify_signature(payloads[0], _as_manifest_sig(entry), names)
        if status.state != "signed" and entry.get("previous"):
            # A write interrupted after the signatures, before the decisions: the
            # reviewer's previous decisions with their previous signature.
            prev = dict(entry, signature=entry["previous"])
            status = signing.verify_signature(payloads[0], _as_manifest_sig(prev), names)
        if status.state != "signed":
            why = (
                "the decisions do not match what this key signed (edited or moved after signing)"
                if "does not match" in status.reason
                else status.reason
            )
            res.signers.append(
                Signer(reviewers, status.fingerprint, key, "bad", len(group), "", why)
            )
            res.problems.append(f"{DECISIONS_FILE}: decisions by {', '.join(reviewers)}: {why}")
            continue
        signer = Signer(reviewers, status.fingerprint, key, "signed", len(group), status.trusted_as)
        res.signers.append(signer)
        if not status.trusted_as:
            res.problems.append(
                f"{DECISIONS_FILE}: decisions by {', '.join(reviewers)} are signed by an "
                f"unknown key ({status.fingerprint}): nobody you trust vouches for them "
                "(arl bundle trust-reviewer BUNDLE NAME trusts it)"
            )
    for key in entries:
        if key not in by_key:
            res.problems.append(
                f"{DECISIONS_SIGNATURE_FILE}: a signature for decisions that are not there"
            )


def _as_manifest_sig(entry: dict[str, Any]) -> dict[str, Any]:
    """A signature entry in ``engine.bundle.signing.verify_signature``'s shape."""
    return {
        "algorithm": entry.get("algorithm"),
        "public_key": entry.get("public_key"),
        "fingerprint": entry.get("fingerprint"),
        "signature": entry.get("signature"),
    }


def derived_verdicts(rederivation: Any, round_no: int, last_round: int) -> dict[str, str] | None:
    """comment id -> the verdict the engine derives now for ``round_no`` (the final
    verdicts for the run's last round), None when that round was not derived."""
    if rederivation is None:
        return None
    part = rederivation.final if round_no == last_round else rederivation.rounds.get(round_no)
    if not isinstance(part, dict):
        return None
    return {str(v.get("comment_id")): str(v.get("verdict")) for v in part.get("verdicts") or []}


def _stated(bundle: Any, round_no: int, last_round: int) -> dict[str, str]:
    """comment id -> the verdict the bundle states for ``round_no``."""
    verdicts = bundle.verdicts if isinstance(bundle.verdicts, dict) else {}
    items: list[Any] = []
    if round_no == last_round:
        items = verdicts.get("final") or []
    else:
        for r in verdicts.get("rounds") or []:
            if isinstance(r, dict) and r.get("round") == round_no:
                items = r.get("verdicts") or []
    return {str(v.get("comment_id")): str(v.get("verdict")) for v in items if isinstance(v, dict)}


def _check_rules_and_verdicts(bundle: Any, rederivation: Any, res: DecisionsCheck) -> None:
    last = last_round(bundle)
    excused = rederivation is not None and rederivation.level == "rescored"
    for d in res.decisions:
        if d.check:
            from engine.bundle.check_decisions import check_check_decision

            check_check_decision(d, rederivation, res)
            continue
        rule = rule_problem(d.verdict, d.decision, d.reason)
        if rule:
            res.decision_problem(d, rule)
        derived = derived_verdicts(rederivation, d.round, last)
        if derived is None:
            res.decision_problem(
                d,
                f"round {d.round} could not be derived, so the verdict decided on "
                "cannot be checked",
            )
            continue
        now = derived.get(d.comment_id)
        if now is None:
            res.decision_problem(d, "decided on a comment this bundle has no verdict for")
        elif now != d.verdict:
            if excused and _stated(bundle, d.round, last).get(d.comment_id) == d.verdict:
                res.engine_changes.append(
                    f"comment {d.comment_id}: decided on {d.verdict}, which this program now "
                    f"derives as {now} (an engine change)"
                )
            else:
                res.decision_problem(
                    d, f"decided on a different verdict ({d.verdict}; this program derives {now})"
                )


def last_round(bundle: Any) -> int:
    rounds = bundle.manifest.get("rounds") if isinstance(bundle.manifest, dict) else None
    return rounds if isinstance(rounds, int) and not isinstance(rounds, bool) else 0


def reviewer_key(bundle: Any, reviewer: str) -> bytes:
    """The raw public key that signed ``reviewer``'s decisions in ``bundle`` (for trusting
    it). Raises ValueError when no signature of a key whose decisions carry that name
    verifies."""
    res = check_decisions(bundle, None, {})
    wanted = [s for s in res.signers if reviewer in s.names and s.state == "signed"]
    if not wanted:
        raise ValueError(f"{bundle.path}: no verified decisions by {reviewer!r}")
    if len(wanted) > 1:
        raise ValueError(f"{bundle.path}: {reviewer!r} signed with more than one key")
    _, sig_file = parse_files(bundle, DecisionsCheck())
    for entry in sig_file.get("signatures") or []:
        from engine.bundle import signing

        pub = base64.b64decode(str(entry["public_key"]), validate=True)
        if signing.key_id(pub) == wanted[0].key_id:
            return pub
    raise ValueError(f"{bundle.path}: no verified decisions by {reviewer!r}")
