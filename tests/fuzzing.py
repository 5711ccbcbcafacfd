"""The reliability suite's engine (issue 21, item 7): generated inputs for every tool through
the registry, and the checks every outcome must pass. Shared by tests/test_fuzz_registry.py
(which asserts) and bench/bench_reliability.py (which reports the figures).

Inputs come from the tools' own pydantic input models, so a field added to a model is fuzzed
without touching this file. Per tool (`fuzz_tool`):

- *valid requests* (~0.6%): every field drawn from its type and bounds, edges included (the
  largest context, users and GPU counts), so the bounds are shown to keep the calculators
  finite, not only to refuse; these are also the bases of the two kinds below;
- *field mutations* (60%, the cheap bulk): a base with one field path — nested and list-item
  paths included — replaced by each value of a hostile pool (wrong types, NaN/Infinity as
  text, 1e400, 10^400, 300-item lists, control characters, nested containers); for a model
  with few fields, pairs of fields. Almost all fail validation, which is what makes 10,000
  inputs per tool affordable;
- *text mutations* (the rest): a base's JSON text cut or broken (a quote, brace, NaN, 1e400,
  backslash or NUL inserted), JSON no parser should accept quietly (nested 100,000 deep, a
  list, 5,000-digit numbers, 200,000 characters) and tool names that are not strings.

Every outcome must be strict JSON (no NaN/Infinity); every error must name a field of the
tool's input (or `arguments` / `name` for what is not an object); no internal error or limit.
Hypothesis draws the valid requests derandomized (the same inputs on every run).

Tools are pure functions of their validated request (docs/GUIDE: "Tools are pure functions over
pydantic models"), so within one tool's run a request that validates to one already computed
gets that result again (`memoized`): the mutations that still parse — whitespace, a cut after
the last field — reach the tool with the same request about half the time
(fits_on_hardware, which plans every catalog model: 380 calls, 180 distinct). Every input still
goes through parsing, validation, the guard and the outcome's JSON; only the calculation is
not repeated.
"""

from __future__ import annotations

import itertools
import json
import time
import typing
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any, Literal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from assistant.registry import Registry, ToolOutcome, ToolSpec, parse_arguments
from tools.catalog import get_catalog
from tools.memory.formats import WEIGHT_FORMATS
from tools.memory.kv_cache import KV_DTYPES
from tools.pricing import TIERS
from tools.workload import Workload
from tools.workloads.embedding_models import embedding_models

TARGET_INPUTS_PER_TOOL = 10_000
"""Issue 21's acceptance: at least this many generated inputs per tool through the registry
(`make test-deep`, which `make bench` runs; the bench's own report runs twice as many)."""
CI_INPUTS_PER_TOOL = 2_000
"""`make test`'s run: every field path with every hostile value still (see `fuzz_tool`),
from fewer valid bases, in ~a third of the 10,000-input run's time."""

EXAMPLE_DEADLINE_S = 5.0
"""Hypothesis deadline for one generated input (a valid recommendation takes ~0.3 s)."""

SECONDS_PER_TOOL = 20.0
"""A tool whose fuzzing takes more CPU seconds than this fails the suite with a message saying
how to make its valid share cheap (OVERRIDES), so CI stays bounded when a slow tool is added.
CPU time (`time.process_time`), not wall time: under pytest-xdist and other jobs on a shared
2-core machine a tool's wall time doubles or triples without its cost changing."""

# Values no field should take silently: each is wrong for almost every field, so most calls
# stop at validation (cheap), and the rest must still end in a clear result.
HOSTILE: tuple[Any, ...] = (
    None,
    True,
    -1,
    0,
    1.5,
    -0.0,
    5e-324,
    1e308,
    -1e308,
    10**30,
    2**63,
    10**400,
    "",
    "NaN",
    "Infinity",
    "-inf",
    "1e400",
    "9" * 400,
    "x" * 300,
    "\x1b]52;c;aGk=\x07\x1b[2J",
    "llama-3.1-8b",
    "h100-sxm",
    "13B",
    "../../../../etc/passwd",
    [],
    [None],
    [1, "a", {}],
    ["h100-sxm"] * 300,
    {},
    {"a": {"b": [1]}},
)


@dataclass
class Finding:
    """One outcome that broke the contract: what kind, which tool, the input (cut) and why."""

    kind: str  # crash | non_finite | internal | unclear_error
    tool: str
    arguments: str
    detail: str


@dataclass
class Tally:
    """Inputs tried per tool and every finding; what the tests assert and the bench reports."""

    inputs: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)
    seconds: Counter[str] = field(default_factory=Counter)
    """CPU seconds per tool (`time.process_time`), immune to the machine's other load."""

    def kinds(self) -> Counter[str]:
        return Counter(f.kind for f in self.findings)


# --- what a field may hold ---------------------------------------------------------------------


def _catalog_vocab() -> dict[str, list[str]]:
    catalog = get_catalog()
    models = sorted(catalog.models)
    small = [m for m in models if catalog.models[m].params.total < 20e9] or models
    return {"model": small, "all_models": models, "gpu": sorted(catalog.gpus)}


VOCAB = _catalog_vocab()

# Strings by field name (the vocabulary a caller would use); other strings are short text.
_STRINGS: dict[str, list[str]] = {
    "model": VOCAB["model"],
    "model_id": VOCAB["all_models"],
    "gpu": VOCAB["gpu"],
    "only_gpus": VOCAB["gpu"],
    "exclude_gpus": VOCAB["gpu"],
    "weights": list(WEIGHT_FORMATS),
    "kv_dtype": list(KV_DTYPES),
    "params": ["7B", "13B", "350M", "1.5T", "7.5e9"],
    "region": ["eu", "us", "europe"],
    "vendor": ["NVIDIA", "AMD", "Intel"],
    "providers": ["aws", "runpod", "lambda", "gcp"],
    "contains": ["llama", "qwen", "8b", ""],
    "tiers": list(TIERS),
}

# Numbers by field name where the type alone says too little (a bare parameter count).
_NUMBERS: dict[str, list[float]] = {"params": [3.5e8, 7e9, 1.3e10]}

# Fields a valid request never sets (they read local files: issue 21 item 4 is another part).
NEVER_VALID = frozenset({"config_path"})

# Per-tool field strategies that keep a valid call cheap enough for hundreds of runs; an
# overridden field is always sent, and mutations never empty it (None, [], {}), which would
# undo the override (an empty only_gpus searches the whole catalog: ~0.3-1.5 s a call).
_FEW_GPUS = st.fixed_dictionaries(
    {"only_gpus": st.lists(st.sampled_from(VOCAB["gpu"]), min_size=1, max_size=2)},
    optional={
        "max_gpus": st.integers(1, 256),
        "single_node": st.booleans(),
        "budget_usd_per_hour": st.floats(0.01, 1e4),
        "region": st.sampled_from(["eu", "us"]),
    },
)
OVERRIDES: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    # One or two GPU types: a full-catalog search is ~0.1-0.3 s; two are ~10 ms.
    "recommend": {"constraints": _FEW_GPUS},
    # Embedding models have their own catalog (issue 30 item 2); one or two GPUs keep it cheap.
    "embed_corpus": {
        "model": st.sampled_from(sorted(embedding_models())),
        "gpus": st.lists(st.sampled_from(VOCAB["gpu"]), min_size=1, max_size=2),
    },
}


def _meta(info: FieldInfo | None) -> list[Any]:
    return list(info.metadata) if info is not None else []


def _bounds(info: FieldInfo) -> tuple[float | None, float | None]:
    lo: float | None = None
    hi: float | None = None
    for meta in info.metadata:
        for name, pick in (("ge", "lo"), ("gt", "lo"), ("le", "hi"), ("lt", "hi")):
            value = getattr(meta, name, None)
            if value is None:
                continue
            if pick == "lo":
                lo = value if name == "ge" else (value + 1 if isinstance(value, int) else value)
            else:
                hi = value if name == "le" else (value - 1 if isinstance(value, int) else value)
    return lo, hi


def _number(kind: type, lo: float | None, hi: float | None) -> st.SearchStrategy[Any]:
    if kind is int:
        low = int(lo) if lo is not None else 0
        high = int(hi) if hi is not None else low + 10**6
        edges = [low, high, min(high, low + 1), min(high, max(low, 8))]
        return st.sampled_from(edges) | st.integers(low, min(high, low + 4096))
    low_f = float(lo) if lo is not None else 0.0
    high_f = float(hi) if hi is not None else 1e6
    tiny = low_f if low_f > 0 else 1e-3
    return st.sampled_from([low_f or tiny, high_f, tiny]) | st.floats(
        low_f or tiny, high_f, allow_nan=False, allow_infinity=False
    )


def _strategy(name: str, annotation: Any, info: FieldInfo | None) -> st.SearchStrategy[Any]:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal:
        return st.sampled_from(args)
    if origin in (typing.Union, __import__("types").UnionType):
        options = [a for a in args if a is not type(None)]
        return st.one_of([_strategy(name, a, info) for a in options])
    if origin is typing.Annotated:
        return _strategy(name, args[0], None)
    if origin in (list, tuple):
        item = _strategy(name, args[0], None)
        low = next((m.min_length for m in _meta(info) if hasattr(m, "min_length")), 0)
        high = next((m.max_length for m in _meta(info) if hasattr(m, "max_length")), 3)
        return st.lists(item, min_size=low, max_size=max(low, min(high, 3)))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model_arguments(annotation)
    if annotation is bool:
        return st.booleans()
    if annotation in (int, float):
        if name in _NUMBERS:
            return st.sampled_from(_NUMBERS[name])
        lo, hi = _bounds(info) if info is not None else (None, None)
        return _number(annotation, lo, hi)
    if annotation is str:
        words = _STRINGS.get(name)
        return st.sampled_from(words) if words else st.text(max_size=12)
    return st.none()


def model_arguments(
    model: type[BaseModel], overrides: Mapping[str, st.SearchStrategy[Any]] | None = None
) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments a well-behaved caller could send `model`: required fields always, each optional
    field sometimes, every value within its type and bounds (not always valid together)."""
    overrides = overrides or {}
    required: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for name, info in model.model_fields.items():
        if name in NEVER_VALID:
            continue
        if name in overrides:
            required[name] = overrides[name]
            continue
        strategy = _strategy(name, info.annotation, info)
        (required if info.is_required() else optional)[name] = strategy
    # One of model / params (the ModelChoice rule), so most valid requests reach the tool.
    if "model" in optional and "params" in optional:
        choice = st.one_of(
            st.fixed_dictionaries({"model": optional.pop("model")}),
            st.fixed_dictionaries({"params": optional.pop("params")}),
        )
        return st.tuples(choice, st.fixed_dictionaries(required, optional=optional)).map(
            lambda pair: {**pair[0], **pair[1]}
        )
    return st.fixed_dictionaries(required, optional=optional)


# The sizing request carries a whole workload: the same one or two GPU types inside it.
OVERRIDES["size"] = {"workload": model_arguments(Workload, OVERRIDES["recommend"])}


def field_paths(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every field path of `model`, nested models included (`constraints.max_gpus`); a list of
    models contributes its first item's fields (`options.0.count`)."""
    out: list[tuple[str, ...]] = []
    for name, info in model.model_fields.items():
        path = (*prefix, name)
        out.append(path)
        for nested, in_list in _nested(info.annotation):
            out += field_paths(nested, (*path, "0") if in_list else path)
    return out


def _nested(annotation: Any) -> Iterator[tuple[type[BaseModel], bool]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation, False
        return
    in_list = typing.get_origin(annotation) in (list, tuple)
    for arg in typing.get_args(annotation):
        for model, nested_list in _nested(arg):
            yield model, in_list or nested_list


def with_value(arguments: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """A copy of `arguments` with `value` at `path` (containers on the path copied or created;
    the rest shared, which is safe: the registry never mutates its arguments)."""
    out = dict(arguments)
    node: Any = out
    for part, following in itertools.pairwise(path):
        if part == "0":
            item = dict(node[0]) if node and isinstance(node[0], dict) else {}
            node[0] = item
            node = item
            continue
        child = node.get(part)
        if following == "0":
            child = list(child) if isinstance(child, list) and child else [{}]
        else:
            child = dict(child) if isinstance(child, dict) else {}
        node[part] = child
        node = child
    node[path[-1]] = value
    return out


# --- the checks ---------------------------------------------------------------------------------


def _strict_json(text: str) -> Any:
    def refuse(literal: str) -> Any:
        raise ValueError(f"{literal} in the tool message")

    return json.loads(text, parse_constant=refuse)


def named_fields(result: Mapping[str, Any]) -> list[str]:
    """The fields an error result names (`field`, or each problem's `field`)."""
    names = [str(p.get("field", "")) for p in result.get("problems", []) if isinstance(p, dict)]
    if isinstance(result.get("field"), str):
        names.append(result["field"])
    return names


def _known(model: type[BaseModel], sent: Mapping[str, Any], dotted: str) -> bool:
    top = dotted.split(".")[0]
    return top in model.model_fields or top in sent or top in ("arguments", "name")


class _Shown:
    """The input as a finding shows it (cut), computed only when there is a finding."""

    def __init__(self, arguments: Any) -> None:
        self.arguments = arguments

    def __str__(self) -> str:
        return repr(self.arguments)[:300]


def check(
    registry: Registry, tool: str, arguments: Any, tally: Tally, name: Any | None = None
) -> ToolOutcome | None:
    """One call through the registry, every contract checked; findings go to `tally`."""
    called = tool if name is None else name
    tally.inputs[tool] += 1
    shown = _Shown(arguments)
    try:
        outcome = registry.call(called, arguments)
        content = outcome.content
    except BaseException as exc:  # a crash is what this suite looks for
        if isinstance(exc, KeyboardInterrupt):
            raise
        tally.findings.append(
            Finding("crash", tool, str(shown), f"{type(exc).__name__}: {exc}"[:300])
        )
        return None
    try:
        _strict_json(content)  # NaN / Infinity would be refused here: no non-finite figure
    except ValueError as exc:
        tally.findings.append(Finding("non_finite", tool, str(shown), str(exc)[:300]))
        return outcome
    if not outcome.is_error:
        return outcome
    tally.errors[tool] += 1
    result = outcome.result
    if result.get("kind") in ("internal_error", "internal_limit"):
        tally.findings.append(Finding("internal", tool, str(shown), str(result)[:300]))
        return outcome
    spec = registry.specs.get(tool)
    names = named_fields(result)
    sent = arguments if isinstance(arguments, Mapping) else parse_arguments(arguments)
    sent = sent if isinstance(sent, Mapping) else {}
    if not names or (spec and not all(_known(spec.input_model, sent, n) for n in names)):
        tally.findings.append(Finding("unclear_error", tool, str(shown), str(result)[:300]))
    return outcome


# --- the kinds of input -----------------------------------------------------------------------


def _fuzz_settings(examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return settings(
        max_examples=examples,
        # One example is one call (a whole recommendation at most, ~0.3 s); the deadline stops a
        # call that hangs, SECONDS_PER_TOOL bounds a tool's whole run.
        deadline=timedelta(seconds=EXAMPLE_DEADLINE_S),
        derandomize=True,  # the same inputs on every run: CI is deterministic
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def valid_inputs(
    registry: Registry, tool: str, tally: Tally, examples: int
) -> list[dict[str, Any]]:
    """`examples` requests drawn from the field types and bounds (edges included); returned,
    to be the bases the other kinds of input mutate."""
    model = registry.specs[tool].input_model
    drawn: list[dict[str, Any]] = []

    @_fuzz_settings(examples)
    @given(arguments=model_arguments(model, OVERRIDES.get(tool)))
    def run(arguments: dict[str, Any]) -> None:
        drawn.append(arguments)
        check(registry, tool, arguments, tally)

    run()
    return drawn


def field_mutations(
    registry: Registry, tool: str, tally: Tally, bases: list[dict[str, Any]], budget: int
) -> None:
    """Up to `budget` calls: a base with one field path replaced by each hostile value, base
    after base; for a model with few fields, then two fields made hostile together."""
    model = registry.specs[tool].input_model
    paths = field_paths(model)
    pinned = set(OVERRIDES.get(tool, {}))
    pools = {p: [v for v in HOSTILE if not (p[0] in pinned and _is_empty(v))] for p in paths}
    goal = tally.inputs[tool] + budget
    accepted: set[tuple[tuple[str, ...], int]] = set()
    for number, base in enumerate(bases):
        for path in paths:
            for index, value in enumerate(pools[path]):
                if tally.inputs[tool] >= goal:
                    return
                if number and (path, index) in accepted:
                    continue  # valid for this field (e.g. null where optional): run once
                outcome = check(registry, tool, with_value(base, path, value), tally)
                if outcome is not None and "problems" not in outcome.result:
                    accepted.add((path, index))
    pairs = [(a, b) for a in paths for b in paths if a < b] or [(p, p) for p in paths]
    step = 0
    while tally.inputs[tool] < goal:
        first, second = pairs[step % len(pairs)]
        one, two = pools[first], pools[second]
        arguments = with_value(bases[step % len(bases)], first, one[step % len(one)])
        check(registry, tool, with_value(arguments, second, two[(step // 7) % len(two)]), tally)
        step += 1


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, list | dict) and not value)


RAW_ARGUMENTS: tuple[Any, ...] = (
    '{"model": "llama-3.1-8b"',
    "[1, 2]",
    "null",
    "42",
    '"text"',
    '{"users": NaN}',
    '{"users": Infinity, "context": -Infinity}',
    '{"users": 1e400}',
    '{"users": ' + "9" * 5000 + "}",
    "[" * 100_000 + "]" * 100_000,
    '{"a": ' * 5000 + "1" + "}" * 5000,
    " " * 200_000,
    '{"model": "' + "x" * 200_000 + '"}',
    b'{"model": "llama-3.1-8b"}',
    b"\xff\xfe\x00",
    12,
    3.5,
    ["model"],
    {1: 2},
    {("a",): 1},
    object(),
)
"""Arguments no JSON object parser should accept quietly, sent as they are."""

_BREAKERS = ('"', "{", "}", "[", ",", ":", "NaN", "1e400", "-", "\\", "\n", "\x00", " 9e9999")


def text_mutations(
    registry: Registry, tool: str, tally: Tally, bases: list[dict[str, Any]], budget: int
) -> None:
    """`budget` calls with the JSON text of a base broken at one place (cut short, or a quote,
    brace, comma, NaN, 1e400, backslash or NUL inserted): what a model's truncated or garbled
    arguments look like. Plus the fixed RAW_ARGUMENTS and tool names that are not strings."""
    for raw in RAW_ARGUMENTS:
        check(registry, tool, raw, tally)
    for name in (None, 7, b"recommend", ["recommend"], tool.upper(), tool + "\x00"):
        check(registry, tool, "{}", tally, name=name)
    texts = [json.dumps(base) for base in bases] or ["{}"]
    goal = tally.inputs[tool] + budget
    step = 0
    while tally.inputs[tool] < goal:
        text = texts[step % len(texts)]
        at = (step * 7919) % (len(text) + 1)  # a prime stride visits every position
        breaker = _BREAKERS[(step // len(texts)) % len(_BREAKERS)]
        check(
            registry, tool, text[:at] if step % 3 == 0 else text[:at] + breaker + text[at:], tally
        )
        step += 1


def _request_key(request: BaseModel) -> tuple[str, str] | None:
    """What identifies a validated request to a pure tool: every value as its repr keeps
    (1 and 1.0, -0.0 and 0.0 apart), and which fields were set (a tool may read
    `model_fields_set`: the recommender does for `users`). None where the request does not
    serialise (the tool is then called as it is, and its own outcome checked)."""
    try:
        return repr(request), request.model_dump_json(exclude_unset=True)
    except ValueError:  # pydantic's serialisation errors are ValueErrors
        return None


def memoized(spec: ToolSpec) -> ToolSpec:
    """`spec` whose function returns the result it already computed for an identical request
    (see the module docstring); a request it raised for is computed again."""
    results: dict[tuple[str, str], BaseModel] = {}
    func = spec.func

    def call(request: BaseModel) -> BaseModel:
        key = _request_key(request)
        if key is None:
            return func(request)
        if key not in results:
            results[key] = func(request)
        return results[key]

    return replace(spec, func=call)


def fuzz_tool(
    registry: Registry, tool: str, tally: Tally, target: int = TARGET_INPUTS_PER_TOOL
) -> None:
    """At least `target` inputs for one tool: a valid share (0.6%, at least 30), field
    mutations of those requests (60%), and their JSON text broken (the rest).

    Whatever the target, the field mutations reach every field path with every hostile value
    at least once (a pass over the first base: 3,630 calls for `size`'s 121 paths), and a
    quarter of the target is left for broken text; at the volumes of 10,000 and more neither
    floor is reached, so those runs are as before. A small target (CI's
    `CI_INPUTS_PER_TOOL`) is then the same contract on every field with fewer bases."""
    start = time.process_time()
    first = tally.inputs[tool]
    registry = Registry(
        memoized(spec) if name == tool else spec for name, spec in registry.specs.items()
    )
    bases = valid_inputs(registry, tool, tally, examples=max(30, target * 6 // 1000))
    one_pass = len(field_paths(registry.specs[tool].input_model)) * len(HOSTILE)
    field_mutations(registry, tool, tally, bases, budget=max(int(target * 0.6), one_pass))
    rest = max(target - (tally.inputs[tool] - first), target // 4)
    text_mutations(registry, tool, tally, bases, budget=rest)
    tally.seconds[tool] += time.process_time() - start
