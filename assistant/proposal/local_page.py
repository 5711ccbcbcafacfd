"""Page one of a proposal about hardware the user owns (`report.leads_with_local`, issue 29):
the local plan is the recommendation — launcher, GGUF type, where the layers go, the estimated
speed, the longest context, the launch line —, no rental cost, the local plan's main risk, and
the datacenter sizing (the report's headline with its price) as the alternative. Every figure
is a field of the report's `LocalServingPlan` or of its headline."""

from __future__ import annotations

from assistant.proposal.document import Block, BulletList, Item, Paragraph
from assistant.proposal.figures import gib
from tools.local_serving import LocalServingPlan
from tools.sizing import SizingReport


def _where(plan: LocalServingPlan) -> str:
    return f"{plan.gpus}× {plan.gpu_label}" if plan.gpus > 1 else plan.gpu_label


def local_recommendation_blocks(report: SizingReport) -> list[Block]:
    """The local plan in words, the rule that chose its format, and its launch line."""
    plan = report.local[0]
    launcher = "Ollama" if plan.launcher == "ollama" else "llama.cpp (llama-server)"
    if plan.fits_fully:
        placement = f"every layer on the GPU (-ngl {plan.n_gpu_layers})"
    else:
        placement = (
            f"{plan.gpu_layers} of {plan.n_layers} layers on the GPU (-ngl {plan.n_gpu_layers}), "
            f"{gib(plan.host_bytes)} in system RAM"
        )
    runs = "Runs on the hardware you have" if plan.fits_in_ram is not False else "Does not run"
    blocks: list[Block] = [
        Paragraph(
            f"{launcher}, {plan.weights_format.upper()} weights, {placement}; "
            f"{gib(plan.gpu_bytes)} of {gib(plan.budget_bytes)} GPU memory.",
            lead=f"{runs}: {_where(plan)}.",
        )
    ]
    if plan.format_choice is not None:
        blocks.append(Paragraph(plan.format_choice.reason + ".", lead="Format chosen because:"))
    blocks.append(Paragraph(plan.launch_command, lead="Launch:"))
    return blocks


def local_why_blocks(report: SizingReport) -> list[Block]:
    """Speed with its basis, the context sized and the longest one."""
    plan = report.local[0]
    items: list[str | Item] = []
    if plan.decode_tokens_per_s is not None:
        items.append(
            Item(
                f"≈ {plan.decode_tokens_per_s:,.1f} tokens/s per sequence ({plan.decode_basis}).",
                lead="Speed:",
            )
        )
    context = f"{plan.context_per_slot:,} tokens × {plan.parallel} slot(s)"
    if plan.longest_context_tokens is not None:
        context += f"; up to {plan.longest_context_tokens:,} tokens with every layer on the GPU"
    items.append(Item(context + ".", lead="Context:"))
    items.append(
        Item(
            f"{plan.cache_type}, {gib(plan.kv_cache_bytes)}.",
            lead="KV cache:",
        )
    )
    return [BulletList(tuple(items))]


def local_cost_blocks(report: SizingReport) -> list[Block]:
    """No rental: the hardware is the user's own (electricity is not priced)."""
    return [
        Paragraph(
            "None for the GPU: it runs on hardware you own (electricity not priced). The "
            "datacenter alternative's price is below.",
            lead="Rental:",
        )
    ]


def local_risk_blocks(report: SizingReport) -> list[Block]:
    """What limits the local plan: RAM, offloaded layers, a short context, or an estimate."""
    plan = report.local[0]
    if plan.fits_in_ram is False:
        text = "the GPU and RAM together cannot hold the model at this format and context."
        return [Paragraph(text, lead="Does not run:")]
    if not plan.fits_fully:
        text = (
            f"{plan.n_layers - plan.gpu_layers} layers run from system RAM, which bounds the "
            "decode speed; a GPU with more memory or a smaller type keeps them on the GPU."
        )
        return [Paragraph(text, lead="Layers in system RAM:")]
    longest = plan.longest_context_tokens
    if longest is not None and longest <= plan.context_per_slot:
        text = f"{longest:,} tokens is the longest context with every layer on the GPU."
        return [Paragraph(text, lead="Context is the limit:")]
    label = plan.decode_label or "estimated"
    text = f"the speed is {label} (see Why), not measured on this machine."
    return [Paragraph(text, lead="Speed is an estimate:")]


def datacenter_alternative_blocks(
    report: SizingReport, recommendation: list[Block], cost: list[Block]
) -> list[Block]:
    """The datacenter sizing (the report's headline and its price) as the alternative."""
    lead = Paragraph(
        "as a cloud deployment would serve it (vLLM, the report's headline option):",
        lead="Datacenter alternative,",
    )
    return [lead, *recommendation[:1], *cost[:2]]
