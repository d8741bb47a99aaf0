"""``arl author``: write a v1 document from a brief in one plain chat call.

Briefs are Markdown files: the first line ``# <title>``, then the instructions. The one-click
briefs ship in ``resources/briefs/`` (read with ``importlib.resources``); ``list_briefs()``
returns them, ``load_brief(name_or_path)`` accepts a shipped name (``policy-memo``) or a
file path.

``author_document(config, brief)`` makes one chat call (no tools) and returns the HTML
document (``AuthorResult.html``) with the usage tokens of the call (None when the provider
reported none). Raises ``engine.agent.AgentError`` for endpoint failures and
``engine.models.InputError`` for an unusable brief or an empty answer.
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from engine.agent.client import ModelClient
from engine.agent.config import AgentConfig, Trace, Usage
from engine.models import InputError

AUTHOR_SYSTEM_PROMPT = """\
You write documents from a brief. Answer with one complete HTML document and nothing else: \
<!DOCTYPE html>, <html>, <head> with a <title>, and a <body> made of headings, paragraphs and \
lists. No scripts, no style sheets, no images, no links to other sites, no comments about \
the document outside the HTML."""


AUTHOR_TOKEN_CAP = 4096
"""Completion-token cap of the author call unless ``AgentConfig.max_output_tokens`` is set."""

# One rule for `arl author` and the desktop wizard's "Write one from a brief": a slow local
# model needs minutes for a whole document, so each request may take this long (seconds).
AUTHOR_REQUEST_TIMEOUT = 300.0
AUTHOR_TEMPERATURE = 0.7


def author_config(
    base_url: str, model: str, api_key: str | None, timeout: float = AUTHOR_REQUEST_TIMEOUT
) -> AgentConfig:
    """The model settings for authoring a document (CLI and desktop alike): the request
    timeout ``timeout`` in seconds (default ``AUTHOR_REQUEST_TIMEOUT``), the client's
    retries, temperature ``AUTHOR_TEMPERATURE``."""
    return AgentConfig(
        base_url=base_url,
        model=model,
        api_key=api_key,
        request_timeout=timeout,
        temperature=AUTHOR_TEMPERATURE,
    )


@dataclass(frozen=True)
class Brief:
    """A brief: ``name`` (file stem), ``title`` (first heading), ``text`` (all of it)."""

    name: str
    title: str
    text: str


def _parse_brief(name: str, text: str) -> Brief:
    first = text.strip().splitlines()[0] if text.strip() else ""
    title = first.lstrip("#").strip() or name
    return Brief(name, title, text)


def list_briefs() -> list[Brief]:
    """The briefs shipped in ``resources/briefs``, sorted by name."""
    folder = resources.files("resources").joinpath("briefs")
    out = []
    for entry in folder.iterdir():
        if entry.name.endswith(".md"):
            out.append(_parse_brief(entry.name[:-3], entry.read_text(encoding="utf-8")))
    return sorted(out, key=lambda b: b.name)


def load_brief(name_or_path: str | os.PathLike[str]) -> Brief:
    """A shipped brief by name, else a brief file. Raises InputError naming the problem."""
    key = os.fspath(name_or_path)
    for b in list_briefs():
        if key in (b.name, b.name + ".md"):
            return b
    p = Path(key)
    if not p.exists():
        names = ", ".join(b.name for b in list_briefs())
        raise InputError(key, f"no such brief file, and not a shipped brief ({names})")
    from engine.safe_io import BoundedInputError, read_regular_file

    try:
        text = read_regular_file(p, max_bytes=1024 * 1024).decode("utf-8")
    except BoundedInputError as exc:  # a folder, FIFO or device; over 1 MB
        raise InputError(key, exc.problem) from None
    except UnicodeDecodeError as exc:
        raise InputError(key, f"not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        raise InputError(key, "the brief is empty")
    return _parse_brief(p.stem, text)


_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n(.*?)\n```\s*$", re.S)


def extract_html(answer: str, title: str = "") -> str:
    """The HTML document in a model's answer: code fences removed; an answer with no
    ``<html>``/``<body>`` tag is wrapped, one ``<p>`` per blank-line-separated block."""
    text = answer.strip()
    m = _FENCE.search(text)
    if m:
        text = m.group(1).strip()
    lower = text.lower()
    start = min((i for i in (lower.find("<!doctype"), lower.find("<html")) if i >= 0), default=-1)
    if start >= 0:
        end = lower.rfind("</html>")
        return text[start : end + 7] if end > start else text[start:]
    if "<body" in lower or "<p>" in lower or "<h1" in lower:
        return (
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(title)}'
            f"</title></head><body>{text}</body></html>"
        )
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text) if b.strip()]
    body = "\n".join(f"<p>{html.escape(b)}</p>" for b in blocks)
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(title)}'
        f"</title></head><body>\n{body}\n</body></html>"
    )


@dataclass
class AuthorResult:
    """``html``: the document; ``tokens``: usage of the call (None: not reported);
    ``answer``: the raw model answer; ``trace``: the call's trace."""

    html: str
    tokens: int | None
    answer: str
    trace: Trace


async def author_document(config: AgentConfig, brief: Brief | str) -> AuthorResult:
    """One chat call from the brief to an HTML document. Raises AgentError, InputError."""
    b = brief if isinstance(brief, Brief) else _parse_brief("brief", brief)
    trace, usage = Trace(), Usage()
    async with ModelClient(config, trace, usage) as client:
        res = await client.chat(
            [
                {"role": "system", "content": AUTHOR_SYSTEM_PROMPT},
                {"role": "user", "content": b.text},
            ],
            purpose="author",
            round_no=0,
            conversation="author",
            max_tokens=config.max_output_tokens or AUTHOR_TOKEN_CAP,
        )
    answer = res.message.get("content") or ""
    if not answer.strip():
        raise InputError(config.model, "the model returned an empty document")
    return AuthorResult(extract_html(answer, b.title), usage.total, answer, trace)
