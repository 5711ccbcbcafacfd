"""Markdown answers from tool results: verdict first, then figures, breakdown, options with cost,
how the question was read, what to ask next, and last the tools' other assumptions.

An answer is typed sections (`assistant.answer.Answer`): the lead — the asked number or the
verdict — always shows; the table the question is about, how the words were read and what to
ask next show while the answer fits one screen; the rest (the other table, notes, key figures,
how $/M is priced, and always the tools' own assumptions: config sources, format formulas,
overhead constants) is folded under one title (`fold.fold`). The CLI and the app fold by the
sections' fields, never by reading the text.

Everything comes from the typed sizing report (`tools.sizing.SizingReport`: attributes, bytes
as integers), so every figure shown is a tool figure converted for display and every choice
(the headline, the $/M load, the follow-ups) was made in `tools.sizing`. Memory is shown in GiB
(2^30 bytes, as nvidia-smi reports), one unit family per table.

One job per module: `results` (shared labels), `verdict` (the lines an answer leads with;
`verdict_text` is the verdict alone, which LLM answers lead with too), `costs` (budget, $/M-token
and unconverted-offer lines, the price load), `tables` (key figures, memory breakdown, options),
`questions` (capacity and max-context lead lines), `local` (llama.cpp / Ollama plans),
`assumptions` (defaults filled in, what to ask next), `fold` (what shows and what folds),
`answer` (the whole turn's sections).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tools.lazy_exports import lazy_attribute

if TYPE_CHECKING:
    from assistant.render.answer import (
        render_answer,
        render_fits,
        render_out_of_scope,
        render_question,
    )
    from assistant.render.fold import DETAILS_TOPIC, SCREEN_LINES
    from assistant.render.memory_verdict import memory_verdict_text
    from assistant.render.results import CallResult
    from assistant.render.tables import options_table
    from assistant.render.verdict import verdict_answer, verdict_text

# Loaded on first use (PEP 562): the terminal output layer (`render.output`) lives in this
# package, and a command that only prints a table must not pay for the answer renderer — which
# pulls in the parser, the sizing report and their pydantic models — at start-up.
_WHERE = {
    "render_answer": "answer",
    "render_fits": "answer",
    "render_out_of_scope": "answer",
    "render_question": "answer",
    "DETAILS_TOPIC": "fold",
    "SCREEN_LINES": "fold",
    "CallResult": "results",
    "options_table": "tables",
    "memory_verdict_text": "memory_verdict",
    "verdict_answer": "verdict",
    "verdict_text": "verdict",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, _WHERE, globals(), name)


__all__ = [
    "DETAILS_TOPIC",
    "SCREEN_LINES",
    "CallResult",
    "memory_verdict_text",
    "options_table",
    "render_answer",
    "render_fits",
    "render_out_of_scope",
    "render_question",
    "verdict_answer",
    "verdict_text",
]
