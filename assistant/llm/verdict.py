"""The deterministic verdict an LLM-mode answer leads with, from the turn's tool results.

The verdict never depends on the model (issue 17): it is rendered from the pre-computed results
before the model is asked, streamed as a `Verdict` event ahead of the first token, carried in
`Done.verdict` and saved on the answer message. Until the typed sizing report and its verdict
renderer land (issue 14), this reuses the offline engine's verdict lines over today's compact
results — the same words an offline answer starts with.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant.contradiction import turn_calls
from assistant.offline.render.results import CallResult
from assistant.offline.render.verdict import recommended_lines, verdict_lines

VERDICT_TOOLS = frozenset({"estimate_memory", "recommend", "compare_costs"})


def turn_verdict(messages: Sequence[dict[str, Any]]) -> str:
    """Markdown verdict of the last turn's sizing results; "" when the turn sized nothing."""
    calls = [
        CallResult(name, args, result)
        for name, args, result in turn_calls(messages)
        if name in VERDICT_TOOLS
    ]
    memory = [c for c in calls if c.name == "estimate_memory"]
    recommend = next((c for c in calls if c.name == "recommend"), None)
    cost = next((c for c in calls if c.name == "compare_costs"), None)
    if not memory and recommend is None:
        return ""
    lines = verdict_lines(memory, recommend, cost, breakdown_below=False)
    if not memory:
        lines += recommended_lines(recommend, cost)
    return "\n".join(dict.fromkeys(line for line in lines if line.strip()))
