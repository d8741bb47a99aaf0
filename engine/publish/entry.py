"""``PublishedEntry``: one published run, the record that the publishing folder
(``engine.publish.published``) reads and writes and its index page
(``engine.publish.index``) renders; below both."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class PublishedEntry:
    """One published run. ``scorecard``: path of its page relative to the folder;
    ``bundle``: absolute path of the bundle it came from; ``metrics``: name -> metric JSON;
    ``signature``: ``{"state", "fingerprint", "trusted_as", "line", "uncovered"}``;
    ``verification``: one sentence; ``tampered``: any check failed; ``bundle_copy``: the
    copy of the bundle in the folder, relative to it ("" for entries published before
    copies were made); ``figures``: where ``metrics`` come from (``stated``,
    ``recomputed`` for a bundle that failed verification, or ``unverified``);
    ``problem``: "" when the bundle copy was verified, else why it could not be (the copy
    is missing or unreadable: no figures, no signature shown).

    Everything but ``published_at``, ``bundle``, ``scorecard`` and ``bundle_copy`` is
    recomputed from the bundle copy each time the folder is read (``entries``); the
    other fields written to ``index.json`` are for other programs and never read back."""

    @property
    def checked(self) -> bool:
        """The bundle copy was read and verified (whatever the verdict)."""
        return not self.problem

    @property
    def trusted_signer(self) -> str:
        """The name the local trusted-keys store gives the signer of a valid signature
        over an untampered bundle; "" otherwise (no check mark then)."""
        sig = self.signature or {}
        if self.problem or self.tampered or sig.get("state") != "signed":
            return ""
        return str(sig.get("trusted_as") or "")

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
    #: A revision made outside this program and checked here: its Model cell says so.
    external: bool = False
    bundle_copy: str = ""
    figures: str = "stated"
    problem: str = ""
    #: The reviewer decisions' figures (``engine.publish.check.Checked.review``).
    review: dict[str, Any] = field(default_factory=dict)
    #: The first line, the most serious outcome that holds (``Checked.outcome``).
    outcome: str = ""

    @property
    def model_words(self) -> str:
        """The Model a view shows: the model's name; for a revision checked here, which
        has none, why (``EXTERNAL_FACT_WORDS``); else "not recorded"."""
        from engine.vocabulary import EXTERNAL_FACT_WORDS

        if self.model:
            return self.model
        return EXTERNAL_FACT_WORDS["model"] if self.external else "not recorded"

    @property
    def status_words(self) -> str:
        """The Status a view shows: the outcome when one holds ("Awaiting review (2 of
        2)"), else the run's status ("completed"); a revision made elsewhere that was
        checked here says so (no run took place)."""
        if not self.outcome and self.external and self.status == "completed":
            return "checked here (made elsewhere, no run)"
        return self.outcome or self.status
