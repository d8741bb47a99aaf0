"""Declared checks: the reviewer's checks run on every version (docs/checks.md).

``engine.checks.config`` (the checks file and its keys), ``engine.checks.results`` (a
check's result, the gate), ``engine.checks.builtin`` and ``engine.checks.numbers`` (the
built-in checks), ``engine.checks.command`` (a command the reviewer names, run without a
shell), ``engine.checks.runner`` (every declared check on a pair of versions). Import
each name from its module.

Layer: below the bundle and the run, above scoring; it reads the versions' text, their
markup index, the diff and the comments' spans. It never imports ``engine.run`` or the CLI.
"""
