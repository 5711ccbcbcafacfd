"""The verdict of memory estimates alone, in the verdict's words (`render.verdict`): what the
`memory` command leads with, and an LLM turn or an MCP call that sized the question with
`estimate_memory` (no sizing report). Its own module, over the memory calculator and the shared
labels only, so the `memory` command does not import the sizing report's renderers.
"""

from __future__ import annotations

from assistant.render.results import config_label, gib
from tools.memory.request import MemoryEstimate
from tools.sizing.configuration import SizedConfiguration


def memory_verdict_text(estimates: list[MemoryEstimate]) -> str:
    """The verdict of memory estimates alone (Markdown), in `verdict_lines`' words: for a turn
    in which the model sized the question itself with `estimate_memory` (no sizing report)."""
    lines: list[str] = []
    for est in estimates:
        label = config_label(SizedConfiguration(gpu=est.gpu, count=est.num_gpus, estimate=est))
        budget, headroom = est.budget_bytes_per_gpu, est.headroom_bytes
        if est.fits is None or budget is None or headroom is None:
            lines.append(f"Needs {gib(est.per_gpu_bytes)} of GPU memory per GPU on {label}.")
        elif est.fits:
            lines.append(
                f"**Fits on {label}** — needs {gib(est.per_gpu_bytes)} of {gib(budget)} per GPU; "
                f"{gib(headroom)} headroom per GPU."
            )
        else:
            lines.append(
                f"**Does not fit on {label}** — needs {gib(est.per_gpu_bytes)} per GPU, budget "
                f"{gib(budget)} ({gib(-headroom)} over)."
            )
    return "\n".join(dict.fromkeys(lines)) + "\n" if lines else ""
