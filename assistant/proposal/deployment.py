"""The proposal's deployment paragraphs (issue 30 items 5-7): the leading option's launch line
under the engine asked for, copied from the sizing report."""

from __future__ import annotations

from assistant.proposal.document import Block, Paragraph
from assistant.render.deployment import (
    buy_vs_rent_lines,
    buy_vs_rent_title,
    engine_plan_title,
    speedup_lines,
)
from assistant.render.results import gib
from tools.sizing import SizingReport


def deployment_blocks(report: SizingReport) -> list[Block]:
    """Buy vs rent and the engine's KV pool and command line, when asked."""
    blocks: list[Block] = []
    b = report.buy_vs_rent
    if b is not None:
        lines = [line.removeprefix("- ").replace("**", "") for line in buy_vs_rent_lines(b)]
        blocks.append(Paragraph(" ".join(lines[:5]), lead=buy_vs_rent_title(b) + "."))
    if report.speedups is not None:
        lines = [line.removeprefix("- ") for line in speedup_lines(report.speedups)]
        blocks.append(Paragraph(" ".join(lines), lead="Speed-ups on the leading option."))
    plan = report.engine_plan
    if plan is None:
        return blocks
    pool = (
        f"KV pool {gib(max(plan.kv_pool_bytes_per_gpu, 0))} per GPU ({plan.pool_rule}), "
        f"{plan.max_sequences:,} sequences of {plan.context:,} tokens. Command: {plan.command}"
    )
    return [*blocks, Paragraph(pool, lead=engine_plan_title(plan) + ".")]
