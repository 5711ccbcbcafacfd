"""The structured-output reading request (issue 28): a model that cannot call tools reads the
question into `assistant.reading.structured.SCHEMA` (`response_format` json_schema, one short
non-streaming request) before it explains; the reply becomes the `size` call it stands for,
which the engine grounds and reconciles like a tool call the model made."""

from __future__ import annotations

import json
from typing import Any

from assistant.events import Notice
from assistant.llm.accumulate import PendingCall
from assistant.llm.window import TokenScale
from assistant.reading.structured import (
    READ_MAX_TOKENS,
    READ_PROMPT,
    SCHEMA,
    parse_reading,
    response_format,
    size_arguments,
)
from assistant.tokens import count_messages, count_text
from tools.catalog import get_catalog
from tools.errors import ToolInputError

STANDS = "the built-in parser's reading stands"

REJECTED = Notice(
    "The endpoint does not take a JSON schema (response_format), so the model cannot give its "
    f"reading of the question: {STANDS}."
)


class TooLong(Exception):
    """The reading request would not fit the endpoint's context window."""


def failed(detail: str) -> Notice:
    """The notice for a reading request that failed otherwise."""
    return Notice(f"The model's structured reading failed ({detail}); {STANDS}.")


def refused(field: str) -> Notice:
    """The notice for a reading with a value the conversation does not ground."""
    return Notice(
        f"The model's reading of the question used a value the question does not give "
        f"({field}); {STANDS}.",
        "warning",
    )


def request(model: str | None, question: str, window: int, scale: TokenScale) -> dict[str, Any]:
    """The reading request's arguments; `TooLong` when it does not fit `window` tokens."""
    messages = [
        {"role": "system", "content": READ_PROMPT},
        {"role": "user", "content": question},
    ]
    needed = count_messages(messages) + count_text(json.dumps(SCHEMA))
    if scale.tokens(needed) + READ_MAX_TOKENS > window:
        raise TooLong
    return {
        "model": model,
        "messages": messages,
        "max_tokens": READ_MAX_TOKENS,
        "temperature": 0,
        "stream": False,
        "response_format": response_format(),
    }


def reply_text(response: Any) -> str | None:
    choices = getattr(response, "choices", None) or []
    return choices[0].message.content if choices else None


def _known_model(name: str | None) -> bool:
    try:
        get_catalog().model(name or "")
    except ToolInputError:
        return False
    return True


def reading_call(content: str | None, call_id: str) -> PendingCall | Notice:
    """The `size` call a reply stands for, or the notice saying why it stands for none (not
    JSON of the schema, no model named, a model the catalog lacks)."""
    reading = parse_reading(content)
    if reading is None:
        return Notice(f"The model's structured reading named no model; {STANDS}.")
    if not _known_model(reading.model):
        return Notice(
            f"The model read the question as about {reading.model!r}, which gpu-sizer cannot "
            f"size; {STANDS}."
        )
    return PendingCall(0, call_id, "size", json.dumps(size_arguments(reading)))
