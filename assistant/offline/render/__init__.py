"""Markdown answers from tool results: verdict first, then figures, breakdown, options with cost,
how the question was read, what to ask next, and last the tools' other assumptions.

The tools' assumptions (model config sources, format formulas, overhead constants, efficiency
sources) trace every figure but are not what a reader checks first, so they come last under one
exact heading (`details_title`) that the CLI and the app fold on (`split_details`). What the
user must check — how their words were read, the defaults filled in for what they did not say,
tool warnings — stays under "Assumptions" above it.

Results arrive in the registry's compact form (`*_GB` = 10^9 bytes; `breakdown` values in bytes),
so every figure shown is a tool figure converted for display. Memory is shown in GiB (2^30
bytes, as nvidia-smi reports), one unit family per table.

One job per module: `results` (reading compact results, shared labels), `verdict` (the lines
an answer leads with), `costs` (budget, $/M-token and unconverted-offer lines), `tables` (key
figures, memory breakdown, options), `assumptions` (defaults filled in, what to ask next),
`details` (the fold), `answer` (the whole turn's Markdown).
"""

from assistant.offline.render.answer import render_answer, render_question
from assistant.offline.render.details import (
    DETAILS_TOPIC,
    FoldedAnswer,
    details_title,
    split_details,
)
from assistant.offline.render.results import CallResult, bytes_from, per_gpu_figure
from assistant.offline.render.tables import options_table
from assistant.offline.render.verdict import headline_option

__all__ = [
    "DETAILS_TOPIC",
    "CallResult",
    "FoldedAnswer",
    "bytes_from",
    "details_title",
    "headline_option",
    "options_table",
    "per_gpu_figure",
    "render_answer",
    "render_question",
    "split_details",
]
