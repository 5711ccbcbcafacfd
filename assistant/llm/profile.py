"""Which tools and system prompt the model is offered: the full profile, or a lean one for small
context windows.

Prompt + tool schemas cost about 2,460 o200k tokens in full — more than half of a 4,096-token
llama.cpp window before any question. The lean profile offers only the two calculators a
sizing answer needs (`estimate_memory`, `recommend`) with their inference fields, under one-line
descriptions, and a short system prompt (`prompts/system-lean.md`): at most
`LEAN_BUDGET_TOKENS` (tests/test_token_budget.py, bench/bench_llm.py). Validation is the same
either way: a lean call may still send any field the full schema offers. The engine pre-computes
the tools a question needs before the model is asked, so a small model mostly explains results.
Once the sizing report's one `size` tool exists (issue 14) it is the natural lean tool.
"""

from __future__ import annotations

from typing import Any, Literal

from assistant.prompts import load_prompt
from assistant.registry import Registry
from assistant.schemas import compact_schema

Profile = Literal["full", "lean"]

LEAN_WINDOW_TOKENS = 8_192
"""Windows at or below this get the lean profile when the setting is "auto"."""
FULL_BUDGET_TOKENS = 2_500
LEAN_BUDGET_TOKENS = 1_200
"""Prompt + schemas, o200k_base tokens (issue 17 acceptance)."""

_TRAINING_AND_TARGETS = (
    "sequence_length",
    "global_batch_sequences",
    "train_tokens",
    "deadline_hours",
    "lora_rank",
    "checkpointing",
    "zero",
    "optimizer",
    "offload_optimizer",
    "gpu_memory_utilization",
    "adapter_dtype",
    "tokens_per_s_per_user",
    "ttft_s",
    "prompt_tokens",
    "output_tokens",
    "engine",
    "kv_dtype",
    "params",
    "tp",
    "pp",
    "batch",
    "constraints",
    "objective",
)

LEAN_TOOLS: dict[str, tuple[str, str]] = {
    "recommend": ("Best GPU configurations for a serving workload.", "users"),
    "estimate_memory": (
        "GPU memory per GPU for a model on `gpus`× `gpu`, and whether it fits.",
        "",
    ),
}
"""Lean tool → (description, a field kept although listed above)."""


def choose_profile(setting: str, window_tokens: int) -> Profile:
    """The profile for `setting` ("auto", "full", "lean") and the endpoint's window."""
    if setting in ("full", "lean"):
        return setting  # type: ignore[return-value]
    return "lean" if window_tokens <= LEAN_WINDOW_TOKENS else "full"


def system_prompt(profile: Profile, full_prompt: str) -> str:
    """The system prompt text for `profile` (`full_prompt` is the engine's, maybe custom)."""
    return load_prompt("system-lean") if profile == "lean" else full_prompt


def tool_schemas(
    registry: Registry, profile: Profile, strict: bool = False
) -> list[dict[str, Any]]:
    """The `tools` list for `profile`."""
    if profile == "full":
        return registry.schemas(strict=strict)
    out: list[dict[str, Any]] = []
    for name, (description, kept) in LEAN_TOOLS.items():
        spec = registry.specs.get(name)
        if spec is None:
            continue
        fields = spec.input_model.model_fields
        hidden = {
            *spec.hidden,
            *(f for f in _TRAINING_AND_TARGETS if f in fields and f != kept),
        }
        hidden = {h for h in hidden if "." not in h}
        if "task" in fields:
            hidden.add("task")
        function: dict[str, Any] = {
            "name": name,
            "description": description,
            "parameters": compact_schema(spec.input_model, strict, sorted(hidden)),
        }
        if strict:
            function["strict"] = True
        out.append({"type": "function", "function": function})
    return out
