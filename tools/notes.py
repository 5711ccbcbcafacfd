"""`Note`: a sentence a tool wrote for people, with the facts a renderer selects it by.

Prose is output, never input: a renderer that needs to know what a note is about (which GPU,
how many, what kind) reads `code`, `gpu` and `count`, never the text. `text` is the sentence as
written, shown verbatim; `str(note)` is that text, so a note prints like the string it was.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

NoteCode = Literal[
    # tools/advice.py
    "single_gpu_enough",
    "single_gpu_no_link_needed",
    "room_for_tenants",
    "multi_gpu_link",
    "moe",
    "kv_dominated",
    "engine_reserve",
    "no_single_node",
    "lower_format_fits",
    "shorter_training_sequences",
    "training_mfu_caveat",
    "cheapest_training_basis",
    "engine_version",
    # tools/memory warnings
    "context_above_maximum",
    "zero_single_rank",
    "zero_ignored_for_inference",
    "offload_ignored_for_inference",
    "utilization_vllm_only",
    "kv_dtype",
    "device",
    "memory_warning",
    # tools/sizing
    "nothing_priced",
    "nearest_priced",
    "rate_concurrency",
    "rate_exceeds_users",
    "other",
]
"""What a note is about; a renderer chooses notes by these codes."""

Severity = Literal["info", "warning"]


class Note(BaseModel):
    """One note: its kind, its subject (GPU id and count, when it is about one
    configuration), and the sentence shown."""

    code: NoteCode = Field(description="What the note is about.")
    text: str = Field(description="The sentence, as shown to people.")
    gpu: str | None = Field(default=None, description="Catalog GPU id it is about, if one.")
    count: int | None = Field(default=None, description="GPUs of it the note is about.")
    severity: Severity = "info"

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, data: Any) -> Any:
        """A bare sentence (a result stored before notes were typed) is a note of code
        'other': a reopened session keeps its notes, shown as they were."""
        return {"code": "other", "text": data} if isinstance(data, str) else data

    def __str__(self) -> str:
        return self.text

    def about(self, gpu: str | None, count: int | None) -> bool:
        """Whether this note is about `count`× `gpu` (a note with no subject is about none)."""
        return self.gpu is not None and self.gpu == gpu and self.count == count


def texts(notes: list[Note]) -> list[str]:
    """The sentences of `notes`, in order (for plain-text surfaces and JSON contracts)."""
    return [n.text for n in notes]
