"""Typed tool results in the conversation: how they are stored and the one place they are read.

Every tool returns a pydantic model. A `{"role": "tool"}` message keeps that model's JSON under
`RESULT_KEY`, tagged with its schema (`{"schema": "MemoryEstimate", "data": {...}}`); its
`content` is what the model reads (`assistant.wire.model_content`). Everything that shows a
result — the offline renderer, the app's tool cards, the proposal, the CLI, the grounding check
— loads it back here, with a `TypeAdapter` per schema, and reads attributes.

A stored result that does not validate any more (its model changed since it was saved), or a
tool message with no typed result at all, loads as a `LegacyResult` carrying the raw JSON and
a notice, never an exception. How results are written to a session file (packed, versioned) is
`assistant.session_format`'s business: in memory they are always `{"schema", "data"}`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from assistant.lookups import GpuFacts, GpuList, ModelFacts, ModelList
from assistant.wire import compact_json, lean, model_content
from tools.cost import CostComparison
from tools.deployment import BuyVsRent, EnginePlan, Speedups
from tools.errors import ToolInputError
from tools.fits import FitsResult
from tools.local_serving import LocalServingPlan
from tools.memory import MemoryEstimate
from tools.nesting import loads_json, too_deep
from tools.recommend import Recommendation
from tools.sizing import SizingReport
from tools.workloads.embedding import EmbeddingResult

RESULT_KEY = "result"
"""Key of the typed result on a tool message (local: never sent to an API)."""


class Problem(BaseModel):
    """One field a tool call got wrong."""

    field: str
    problem: str


class ToolError(BaseModel):
    """A tool call that produced no result: what went wrong and what to send instead. The
    model reads it as a result it can recover from; people see `error_text`."""

    error: str
    field: str | None = None
    allowed: str | None = None
    did_you_mean: list[str] | None = None
    problems: list[Problem] | None = None
    allowed_fields: list[str] | None = None
    available_tools: list[str] | None = None
    kind: str | None = Field(default=None, description="'internal_error' for a tool bug.")

    @classmethod
    def from_input_error(cls, exc: ToolInputError) -> ToolError:
        """The result for a `ToolInputError`: field, problem, allowed, suggestions."""
        return cls(
            error=exc.problem,
            field=exc.field,
            allowed=exc.allowed,
            did_you_mean=exc.suggestions or None,
        )

    @property
    def text(self) -> str:
        """The error on one line: 'field: problem' for each problem the tool listed."""
        if self.problems:
            return "; ".join(f"{p.field}: {p.problem}" for p in self.problems)
        return f"{self.field}: {self.error}" if self.field else self.error


class LegacyResult(BaseModel):
    """A stored result that no longer loads into its tool's model (written by an older version
    in a shape that changed since): kept as its raw JSON with the reason, so a reopened session
    still opens and says what it cannot show."""

    tool: str
    data: dict[str, Any]
    notice: str


ToolValue: TypeAlias = BaseModel
"""A typed tool result: one of `SCHEMAS`' models, a `ToolError` or a `LegacyResult`."""


def _schemas() -> dict[str, type[BaseModel]]:
    models: list[type[BaseModel]] = [
        MemoryEstimate,
        Recommendation,
        CostComparison,
        ModelFacts,
        GpuFacts,
        ModelList,
        GpuList,
        LocalServingPlan,
        FitsResult,
        SizingReport,
        EnginePlan,  # issue 30 items 5-7
        BuyVsRent,
        Speedups,
        EmbeddingResult,  # issue 30 item 2
        ToolError,
    ]
    return {m.__name__: m for m in models}


SCHEMAS: dict[str, type[BaseModel]] = _schemas()
"""Schema tag → result model: every type a stored result may load as."""

_ADAPTERS: dict[str, TypeAdapter[Any]] = {name: TypeAdapter(m) for name, m in SCHEMAS.items()}

TOOL_RESULTS: dict[str, str] = {
    "estimate_memory": "MemoryEstimate",
    "recommend": "Recommendation",
    "compare_costs": "CostComparison",
    "size": "SizingReport",
    "find_model": "ModelFacts",
    "find_gpu": "GpuFacts",
    "list_models": "ModelList",
    "list_gpus": "GpuList",
    "plan_local_serving": "LocalServingPlan",
    "fits_on_hardware": "FitsResult",
    "plan_engine": "EnginePlan",
    "buy_vs_rent": "BuyVsRent",
    "plan_speedups": "Speedups",
    "embed_corpus": "EmbeddingResult",  # issue 30 item 2
}
"""Tool name → the schema of its result."""


def stored(value: BaseModel) -> dict[str, Any]:
    """The JSON a tool message keeps under `RESULT_KEY` for `value`: its fields that differ
    from their defaults (loading validates it back into the same model, defaults restored; a
    report is a fifth smaller so)."""
    return {
        "schema": type(value).__name__,
        "data": value.model_dump(mode="json", exclude_defaults=True),
    }


def tool_message(
    call_id: str, name: str, value: BaseModel, with_name: bool = True
) -> dict[str, Any]:
    """The `{"role": "tool"}` message for a result: what the model reads as `content`, the
    typed result under `RESULT_KEY` (and the tool's `name`, unless `with_name` is False)."""
    message: dict[str, Any] = {"role": "tool", "tool_call_id": call_id}
    if with_name:
        message["name"] = name
    message |= {"content": model_content(name, value), RESULT_KEY: stored(value)}
    return message


def cleaned(value: BaseModel) -> BaseModel:
    """`value` with every string passed through `assistant.sanitize.clean_value` (no terminal
    escape sequence a tool echoed back reaches a card, a session or stdout); the same object
    when nothing needed cleaning."""
    from assistant.sanitize import clean_value, json_has_control

    # One pass over the result's JSON text (pydantic writes it at C speed) settles the common
    # case, a clean result, without walking its thousands of strings.
    if not json_has_control(value.model_dump_json()):
        return value
    data = value.model_dump(mode="json")
    clean = clean_value(data)
    if clean == data:
        return value
    return type(value).model_validate(clean)


def is_error(value: BaseModel) -> bool:
    """Whether a loaded result is a failed call."""
    return isinstance(value, ToolError)


# --- loading ---------------------------------------------------------------------------------


def load_stored(data: Any, tool: str = "") -> BaseModel:
    """A typed result from its stored form (`{"schema", "data"}`); a `LegacyResult` when the
    schema is unknown or the data no longer validates."""
    if not isinstance(data, Mapping):
        return LegacyResult(tool=tool, data={"raw": data}, notice=_notice(tool, "not an object"))
    schema, payload = data.get("schema"), data.get("data")
    adapter = _ADAPTERS.get(str(schema))
    if adapter is None or not isinstance(payload, Mapping):
        return LegacyResult(
            tool=tool, data=dict(data), notice=_notice(tool, f"unknown schema {schema!r}")
        )
    try:
        value = adapter.validate_python(payload)
    except ValidationError as exc:
        return LegacyResult(tool=tool, data=dict(payload), notice=_notice(tool, _first(exc)))
    assert isinstance(value, BaseModel)
    return value


def load_result(message: Mapping[str, Any], tool: str = "") -> BaseModel:
    """The typed result of one tool message (see the module docstring)."""
    name = tool or str(message.get("name") or "")
    if RESULT_KEY in message:
        return load_stored(message[RESULT_KEY], name)
    return LegacyResult(
        tool=name,
        data={"raw": str(message.get("content") or "")},
        notice=_notice(name, "no typed result stored"),
    )


def _notice(tool: str, why: str) -> str:
    what = f"This {tool} result" if tool else "This result"
    return f"{what} was saved by another version of gpu-sizer and cannot be shown ({why})."


def _first(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "result"
    return f"{where}: {err['msg']}"


# --- a conversation's calls ------------------------------------------------------------------


@dataclass(frozen=True)
class StoredCall:
    """One tool call of a conversation: its name, arguments as sent and typed result."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    value: BaseModel
    message_index: int
    turn: int
    """Number of user messages before the result (0 = before any user message)."""

    @property
    def is_error(self) -> bool:
        """Whether the call failed (its result is a `ToolError`)."""
        return isinstance(self.value, ToolError)


def parse_arguments_text(text: Any) -> dict[str, Any]:
    """Stored tool-call arguments (a JSON string) as a dict; `{"raw": text}` when not JSON or
    nested deeper than `tools.nesting.MAX_DEPTH` (a model's arguments are stored as sent)."""
    if isinstance(text, dict):
        return text if not too_deep(text) else {"raw": "(nested too deeply to show)"}
    try:
        value = loads_json(text or "{}")
    except (TypeError, ValueError):  # NestingError included
        return {"raw": str(text)}
    return value if isinstance(value, dict) else {"value": value}


DUPLICATE_KEY = "duplicate_of"
"""On a tool message that answers a repeated call by reference (the LLM engine runs an
identical call once a turn): the id of the call whose result it repeats."""


def stored_calls(
    messages: Sequence[Mapping[str, Any]], turn: int | None = None
) -> list[StoredCall]:
    """Every tool call with a result in `messages`, in order, results loaded typed. A call
    answered by reference to an identical earlier one (`DUPLICATE_KEY`) is not listed again:
    its result is the earlier call's. `turn`: only the calls of that turn (`StoredCall.turn`),
    the others' results not loaded (a long session's every report, validated again for each
    answer's checks, is what that would cost)."""
    names: dict[str, tuple[str, dict[str, Any]]] = {}
    out: list[StoredCall] = []
    current = 0
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "user":
            current += 1
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            names[str(call.get("id"))] = (
                str(function.get("name", "")),
                parse_arguments_text(function.get("arguments")),
            )
        if role != "tool" or DUPLICATE_KEY in message or turn not in (None, current):
            continue
        call_id = str(message.get("tool_call_id", ""))
        name, arguments = names.get(call_id, ("", {}))
        name = name or str(message.get("name") or "")
        out.append(StoredCall(call_id, name, arguments, load_result(message, name), index, current))
    return out


def result_payload(message: Mapping[str, Any]) -> Any:
    """Everything a tool message holds for the grounding check: the lean form of its full
    result (the figures the model and the user saw), else its content."""
    if RESULT_KEY in message:
        value = load_stored(message[RESULT_KEY])
        if not isinstance(value, LegacyResult):
            return lean(value)
    return message.get("content") or ""


def dump_json(value: BaseModel) -> str:
    """A result as compact JSON of its full model (bytes as integers): the CLI's contract."""
    return compact_json(value.model_dump(mode="json"))
