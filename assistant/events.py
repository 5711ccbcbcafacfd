"""The typed event stream an engine yields for one turn; the app and the one-shot CLI consume it.

Engines never render and the UI never computes: everything that crosses between them is one of
these frozen dataclasses. The stream for a turn always ends with exactly one `Done` (also after
an error or a cancellation), whose `conversation` holds everything to persist.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    # Annotations only: the app imports these event types before its first paint, and the
    # reading's model pulls in the sizing request's pydantic models (issue 32, fast start).
    from pydantic import BaseModel

    from assistant.answer import Answer
    from assistant.conversation import Conversation
    from assistant.reading.model import Reading


@dataclass(frozen=True)
class TextDelta:
    """A fragment of the answer's Markdown text, in order."""

    text: str


@dataclass(frozen=True)
class Verdict:
    """The tools' deterministic verdict (Markdown), sent before the model's first token: it
    leads the answer whatever the model then writes. `answer`: the same as typed sections,
    marking the lines the app's verdict card states too (None: shown whole)."""

    text: str
    answer: Answer | None = None
    provisional: bool = False
    """The built-in parser's verdict, shown at once while the model may still read the
    question; a later `Verdict` replaces it (the same verdict, final, or the model's)."""


@dataclass(frozen=True)
class ReadAs:
    """How the question was read (`assistant.reading.Reading`), sent before any figure: the app
    shows it above the verdict card. In LLM mode, the built-in parser's reading, then the
    model's when the model read the question otherwise (the verdict follows it)."""

    reading: Reading


@dataclass(frozen=True)
class ToolCallStarted:
    """The engine is about to run tool `name` with validated or raw `arguments`."""

    call_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """A tool's typed result (`assistant.results`: the tool's model, or a `ToolError` when the
    input was rejected, then `is_error`)."""

    call_id: str
    name: str
    value: BaseModel
    is_error: bool = False

    @property
    def result(self) -> dict[str, Any]:
        """The lean JSON form the model reads (`assistant.wire.lean_result`)."""
        from assistant.wire import lean_result

        return lean_result(self.value)


@dataclass(frozen=True)
class UsageReport:
    """Token usage of one model call; `None` fields when the endpoint did not report them."""

    prompt_tokens: int | None
    completion_tokens: int | None
    estimated: bool = False


@dataclass(frozen=True)
class Notice:
    """Something the user should know that is not an error (a fallback, a retry)."""

    message: str
    level: Literal["info", "warning"] = "info"


@dataclass(frozen=True)
class ErrorEvent:
    """A failure explained in plain language: what happened and what to check."""

    message: str
    kind: str = "error"


StopReason = Literal["repetition", "length", "cut_off"]
"""Why an answer ended early: it looped, it ran past the token cap (both stopped by
gpu-sizer while streaming), or the endpoint cut it at `max_tokens` (`finish_reason: length`)."""


@dataclass(frozen=True)
class Done:
    """End of the turn. `text` is the full final answer (the model's, after `verdict`);
    `unverified_figures` are figures in it that the grounding check could not find in the
    turn's tool results; `contradictions` are its claims the tools' results contradict;
    `stopped` says why it ended early; `error` is the kind of the failure that ended the turn
    (the partial answer is kept and marked); `answer` is the text as typed sections when the
    engine built it so (the offline engine: what is folded), None for a model's text."""

    text: str
    conversation: Conversation
    unverified_figures: tuple[str, ...] = field(default=())
    cancelled: bool = False
    verdict: str = ""
    contradictions: tuple[str, ...] = field(default=())
    stopped: StopReason | None = None
    error: str | None = None
    answer: Answer | None = None


Event = (
    TextDelta
    | Verdict
    | ReadAs
    | ToolCallStarted
    | ToolResult
    | UsageReport
    | Notice
    | ErrorEvent
    | Done
)
