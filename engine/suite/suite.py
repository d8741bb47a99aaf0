"""Review suites: a fixed set of documents with their reviewers' comments, run the same way
against several models and instruction variants, each combination repeated.

A suite is many ordinary runs (``engine.run``): every run leaves its normal evidence
bundle, and the suite's report is computed from those runs' metrics. The file format,
the built-in corpus, sampling and sharding are documented in ``docs/suites.md``.

Shapes:

- ``Suite``: the parsed suite file (TOML or JSON). ``documents`` are ``DocumentSpec``
  (a path to a document and its comments file, or an entry of the built-in corpus);
  ``models`` are ``ModelSpec`` (endpoint, model name, optional prices in currency per
  million input and output tokens); ``variants`` are ``VariantSpec`` (instructions that
  replace or extend the agent's system prompt, or none).
- ``SuiteItem``: one run to make: (document, model, variant, repeat), with a stable ``key``
  (``"<document>|<model>|<variant>|r<repeat>"``) that orders, shards and resumes items.

Errors: ``SuiteError`` (a one-line message naming the file and the problem).

Why this file is long (about 600 lines): the suite file's parser checks every key of every
table with a one-line error naming it; the checks stay beside the shapes they build so the
format lives in one place. The built-in corpus and sampling are in ``engine.suite.corpus``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from engine.atomic import write_atomic
from engine.checks.config import ChecksConfig
from engine.models import Comment, InputError
from engine.suite.corpus import (
    BUILTIN_CORPUS,
    CorpusError,
    DocumentSpec,
    builtin_documents,
    sample_stratified,
    size_class,
)

__all__ = [
    "BUILTIN_CORPUS",
    "DocumentSpec",
    "ModelSpec",
    "Suite",
    "SuiteError",
    "SuiteItem",
    "VariantSpec",
    "allowed_key_variables",
    "builtin_documents",
    "check_key_variables",
    "expand_items",
    "load_suite",
    "parse_shard",
    "sample_stratified",
    "shard_items",
    "size_class",
    "suite_disclosure",
    "suite_template",
    "write_suite_template",
]


MAX_SUITE_BYTES = 1_000_000
"""A suite file larger than this is refused (it names files; it never holds documents)."""
MAX_INSTRUCTIONS_BYTES = 200_000

MAX_ITEMS = 10_000
"""More runs than this in one suite is refused as a probable mistake in the file."""


class SuiteError(Exception):
    """A suite file or suite run that cannot be used; the message is one line for people."""


@dataclass(frozen=True)
class ModelSpec:
    """An endpoint and model to run. Prices are currency per million tokens, given by the
    user (never invented); ``currency`` only labels them. ``api_key_env`` names the
    environment variable holding this endpoint's key (None: the usual key rule)."""

    name: str
    base_url: str
    model: str
    price_input: float | None = None
    price_output: float | None = None
    currency: str = ""
    api_key_env: str | None = None
    mode: str | None = None
    echo_tool_results: bool = False
    """For llama.cpp's ``chatml-function-calling`` template, which drops tool messages
    (``arl run --echo-tool-results``)."""

    @property
    def priced(self) -> bool:
        return self.price_input is not None and self.price_output is not None

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """Cost of that many tokens in the user's currency, or None when unpriced."""
        if not self.priced:
            return None
        assert self.price_input is not None and self.price_output is not None
        return (prompt_tokens * self.price_input + completion_tokens * self.price_output) / 1e6


@dataclass(frozen=True)
class VariantSpec:
    """Agent instructions to compare. ``text`` None: the program's own system prompt.
    ``how``: ``replace`` the system prompt, or ``extend`` it (appended after it)."""

    name: str
    text: str | None = None
    how: Literal["replace", "extend"] = "extend"
    path: str | None = None

    def system_prompt(self, default: str) -> str:
        if self.text is None:
            return default
        return self.text if self.how == "replace" else default.rstrip() + "\n\n" + self.text

    def instructions_hash(self, default: str) -> str:
        """Short SHA-256 of the system prompt this variant gives the agent: a changed
        prompt shows on the history's trend even when the variant's name stayed."""
        return hashlib.sha256(self.system_prompt(default).encode("utf-8")).hexdigest()[:12]


@dataclass
class Suite:
    """A parsed suite file; see the module docstring and ``docs/suites.md``."""

    name: str
    path: Path | None
    documents: list[DocumentSpec]
    models: list[ModelSpec]
    variants: list[VariantSpec]
    rounds: int = 2
    repeats: int = 3
    turns_per_round: int | None = None
    max_tokens_per_run: int | None = None
    timeout: float | None = None
    max_output_tokens: int | None = None
    seed: int = 0
    raw: dict[str, Any] = field(default_factory=dict)
    #: The declared checks every run of the suite takes (docs/checks.md): the file's
    #: ``checks`` key, a checks file's path or a table of the same keys; None: none.
    checks: ChecksConfig | None = None
    allow_outside: bool = False
    """Files outside the suite file's folder were allowed (``--allow-outside-files``)."""
    #: Set by the caller (``arl suite run --allow-commands``), never by the file.
    allow_commands: bool = False

    def fingerprint(self) -> str:
        """SHA-256 (16 hex digits) over everything that decides which runs are made and
        how: document and comment file contents, models, variants' texts, rounds, repeats,
        limits. Shards and resumed runs must carry the same fingerprint."""
        h = hashlib.sha256()

        def put(obj: Any) -> None:
            h.update(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf-8"))

        for d in self.documents:
            put([d.name])
            h.update(d.doc.read_bytes())
            h.update(d.comments.read_bytes())
        put([[m.name, m.base_url, m.model, m.mode, m.echo_tool_results] for m in self.models])
        put([[v.name, v.text, v.how] for v in self.variants])
        put(
            [
                self.rounds,
                self.repeats,
                self.turns_per_round,
                self.max_tokens_per_run,
                self.max_output_tokens,
            ]
        )
        if self.checks is not None:  # only when declared: older suites keep their print
            put(self.checks.to_json())
        return h.hexdigest()[:16]


@dataclass(frozen=True)
class SuiteItem:
    """One run of a suite: document x model x variant x repeat (repeat from 1)."""

    document: DocumentSpec
    model: ModelSpec
    variant: VariantSpec
    repeat: int

    @property
    def key(self) -> str:
        return f"{self.document.name}|{self.model.name}|{self.variant.name}|r{self.repeat}"


# -- reading a suite file ------------------------------------------------------------------


def _unknown_keys(keys: list[str]) -> str:
    """``unknown key foo`` / ``unknown keys foo, bar``."""
    return ("unknown key " if len(keys) == 1 else "unknown keys ") + ", ".join(keys)


def _twice(names: list[str]) -> str:
    """``the name x appears twice`` / ``the names x, y appear twice``."""
    if len(names) == 1:
        return f"the name {names[0]} appears twice"
    return f"the names {', '.join(names)} appear twice"


def _err(path: Path | str, what: str) -> SuiteError:
    return SuiteError(f"{path}: {what}")


def _name_ok(value: Any, where: str, path: Path | str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _err(path, f"{where}: 'name' must be a non-empty string")
    if "|" in value or len(value) > 80:
        raise _err(path, f"{where}: name {value!r} may not contain '|' or exceed 80 characters")
    return value.strip()


def _number(
    obj: dict[str, Any], key: str, where: str, path: Path | str, *, integer: bool, minimum: float
) -> Any:
    value = obj.get(key)
    if value is None:
        return None
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    if ok and not isinstance(value, bool) and abs(value) > 10**15:
        raise _err(path, f"{where}: '{key}' is far too large")
    if isinstance(value, bool) or not ok or not math.isfinite(float(value)) or value < minimum:
        kind = "a whole number" if integer else "a number"
        raise _err(path, f"{where}: '{key}' must be {kind} of at least {minimum:g}")
    return value


def _read_suite_file(path: Path) -> dict[str, Any]:
    from engine.safe_io import BoundedInputError, load_json, read_regular_file

    try:
        data = read_regular_file(path, max_bytes=MAX_SUITE_BYTES)
    except BoundedInputError as exc:
        raise _err(path, exc.problem) from None
    if path.suffix.lower() == ".json":
        try:
            obj = load_json(data, str(path))
        except BoundedInputError as exc:
            raise _err(path, exc.problem) from None
    else:
        try:
            obj = tomllib.loads(data.decode("utf-8"))
        except UnicodeDecodeError:
            raise _err(path, "is not UTF-8 text") from None
        except (ValueError, RecursionError) as exc:
            raise _err(path, f"is not valid TOML ({str(exc).splitlines()[0][:160]})") from None
    if not isinstance(obj, dict):
        raise _err(path, "must hold a table/object at the top level")
    return obj


def load_suite(
    path: str | os.PathLike[str], *, seed: int | None = None, allow_outside: bool = False
) -> Suite:
    """Read and check a suite file (``.toml`` or ``.json``). ``seed`` overrides the file's
    ``seed`` for ``sample`` entries. Relative paths in the file are relative to the file.

    Every file the suite names (documents, comments, instructions, a checks file) must
    resolve, links followed, inside the suite file's folder: suite files come from pull
    requests in CI, and what they name is sent to their endpoints. ``allow_outside``
    (``arl suite run --allow-outside-files``) lifts that rule.

    Raises ``SuiteError`` naming the file and the problem.
    """
    p = Path(path)
    obj = _read_suite_file(p)
    base = p.resolve().parent
    known = {
        "name",
        "rounds",
        "repeats",
        "seed",
        "limits",
        "documents",
        "models",
        "variants",
        "mode",
        "checks",
    }
    if unknown := sorted(set(obj) - known):
        raise _err(p, f"{_unknown_keys(unknown)} (known: {', '.join(sorted(known))})")
    name = obj.get("name", p.stem)
    if not isinstance(name, str) or not name.strip():
        raise _err(p, "'name' must be a non-empty string")
    rounds = _number(obj, "rounds", "suite", p, integer=True, minimum=1) or 2
    repeats = _number(obj, "repeats", "suite", p, integer=True, minimum=1) or 3
    file_seed = _number(obj, "seed", "suite", p, integer=True, minimum=0) or 0
    use_seed = file_seed if seed is None else seed
    limits = obj.get("limits", {})
    if not isinstance(limits, dict):
        raise _err(p, "'limits' must be a table")
    if unknown := sorted(
        set(limits) - {"turns_per_round", "max_tokens_per_run", "timeout", "max_output_tokens"}
    ):
        raise _err(p, f"limits: {_unknown_keys(unknown)}")
    turns = _number(limits, "turns_per_round", "limits", p, integer=True, minimum=1)
    max_tok = _number(limits, "max_tokens_per_run", "limits", p, integer=True, minimum=1)
    timeout = _number(limits, "timeout", "limits", p, integer=False, minimum=1)
    max_out = _number(limits, "max_output_tokens", "limits", p, integer=True, minimum=1)
    default_mode = obj.get("mode")
    if default_mode is not None and default_mode not in ("tools", "no-tools", "auto"):
        raise _err(p, "'mode' must be tools, no-tools or auto")

    documents = _documents(obj.get("documents"), p, base, use_seed, allow_outside)
    models = _models(obj.get("models"), p, default_mode)
    variants = _variants(obj.get("variants"), p, base, allow_outside)
    suite = Suite(
        name=name.strip(),
        path=p,
        documents=documents,
        models=models,
        variants=variants,
        rounds=int(rounds),
        repeats=int(repeats),
        turns_per_round=turns,
        max_tokens_per_run=max_tok,
        timeout=float(timeout) if timeout is not None else None,
        max_output_tokens=max_out,
        seed=use_seed,
        raw=obj,
        checks=_checks(obj.get("checks"), p, base, allow_outside),
        allow_outside=allow_outside,
    )
    n = len(documents) * len(models) * len(variants) * suite.repeats
    if n > MAX_ITEMS:
        raise _err(
            p, f"{n} runs is more than {MAX_ITEMS}; shrink documents, models, variants or repeats"
        )
    return suite


def _checks(value: Any, p: Path, base: Path, allow: bool) -> ChecksConfig | None:
    """The suite's ``checks``: a checks file's path (relative to the suite file) or a
    table of its keys (docs/checks.md). Raises SuiteError naming the file."""
    from engine.checks.config import checks_from_table, load_checks
    from engine.models import InputError

    if value is None:
        return None
    try:
        if isinstance(value, str):
            return load_checks(_inside(base / value, base, "checks", p, allow))
        if isinstance(value, dict):
            return checks_from_table(value, f"{p}: checks")
    except InputError as exc:
        raise SuiteError(str(exc)) from None
    raise _err(p, "'checks' must be a checks file's path or a table of checks")


def _documents(entries: Any, p: Path, base: Path, seed: int, allow: bool) -> list[DocumentSpec]:
    if not isinstance(entries, list) or not entries:
        raise _err(p, "'documents' must be a non-empty list (paths, or the built-in corpus)")
    out: list[DocumentSpec] = []
    for i, e in enumerate(entries, 1):
        where = f"documents[{i}]"
        if isinstance(e, str):  # shorthand: "builtin", "builtin:sample:3"
            e = _corpus_shorthand(e, where, p)
        if not isinstance(e, dict):
            raise _err(p, f"{where}: must be a table with 'path' and 'comments', or 'corpus'")
        if "corpus" in e:
            if unknown := sorted(set(e) - {"corpus", "sample"}):
                raise _err(p, f"{where}: {_unknown_keys(unknown)}")
            corpus = e["corpus"]
            if corpus not in ("builtin", "f1000rd", "briefs"):
                raise _err(p, f"{where}: corpus must be builtin, f1000rd or briefs")
            try:
                docs = builtin_documents(corpus)
            except CorpusError as exc:
                raise _err(p, str(exc)) from None
            n = _number(e, "sample", where, p, integer=True, minimum=1)
            if n is not None:
                docs = sample_stratified(docs, int(n), seed)
            out.extend(docs)
            continue
        if unknown := sorted(set(e) - {"path", "comments", "name"}):
            raise _err(p, f"{where}: {_unknown_keys(unknown)}")
        doc, comments = e.get("path"), e.get("comments")
        if not isinstance(doc, str) or not isinstance(comments, str):
            raise _err(p, f"{where}: 'path' and 'comments' must both be file paths")
        dpath, cpath = (base / doc), (base / comments)
        for f in (dpath, cpath):
            _inside(f, base, where, p, allow)
            if not f.is_file():
                raise _err(p, f"{where}: {f} is not a file")
        name = _name_ok(e.get("name", dpath.stem), where, p)
        out.append(DocumentSpec(name, dpath, cpath, _text_chars(dpath, p), "file"))
    names = [d.name for d in out]
    if dup := sorted({n for n in names if names.count(n) > 1}):
        raise _err(p, f"documents: {_twice(dup)}; give each a 'name'")
    return out


def _corpus_shorthand(text: str, where: str, p: Path) -> dict[str, Any]:
    m = re.fullmatch(r"(builtin|f1000rd|briefs)(?::sample:(\d+))?", text.strip())
    if not m:
        raise _err(
            p, f"{where}: {text!r} is not a corpus (builtin, builtin:sample:N, f1000rd, briefs)"
        )
    out: dict[str, Any] = {"corpus": m.group(1)}
    if m.group(2):
        out["sample"] = int(m.group(2))
    return out


def _text_chars(path: Path, suite_path: Path | str) -> int:
    from engine.score.scoring import Version
    from engine.text.documents import DocumentError, read_document

    try:
        kind, raw = read_document(path)
        return len(Version.from_source(raw, kind, "v1").text)
    except DocumentError as exc:
        raise _err(suite_path, str(exc)) from None


def _models(entries: Any, p: Path, default_mode: str | None) -> list[ModelSpec]:
    if not isinstance(entries, list) or not entries:
        raise _err(p, "'models' must be a non-empty list of tables (base_url, model)")
    out = []
    allowed = {
        "name",
        "base_url",
        "model",
        "price_input",
        "price_output",
        "currency",
        "api_key_env",
        "mode",
        "echo_tool_results",
    }
    for i, e in enumerate(entries, 1):
        where = f"models[{i}]"
        if not isinstance(e, dict):
            raise _err(p, f"{where}: must be a table")
        if unknown := sorted(set(e) - allowed):
            raise _err(p, f"{where}: {_unknown_keys(unknown)}")
        url, model = e.get("base_url"), e.get("model")
        if not isinstance(url, str) or not re.match(r"https?://", url):
            raise _err(p, f"{where}: 'base_url' must be an http(s) URL")
        if not isinstance(model, str) or not model.strip():
            raise _err(p, f"{where}: 'model' must be a model name")
        pin = _number(e, "price_input", where, p, integer=False, minimum=0)
        pout = _number(e, "price_output", where, p, integer=False, minimum=0)
        if (pin is None) != (pout is None):
            raise _err(
                p,
                f"{where}: give both price_input and price_output (per million tokens), or neither",
            )
        mode = e.get("mode", default_mode)
        if mode is not None and mode not in ("tools", "no-tools", "auto"):
            raise _err(p, f"{where}: 'mode' must be tools, no-tools or auto")
        key_env = e.get("api_key_env")
        if key_env is not None and (not isinstance(key_env, str) or not key_env):
            raise _err(p, f"{where}: 'api_key_env' must name an environment variable")
        currency = e.get("currency", "")
        if not isinstance(currency, str):
            raise _err(p, f"{where}: 'currency' must be a string such as USD")
        echo = e.get("echo_tool_results", False)
        if not isinstance(echo, bool):
            raise _err(p, f"{where}: 'echo_tool_results' must be true or false")
        out.append(
            ModelSpec(
                name=_name_ok(e.get("name", model), where, p),
                base_url=url,
                model=model,
                price_input=float(pin) if pin is not None else None,
                price_output=float(pout) if pout is not None else None,
                currency=currency,
                api_key_env=key_env,
                mode=mode,
                echo_tool_results=echo,
            )
        )
    names = [m.name for m in out]
    if dup := sorted({n for n in names if names.count(n) > 1}):
        raise _err(p, f"models: {_twice(dup)}; give each a 'name'")
    return out


def _variants(entries: Any, p: Path, base: Path, allow: bool) -> list[VariantSpec]:
    if entries is None:
        return [VariantSpec("default")]
    if not isinstance(entries, list) or not entries:
        raise _err(p, "'variants' must be a non-empty list of tables")
    out = []
    for i, e in enumerate(entries, 1):
        where = f"variants[{i}]"
        if not isinstance(e, dict):
            raise _err(p, f"{where}: must be a table")
        if unknown := sorted(set(e) - {"name", "instructions", "how"}):
            raise _err(p, f"{where}: {_unknown_keys(unknown)}")
        how = e.get("how", "extend")
        if how not in ("replace", "extend"):
            raise _err(p, f"{where}: 'how' must be replace or extend")
        text = None
        ipath = e.get("instructions")
        if ipath is not None:
            if not isinstance(ipath, str):
                raise _err(p, f"{where}: 'instructions' must be a text file path")
            from engine.safe_io import BoundedInputError, read_regular_file

            f = _inside(base / ipath, base, where, p, allow)
            try:
                text = read_regular_file(f, max_bytes=MAX_INSTRUCTIONS_BYTES).decode("utf-8")
                text = text.strip()
            except BoundedInputError as exc:
                raise _err(p, f"{where}: {exc}") from None
            except UnicodeDecodeError:
                raise _err(p, f"{where}: {f} is not UTF-8 text") from None
            if not text:
                raise _err(p, f"{where}: {f} is empty")
        out.append(
            VariantSpec(
                _name_ok(e.get("name", Path(ipath).stem if ipath else "default"), where, p),
                text,
                how,
                ipath,
            )
        )
    names = [v.name for v in out]
    if dup := sorted({n for n in names if names.count(n) > 1}):
        raise _err(p, f"variants: {_twice(dup)}")
    return out


def _inside(f: Path, base: Path, where: str, p: Path, allow: bool) -> Path:
    """``f`` when it resolves (links followed) inside the suite file's folder ``base``, or
    when ``allow`` (``load_suite``'s ``allow_outside``); else SuiteError naming it."""
    if allow:
        return f
    try:
        real = f.resolve()
    except (OSError, RuntimeError):
        real = f
    if not real.is_relative_to(base):
        raise _err(
            p,
            f"{where}: {f} is outside the suite file's folder {base}; a suite reads only "
            "files beside it (what it reads is sent to its endpoints): pass "
            "--allow-outside-files to allow it",
        )
    return f


def check_key_variables(suite: Suite, allowed: set[str] | frozenset[str]) -> None:
    """Refuse (SuiteError) a model whose ``api_key_env`` is not a variable the user named
    (``allowed``: ``arl suite run --key-env NAME``, and ``ARL_KEY_ENVS``: the user's
    setting, ``allowed_key_variables``). A suite file cannot pick which of the
    environment's secrets is sent to its endpoint."""
    for i, m in enumerate(suite.models, 1):
        if m.api_key_env and m.api_key_env not in allowed:
            raise _err(
                suite.path or Path(suite.name),
                f"models[{i}]: api_key_env = {m.api_key_env!r} is a variable you did not "
                f"name; the suite would send it to {m.base_url} as the API key. Allow it "
                f"with --key-env {m.api_key_env} (or ARL_KEY_ENVS={m.api_key_env})",
            )


def allowed_key_variables(named: list[str] | None = None) -> frozenset[str]:
    """The key variables a suite may use: ``named`` (the command line's ``--key-env``)
    and those listed in the ``ARL_KEY_ENVS`` setting (names separated by commas or
    spaces)."""
    listed = re.split(r"[,\s]+", os.environ.get("ARL_KEY_ENVS", ""))
    return frozenset(n for n in [*(named or []), *listed] if n)


def _real(f: Path) -> str:
    """The file really read (links and ``..`` resolved), for the estimate."""
    try:
        return str(f.resolve())
    except (OSError, RuntimeError):
        return str(f)


def suite_disclosure(suite: Suite) -> list[str]:
    """What the suite reads and where it sends it, in lines for the estimate (shown before
    ``--yes``): every file it names, and per endpoint the models, what goes there
    (documents, comments, instructions) and which key (a variable's name, or the usual key
    rule)."""
    lines = ["Reads:"]
    files: list[str] = []
    for d in suite.documents:
        if d.source == "file":
            files += [_real(d.doc), _real(d.comments)]
    base = suite.path.resolve().parent if suite.path is not None else None
    for v in suite.variants:
        if v.path:
            files.append(_real(base / v.path) if base is not None else v.path)
    builtin = sorted({d.source for d in suite.documents if d.source != "file"})
    lines += [f"  {f}" for f in dict.fromkeys(files)]
    if builtin:
        lines.append(f"  the program's built-in corpus ({', '.join(builtin)})")
    if suite.allow_outside:
        lines.append("  (files outside the suite's folder allowed: --allow-outside-files)")
    lines.append("Sends (documents, comments and the agent's instructions) to:")
    by_url: dict[str, list[ModelSpec]] = {}
    for m in suite.models:
        by_url.setdefault(m.base_url, []).append(m)
    from engine.safe_io import mask_url

    for url, models in by_url.items():
        keys = sorted(
            {
                f"the key in ${m.api_key_env}" if m.api_key_env else "the usual key for that host"
                for m in models
            }
        )
        names = ", ".join(m.model for m in models)
        lines.append(f"  {mask_url(url)} (model {names}; {' and '.join(keys)})")
    return lines


# -- items and shards ----------------------------------------------------------------------


def expand_items(suite: Suite) -> list[SuiteItem]:
    """Every run of the suite, ordered by key (document, model, variant, repeat)."""
    items = [
        SuiteItem(d, m, v, r)
        for d in suite.documents
        for m in suite.models
        for v in suite.variants
        for r in range(1, suite.repeats + 1)
    ]
    return sorted(items, key=lambda it: it.key)


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``"I/N"`` (1 <= I <= N) -> (I, N); None -> None. Raises SuiteError."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not m or not (1 <= int(m.group(1)) <= int(m.group(2))):
        raise SuiteError(f"--shard {text!r}: give I/N with 1 <= I <= N, e.g. 2/4")
    return int(m.group(1)), int(m.group(2))


def shard_items(items: list[SuiteItem], shard: tuple[int, int] | None) -> list[SuiteItem]:
    """The deterministic slice of shard I of N: items whose position in key order is
    I-1 modulo N. Every item lands in exactly one shard, whatever machine runs it."""
    if shard is None:
        return items
    i, n = shard
    return [it for k, it in enumerate(sorted(items, key=lambda it: it.key)) if k % n == i - 1]


def load_item_comments(item: SuiteItem) -> tuple[str, str, list[Comment]]:
    """(kind, raw document, comments) of an item's document. Raises SuiteError."""
    from engine.comments_io import load_comments
    from engine.score.scoring import Version
    from engine.text.documents import DocumentError, read_document

    try:
        kind, raw = read_document(item.document.doc)
        text = Version.from_source(raw, kind, "v1").text
        comments, _unusable = load_comments(item.document.comments, text)
    except (DocumentError, InputError) as exc:
        raise SuiteError(str(exc)) from None
    if not comments:
        raise SuiteError(f"{item.document.comments}: no usable comments")
    return kind, raw, comments


def suite_template(
    base_url: str = "http://127.0.0.1:8089/v1", model: str = "smollm2-135m", name: str = "my suite"
) -> str:
    """A commented suite file to start from: the built-in corpus (3 documents by seed 1),
    one model, the default instructions, 3 repeats. ``docs/suites.md`` documents every key."""
    return f"""# A review suite: the same documents and comments, run against each model below,
# each combination repeated. Every key is explained in docs/suites.md.
name = {json.dumps(name)}
rounds = 2          # round limit of each run
repeats = 3         # one run is a sample of one: repeats show the spread
seed = 1            # fixes which documents sample:N picks

# Documents: the built-in corpus (real papers with their reviewers' comments, and short
# memos), or your own: {{ path = "memo.html", comments = "memo.comments.json" }}
documents = ["builtin:sample:3"]

[limits]
turns_per_round = 16
timeout = 120       # seconds per model call

[[models]]
name = {json.dumps(model)}
base_url = {json.dumps(base_url)}
model = {json.dumps(model)}
# price_input = 0.15   # your prices per million tokens; without them no cost is shown
# price_output = 0.60
# currency = "USD"

# Instruction variants to compare (optional): a text file that extends or replaces the
# agent's instructions.
# [[variants]]
# name = "default"
# [[variants]]
# name = "terse"
# instructions = "terse.txt"
# how = "extend"
"""


def write_suite_template(
    path: str | os.PathLike[str],
    base_url: str,
    model: str,
    name: str | None = None,
    *,
    force: bool = False,
) -> Path:
    """Write ``suite_template(...)`` to ``path`` (a ``.toml`` file) atomically and check that
    it loads. Raises SuiteError when the file exists (without ``force``), has another
    suffix, or cannot be written."""
    p = Path(path)
    if p.suffix.lower() != ".toml":
        raise SuiteError(f"{p}: a new suite file is TOML; name it something.toml")
    if p.exists() and not force:
        raise SuiteError(f"{p}: already exists (add --force to replace it)")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(p, suite_template(base_url, model, name or p.stem))
    except OSError as exc:
        raise SuiteError(f"{p}: cannot be written ({exc.strerror or exc})") from None
    load_suite(p)
    return p
