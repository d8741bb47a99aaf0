"""Which runs of a suite have a TAMPERED bundle (docs/suites.md, "Statistics"): each
finished run's bundle is opened, its signature checked and its figures re-derived, with
the engine's one verdict on a bundle (``engine.bundle.read.judge_bundle``). A tampered run
is left out of the statistics and counted as a failure with the reason this returns.
"""

from __future__ import annotations

from engine.bundle import signing
from engine.bundle.archive import BundleError
from engine.bundle.bundle import trust_marks
from engine.bundle.read import judge_bundle, open_bundle
from engine.bundle.rederive import rederive
from engine.suite.store import ItemResult

__all__ = ["tampered_runs"]


def tampered_runs(items: list[ItemResult]) -> dict[str, str]:
    """Run key -> why its bundle is TAMPERED (the first trust mark), for finished runs
    whose bundle fails its checks; a bundle that cannot be opened at all says so."""
    out: dict[str, str] = {}
    for it in items:
        if it.status != "finished" or not it.bundle:
            continue
        try:
            b = open_bundle(it.bundle)
            sig = signing.check_bundle(b)
            red = rederive(b, sig)
            result = judge_bundle(b, red, sig)
        except (BundleError, OSError, ValueError) as exc:
            out[it.key] = f"its bundle cannot be read ({exc})"
            continue
        if result.tampered:
            marks = trust_marks(b, red, sig) or result.problems or ["a check could not run"]
            out[it.key] = str(marks[0])
    return out
