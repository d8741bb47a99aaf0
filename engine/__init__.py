"""Agent Review Loop engine: pure Python, no Qt.

The packages are its layers, bottom to top (docs/conventions.md, "Layers"; docs/engine.md,
"Where things are"): ``text`` (bytes to ``document.body.textContent``, UTF-16 offsets),
``diff`` (the text diff), ``score`` (re-anchoring, verdicts and the five metrics),
``bundle`` and ``agent`` (evidence bundles; the revision agent), ``run`` and ``publish``
(the review loop; the publishing folder), ``suite`` (review suites), ``cli`` (the headless
``arl`` command). Shared records and words sit at ``engine/``'s top in named layers
(``vocabulary``, ``redact``, ``safe_io``, ``models``, ``workspace``, ...).

The public contracts are the ``arl`` commands and their JSON, the bundle format
(docs/bundle.md) and these documented entry points, named by their packages:
``engine.bundle`` (open, verify, write, export and publish bundles), ``engine.agent`` (the
revision agent), ``engine.run`` (``start_review``, the one start of a review),
``engine.score.scoring.score`` (verdicts and metrics for two versions) and
``engine.cli.main.main`` (``arl``). Inside the program every name is imported from the one
module that defines it.
"""

__version__ = "0.1.0"
