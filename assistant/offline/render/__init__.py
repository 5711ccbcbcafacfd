"""Markdown answers from tool results: verdict first, then figures, breakdown, options with cost,
how the question was read, what to ask next, and last the tools' other assumptions.

The tools' assumptions (model config sources, format formulas, overhead constants, efficiency
sources) trace every figure but are not what a reader checks first, so they come last under one
exact heading (`details_title`) that the CLI and the app fold on (`split_details`). What the
user must check — how their words were read, the defaults filled in for what they did not say,
tool warnings — stays under "Assumptions" above it.

Everything comes from the typed sizing report (`tools.sizing.SizingReport`: attributes, bytes
as integers), so every figure shown is a tool figure converted for display and every choice
(the headline, the $/M load, the follow-ups) was made in `tools.sizing`. Memory is shown in GiB
(2^30 bytes, as nvidia-smi reports), one unit family per table.

One job per module: `results` (shared labels), `verdict` (the lines an answer leads with;
`verdict_text` is the verdict alone, which LLM answers lead with too), `costs` (budget, $/M-token
and unconverted-offer lines, the price load), `tables` (key figures, memory breakdown, options),
`questions` (capacity and max-context lead lines), `local` (llama.cpp / Ollama plans),
`assumptions` (defaults filled in, what to ask next), `details` (the fold), `answer` (the whole
turn's Markdown).
"""

from assistant.offline.render.answer import render_answer, render_question
from assistant.offline.render.details import (
    DETAILS_TOPIC,
    FoldedAnswer,
    details_title,
    split_details,
)
from assistant.offline.render.results import CallResult
from assistant.offline.render.tables import options_table
from assistant.offline.render.verdict import memory_verdict_text, verdict_text

__all__ = [
    "DETAILS_TOPIC",
    "CallResult",
    "FoldedAnswer",
    "details_title",
    "memory_verdict_text",
    "options_table",
    "render_answer",
    "render_question",
    "split_details",
    "verdict_text",
]
