"""Which tools and system prompt the model is offered: the full profile, or a lean one for small
context windows.

Prompt + tool schemas cost about 2,460 o200k tokens in full — more than half of a 4,096-token
llama.cpp window before any question. The lean profile offers one tool, the sizing report's
`size`, with its serving fields (the model, format, context, users, prompt and output lengths,
the GPUs named) under a one-line description, and a short system prompt
(`prompts/system-lean.md`): at most `LEAN_BUDGET_TOKENS` (tests/test_token_budget.py,
bench/bench_llm.py). `size` because the model's reading is compared with the parser's from its
`size` call (`assistant.reading.reconcile`): a small model that reads the question right still
wins over a parser that read it wrong. Validation is the same either way: a lean call may still
send any field the full schema offers. The engine pre-computes the tools a question needs
before the model is asked, so a small model mostly explains results.

The full profile offers by the question's reading (issue 30): the 2,500-token budget holds the
everyday tools, not every workload's. When the parser's reading of the turn shows a deployment
question (a serving engine named, buying against renting, speculative decoding / prefix caching
/ a prefill-decode split: `assistant.offline.planner.deployment_arguments`) `size` is offered
with those parts (`serve_engine`, `buy`, `speedups`: the engine plan, buy-vs-rent and speed-ups
of its leading option, in the report); when it shows an embedding corpus, `embed_corpus` is
offered. On those turns `estimate_memory` is not offered (`size` answers the memory of every
configuration named), which pays for them: every turn's prompt + schemas stays within
`FULL_BUDGET_TOKENS` (tests/test_token_budget.py). The left-out tools stay callable.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from assistant.offline.planner import deployment_arguments
from assistant.prompts import load_prompt
from assistant.reading.parsed import ParsedWorkload
from assistant.registry import Registry

Profile = Literal["full", "lean"]

LEAN_WINDOW_TOKENS = 8_192
"""Windows at or below this get the lean profile when the setting is "auto"."""
FULL_BUDGET_TOKENS = 2_500
LEAN_BUDGET_TOKENS = 1_200
"""Prompt + schemas, o200k_base tokens (issue 17 acceptance)."""

LEAN_TOOL = "size"
"""The one tool a lean profile offers: the sizing report's (the verdict, its reading compared
with the parser's by `assistant.reading.reconcile`, is computed from `size` calls only)."""
LEAN_DESCRIPTION = "Size a model for serving: does it fit the GPUs named, and the best GPUs if not."
LEAN_FIELDS: dict[str, frozenset[str] | None] = {
    "workload": frozenset(
        {"model", "params", "weights", "context", "users", "prompt_tokens", "output_tokens"}
    ),
    "configurations": None,
}
"""Top-level field → the nested fields kept (None: all of them); everything else is left out
of the lean schema (still accepted by validation)."""


WorkloadOffer = Literal["deployment", "embedding"]

SIZE_DEPLOYMENT_PARTS = ("serve_engine", "buy", "speedups")
"""The `size` parts a deployment reading offers (hidden from `size` otherwise)."""
SIZE_DEPLOYMENT_EXPERT = (
    "buy.server_usd",
    "buy.load_fraction",
    "buy.host_watts",
    "speedups.draft_params",
    "speedups.draft_tokens",
    "speedups.prefix_caching",
)
"""Their expert fields, still hidden (the parser and the CLI set them; validation takes them)."""
MEMORY_TOOL = "estimate_memory"
EMBEDDING_TOOL = "embed_corpus"


def workload_offers(reading: ParsedWorkload | None) -> frozenset[WorkloadOffer]:
    """The workload tools the reading of the turn shows (module docstring); none without one."""
    if reading is None:
        return frozenset()
    offers: set[WorkloadOffer] = set()
    if deployment_arguments(reading, reading.task not in (None, "inference")):
        offers.add("deployment")
    if reading.embedding_model is not None:
        offers.add("embedding")
    return frozenset(offers)


def _full_schemas(
    registry: Registry, strict: bool, offers: frozenset[WorkloadOffer]
) -> list[dict[str, Any]]:
    """The full profile's tools for a turn whose reading shows `offers`."""
    if not offers:
        return registry.schemas(strict=strict)
    out: list[dict[str, Any]] = []
    for spec in registry.specs.values():
        if spec.name == MEMORY_TOOL:
            continue  # `size` answers the memory of the configurations named
        if spec.name == LEAN_TOOL and "deployment" in offers:
            hidden = [h for h in spec.hidden if h not in SIZE_DEPLOYMENT_PARTS]
            spec = replace(spec, hidden=(*hidden, *SIZE_DEPLOYMENT_EXPERT))
        elif spec.name == EMBEDDING_TOOL and "embedding" in offers:
            pass
        elif not spec.offered:
            continue
        out.append(spec.schema(strict))
    return out


def _pruned(node: dict[str, Any], kept: frozenset[str] | set[str]) -> dict[str, Any]:
    """An object schema with only the `kept` properties (its `required` list cut to match:
    a strict schema lists every property as required)."""
    props = {k: v for k, v in node.get("properties", {}).items() if k in kept}
    out = {**node, "properties": props}
    if "required" in node:
        out["required"] = [r for r in node["required"] if r in props]
    return out


def _lean_parameters(parameters: dict[str, Any]) -> dict[str, Any]:
    """`parameters` (a compact schema) with only `LEAN_FIELDS`. Every field validation
    requires is among them (tests/test_token_budget.py checks it against the full schema)."""
    out = _pruned(parameters, set(LEAN_FIELDS))
    for name, inner in LEAN_FIELDS.items():
        node = out["properties"].get(name)
        if inner is not None and isinstance(node, dict) and "properties" in node:
            out["properties"][name] = _pruned(node, inner)
    return out


def choose_profile(setting: str, window_tokens: int) -> Profile:
    """The profile for `setting` ("auto", "full", "lean") and the endpoint's window."""
    if setting in ("full", "lean"):
        return setting  # type: ignore[return-value]
    return "lean" if window_tokens <= LEAN_WINDOW_TOKENS else "full"


def system_prompt(profile: Profile, full_prompt: str) -> str:
    """The system prompt text for `profile` (`full_prompt` is the engine's, maybe custom)."""
    return load_prompt("system-lean") if profile == "lean" else full_prompt


def tool_schemas(
    registry: Registry,
    profile: Profile,
    strict: bool = False,
    reading: ParsedWorkload | None = None,
) -> list[dict[str, Any]]:
    """The `tools` list for `profile`; the full profile's by the turn's `reading` (module
    docstring)."""
    if profile == "full":
        return _full_schemas(registry, strict, workload_offers(reading))
    spec = registry.specs.get(LEAN_TOOL)
    if spec is None:
        return []
    full = spec.schema(strict=strict)["function"]
    function: dict[str, Any] = {
        "name": LEAN_TOOL,
        "description": LEAN_DESCRIPTION,
        "parameters": _lean_parameters(full["parameters"]),
    }
    if strict:
        function["strict"] = True
    return [{"type": "function", "function": function}]
