"""Is a model's tool call grounded in the conversation? Every number it sends must be one the
user wrote (in any usual spelling: `assistant.reading.numbers`), one an earlier reading of the
conversation used, a simple derivation of those (prompt + output = context, 8 GPUs × 4 users,
'twice the users', per day → per month, ms → s), or a default the tool states; every model or
GPU it names must be one the conversation named (the user, or a tool result the model read).

A value that is none of these is refused back to the model as a tool error naming the field
(`refusal`): the model then sends the user's figure or leaves the field to its default. The
numbers that were found in this turn's question come back with their spans: the provenance of
the model's reading (`assistant.reading.of_call`).
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import math
import typing
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from assistant.reading.model import Span
from assistant.reading.numbers import WrittenNumber, written_numbers
from assistant.regex_cache import compiled
from assistant.results import ToolError
from tools.catalog import get_catalog
from tools.defaults import DEFAULT_CONTEXT_TOKENS, DEFAULT_OUTPUT_TOKENS, DEFAULT_PROMPT_TOKENS
from tools.errors import ToolInputError

SIZING_TOOLS = ("size", "estimate_memory", "recommend", "plan_local_serving")
"""The tools whose calls are a reading of the question (and so must be grounded)."""

RELATIVE_TOLERANCE = 1e-3
"""A derived value rounded by the model (30,416.7 → 30,417) still matches."""

_FACTORS = (
    1e3,
    1e-3,
    60.0,
    1 / 60,
    24.0,
    1 / 24,
    12.0,
    1 / 12,
    730 / 24,
    24 / 730,
    730.0,
    1 / 730,
    2**30 / 1e9,
    1e9 / 2**30,
)
"""Unit changes a model makes on a user's figure: k, ms → s, minutes → hours, days → hours,
a year's → a month's, a day's → a month's (730 h), an hour's → a month's, GiB ↔ GB."""

STATED_DEFAULTS: dict[str, tuple[float, ...]] = {
    "prompt_tokens": (DEFAULT_PROMPT_TOKENS,),
    "output_tokens": (DEFAULT_OUTPUT_TOKENS,),
    "context": (DEFAULT_CONTEXT_TOKENS,),
    "sequence_length": (DEFAULT_CONTEXT_TOKENS,),
    "gpu_memory_utilization": (0.9,),
}
"""Defaults the tools state in their descriptions and assumptions (beyond the fields' own)."""

_COUNT_FIELDS = ("count", "gpus", "num_gpus", "max_gpus")
_NAME_FIELDS = {"model": "model", "gpu": "gpu", "only_gpus": "gpu", "exclude_gpus": "gpu"}


@dataclass(frozen=True)
class Ungrounded:
    """A value of the call found nowhere in the conversation: where, what, and why."""

    field: str
    value: Any
    problem: str


@dataclass
class Grounding:
    """The outcome for one call: what is not grounded, and where in this turn's question each
    grounded number was written (field path → span)."""

    ungrounded: list[Ungrounded] = field(default_factory=list)
    spans: dict[str, Span] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.ungrounded


@dataclass
class Conversed:
    """What the conversation said, for grounding: the user's words (this turn's question
    apart, for spans), the arguments of the calls already answered, the tool results the model
    read, and the counts of GPUs those results named."""

    question: str
    earlier_user_text: list[str] = field(default_factory=list)
    earlier_arguments: list[Any] = field(default_factory=list)
    results_text: list[str] = field(default_factory=list)
    gpu_counts: set[tuple[str, int]] = field(default_factory=set)

    def user_text(self) -> str:
        return "\n".join([*self.earlier_user_text, self.question])

    def corpus(self) -> str:
        """Everything names may be grounded in, normalised (lower case, letters and digits)."""
        import json

        texts = [self.user_text(), *self.results_text]
        texts += [json.dumps(a, default=str) for a in self.earlier_arguments]
        return _normal(" ".join(texts))


def conversed(messages: Sequence[Mapping[str, Any]]) -> Conversed:
    """The `Conversed` of a conversation whose last user message is this turn's question."""
    import json

    from assistant.results import parse_arguments_text

    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    question = str(messages[users[-1]].get("content") or "") if users else ""
    out = Conversed(question)
    out.earlier_user_text = [str(messages[i].get("content") or "") for i in users[:-1]]
    answered = {
        str(m.get("tool_call_id"))
        for m in messages
        if m.get("role") == "tool" and not str(m.get("content") or "").startswith('{"error"')
    }
    for message in messages:
        for call in message.get("tool_calls") or []:
            # Only calls already answered without error: never the call being grounded.
            if str(call.get("id")) in answered:
                arguments = call.get("function", {}).get("arguments")
                out.earlier_arguments.append(parse_arguments_text(arguments))
        if message.get("role") == "tool":
            content = str(message.get("content") or "")
            out.results_text.append(content)
            with contextlib.suppress(ValueError):
                _gpu_counts(json.loads(content), out.gpu_counts)
    return out


def _gpu_counts(value: Any, found: set[tuple[str, int]]) -> None:
    if isinstance(value, dict):
        gpu, count = value.get("gpu"), value.get("count")
        if isinstance(gpu, str) and type(count) is int:
            found.add((gpu, count))
        for v in value.values():
            _gpu_counts(v, found)
    elif isinstance(value, list):
        for v in value:
            _gpu_counts(v, found)


def _normal(text: str) -> str:
    return compiled(r"[^a-z0-9]+").sub("", text.lower())


# --- numbers -------------------------------------------------------------------------------


def _leaves(
    value: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, (*path, str(k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, (*path, i))
    else:
        yield path, value


def _dotted(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (directly, in a list or an Optional)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin is not None:
        for arg in typing.get_args(annotation):
            found = _model_of(arg)
            if found is not None:
                return found
    return None


def field_default(model: type[BaseModel], path: tuple[str | int, ...]) -> Any:
    """The default of the field at `path` in `model` (None when it has none)."""
    current: type[BaseModel] | None = model
    default: Any = None
    for part in path:
        if isinstance(part, int):
            continue
        if current is None or part not in current.model_fields:
            return None
        info = current.model_fields[part]
        default = None if info.default is PydanticUndefined else info.default
        current = _model_of(info.annotation)
    return default


def _number(value: Any) -> float | None:
    """A number the model sent: an int or float, or a size written as text ('13B')."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        found = written_numbers(value)
        if len(found) == 1 and found[0].span.text.strip() == value.strip():
            return max(found[0].values)
    return None


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=RELATIVE_TOLERANCE, abs_tol=1e-9)


def _argument_numbers(arguments: Sequence[Any]) -> set[float]:
    out: set[float] = set()
    for args in arguments:
        for _, leaf in _leaves(args):
            number = _number(leaf)
            if number is not None:
                out.add(number)
    return out


@dataclass
class _Numbers:
    """The values numbers may take: the question's (with spans), the conversation's, and the
    derivations of those."""

    question: list[tuple[float, Span]]
    base: list[float]
    derived: list[float]
    """Sorted, for a bisection: tens of thousands of values in a long conversation."""

    def span(self, value: float) -> Span | None:
        return next((s for v, s in self.question if _close(v, value)), None)

    def grounded(self, value: float) -> bool:
        if any(_close(v, value) for v in self.base):
            return True
        slack = max(abs(value) * RELATIVE_TOLERANCE, 1e-9)
        i = bisect.bisect_left(self.derived, value - slack)
        return i < len(self.derived) and self.derived[i] <= value + slack


def _figures(text: str) -> list[WrittenNumber]:
    """The numbers of `text` that are figures: not digits inside a name ('H100', 'bf16')."""
    return [n for n in written_numbers(text) if not n.in_name]


def _numbers(conv: Conversed) -> _Numbers:
    said = _figures(conv.question)
    question = [(v, n.span) for n in said for v in n.values]
    earlier = [n for t in conv.earlier_user_text for n in _figures(t)]
    base = sorted(
        {
            *(v for v, _ in question),
            *(v for n in earlier for v in n.values),
            *_argument_numbers(conv.earlier_arguments),
        }
    )
    # 'a' / 'an' ground one (an H100, a user) but no derivation: 1 × 1,000 is not a figure.
    articles = {v for n in [*said, *earlier] if n.article for v in n.values}
    figures = {v for n in [*said, *earlier] if not n.article for v in n.values}
    small = sorted(figures | (set(base) - articles))[:200]
    derived: set[float] = set()
    for a, b in itertools.combinations_with_replacement(small, 2):
        derived.add(a + b)
        derived.add(a * b)
        if b:
            derived.add(a / b)
        if a:
            derived.add(b / a)
    for a in small:
        derived.update(a * f for f in _FACTORS)
    return _Numbers(question, base, sorted(d for d in derived if math.isfinite(d)))


# --- names ---------------------------------------------------------------------------------


def _name_grounded(kind: str, value: str, corpus: str, corpus_numbers: set[float]) -> bool:
    """A model or GPU the conversation named: its id, name or an alias appears in it, or
    (a loose spelling) the model's size ('a 70B') or the GPU's model number ('3080', 'h100',
    'mi300x') does. An unknown name is left to the tool, which refuses it."""
    catalog = get_catalog()
    try:
        entry = catalog.model(value) if kind == "model" else catalog.gpu(value)
    except ToolInputError:
        return True
    forms = [entry.id, entry.name, *entry.aliases, value]
    if any(len(_normal(f)) >= 2 and _normal(f) in corpus for f in forms):
        return True
    if kind == "gpu":
        keys = [w for w in compiled(r"[a-z]*\d+[a-z]*").findall(entry.name.lower()) if len(w) >= 2]
        return any(k in corpus for k in keys[:1])
    # A size the user wrote ('a 70B', 'the 8B Llama') grounds a model of that size: which one
    # is a reading, and a difference from the parser's is named in the answer.
    sizes = [float(m) for m in compiled(r"(\d+(?:\.\d+)?)b\b").findall(entry.name.lower())]
    return any(any(_close(s, n) for n in corpus_numbers) for s in sizes)


# --- the check -----------------------------------------------------------------------------


def ground_call(
    tool: str, arguments: Mapping[str, Any], input_model: type[BaseModel], conv: Conversed
) -> Grounding:
    """Which values of a `tool` call (its raw `arguments`, validated by `input_model` later)
    the conversation does not ground, and the spans of those it does."""
    numbers = _numbers(conv)
    corpus = conv.corpus()
    corpus_numbers = {n.digits for n in written_numbers(conv.user_text())}
    out = Grounding()
    for path, leaf in _leaves(dict(arguments)):
        name = next((p for p in reversed(path) if isinstance(p, str)), "")
        where = _dotted(path)
        if name in _NAME_FIELDS and isinstance(leaf, str) and leaf.strip():
            if not _name_grounded(_NAME_FIELDS[name], leaf, corpus, corpus_numbers):
                what = "model" if _NAME_FIELDS[name] == "model" else "GPU"
                out.ungrounded.append(
                    Ungrounded(where, leaf, f"{leaf!r} is not a {what} the conversation named")
                )
            continue
        number = _number(leaf)
        if number is None or name in ("zero",):
            continue
        span = numbers.span(number)
        if span is not None:
            out.spans[where] = span
            continue
        default = field_default(input_model, path)
        stated = STATED_DEFAULTS.get(name, ())
        if (isinstance(default, int | float) and not isinstance(default, bool)) and _close(
            float(default), number
        ):
            continue
        if any(_close(s, number) for s in stated) or numbers.grounded(number):
            continue
        if name in _COUNT_FIELDS and _counted(path, arguments, number, conv):
            continue
        out.ungrounded.append(
            Ungrounded(where, leaf, f"{leaf!r} is not a figure the user gave, nor a stated default")
        )
    return out


def _counted(
    path: tuple[str | int, ...], arguments: Mapping[str, Any], number: float, conv: Conversed
) -> bool:
    """A GPU count that a tool result gave for that GPU ('2× mi300x' among the options): the
    model sizes an option it was shown."""
    holder: Any = arguments
    for part in path[:-1]:
        if isinstance(holder, dict) and isinstance(part, str):
            holder = holder.get(part)
        elif isinstance(holder, list) and isinstance(part, int) and part < len(holder):
            holder = holder[part]
        else:
            holder = None
    gpu = holder.get("gpu") if isinstance(holder, dict) else None
    if not isinstance(gpu, str):
        return any(_close(c, number) for _, c in conv.gpu_counts)
    try:
        gpu_id = get_catalog().gpu(gpu).id
    except ToolInputError:
        gpu_id = gpu
    return (gpu_id, int(number)) in conv.gpu_counts


def refusal(grounding: Grounding, conv: Conversed) -> ToolError:
    """The tool error the model reads for an ungrounded call: each field and why, and what it
    may send instead (the numbers the user wrote)."""
    first = grounding.ungrounded[0]
    said = list(dict.fromkeys(n.span.text for n in written_numbers(conv.question)))
    said = [s for s in said if any(c.isdigit() for c in s)][:10]
    allowed = (
        "a value the user gave"
        + (f" (the question says: {', '.join(said)})" if said else "")
        + ", or leave the field out for the tool's default"
    )
    problems = "; ".join(f"{u.field}: {u.problem}" for u in grounding.ungrounded)
    return ToolError(
        error=f"not grounded in the conversation — {problems}. Read the numbers and names "
        "from the user's words; never invent one",
        field=first.field,
        allowed=allowed,
    )
