"""A declared check's result, the results of one pair of versions, and the gate.

``CheckResult``: one check on one version (PASS / FAIL / UNVERIFIED / N/A, a one-line
summary, its output word for word, the findings it compared, the SHA-256 of the version
it ran on). ``CheckSet``: every check on the reviewed and on the revised version of one
pair, with the policy; ``CheckSet.gate()`` says whether approval is blocked
(docs/checks.md, "The gate").

The rule a view reads: a FAIL on the revised version blocks, unless the same failure is
already in the reviewed version (``already``) and the policy ``preexisting`` is ``show``;
an UNVERIFIED blocks when the policy ``unverified`` is ``block``, else it is shown. A
result never passes silently: UNVERIFIED is never counted as PASS. A FAIL the reviewer
accepted with a reason (a signed decision whose subject is the check,
``engine.bundle.decisions``; ``CheckSet.accepted``) is shown as accepted, with the
reason, and does not block.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.vocabulary import (
    ALREADY_IN_REVIEWED,
    CHECK_STATUS_WORDS,
    CHECK_STATUSES,
    CheckStatus,
    check_rate_text,
    declared_check_title,
    one_of,
)

Role = Literal["reviewed", "revised"]
ROLES: tuple[Role, ...] = ("reviewed", "revised")

CheckKind = Literal["placeholders", "links", "sections", "length", "numbers", "command"]
BUILTIN_KINDS: frozenset[str] = frozenset(
    {"placeholders", "links", "sections", "length", "numbers"}
)
"""Checks the program computes from the versions alone: re-derived when a bundle is
verified or opened. A command's result is recorded, not re-run."""


def version_sha256(raw: str) -> str:
    """The SHA-256 (hex) of a version's source as UTF-8: what a result is bound to. It is
    the hash the bundle's manifest lists for the version's file."""
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class CheckResult:
    """One check on one version.

    ``name``: ``placeholders``, ``links``, ``sections``, ``length``, ``numbers`` or
    ``command:<name>``. ``summary``: one line for people. ``output``: the check's output
    word for word (the findings one per line; a command's last 40 lines). ``findings``:
    the items found (what a FAIL lists), compared with the reviewed version's to tell a
    failure already there. ``already``: a FAIL whose findings are all in the reviewed
    version's FAIL too. ``exit_code``: a command's exit status (None otherwise, or when it
    did not finish)."""

    name: str
    kind: CheckKind
    role: Role
    version_id: str
    sha256: str
    status: CheckStatus
    summary: str
    output: str = ""
    findings: list[str] = field(default_factory=list)
    already: bool = False
    exit_code: int | None = None

    @property
    def title(self) -> str:
        return declared_check_title(self.name)

    def line(self) -> str:
        """``FAIL Placeholders kept: 1 placeholder lost ... (already in the reviewed version)``."""
        tail = f" ({ALREADY_IN_REVIEWED})" if self.already else ""
        return f"{CHECK_STATUS_WORDS[self.status]} {self.title}: {self.summary}{tail}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "role": self.role,
            "version_id": self.version_id,
            "sha256": self.sha256,
            "status": self.status,
            "summary": self.summary,
            "output": self.output,
            "findings": list(self.findings),
            "already": self.already,
        }
        if self.kind == "command":
            out["exit_code"] = self.exit_code
        return out

    @classmethod
    def from_json(cls, obj: Any) -> CheckResult:
        """Read a stored result. Raises ValueError naming what is wrong."""
        if not isinstance(obj, dict):
            raise ValueError("a check result is not an object")
        status = one_of(obj.get("status"), CHECK_STATUSES)
        role = one_of(obj.get("role"), ROLES)
        kind = obj.get("kind")
        if status is None or role is None or kind not in (*BUILTIN_KINDS, "command"):
            raise ValueError(
                f"check result {obj.get('name')!r} has an unknown status, role or kind"
            )
        findings = obj.get("findings") or []
        exit_code = obj.get("exit_code")
        texts = [obj.get(k, "") for k in ("name", "version_id", "sha256", "summary", "output")]
        if not all(isinstance(t, str) for t in texts) or not isinstance(findings, list):
            raise ValueError(f"check result {obj.get('name')!r} has a field of the wrong type")
        return cls(
            name=texts[0],
            kind=kind,
            role=role,
            version_id=texts[1],
            sha256=texts[2],
            status=status,
            summary=texts[3],
            output=texts[4],
            findings=[str(f) for f in findings],
            already=bool(obj.get("already", False)),
            exit_code=exit_code
            if isinstance(exit_code, int) and not isinstance(exit_code, bool)
            else None,
        )


@dataclass(frozen=True)
class Gate:
    """Whether approval is blocked. ``blocking``: the revised version's results that
    block (FAIL, or UNVERIFIED under ``unverified = "block"``); ``shown``: those shown
    without blocking (a failure already in the reviewed version, an UNVERIFIED under
    ``show``); ``accepted``: the FAILs a reviewer accepted, each with their reason."""

    blocking: tuple[CheckResult, ...]
    shown: tuple[CheckResult, ...]
    accepted: tuple[tuple[CheckResult, str], ...] = ()

    @property
    def blocked(self) -> bool:
        return bool(self.blocking)

    @property
    def failed(self) -> bool:
        """A blocking FAIL (not only a blocking UNVERIFIED)."""
        return any(r.status == "fail" for r in self.blocking)

    def reason(self) -> str:
        """One line: which checks block and why ("" when none)."""
        if not self.blocking:
            return ""
        parts = [f"{r.title} {CHECK_STATUS_WORDS[r.status]}" for r in self.blocking]
        return "a declared check blocks approval: " + ", ".join(parts)


@dataclass
class CheckSet:
    """Every declared check on one pair: the reviewed version's results and the revised
    version's, in the checks' order, with the policy that decides the gate."""

    reviewed: list[CheckResult]
    revised: list[CheckResult]
    unverified: str = "block"
    preexisting: str = "show"
    #: check name -> the reviewer's reason for accepting its FAIL (from verified decisions
    #: only: ``DecisionsCheck.accepted_checks``). Not stored in ``checks.json``.
    accepted: dict[str, str] = field(default_factory=dict)

    def gate(self) -> Gate:
        blocking: list[CheckResult] = []
        shown: list[CheckResult] = []
        accepted: list[tuple[CheckResult, str]] = []
        for r in self.revised:
            if r.status == "fail" and r.name in self.accepted:
                accepted.append((r, self.accepted[r.name]))
            elif r.status == "fail":
                (shown if r.already and self.preexisting == "show" else blocking).append(r)
            elif r.status == "unverified":
                (blocking if self.unverified == "block" else shown).append(r)
        return Gate(tuple(blocking), tuple(shown), tuple(accepted))

    def rate(self) -> str:
        """The share of the revised version's checks that passed, N/A left out."""
        counted = [r for r in self.revised if r.status != "na"]
        return check_rate_text(sum(r.status == "pass" for r in counted), len(counted))

    def failures(self) -> list[CheckResult]:
        """The revised version's FAILs, in order (what the next round's brief carries)."""
        return [r for r in self.revised if r.status == "fail"]

    def to_json(self) -> dict[str, Any]:
        gate = CheckSet(self.reviewed, self.revised, self.unverified, self.preexisting).gate()
        return {
            "policy": {"unverified": self.unverified, "preexisting": self.preexisting},
            "reviewed": [r.to_json() for r in self.reviewed],
            "revised": [r.to_json() for r in self.revised],
            "blocked": gate.blocked,
        }

    @classmethod
    def from_json(cls, obj: Any) -> CheckSet:
        """Read a stored pair. Raises ValueError naming what is wrong."""
        if not isinstance(obj, dict):
            raise ValueError("a set of check results is not an object")
        raw_policy = obj.get("policy")
        policy: dict[str, Any] = raw_policy if isinstance(raw_policy, dict) else {}
        lists = [obj.get("reviewed"), obj.get("revised")]
        if not all(isinstance(x, list) for x in lists):
            raise ValueError("a set of check results lacks its reviewed or revised list")
        unverified = (
            policy.get("unverified") if policy.get("unverified") in ("block", "show") else "block"
        )
        preexisting = (
            policy.get("preexisting") if policy.get("preexisting") in ("show", "block") else "show"
        )
        return cls(
            reviewed=[CheckResult.from_json(r) for r in lists[0]],  # type: ignore[union-attr]
            revised=[CheckResult.from_json(r) for r in lists[1]],  # type: ignore[union-attr]
            unverified=str(unverified),
            preexisting=str(preexisting),
        )
