"""What a review run needs, as the setup wizard gathered it (used by the wizard and the Run
view; neither imports the other for it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class RunRequest:
    """Everything the wizard gathered. ``comments``: ``engine.models.Comment`` list;
    ``kind``: html | text; ``config``: ``engine.agent.AgentConfig`` (the key stays in it,
    in memory only)."""

    config: Any
    title: str
    raw: str
    kind: str
    comments: list[Any]
    rounds: int = 3
    out_dir: Path | None = None
    workspace_path: Path | None = None
    scripted: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
