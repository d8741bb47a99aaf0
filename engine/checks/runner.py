"""Every declared check on one pair of versions: ``run_checks(config, v1, v2, ...)``.

The reviewed version (``v1``, the version the agent was given) and the revised one
(``v2``) each get a result per check; a FAIL on the revised version whose findings are all
in the reviewed version's FAIL is marked ``already`` ("already in the reviewed version").
The built-in checks (``run_builtin``) are a function of the two texts, their markup, the
diff and the commented spans, so a bundle's are re-derived from its files; commands run
only when ``allow_commands`` is set (the user's choice, never the checks file's), and
otherwise read UNVERIFIED with the reason.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from engine.checks import builtin, numbers
from engine.checks.builtin import Finding, SpanSet
from engine.checks.command import argv_for, run_command
from engine.checks.config import ChecksConfig
from engine.checks.results import CheckKind, CheckResult, CheckSet, version_sha256
from engine.diff.diffing import TextDiff
from engine.models import VerdictRecord
from engine.score.scoring import Version

NOT_ALLOWED = (
    "commands are not allowed in this run (allow them with --allow-commands, or in the "
    "program's settings)"
)
Pair = tuple[str, CheckKind, Finding, Finding]


def spans_of(
    verdicts: Iterable[VerdictRecord],
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The commented spans of scored comments: (v1 spans, v2 spans), code points."""
    one, two = [], []
    for v in verdicts:
        if v.v1 is not None:
            one.append((v.v1.start, v.v1.end))
        if v.v2 is not None:
            two.append((v.v2.start, v.v2.end))
    return one, two


def run_builtin(
    config: ChecksConfig,
    v1: Version,
    v2: Version,
    spans1: list[tuple[int, int]],
    spans2: list[tuple[int, int]],
    diff: TextDiff | None = None,
) -> list[Pair]:
    """The built-in checks the config declares: ``(name, kind, on v1, on v2)`` each."""
    s1, s2 = SpanSet(spans1), SpanSet(spans2)
    out: list[Pair] = []
    if config.placeholders:
        out.append(
            ("placeholders", "placeholders")
            + builtin.placeholders(v1, v2, config.placeholders, config.placeholders_strict, s1)
        )
    if config.links:
        out.append(("links", "links") + builtin.links(v1, v2, s1))
    if config.sections:
        out.append(
            ("sections", "sections") + builtin.sections(v1, v2, s1, config.section_similarity)
        )
    if config.max_length_drop is not None:
        out.append(("length", "length") + builtin.length(v1, v2, config.max_length_drop))
    if config.numbers_outside_comments:
        d = diff if diff is not None else v1.diff_to(v2)
        out.append(("numbers", "numbers") + numbers.numbers(v1, v2, d, s1, s2))
    return out


def suffix_for(kind: str, name: str = "") -> str:
    """The file suffix a command sees: the document's own (``.md``, ``.xhtml``) when its
    name is known, else ``.html``, ``.md`` or ``.txt`` by kind."""
    ext = Path(name).suffix.lower() if name else ""
    if ext and len(ext) <= 10 and ext[1:].isalnum():
        return ext
    return {"html": ".html", "markdown": ".md"}.get(kind, ".txt")


def run_commands(
    config: ChecksConfig,
    v1: Version,
    v2: Version,
    allow_commands: bool,
    suffix: str,
    on_command: Callable[[str, str], None] | None = None,
) -> list[Pair]:
    """The command checks, each on the reviewed and the revised version's file (written to
    a private temporary folder as ``reviewed<suffix>`` / ``revised<suffix>``).
    ``on_command(name, role)`` is told before each run."""
    out: list[Pair] = []
    if not config.commands:
        return out
    if not allow_commands:
        na = Finding("unverified", NOT_ALLOWED)
        return [(f"command:{c.name}", "command", na, na) for c in config.commands]
    with tempfile.TemporaryDirectory(prefix="arl-versions-") as folder:
        for spec in config.commands:
            found = []
            for role, v in (("reviewed", v1), ("revised", v2)):
                # Written afresh for every command: one command cannot change what the
                # next one reads.
                path = os.path.join(folder, role + suffix)
                with open(path, "w", encoding="utf-8", errors="surrogatepass", newline="") as f:
                    f.write(v.raw)
                if on_command is not None:
                    on_command(spec.name, role)
                found.append(run_command(spec, path))
            out.append((f"command:{spec.name}", "command", found[0], found[1]))
    return out


def run_checks(
    config: ChecksConfig,
    v1: Version,
    v2: Version,
    *,
    verdicts: Iterable[VerdictRecord] = (),
    diff: TextDiff | None = None,
    allow_commands: bool = False,
    suffix: str = "",
    on_command: Callable[[str, str], None] | None = None,
) -> CheckSet:
    """Every declared check on the pair (see the module docstring). ``verdicts``: the
    pair's scored comments, whose spans are the commented passages."""
    spans1, spans2 = spans_of(verdicts)
    pairs = run_builtin(config, v1, v2, spans1, spans2, diff)
    pairs += run_commands(config, v1, v2, allow_commands, suffix or suffix_for(v1.kind), on_command)
    return checkset_of(config, v1, v2, pairs)


def checkset_of(config: ChecksConfig, v1: Version, v2: Version, pairs: list[Pair]) -> CheckSet:
    """The results of ``pairs`` bound to the versions (their SHA-256), ``already`` set."""
    h1, h2 = version_sha256(v1.raw), version_sha256(v2.raw)
    reviewed: list[CheckResult] = []
    revised: list[CheckResult] = []
    for name, kind, f1, f2 in pairs:
        already = (
            f2.status == "fail"
            and f1.status == "fail"
            and not (Counter(f2.findings) - Counter(f1.findings))
        )
        for role, f, vid, h, out in (
            ("reviewed", f1, v1.version_id, h1, reviewed),
            ("revised", f2, v2.version_id, h2, revised),
        ):
            out.append(
                CheckResult(
                    name=name,
                    kind=kind,
                    role=role,  # type: ignore[arg-type]
                    version_id=vid,
                    sha256=h,
                    status=f.status,
                    summary=f.summary,
                    output=f.output,
                    findings=list(f.findings),
                    already=already and role == "revised",
                    exit_code=f.exit_code,
                )
            )
    return CheckSet(reviewed, revised, config.unverified, config.preexisting)


def planned_commands(config: ChecksConfig, allow_commands: bool) -> list[str]:
    """What a run will execute, one line per command (listed before it starts): the
    argument list with ``{file}`` standing for each version's file, and its timeout; or
    that it will not run."""
    lines = []
    for spec in config.commands:
        argv = " ".join(_shown_arg(a) for a in argv_for(spec, "{file}"))
        if allow_commands:
            lines.append(f"{spec.name}: {argv}  (on each version, timeout {spec.timeout_s:g} s)")
        else:
            lines.append(f"{spec.name}: {argv}  (will NOT run: commands are not allowed)")
    return lines


def _shown_arg(a: str) -> str:
    return a if a and all(c.isalnum() or c in "-_./{}=:,@%+" for c in a) else repr(a)
