"""The deterministic verdict an LLM-mode answer leads with, from the turn's typed results.

The verdict never depends on the model (issue 17): it is rendered before the model is asked,
streamed as a `Verdict` event ahead of the first token, carried in `Done.verdict` and saved on
the answer message. It is the turn's sizing report rendered by
`assistant.offline.render.verdict_text` — the same lines the offline answer leads with
(issue 14) — or, when the model sized the question itself with `estimate_memory` only, those
estimates' fit lines (`memory_verdict_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant.offline.render import memory_verdict_text, verdict_text
from assistant.results import stored_calls
from tools.memory.request import MemoryEstimate
from tools.sizing import SizingReport


def turn_verdict(messages: Sequence[dict[str, Any]]) -> str:
    """Markdown verdict of the last turn's sizing results; "" when the turn sized nothing.
    The turn's first sizing report decides it."""
    calls = stored_calls(messages)
    if not calls:
        return ""
    last = sum(1 for m in messages if m.get("role") == "user")
    values = [c.value for c in calls if c.turn == last]
    report = next((v for v in values if isinstance(v, SizingReport)), None)
    if report is not None:
        return verdict_text(report).rstrip("\n")
    estimates = [v for v in values if isinstance(v, MemoryEstimate)]
    return memory_verdict_text(estimates).rstrip("\n")
