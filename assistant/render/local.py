"""The llama.cpp / Ollama part of an answer: what fits on the GPU (-ngl / num_gpu), the
system RAM the rest needs, the estimated decode speed and the launch line, from
`plan_local_serving` results (figures copied, never computed here)."""

from __future__ import annotations

from typing import TypeVar

from assistant.render.asked import local_asked_lines
from assistant.render.results import CallResult, gib
from assistant.results import ToolError
from tools.fits import FitsResult
from tools.local_serving import LocalServingPlan
from tools.sizing import SizingReport
from tools.sizing.verdict import fastest_local


def _verdict(r: LocalServingPlan) -> str:
    n, on, ngl = r.n_layers, r.gpu_layers, r.n_gpu_layers
    gpu, budget = gib(r.gpu_bytes), gib(r.budget_bytes)
    host = gib(r.host_bytes)
    if r.fits_fully:
        return (
            f"fits on the GPU: all {n} layers and the output layer (-ngl {ngl}), {gpu} of "
            f"{budget}; the token embedding stays in system RAM ({host})"
        )
    ram = ""
    available = r.ram_available_bytes
    if r.unified_memory and available is not None:
        total = gib(r.ram_needed_bytes)
        room = (
            f"the {gib(available)} that {gib(r.system_ram_bytes)} of unified memory leaves "
            "after the OS"
        )
        ram = (
            f"; GPU and CPU parts together need {total}, within {room}"
            if r.fits_in_ram
            else f"; GPU and CPU parts together need {total}, more than {room}: it does not run"
        )
    elif r.fits_in_ram is True:
        ram = f", within the {gib(r.system_ram_bytes)} of RAM you have"
    elif r.fits_in_ram is False:
        ram = f", more than the {gib(r.system_ram_bytes)} of RAM you have: it does not run"
    if not ngl:
        return f"no layer fits on the GPU ({budget}); all {n} layers need {host} of system RAM{ram}"
    return (
        f"does not fit entirely: {on} of {n} layers fit on the GPU (-ngl {ngl}, {gpu} of "
        f"{budget}); the other layers need {host} of system RAM{ram}"
    )


_T = TypeVar("_T")


def _results(calls: list[CallResult], name: str, kind: type[_T], failed: str) -> list[_T | str]:
    """The typed results of the calls to `name`; one that is not a `kind` as the line saying
    why (`failed`: what could not be done)."""
    out: list[_T | str] = []
    for call in calls:
        if call.name != name:
            continue
        r = call.value
        if isinstance(r, kind):
            out.append(r)
        else:
            problem = r.text if isinstance(r, ToolError) else "no result"
            out.append(f"- {failed}: {problem}")
    return out


def launcher_words(plan: LocalServingPlan) -> str:
    """The engine a local plan runs on, as the answers name it."""
    return "Ollama" if plan.launcher == "ollama" else "llama.cpp (llama-server)"


def local_serving_lines(calls: list[CallResult], brief: bool = False) -> list[str]:
    """One block per plan_local_serving call; `brief`: the verdict, speed, format, longest
    context and launch line only (a verdict other text follows: MCP, the LLM mode)."""
    out: list[str] = []
    failed = "Local serving could not be sized"
    for r in _results(calls, "plan_local_serving", LocalServingPlan, failed):
        if isinstance(r, str):
            out.append(r)
            continue
        launcher = launcher_words(r)
        count = f"{r.gpus}× " if r.gpus > 1 else ""
        label = f"{count}{r.gpu_label}"
        if r.gpu_memory_stated:
            given = "unified memory" if r.unified_memory else "memory"
            label += f" (not in the catalog: the {given} you gave)"
        out.append(f"**{launcher}, {r.weights_format}, on {label}: {_verdict(r)}.**")
        if r.gpu_limit_basis is not None and not brief:
            out.append(f"- GPU memory limit {gib(r.budget_bytes)}: {r.gpu_limit_basis}.")
        if r.decode_tokens_per_s is not None:
            out.append(
                f"- Decode speed ≈ {r.decode_tokens_per_s:.1f} tokens/s per sequence, "
                f"{r.decode_basis}."
            )
        if r.decode_tokens_per_s is None:
            out.append(
                "- Decode speed: not estimated — no bandwidth is known for a GPU given only by "
                "its memory (name the card for an estimate)."
            )
        if r.format_choice is not None:
            out.append(f"- Format: {r.format_choice.reason}.")
        if r.longest_context_tokens is not None:
            out.append(
                f"- Longest context with every layer on the GPU: "
                f"{r.longest_context_tokens:,} tokens per slot (in {r.weights_format})."
            )
        if brief:
            out += [f"- Launch: `{r.launch_command}`", ""]
            continue
        out.append(
            f"- KV cache {r.cache_type}: {gib(r.kv_cache_bytes)} for "
            f"{r.parallel} slot(s) × {r.context_per_slot:,} tokens."
        )
        out += _launch_lines(r)
        out.append("")
    return out


def _launch_lines(r: LocalServingPlan) -> list[str]:
    """The launch line of the plan's launcher, then the others people paste (issue 29)."""
    launch = r.launch
    out = [f"- Launch: `{r.launch_command}`"]
    if r.ollama_modelfile is not None:
        out += ["", "```", r.ollama_modelfile, "```"]
    if launch is None:
        return out
    if r.launcher != "ollama" and launch.ollama_library_tag:
        out.append(f"- Ollama: `ollama run {launch.ollama_reference}`")
    elif r.launcher != "ollama":
        out.append(
            f"- Ollama: a Modelfile `FROM {launch.ollama_reference}` (no library tag of this "
            "type), then `ollama create NAME -f Modelfile`"
        )
    else:
        out.append(f"- llama.cpp: `{launch.llama_server}`")
    out.append(f"- {launch.lm_studio}")
    if launch.mlx_server is not None:
        out.append(f"- MLX: `{launch.mlx_server}`")
    return out


def owned_lead(report: SizingReport, calls: list[CallResult], brief: bool = False) -> list[str]:
    """The local verdict an owned-hardware answer leads with (`report.leads_with_local`):
    the plans in the report, and those of the separate calls (`brief`: see
    `local_serving_lines`)."""
    plans = [CallResult("plan_local_serving", {}, p) for p in report.local]
    lines = local_serving_lines([*plans, *calls], brief)
    first = report.local[0] if report.local else None
    if report.request.longest_context and first is not None:
        # A longest-context question: that figure is the first verdict line.
        if first.longest_context_tokens is None:
            told = (
                f"**No context keeps every layer on {first.gpu_label}** in {first.weights_format}"
            )
        else:
            told = (
                f"**Longest context on {first.gpu_label} with llama.cpp: "
                f"{first.longest_context_tokens:,} tokens** per slot in {first.weights_format} "
                "(every layer on the GPU; searched in powers of two up to the model's maximum)"
            )
        lines.insert(0, told + ".")
    return local_asked_lines(report) + local_faster_lines(report) + lines


def local_faster_lines(report: SizingReport) -> list[str]:
    """'**Faster with llama.cpp: 1× RX 7900 XTX** — 83.9 tokens/s vs 79.7 on …': the owned
    GPUs compared on their local plans (`tools.sizing.verdict.fastest_local`)."""
    best = fastest_local(report)
    if best is None or best.decode_tokens_per_s is None:
        return []

    def basis(plan: LocalServingPlan) -> str:
        return f" ({plan.decode_label})" if plan.decode_label else ""

    others = [
        f"{p.decode_tokens_per_s:,.1f} tokens/s on {p.gpu_label}{basis(p)}"
        for p in report.local
        if p is not best and p.decode_tokens_per_s is not None
    ]
    return [
        f"**Faster with llama.cpp: {best.gpu_label}** — {best.decode_tokens_per_s:,.1f} tokens/s "
        f"decoding one sequence{basis(best)} vs {'; '.join(others)}."
    ]


DATACENTER_HEADING = (
    "**Datacenter alternative** — as a cloud deployment would run it (vLLM, 16-bit weights "
    "unless said, more GPUs when needed):"
)


def fits_lines(calls: list[CallResult]) -> list[str]:
    """One block per fits_on_hardware call: the models that run, by size class."""
    out: list[str] = []
    failed = "Could not list the models that fit"
    for r in _results(calls, "fits_on_hardware", FitsResult, failed):
        if isinstance(r, str):
            out.append(r)
            continue
        count = f"{r.gpus}× " if r.gpus > 1 else ""
        out.append(
            f"**{r.listed} catalog models run on {count}{r.hardware} with every layer on the "
            f"GPU ({gib(r.budget_bytes)}), at {r.context_per_slot:,} tokens, by {r.rank_by}:**"
        )
        for group in r.groups:
            out.append(f"- *{group.name}*")
            for m in group.models:
                speed = (
                    ""
                    if m.decode_tokens_per_s is None
                    else f", ≈ {m.decode_tokens_per_s:.0f} tokens/s ({m.decode_label})"
                )
                longest = (
                    ""
                    if m.longest_context_tokens is None
                    else f", up to {m.longest_context_tokens:,} tokens"
                )
                run = (
                    f"`ollama run {m.ollama_reference}`"
                    if m.ollama_library_tag
                    else f"GGUF `{m.ollama_reference.removeprefix('./')}`"
                )
                out.append(
                    f"  - {m.model_name}: {m.weights_format.upper()}, {gib(m.gpu_bytes)}"
                    f"{longest}{speed} — {run}"
                )
        if r.left_out:
            out.append(f"- {r.left_out} more fit (raise limit to list them).")
        out.append("")
    return out
