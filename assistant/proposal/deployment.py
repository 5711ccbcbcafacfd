"""The proposal's deployment paragraphs (issue 30 items 5-7): the leading option's launch line
under the engine asked for, copied from the sizing report."""

from __future__ import annotations

from assistant.proposal.document import Block, Paragraph
from assistant.render.deployment import engine_plan_title
from assistant.render.results import gib
from tools.sizing import SizingReport


def deployment_blocks(report: SizingReport) -> list[Block]:
    """The engine's KV pool and command line, when the question named an engine."""
    plan = report.engine_plan
    if plan is None:
        return []
    pool = (
        f"KV pool {gib(max(plan.kv_pool_bytes_per_gpu, 0))} per GPU ({plan.pool_rule}), "
        f"{plan.max_sequences:,} sequences of {plan.context:,} tokens. Command: {plan.command}"
    )
    return [Paragraph(pool, lead=engine_plan_title(plan) + ".")]
