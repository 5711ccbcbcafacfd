"""The sizing report's workload parts in the proposal (issue 30 items 1-4): one section each,
the lines every surface shows (`assistant.render.workloads`), as plain bullets."""

from __future__ import annotations

from assistant.conversation import Conversation
from assistant.proposal.document import Block, BulletList, Heading, Paragraph
from assistant.render.workloads import batch_lines, embedding_lines, lora_lines, rate_lines
from assistant.results import stored_calls
from tools.sizing import SizingReport
from tools.workloads.embedding import EmbeddingResult


def _plain(lines: list[str]) -> tuple[str, ...]:
    return tuple(line.removeprefix("- ").replace("`", "").replace("**", "") for line in lines)


def latest_embedding(conversation: Conversation) -> EmbeddingResult | None:
    """The session's latest `embed_corpus` result (issue 30 item 2), if any."""
    found = [c.value for c in stored_calls(conversation.messages)]
    return next((v for v in reversed(found) if isinstance(v, EmbeddingResult)), None)


def embedding_page(result: EmbeddingResult) -> list[Block]:
    """Page one of a session that sized an embedding corpus and no LLM: the recommendation
    (the headline option), every option, and the tool's assumptions."""
    lines = embedding_lines(result)
    best = result.headline
    lead = (
        "No GPU option was estimated."
        if best is None
        else f"{best.count}× {best.gpu_name} for {result.model.name} (speeds estimated)."
    )
    return [
        Heading("Recommendation", 2),
        Paragraph(lead),
        Heading("Why", 2),
        BulletList(_plain(lines)),
        Heading("Assumptions", 2),
        BulletList(tuple(result.assumptions)),
    ]


def workload_blocks(report: SizingReport) -> list[Block]:
    """A section per workload part the report holds (none: no blocks)."""
    blocks: list[Block] = []
    if report.lora_serving is not None:
        blocks += [
            Heading("LoRA adapters served", 2),
            BulletList(_plain(lora_lines(report.lora_serving))),
        ]
    if report.batch_job is not None:
        blocks += [Heading("Batch job", 2), BulletList(_plain(batch_lines(report.batch_job)))]
    if report.request_rate is not None:
        rate = _plain(rate_lines(report.request_rate))
        blocks += [Heading("Request rate and latency", 2), BulletList(rate)]
    if report.workloads_error is not None:
        blocks += [Heading("Workload not sized", 2), BulletList((report.workloads_error.text,))]
    return blocks
