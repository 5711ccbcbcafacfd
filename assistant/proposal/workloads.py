"""The sizing report's workload parts in the proposal (issue 30 items 1-4): one section each,
the lines every surface shows (`assistant.render.workloads`), as plain bullets."""

from __future__ import annotations

from assistant.proposal.document import Block, BulletList, Heading
from assistant.render.workloads import lora_lines
from tools.sizing import SizingReport


def _plain(lines: list[str]) -> tuple[str, ...]:
    return tuple(line.removeprefix("- ").replace("`", "") for line in lines)


def workload_blocks(report: SizingReport) -> list[Block]:
    """A section per workload part the report holds (none: no blocks)."""
    blocks: list[Block] = []
    if report.lora_serving is not None:
        blocks += [
            Heading("LoRA adapters served", 2),
            BulletList(_plain(lora_lines(report.lora_serving))),
        ]
    if report.workloads_error is not None:
        blocks += [Heading("Workload not sized", 2), BulletList((report.workloads_error.text,))]
    return blocks
