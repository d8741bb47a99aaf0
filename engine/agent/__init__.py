"""The revision agent: an OpenAI-compatible chat model driving five workspace tools.

One concern per module:

- ``engine.agent.client``: ``ModelClient`` (HTTP, retries, limits, the whole-call
  deadline); ``engine.agent.config``: ``AgentConfig``, ``AgentError`` and friends,
  ``Usage`` (token accounting), ``Trace``.
- ``engine.agent.failures``: a failed call read (retry or not, the one-line reason).
- ``engine.agent.tools``: the five tools over the workspace (``TOOLS``,
  ``WorkspaceTools``).
- ``engine.agent.rounds``: the round skeleton both modes share (``RoundAgent``: the turn
  loop, cancellation, the turn limit, recording a tool run, ending a round early after
  a push) and ``RoundWork``.
- ``engine.agent.revision``: the tools mode (``RevisionAgent``: the conversation with its
  narration nudge), the report call and ``parse_report``.
- ``engine.agent.notools``: the no-tools mode (``NoToolsAgent``): one plain request per
  round, the program does the tool work.
- ``engine.agent.modes``: ``make_agent`` picks the agent for ``tools``/``no-tools``/``auto``.
- ``engine.agent.wire``: reading what servers really send (quirks repaired);
  ``engine.agent.bodies``: error bodies, event streams, HTML pages, ``Retry-After``;
  ``engine.agent.jsonsafe``: bounded JSON (huge integers, deep nesting).
- ``engine.agent.report``: the report's prompt, schema, response formats and
  ``parse_report``.
- ``engine.agent.capabilities``: what an endpoint + model can do, remembered.

The package names its documented entry points below (for callers outside this program);
code inside it imports each name from its module.
"""

from engine.agent.client import CallResult, ModelClient
from engine.agent.config import (
    AgentConfig,
    AgentError,
    RunCancelled,
    TokenBudgetExceeded,
    Trace,
    Usage,
    safe_url,
)
from engine.agent.modes import MODES, ModeAgent, make_agent
from engine.agent.notools import NoToolsAgent
from engine.agent.report import REPORT_SYSTEM_PROMPT, parse_report, report_token_cap
from engine.agent.revision import NUDGE_PROMPT, REPEAT_HINT, SYSTEM_PROMPT, RevisionAgent
from engine.agent.rounds import RoundWork
from engine.agent.tools import MAX_PUSH_CHARS, TOOL_NAMES, TOOLS, ToolOutcome, WorkspaceTools

__all__ = [
    "MAX_PUSH_CHARS",
    "MODES",
    "NUDGE_PROMPT",
    "REPEAT_HINT",
    "REPORT_SYSTEM_PROMPT",
    "SYSTEM_PROMPT",
    "TOOLS",
    "TOOL_NAMES",
    "AgentConfig",
    "AgentError",
    "CallResult",
    "ModeAgent",
    "ModelClient",
    "NoToolsAgent",
    "RevisionAgent",
    "RoundWork",
    "RunCancelled",
    "TokenBudgetExceeded",
    "ToolOutcome",
    "Trace",
    "Usage",
    "WorkspaceTools",
    "make_agent",
    "parse_report",
    "report_token_cap",
    "safe_url",
]
