"""The revision agent: an OpenAI-compatible chat model driving five workspace tools.

One concern per module:

- ``engine.agent.client``: ``AgentConfig``, ``ModelClient`` (HTTP, retries, limits),
  ``Usage`` (token accounting), ``Trace``, ``AgentError`` and friends.
- ``engine.agent.tools``: the five tools over the workspace (``TOOLS``,
  ``WorkspaceTools``).
- ``engine.agent.revision``: the conversation (``RevisionAgent.work_round`` with its
  narration nudge), the report call and ``parse_report``.

The names below are re-exported so ``from engine.agent import X`` keeps working.
"""

from engine.agent.client import (
    AgentConfig,
    AgentError,
    CallResult,
    ModelClient,
    RunCancelled,
    TokenBudgetExceeded,
    Trace,
    Usage,
    safe_url,
)
from engine.agent.revision import (
    NUDGE_PROMPT,
    REPEAT_HINT,
    REPORT_SYSTEM_PROMPT,
    SYSTEM_PROMPT,
    RevisionAgent,
    RoundWork,
    parse_report,
    report_token_cap,
)
from engine.agent.tools import MAX_PUSH_CHARS, TOOL_NAMES, TOOLS, ToolOutcome, WorkspaceTools

__all__ = [
    "MAX_PUSH_CHARS",
    "NUDGE_PROMPT",
    "REPEAT_HINT",
    "REPORT_SYSTEM_PROMPT",
    "SYSTEM_PROMPT",
    "TOOLS",
    "TOOL_NAMES",
    "AgentConfig",
    "AgentError",
    "CallResult",
    "ModelClient",
    "RevisionAgent",
    "RoundWork",
    "RunCancelled",
    "TokenBudgetExceeded",
    "ToolOutcome",
    "Trace",
    "Usage",
    "WorkspaceTools",
    "parse_report",
    "report_token_cap",
    "safe_url",
]
