"""Command-line flags generated from the tools' pydantic input models, as assistant/schemas.py
generates the LLM's function schemas from the same fields (issue 14, item 4).

One definition per concept: a field's flag name (`FLAG_NAMES`, else `--field-name`), help
(its description and default), accepted text (number, token count, choice, list) and bounds
all come from the model, so `memory`, `recommend` and `cost` cannot drift apart: `--users 0`
says the same thing on all three. Commands get validated pydantic requests
(`request(Model, args)`); whatever fails — a bound, a cross-field check, or later a tool's
own `ToolInputError` — is reported under the flag the user typed (`named`), never under an
internal field (`--users`, not the memory tool's `batch`), as one line ending in exit 2.

Flags never carry the model's default themselves: an unset flag is absent from the request,
so the model's default (and the one default request shape, tools/defaults.py) applies, and
validators that depend on what the user set (`model_fields_set`) see exactly that.
"""

from __future__ import annotations

import argparse
import re
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import UnionType
from typing import Any, Literal, TypeVar

import annotated_types
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from assistant.commands._args import number_from, tokens_from
from tools.errors import ToolInputError, field_problems

ModelT = TypeVar("ModelT", bound=BaseModel)

FLAG_NAMES: dict[str, tuple[str, ...]] = {
    "ModelChoice.config_path": ("--config",),
    "MemoryRequest.batch": ("--batch", "--users"),
    "MemoryRequest.prefill_chunk_tokens": ("--prefill-chunk",),
    "Workload.ttft_s": ("--ttft",),
    "Workload.sequence_length": ("--seq-len",),
    "Workload.global_batch_sequences": ("--global-batch",),
    "Workload.micro_batch_sequences": ("--micro-batch",),
    # `--gpu` too: memory and cost name the GPU with it, so `recommend --gpu t4` means the same
    # (before, argparse read it as an abbreviation of --gpu-memory-utilization).
    "Constraints.only_gpus": ("--only", "--gpu"),
    "Constraints.exclude_gpus": ("--exclude",),
    "PriceFilter.providers": ("--provider",),
    "PriceFilter.gpus": ("--gpu",),
    "PriceFilter.tiers": ("--tier",),
    "PriceFilter.eur_to_usd": ("--eur-usd",),
    "UsageProfile.active_hours_per_month": ("--active-hours",),
    "UsageProfile.input_tokens_per_output_token": ("--input-per-output",),
    "ServingCostInput.aggregate_tokens_per_s": ("--tokens-per-s",),
    "CostCommandOptions.spot_interruption_overhead": ("--spot-overhead",),
}
"""`Class.field` → option strings where the flag is not `--field-name` (the class that declares
the field: ModelChoice's fields are named once for the memory request and the workload). The
names users already type; the first is the one help shows. Several fields may share a name
(`--tokens-per-s` is the workload's target and a directly given configuration's throughput)."""

CLI_NOTES: dict[str, str] = {
    "--eur-usd": "default: GPU_SIZER_EUR_TO_USD or eur_to_usd in config.toml; none: EUR offers "
    "are listed but not compared",
}
"""What a flag's help adds to its field's description: where the command line's default comes
from when the model's is None (settings, not a tool's concern)."""

TOKEN_FIELDS = frozenset({"context", "sequence_length"})
"""Fields, besides `*_tokens`, whose values are token counts (16k, 128K and 1M accepted)."""

FLAGSET = "_flagset"
TYPED = "_typed_flags"

Kind = Literal["int", "float", "tokens", "str", "bool", "choice", "list"]


@dataclass
class Flag:
    """One option: its names, how its text is read, and the model fields it sets."""

    dest: str
    names: tuple[str, ...]
    kind: Kind
    info: FieldInfo
    whole: bool = False
    choices: tuple[Any, ...] = ()
    item_kind: Kind = "str"
    fields: list[tuple[type[BaseModel], str]] = field(default_factory=list)

    @property
    def display(self) -> str:
        return self.names[0]


@dataclass
class FlagSet:
    """The flags of one command, by destination and by the model field each one sets."""

    flags: dict[str, Flag] = field(default_factory=dict)
    by_name: dict[str, Flag] = field(default_factory=dict)

    def models(self) -> list[type[BaseModel]]:
        """Every model a flag of this command sets a field of."""
        seen: dict[type[BaseModel], None] = {}
        for flag in self.flags.values():
            for model, _ in flag.fields:
                seen.setdefault(model, None)
        return list(seen)

    def for_field(self, path: str, model: type[BaseModel] | None = None) -> Flag | None:
        """The flag that sets `path` (dotted; `options.0.x` and the last part also tried)."""
        bare = ".".join(p for p in path.split(".") if not p.isdigit())
        for candidate in (bare, bare.rsplit(".", 1)[-1]):
            for flag in self.flags.values():
                for owner, field_path in flag.fields:
                    if (model is None or owner is model) and field_path == candidate:
                        return flag
        # A tool that names the option itself ("config" for --config's file).
        return self.by_name.get("--" + bare.replace("_", "-")) if model is None else None


# --- generation -------------------------------------------------------------------------------


def _declaring_class(model: type[BaseModel], name: str) -> str:
    for cls in model.__mro__:
        if name in getattr(cls, "__annotations__", {}):
            return cls.__name__
    return model.__name__


def flag_names(model: type[BaseModel], name: str) -> tuple[str, ...]:
    """The option strings of `model`'s field `name` (FLAG_NAMES, else `--field-name`)."""
    key = f"{_declaring_class(model, name)}.{name}"
    return FLAG_NAMES.get(key, ("--" + name.replace("_", "-"),))


def _strip_optional(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(options) == 1:
            return options[0]
        return str if str in options else options[0]  # params: str | float → read as text
    return annotation


def _kind_of(name: str, annotation: Any) -> tuple[Kind, tuple[Any, ...]]:
    annotation = _strip_optional(annotation)
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) is Literal:
        return "choice", typing.get_args(annotation)
    if annotation is bool:
        return "bool", ()
    if annotation in (int, float) and (name.endswith("_tokens") or name in TOKEN_FIELDS):
        return "tokens", ()
    if annotation is int:
        return "int", ()
    if annotation is float:
        return "float", ()
    return "str", ()


def _make_flag(model: type[BaseModel], name: str, info: FieldInfo) -> Flag:
    names = flag_names(model, name)
    dest = names[0].removeprefix("--").replace("-", "_")
    annotation = _strip_optional(info.annotation)
    if typing.get_origin(annotation) in (list, tuple):
        item_kind, choices = _kind_of(name, typing.get_args(annotation)[0])
        return Flag(dest, names, "list", info, choices=choices, item_kind=item_kind)
    kind, choices = _kind_of(name, info.annotation)
    whole = _strip_optional(info.annotation) is int
    return Flag(dest, names, kind, info, whole=whole, choices=choices)


def _bounds(info: FieldInfo) -> tuple[Any, Any, bool, bool]:
    """(lower, upper, lower exclusive, upper exclusive) from the field's constraints."""
    lo: Any = None
    hi: Any = None
    lo_open = hi_open = False
    for meta in info.metadata:
        if isinstance(meta, annotated_types.Ge):
            lo = meta.ge
        elif isinstance(meta, annotated_types.Gt):
            lo, lo_open = meta.gt, True
        elif isinstance(meta, annotated_types.Le):
            hi = meta.le
        elif isinstance(meta, annotated_types.Lt):
            hi, hi_open = meta.lt, True
    return lo, hi, lo_open, hi_open


def _figure(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def allowed(flag: Flag) -> str | None:
    """What the flag accepts, from the field's type and bounds (the same text on every command
    for the same bounds): 'a whole number from 1 to 10,000,000'."""
    if flag.kind in ("int", "float", "tokens"):
        lo, hi, lo_open, hi_open = _bounds(flag.info)
        noun = {"int": "a whole number", "float": "a number", "tokens": "a token count"}[flag.kind]
        if lo is not None and hi is not None:
            low = f"above {_figure(lo)}" if lo_open else f"from {_figure(lo)}"
            high = f"to below {_figure(hi)}" if hi_open else f"to {_figure(hi)}"
            text = f"{noun} {low} {high}"
        else:
            text = noun
        if flag.kind == "tokens":
            text += " (16384, 16k, 128K and 1M are read as tokens)"
        return text
    if flag.choices:
        listed = ", ".join(str(c) for c in flag.choices)
        return f"one of {listed}" if flag.kind == "choice" else f"any of {listed}"
    return None


def _help(flag: Flag) -> str:
    description = " ".join((flag.info.description or "").split()).replace("%", "%%")
    default = flag.info.get_default(call_default_factory=True)
    shown = description.rstrip(".")
    if default not in (None, False, [], ()) and "default" not in description.lower():
        shown += f" (default {'on' if default is True else default})"
    if flag.kind == "list" and flag.choices:
        shown += f"; {allowed(flag)}, comma- or space-separated"
    if _long_choices(flag):
        shown += f"; {allowed(flag)}"
    if flag.display in CLI_NOTES:
        shown += f" ({CLI_NOTES[flag.display]})"
    if len(flag.names) > 1:
        shown += f"; also {', '.join(flag.names[1:])}"
    limit = allowed(flag)
    if flag.kind in ("int", "float", "tokens") and limit:
        shown += f"; {limit}"
    return shown


CHOICES_IN_USAGE = 24
"""Choices longer than this (joined) are named in the help, not the usage line: argparse never
breaks a `[--flag {a,b,c}]` group, so a long one would run past an 80-column terminal."""


def _long_choices(flag: Flag) -> bool:
    return flag.kind == "choice" and len(",".join(str(c) for c in flag.choices)) > CHOICES_IN_USAGE


def _metavar(flag: Flag) -> str | None:
    if _long_choices(flag):
        return flag.dest.upper()
    if flag.kind == "choice":
        return "{" + ",".join(str(c) for c in flag.choices) + "}"
    if flag.dest in ("config", "model_file", "config_path"):
        return "PATH"
    return {"int": "N", "float": "X", "tokens": "TOKENS", "list": "NAME"}.get(flag.kind)


class _FieldAction(argparse.Action):
    """Stores a flag's value read from its text, and what was typed (name and text) so that
    errors name the option and quote the value as the user wrote them."""

    def __init__(self, *args: Any, flag: Flag, **kwargs: Any) -> None:
        self.flag = flag
        super().__init__(*args, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        name = option_string or self.flag.display
        flag = self.flag
        if flag.kind == "bool":
            value: Any = not (option_string or "").startswith("--no-")
            raw = option_string or ""
        elif flag.kind == "list":
            texts = [values] if isinstance(values, str) else list(values or [])
            items = [part.strip() for text in texts for part in str(text).split(",")]
            value = [_read(flag, name, item, flag.item_kind) for item in items if item]
            if flag.dest in _typed(namespace) and isinstance(getattr(namespace, self.dest), list):
                value = getattr(namespace, self.dest) + value  # repeated: --gpu a --gpu b
            raw = ",".join(texts)
        else:
            raw = str(values)
            value = _read(flag, name, raw, flag.kind)
        setattr(namespace, self.dest, value)
        _typed(namespace)[flag.dest] = (name, raw)


def _typed(namespace: argparse.Namespace) -> dict[str, tuple[str, str]]:
    typed: dict[str, tuple[str, str]] = vars(namespace).setdefault(TYPED, {})
    return typed


def _read(flag: Flag, name: str, text: str, kind: Kind) -> Any:
    """The value of `text` for a flag of `kind`; argparse's error (one line) when unreadable."""
    try:
        if kind == "tokens":
            return tokens_from(text)
        if kind in ("int", "float"):
            return number_from(text, whole=kind == "int")
        if kind == "choice" and flag.choices and all(isinstance(c, int) for c in flag.choices):
            return number_from(text, whole=True)
    except ValueError:
        what = {
            "tokens": "a token count (examples: 16384, 1e8, 16k, 128k, 2B)",
            "int": "a whole number",
            "float": "a number",
        }.get(kind, "one of the allowed values")
        error = ToolInputError(name, f"{_short(text)!r} is not {what}", allowed(flag))
        raise argparse.ArgumentError(None, error.message) from None
    return text


class CommandFlags:
    """Adds a command's flags from models and remembers which field each one sets."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser
        self.flagset = FlagSet()
        parser.set_defaults(**{FLAGSET: self.flagset})

    def add(
        self,
        model: type[BaseModel],
        group: argparse._ActionsContainer | None = None,
        *,
        only: Iterable[str] | None = None,
        exclude: Iterable[str] = (),
    ) -> None:
        """A flag for every field of `model` (nested models' fields too, dotted), except
        `exclude`d paths; with `only`, just those paths. A name already defined on this command
        (another model's field of the same meaning) gets the field added, not a second flag."""
        wanted = set(only) if only is not None else None
        for path, owner, name, info in _fields(model):
            if path in exclude or (wanted is not None and path not in wanted):
                continue
            if any(path.startswith(f"{p}.") for p in exclude):
                continue
            self._add(model, path, _make_flag(owner, name, info), group or self.parser)

    def _add(
        self,
        model: type[BaseModel],
        path: str,
        flag: Flag,
        container: argparse._ActionsContainer,
    ) -> None:
        existing = self.flagset.by_name.get(flag.names[0])
        if existing is not None:
            if existing.kind != flag.kind:
                raise ValueError(f"{flag.names[0]} means two kinds of value on one command")
            existing.fields.append((model, path))
            return
        flag.fields.append((model, path))
        self.flagset.flags[flag.dest] = flag
        for name in flag.names:
            self.flagset.by_name[name] = flag
        kwargs: dict[str, Any] = {"dest": flag.dest, "help": _help(flag), "default": None}
        if flag.kind == "bool":
            names = [*flag.names, *(f"--no-{n.removeprefix('--')}" for n in flag.names)]
            container.add_argument(*names, nargs=0, action=_FieldAction, flag=flag, **kwargs)
            return
        if flag.kind == "list":
            kwargs["nargs"] = "+"
        metavar = _metavar(flag)
        if metavar:
            kwargs["metavar"] = metavar
        container.add_argument(*flag.names, action=_FieldAction, flag=flag, **kwargs)


def _fields(
    model: type[BaseModel], prefix: str = ""
) -> Iterable[tuple[str, type[BaseModel], str, FieldInfo]]:
    """(dotted path, the model declaring it, field name, info) for every flag-able field."""
    for name, info in model.model_fields.items():
        nested = _strip_optional(info.annotation)
        if isinstance(nested, type) and issubclass(nested, BaseModel):
            yield from _fields(nested, f"{prefix}{name}.")
            continue
        yield f"{prefix}{name}", model, name, info


# --- reading the flags back ---------------------------------------------------------------------


def flagset(args: argparse.Namespace) -> FlagSet:
    found = getattr(args, FLAGSET, None)
    return found if isinstance(found, FlagSet) else FlagSet()


def given(args: argparse.Namespace, model: type[BaseModel], *paths: str) -> bool:
    """True when the user typed a flag that sets any of `model`'s `paths`."""
    typed = vars(args).get(TYPED, {})
    return any(
        flag.dest in typed
        for flag in flagset(args).flags.values()
        for owner, path in flag.fields
        if owner is model and path in paths
    )


def values(args: argparse.Namespace, model: type[BaseModel]) -> dict[str, Any]:
    """The fields of `model` the user set on the command line, nested as the model nests them."""
    typed = vars(args).get(TYPED, {})
    data: dict[str, Any] = {}
    for flag in flagset(args).flags.values():
        if flag.dest not in typed:
            continue
        for owner, path in flag.fields:
            if owner is model:
                _put(data, path, getattr(args, flag.dest))
    return data


def _put(data: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    node = data
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value


def request(
    model: type[ModelT], args: argparse.Namespace, extra: Mapping[str, Any] | None = None
) -> ModelT:
    """`model` validated from the flags the user typed, plus `extra` (dotted paths the command
    decides, e.g. constraints.max_gpus). A failure is a ToolInputError naming the flag."""
    data = values(args, model)
    for path, value in (extra or {}).items():
        _put(data, path, value)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        path, problem, _ = field_problems(exc, model)[0]
        original = (exc.errors()[0].get("ctx") or {}).get("error")
        allowed_text = original.allowed if isinstance(original, ToolInputError) else None
        suggestions = original.suggestions if isinstance(original, ToolInputError) else ()
        error = ToolInputError(path or model.__name__, problem, allowed_text, suggestions)
        raise named(error, args, model) from None


def named(
    error: ToolInputError, args: argparse.Namespace, model: type[BaseModel] | None = None
) -> ToolInputError:
    """`error` (about a model field, e.g. `batch` or `constraints.max_gpus`) restated for the
    command line: the option the user typed (else the flag's first name), the value as typed,
    and what the flag allows. Errors that name no flag-set field are returned unchanged."""
    flag = flagset(args).for_field(error.field, model)
    if flag is None:
        return error
    name, raw = vars(args).get(TYPED, {}).get(flag.dest, (flag.display, None))
    problem = error.problem
    if raw is not None and flag.kind != "bool" and not _quotes(problem, raw):
        problem = f"{_short(raw)!r} rejected: {problem}"
    # A tool's own error says what is allowed for this case (the divisors of 32 heads); a bound
    # or type error from validation says nothing, so the flag's range is stated.
    return ToolInputError(name, problem, error.allowed or allowed(flag), error.suggestions)


def _quotes(problem: str, raw: str) -> bool:
    """True when the problem already shows the value typed ('-7B' is not…, 3 does not divide…)."""
    if len(raw) > 60:
        return raw[:60] in problem
    return (
        repr(raw) in problem
        or re.search(rf"(?<![\w.]){re.escape(raw)}(?![\w.])", problem) is not None
    )


def _short(raw: str) -> str:
    """The value as typed, cut for a one-line message."""
    return raw if len(raw) <= 60 else raw[:59] + "…"
