"""Benchmark: start-up of `arl score` on a small pair, beside its floor (docs/engine.md, Speed).

On a 0.1 MB pair (start-up dominates the work) written by ``tools/gen_scoring_inputs.py``
into a temporary folder (never the repository), four whole processes are timed, in turn,
``--runs`` times each (at least 5):

- the floor, as the start-up target states it: this Python reading v1, v2 and the comments with the
  engine's scoring API imported (``python -c "import engine.score.scoring; ..."``: the
  module of ``score`` and ``Version``, what any tool calling the engine's scoring must
  import). **The target is against this floor**;
- the bare floor: this Python reading the three files and importing nothing of the
  engine (what any Python program pays; shown for scale, not the target);
- ``python -m engine.cli score``: the engine's command without the keyring look-up;
- the installed ``arl score`` (the ``arl`` script beside this Python, ``arl_keys.cli``).

Printed: the median wall and CPU seconds (user + system, ``os.wait4``) of each, each
process's ratio to the floor (wall and CPU), the machine's load (``os.getloadavg()``)
before and after, the modules of a list of heavy ones (keyring, openai, httpx, the HTML
parser, ICU, PySide6, numpy) that the installed ``arl score`` loaded, and the top offenders
of one ``-X importtime`` run of it (self and cumulative microseconds).

Bytecode is cached as an installed program has it: the processes run without
``PYTHONDONTWRITEBYTECODE`` and with ``PYTHONPYCACHEPREFIX`` in the temporary folder, after
one untimed warm-up run of each (see benchmarks/bench_score.py).

Also printed: where the time of one ``arl score`` goes in one process (its imports, the
parser, the scoring modules' imports, rapidfuzz's import, the command, and the command run
again in that process: the reading, scoring and printing alone). ``--baseline DIR`` times
the same commands with another checkout's ``engine`` and ``arl_keys`` (``PYTHONPATH=DIR``)
in the same turns, for an A/B on one machine load.

Target: the installed ``arl score`` within 1.5x of the floor, the files read
with ``engine.score.scoring`` imported (wall, medians); not of the bare floor.

    uv run python benchmarks/bench_startup.py              # 7 runs each
    uv run python benchmarks/bench_startup.py --runs 11 --top 25
    git worktree add --detach /tmp/base main
    uv run python benchmarks/bench_startup.py --baseline /tmp/base
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import gen_scoring_inputs as gen

# The modules a plain-text `arl score` has no use for (tests/engine/test_startup_imports.py
# checks the same list).
HEAVY = ("keyring", "openai", "httpx", "selectolax", "justhtml", "icu4py", "PySide6", "numpy")

# The floor the target is against ("reading both files and importing the engine"): the
# scoring API imported, then the three files read.
_FLOOR = "import sys, engine.score.scoring\nfor p in sys.argv[1:]:\n    open(p, 'rb').read()\n"
# The bare floor, for scale: Python reading the files, nothing of the engine imported.
_BARE = "import sys\nfor p in sys.argv[1:]:\n    open(p, 'rb').read()\n"
_LOADED = (
    "import runpy, sys\n"
    "heavy = sys.argv[1].split(',')\n"
    "sys.argv = sys.argv[2:]\n"
    "try:\n"
    "    runpy.run_path(sys.argv[0], run_name='__main__')\n"
    "except SystemExit:\n"
    "    pass\n"
    "print(','.join(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
)


# Where the time of one `arl score` goes, in one process: the command's own imports, the
# parser, the scoring modules' imports, rapidfuzz's import (which the command loads for the
# fuzzy stage), then the command (reading, scoring, printing), then the same command again
# (nothing left to import or compile: the work itself, which no start-up change reduces).
_PHASES = """
import contextlib, io, sys, time
t0 = time.perf_counter()
from engine.cli.main import build_parser, main
t1 = time.perf_counter()
build_parser("score", listed=False)  # as main builds it: score is named first
t2 = time.perf_counter()
import engine.comments_io, engine.score.scoring, engine.text.documents
t3 = time.perf_counter()
import rapidfuzz
t4 = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
t5 = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
t6 = time.perf_counter()
t = (t0, t1, t2, t3, t4, t5, t6)
print(" ".join(f"{(b - a) * 1000:.1f}" for a, b in zip(t, t[1:])))
"""


def env_for(tmp: Path) -> dict[str, str]:
    """This environment with bytecode cached in ``tmp``."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    return env


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one whole process; exits with its stderr if it fails. It runs
    in the temporary folder: ``python -m`` puts its working folder first on ``sys.path``,
    which would shadow ``--baseline``."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read() if p.stderr else b""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd[:4]} failed: {err.decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime


def import_times(script: list[str], env: dict[str, str], cwd: Path) -> list[tuple[int, int, str]]:
    """(self µs, cumulative µs, module) of each import of one ``-X importtime`` run of
    ``script`` (the script's path and its arguments)."""
    p = subprocess.run(
        [sys.executable, "-X", "importtime", *script],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    rows = []
    for line in p.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)", line)
        if m:
            rows.append((int(m[1]), int(m[2]), m[3] + m[4]))
    return rows


def loaded_heavy(script: list[str], env: dict[str, str], cwd: Path) -> str:
    """The ``HEAVY`` modules loaded by ``script`` (its path and its arguments)."""
    p = subprocess.run(
        [sys.executable, "-c", _LOADED, ",".join(HEAVY), *script],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    return p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="runs of each process (at least 5)")
    ap.add_argument("--size", type=int, default=100_000, help="v1's size in code points")
    ap.add_argument("--comments", type=int, default=100)
    ap.add_argument("--top", type=int, default=15, help="import-time offenders shown")
    ap.add_argument(
        "--baseline",
        type=Path,
        metavar="DIR",
        help="another checkout (e.g. `git worktree add /tmp/base main`): its engine and "
        "arl_keys are timed too, in the same turns (PYTHONPATH=DIR)",
    )
    args = ap.parse_args()
    runs = max(5, args.runs)
    arl = Path(sys.executable).parent / ("arl.exe" if os.name == "nt" else "arl")
    with tempfile.TemporaryDirectory(prefix="bench_startup_") as tmp_name:
        tmp = Path(tmp_name)
        v1, v2, comments, _ = gen.build(args.size, args.comments, "5", "uniq")
        gen.write(tmp / "pair", v1, v2, comments)
        files = [str(tmp / "pair" / n) for n in ("v1.txt", "v2.txt", "c.json")]
        score = ["score", "--v1", files[0], "--v2", files[1], "--comments", files[2]]
        env = env_for(tmp)
        commands: dict[str, tuple[list[str], dict[str, str]]] = {
            "floor: read, engine.score.scoring imported": (
                [sys.executable, "-c", _FLOOR, *files],
                env,
            ),
            "bare floor: read, no engine (not the target)": (
                [sys.executable, "-c", _BARE, *files],
                env,
            ),
            "python -m engine.cli score": ([sys.executable, "-m", "engine.cli", *score], env),
        }
        if arl.exists():
            commands["arl score (installed)"] = ([str(arl), *score], env)
        else:
            print(f"no installed arl beside {sys.executable}: run `uv sync` first")
        if args.baseline:
            base = {**env, "PYTHONPATH": os.pathsep.join([str(args.baseline.resolve())])}
            for name, (cmd, _) in list(commands.items())[2:]:
                commands[f"{name}, baseline"] = (cmd, base)
        for cmd, cmd_env in commands.values():  # writes the bytecode cache, untimed
            timed(cmd, cmd_env, tmp)
        load_before = os.getloadavg()
        walls: dict[str, list[float]] = {k: [] for k in commands}
        cpus: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(runs):  # in turn, so a burst of load falls on all of them alike
            for name, (cmd, cmd_env) in commands.items():
                wall, cpu = timed(cmd, cmd_env, tmp)
                walls[name].append(wall)
                cpus[name].append(cpu)
        load_after = os.getloadavg()
        print(
            f"0.1 MB pair: v1 {len(v1.encode()) / 1e6:.2f} MB, v2 {len(v2.encode()) / 1e6:.2f} MB, "
            f"{len(comments)} comments; {runs} runs each, medians; bytecode cached"
        )
        print("load average (1, 5, 15 min): before " + ", ".join(f"{x:.2f}" for x in load_before))
        floor = next(iter(commands))
        fw, fc = statistics.median(walls[floor]), statistics.median(cpus[floor])
        head = (
            f"{'process':46} {'wall s':>7} {'cpu s':>7} {'x floor':>8} {'cpu x':>6}  (min-max wall)"
        )
        print(head)
        print("-" * len(head))
        for name in commands:
            w, c = statistics.median(walls[name]), statistics.median(cpus[name])
            print(
                f"{name:46} {w:7.3f} {c:7.3f} {w / fw:8.2f} {c / fc:6.2f}  "
                f"({min(walls[name]):.3f}-{max(walls[name]):.3f})"
            )
        print("load average (1, 5, 15 min): after  " + ", ".join(f"{x:.2f}" for x in load_after))
        print(
            "target: arl score within 1.5x of the floor with engine.score.scoring "
            "imported (wall), not of the bare floor"
        )
        arl_name = "arl score (installed)"
        if arl_name in walls:
            ratio = statistics.median(walls[arl_name]) / fw
            print(
                f"arl score / floor: {ratio:.2f}x wall "
                f"({'within' if ratio <= 1.5 else 'over'} the 1.5x target)"
            )
        phases = []
        for _ in range(runs):
            p = subprocess.run(
                [sys.executable, "-c", _PHASES, *score],
                env=env,
                cwd=tmp,
                capture_output=True,
                text=True,
                check=True,
            )
            phases.append([float(x) for x in p.stdout.split()])
        cli, parser, engine_imports, fuzz, command, again = (
            statistics.median(c) for c in zip(*phases)
        )
        print(
            f"in one process (ms, medians): engine.cli.main imported {cli:.1f}, parser "
            f"{parser:.1f}, scoring modules imported {engine_imports:.1f}, rapidfuzz imported "
            f"{fuzz:.1f}, the command (read, score, print) {command:.1f}; the same command "
            f"again in that process (the work alone) {again:.1f}"
        )
        if arl.exists():
            script, label = [str(arl), *score], "arl score"
        else:
            script, label = ["-m", "engine.cli", *score], "python -m engine.cli score"
        heavy = loaded_heavy(script, env, tmp) if arl.exists() else "(not measured)"
        print(f"heavy modules loaded by {label}: {heavy or 'none'} (of {', '.join(HEAVY)})")
        rows = import_times(script, env, tmp)
        total = sum(r[0] for r in rows)
        print(f"\n-X importtime of {label}: {len(rows)} modules, {total / 1000:.0f} ms in all")
        print(f"top {args.top} by self time (µs):")
        for self_us, cum_us, mod in sorted(rows, reverse=True)[: args.top]:
            print(f"  {self_us:8d} {cum_us:8d}  {mod.strip()}")
        print(f"top {args.top} top-level imports by cumulative time (µs):")
        top_level = [r for r in rows if not r[2].startswith(" ")]
        for _self_us, cum_us, mod in sorted(top_level, key=lambda r: -r[1])[: args.top]:
            print(f"  {cum_us:8d}  {mod}")


if __name__ == "__main__":
    main()
