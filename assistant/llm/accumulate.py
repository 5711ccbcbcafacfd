"""Assemble streamed tool-call deltas into complete calls.

Real servers differ (shared FIELD-NOTES): deltas are keyed by `index`, which may start above 0;
`id` and `name` arrive once (or repeated, or empty) and `arguments` arrive in fragments. We key by
index, keep the first non-empty id/name, concatenate arguments, and invent an id when the server
sends none, so every tool message can reference its call.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PendingCall:
    """One tool call being assembled from deltas."""

    index: int
    id: str = ""
    name: str = ""
    arguments: str = ""


def _get(obj: Any, key: str) -> Any:
    """Attribute of an SDK object or key of a dict (tests and non-streaming answers)."""
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


@dataclass
class ToolCallAccumulator:
    """Collects tool-call deltas by index, in first-seen order."""

    calls: dict[int, PendingCall] = field(default_factory=dict)

    def add(self, delta: Any) -> None:
        """Merge one `ChoiceDeltaToolCall` (or a dict of the same shape)."""
        raw_index = _get(delta, "index")
        index = raw_index if isinstance(raw_index, int) else len(self.calls)
        call = self.calls.setdefault(index, PendingCall(index))
        if _get(delta, "id") and not call.id:
            call.id = str(_get(delta, "id"))
        function = _get(delta, "function")
        if function is not None:
            if _get(function, "name") and not call.name:
                call.name = str(_get(function, "name"))
            if _get(function, "arguments"):
                call.arguments += str(_get(function, "arguments"))

    def __bool__(self) -> bool:
        return bool(self.calls)

    def finish(self) -> list[PendingCall]:
        """The calls ordered by index, each with an id (invented when missing or empty)."""
        out = [self.calls[i] for i in sorted(self.calls)]
        for call in out:
            if not call.id:
                call.id = f"call_{uuid.uuid4().hex[:12]}"
        return out


def assistant_message(text: str, calls: list[PendingCall]) -> dict[str, Any]:
    """The OpenAI-format assistant message carrying `calls` (content None when no text)."""
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for c in calls
        ]
    return message
