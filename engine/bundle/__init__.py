"""Evidence bundles (docs/bundle.md): the documented entry points, named here.

The format and the reading API are described in ``engine.bundle.bundle``. Each name lives in
one module of this package, and code inside this program imports it from there:

- ``archive``: safe reading of a bundle's files (caps, no traversal), ``BundleError``;
- ``schema``: the members' shapes; ``read``: ``open_bundle``, ``verify_bundle``,
  ``judge_bundle``; ``write``: ``write_bundle``;
- ``rederive`` (+ ``rederive_trace``, ``differences``): verdicts and metrics derived again
  from the bundle's own files; ``signing``: Ed25519 signatures and trusted keys;
- ``scorecard``: the self-contained scorecard page a bundle carries; ``shown``: what a view
  shows of a bundle; ``bundle``: zip export and extraction, trust marks, publishing the
  scorecard.
"""

from engine.bundle.archive import BundleError
from engine.bundle.bundle import (
    export_zip,
    extract_zip,
    own_scorecard,
    publish_scorecard,
    trust_marks,
)
from engine.bundle.read import (
    FORMAT,
    OLD_FORMATS,
    Bundle,
    BundleVersion,
    VerifyResult,
    judge_bundle,
    open_bundle,
    verify_bundle,
)
from engine.bundle.write import BundleContent, write_bundle
from engine.caps import MAX_ENTRIES, MAX_FILE_BYTES, MAX_TOTAL_BYTES

__all__ = [
    "FORMAT",
    "MAX_ENTRIES",
    "MAX_FILE_BYTES",
    "MAX_TOTAL_BYTES",
    "OLD_FORMATS",
    "Bundle",
    "BundleContent",
    "BundleError",
    "BundleVersion",
    "VerifyResult",
    "export_zip",
    "extract_zip",
    "judge_bundle",
    "open_bundle",
    "own_scorecard",
    "publish_scorecard",
    "trust_marks",
    "verify_bundle",
    "write_bundle",
]
