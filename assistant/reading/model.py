"""`Reading`: what a question was read as — one slot per thing it said, each with where it came
from — what was not read, what is asked back, and which figure the question asks for.

Both readers produce one: the offline parser (`assistant.reading.of_parsed`) and, in LLM mode,
the model's own tool call. Every surface shows it in one line before the verdict
(`assistant.render.reading.read_as_line`) and `ask --json` carries it typed. Decisions
read its typed fields (`slot`, `why`, `matters`), never the words of the question.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from tools.field_factories import empty_list
from tools.sizing.request import AskedFigure

AskedSlot = Literal[
    "model",
    "asked",
    "weights",
    "gpu",
    "gpu_variant",
    "unified_memory",
    "context",
    "figure",
    "meaning",
    "budget",
    "deadline",
    "training_data",
    "task",
]
"""The slot of the reading a clarifying question asks about: the model, a GPU the catalog
lacks, which variant of a GPU name, an Apple machine's RAM, the context length, a figure out of
range, what unread words mean, a budget's conversion, a job's deadline given as a date, the
training data a deadline is checked against, which of two tasks said is sized."""

AskedWhy = Literal["missing", "ambiguous", "unknown", "invalid", "unread"]
"""Why it is asked: not said, said but several catalog entries fit, named but not in the
catalog, not a value the tools accept, or said but not read."""


class AskBack(BaseModel):
    """A fact the verdict depends on that the question did not settle, asked back: which slot,
    why, the words it is about. Decisions read `slot` and `why`, never `text`."""

    model_config = ConfigDict(extra="forbid")

    slot: AskedSlot
    why: AskedWhy
    text: str = Field(description="The question, as shown to the user.")
    words: str | None = Field(default=None, description="The words asked about, as written.")


class Span(BaseModel):
    """Where a value was read: characters start:end of the question, and the text there."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str


Origin = Literal["question", "conversation", "default", "model"]
"""Where a slot's value came from: this turn's question, or an earlier turn kept (both read by
the built-in parser), a stated default reading of vague words ('fine-tune' with no method read
as a full fine-tune), or the model's tool call (its spans: where in the question the call's
numbers were written; none for a value the tool defaults)."""


class SlotSource(BaseModel):
    """The provenance of one slot: this question's words (spans) or an earlier turn's."""

    model_config = ConfigDict(extra="forbid")

    origin: Origin = "question"
    spans: list[Span] = Field(default_factory=empty_list)


UnreadKind = Literal["number", "money", "rate", "hardware", "term", "asked", "language", "word"]
"""What an unread fragment looks like: a number (with or without a unit), an amount of money, a
rate or percentile, a hardware-like name, a sizing term (LoRA, embedding, spot …), words that
say what is asked ('is that normal?', 'faster'), words in a script the reader does not read
(Chinese, Japanese, Korean), or plain words."""


class ReadSlot(BaseModel):
    """One slot of the reading: its name, the value read (units in `Reading`'s slot table),
    the value in words, and where it came from."""

    model_config = ConfigDict(extra="forbid")

    slot: str = Field(description="The slot's name (a field of the parsed workload).")
    value: JsonValue = Field(description="The value read, in the unit the slot names.")
    shown: str = Field(description="The value in words, as the 'Read as' line shows it.")
    source: SlotSource = Field(default_factory=SlotSource)


class Unread(BaseModel):
    """Words of the question no extractor placed, what they look like, and whether they could
    change the verdict (then the answer says so before any verdict, and asks)."""

    model_config = ConfigDict(extra="forbid")

    span: Span
    kind: UnreadKind
    matters: bool = Field(description="Could change the verdict: said before any verdict.")


class OutOfScope(BaseModel):
    """Something asked that gpu-sizer cannot answer (live availability, a quantization's quality
    loss …), with what it can answer instead."""

    model_config = ConfigDict(extra="forbid")

    topic: str = Field(description="What was asked, in a few words.")
    span: Span
    instead: str = Field(description="What gpu-sizer can answer instead, one sentence.")


__all__ = ["AskBack", "AskedFigure", "OutOfScope", "ReadSlot", "Reading", "Span", "Unread"]


class Reading(BaseModel):
    """A question as read: slots with provenance, the unread, questions back, the figure asked."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="This turn's text.")
    slots: list[ReadSlot] = Field(default_factory=empty_list)
    asked: AskedFigure = "hardware"
    unread: list[Unread] = Field(default_factory=empty_list)
    questions: list[AskBack] = Field(default_factory=empty_list)
    out_of_scope: list[OutOfScope] = Field(default_factory=empty_list)

    def slot(self, name: str) -> ReadSlot | None:
        """The slot called `name`, if it was read."""
        return next((s for s in self.slots if s.slot == name), None)

    @property
    def unread_that_matters(self) -> list[Unread]:
        """Unread words that could change the verdict."""
        return [u for u in self.unread if u.matters]

    @property
    def verdict_stands(self) -> bool:
        """Whether a verdict may be stated as the answer to the question: nothing asked back and
        nothing unread that could change it."""
        return not self.questions and not self.unread_that_matters
