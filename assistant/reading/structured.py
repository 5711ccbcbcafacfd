"""The model's reading as structured output, for models that cannot call tools (issue 28).

An endpoint without tool calling can still constrain a reply to a JSON schema
(`response_format: {"type": "json_schema", ...}`: OpenAI, vLLM, llama.cpp — as a grammar —, and
Ollama). The LLM engine asks the model for the question's reading in `SCHEMA` before asking it to
explain, reads the reply as a `StructuredReading` and turns it into the `size` call it stands
for (`size_arguments`), which is then grounded and reconciled like a tool call the model made.
The schema is small on purpose (a 135M model in a 512-token slot must fit it): the slots a
verdict depends on most, each optional — null or absent when the question does not say.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

READ_PROMPT = (
    "Read the user's question into the JSON schema. Copy values only from the question; use "
    "null for anything it does not say. Never guess a number."
)
"""The system prompt of the reading request."""

READ_MAX_TOKENS = 96
"""Tokens the reading may take: a filled schema is about 50 tokens."""


class StructuredReading(BaseModel):
    """What the question says, as the model read it (None: not said)."""

    model_config = ConfigDict(extra="ignore")

    model: str | None = Field(default=None, max_length=120)
    weights: str | None = Field(default=None, max_length=40)
    users: int | None = Field(default=None, ge=1)
    context: int | None = Field(default=None, ge=1)
    gpu: str | None = Field(default=None, max_length=80)
    gpu_count: int | None = Field(default=None, ge=1)
    tokens_per_s: float | None = Field(default=None, gt=0)
    task: Literal["inference", "full", "lora", "qlora"] | None = None


_TEXT = {"type": ["string", "null"]}
_INT = {"type": ["integer", "null"]}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "model": _TEXT,
        "weights": _TEXT,
        "users": {**_INT, "description": "concurrent"},
        "context": {**_INT, "description": "tokens"},
        "gpu": _TEXT,
        "gpu_count": _INT,
        "tokens_per_s": {"type": ["number", "null"]},
        "task": {"enum": ["inference", "full", "lora", "qlora", None]},
    },
    "required": ["model"],
    "additionalProperties": False,
}
"""The reading's JSON schema (about 130 o200k tokens where an endpoint counts it)."""


def response_format() -> dict[str, Any]:
    """The `response_format` of the reading request."""
    return {
        "type": "json_schema",
        "json_schema": {"name": "reading", "schema": SCHEMA, "strict": False},
    }


def parse_reading(content: str | None) -> StructuredReading | None:
    """The reply as a reading; None when it is not JSON of the schema's shape or names no
    model (nothing a verdict could be computed from)."""
    if not content:
        return None
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        reading = StructuredReading.model_validate(json.loads(text))
    except (ValueError, ValidationError):
        return None
    return reading if reading.model else None


def size_arguments(reading: StructuredReading) -> dict[str, Any]:
    """The `size` call the reading stands for (only what it read)."""
    workload: dict[str, Any] = {"model": reading.model}
    for name in ("weights", "users", "context", "tokens_per_s"):
        value = getattr(reading, name)
        if value is not None:
            workload[name] = value
    if reading.task is not None and reading.task != "inference":
        workload["task"] = reading.task
    args: dict[str, Any] = {"workload": workload}
    if reading.gpu:
        config: dict[str, Any] = {"gpu": reading.gpu}
        if reading.gpu_count is not None:
            config["count"] = reading.gpu_count
        args["configurations"] = [config]
    return args
