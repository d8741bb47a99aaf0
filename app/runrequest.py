"""What a review run needs, as the setup wizard gathered it (used by the wizard and the Run
view; neither imports the other for it).

It is the engine's ``engine.run.ReviewRequest``: the CLI (``arl run``) and the GUI start a
run from the same request with ``engine.run.start_review``. Fields: ``config``
(``engine.agent.AgentConfig``; the key stays in it, in memory only), ``title``, ``raw``,
``kind`` (html | text | markdown), ``comments`` (``engine.models.Comment`` list), ``rounds``,
``out_dir``, ``workspace_path``, ``scripted``, ``key_source``, ``extra``.
"""

from __future__ import annotations

from engine.run.start import ReviewRequest as RunRequest

__all__ = ["RunRequest"]
