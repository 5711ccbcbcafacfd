"""The deployment parts of an answer (issue 30 items 5-7): the serving engine's own KV pool on
the leading option and the command line that starts it, copied from the sizing report's
`engine_plan` (figures copied, never computed here)."""

from __future__ import annotations

from assistant.render.results import gib
from tools.deployment import EnginePlan
from tools.sizing import SizingReport


def engine_plan_title(plan: EnginePlan) -> str:
    """'Launch line: SGLang on 4× NVIDIA H100 SXM5'."""
    gpus = plan.tp * plan.pp
    return f"Launch line: {plan.engine_label} on {gpus}× {plan.gpu_name}"


def engine_plan_lines(plan: EnginePlan) -> list[str]:
    """The KV pool under the engine's rule, what it holds, the command and its notes."""
    holds = (
        f"holds {plan.pool_tokens:,} tokens = {plan.max_sequences:,} sequences of "
        f"{plan.context:,} tokens"
    )
    verdict = (
        f"{plan.sequences:,} asked: fits"
        if plan.fits
        else f"{plan.sequences:,} asked: does NOT fit under {plan.engine_label}'s rule"
    )
    out = [
        f"- KV pool per GPU {gib(max(plan.kv_pool_bytes_per_gpu, 0))} ({plan.pool_rule}); "
        f"{holds} ({verdict}).",
        "",
        "```",
        plan.command,
        "```",
    ]
    if plan.config_file:
        name = "Modelfile" if plan.engine == "ollama" else "extra_llm_api_options.yaml"
        out += [f"{name}:", "```", plan.config_file.rstrip("\n"), "```"]
    out += [f"- {n}" for n in plan.notes]
    out.append(f"- Rule: {plan.source} (read {plan.as_of}).")
    return out


def deployment_lines(report: SizingReport) -> list[str]:
    """Every deployment part of the report, as lines (empty when none was asked for)."""
    out: list[str] = []
    if report.engine_plan is not None:
        out += [f"**{engine_plan_title(report.engine_plan)}**"]
        out += engine_plan_lines(report.engine_plan)
    elif report.engine_plan_error is not None:
        out.append(f"- No launch line: {report.engine_plan_error.text}")
    return out


def deployment_card_lines(report: SizingReport) -> list[str]:
    """The app card's short lines: the engine's pool on the leading option and its command."""
    plan = report.engine_plan
    if plan is None:
        return []
    return [
        f"{plan.engine_label}: KV pool {gib(max(plan.kv_pool_bytes_per_gpu, 0))} per GPU, "
        f"{plan.max_sequences:,} sequences of {plan.context:,} tokens",
        f"launch: {plan.command}",
    ]
