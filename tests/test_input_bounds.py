"""Every number a tool, a file or a flag can send is bounded and finite (issue 21, item 1).

A property over all input models, so a field added later without bounds fails here: the input
models are every pydantic model in `tools/` that forbids unknown fields (the project's mark of
an input: requests, constraints, architectures, catalog and price-file entries), every
registered tool's input model and every model a command's flags come from, with the models
nested in them.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import types
import typing
from typing import Any, Literal

import annotated_types
import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo

import tools
from assistant import cli
from assistant.commands._flags import FLAGSET, FlagSet
from assistant.registry import default_registry
from tools import limits

# Numeric fields bounded by a validator instead of Field metadata, with where the bound lives.
BOUNDED_ELSEWHERE = {
    "params": "tools.generic_model.parse_param_count: 10M to 20T parameters",
    "ram_options_bytes": "tools.catalog.UnifiedMemory._sane_options: 1 GB to 4 TB each",
    "ram_options_unconfirmed_bytes": "tools.catalog.UnifiedMemory._sane_options: 1 GB to 4 TB",
}


def _nested_models(annotation: Any) -> list[type[BaseModel]]:
    out: list[type[BaseModel]] = []
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        out.append(annotation)
    for arg in typing.get_args(annotation):
        out += _nested_models(arg)
    return out


def _flag_models(command: str) -> list[type[BaseModel]]:
    """The models a command's flags are generated from (assistant/commands/_flags.py)."""
    parser = cli.build_parser(only=command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    flags = sub.choices[command]._defaults.get(FLAGSET)
    return flags.models() if isinstance(flags, FlagSet) else []


def input_models() -> list[type[BaseModel]]:
    found: set[type[BaseModel]] = set()
    for info in pkgutil.walk_packages(tools.__path__, "tools."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseModel)
                and obj.__module__ == module.__name__
                and obj.model_config.get("extra") == "forbid"
            ):
                found.add(obj)
    pending = [spec.input_model for spec in default_registry().specs.values()]
    pending += [m for command in cli.COMMANDS for m in _flag_models(command)]
    pending += list(found)
    while pending:
        model = pending.pop()
        found.add(model)
        for field in model.model_fields.values():
            pending += [m for m in _nested_models(field.annotation) if m not in found]
    return sorted(found, key=lambda m: f"{m.__module__}.{m.__qualname__}")


def _numeric(annotation: Any) -> bool:
    """int or float somewhere in the annotation (not bool, not a Literal's values)."""
    if annotation in (int, float):
        return True
    origin = typing.get_origin(annotation)
    if origin is Literal or annotation is bool:
        return False
    if origin in (typing.Union, types.UnionType, list, tuple, typing.Annotated):
        return any(_numeric(arg) for arg in typing.get_args(annotation))
    return False


def _has_float(annotation: Any) -> bool:
    if annotation is float:
        return True
    return any(_has_float(arg) for arg in typing.get_args(annotation))


def _bounds(info: FieldInfo) -> tuple[bool, bool]:
    lower = any(isinstance(m, annotated_types.Ge | annotated_types.Gt) for m in info.metadata)
    upper = any(isinstance(m, annotated_types.Le | annotated_types.Lt) for m in info.metadata)
    return lower, upper


MODELS = input_models()
NUMERIC_FIELDS = [
    pytest.param(model, name, id=f"{model.__name__}.{name}")
    for model in MODELS
    for name, info in model.model_fields.items()
    if _numeric(info.annotation)
]


def test_the_walk_finds_the_tool_inputs_and_the_file_inputs() -> None:
    names = {m.__name__ for m in MODELS}
    assert {
        "MemoryRequest",
        "Workload",
        "Constraints",
        "CostRequest",
        "CostOption",
        "ServingCostInput",
        "UsageProfile",
        "PriceFilter",
        "TrainingCostInput",
        "Architecture",
        "MoE",
        "MLA",
        "PriceEntry",
        "ApiPriceEntry",
        "GpuSpec",
        "FindModelInput",
        "ListGpusInput",
        "CostCommandOptions",
    } <= names
    assert len(NUMERIC_FIELDS) > 80


@pytest.mark.parametrize(("model", "name"), NUMERIC_FIELDS)
def test_every_numeric_input_field_has_both_bounds(model: type[BaseModel], name: str) -> None:
    info = model.model_fields[name]
    if name in BOUNDED_ELSEWHERE:
        return
    lower, upper = _bounds(info)
    assert lower and upper, (
        f"{model.__name__}.{name} needs ge/gt and le/lt from tools.limits (a bound from the "
        "domain, with its reason); unbounded numbers reach the calculators as 1e308 or 1e12"
    )


@pytest.mark.parametrize(
    "model",
    [m for m in MODELS if any(_has_float(f.annotation) for f in m.model_fields.values())],
    ids=lambda m: m.__name__,
)
def test_float_inputs_refuse_nan_and_infinity(model: type[BaseModel]) -> None:
    assert model.model_config.get("allow_inf_nan") is False, (
        f"{model.__name__} must merge tools.limits.FINITE into its model_config"
    )


def test_the_same_concept_has_the_same_bound_everywhere() -> None:
    """Users and sequences, contexts and GPU counts: one constant each, so the flags built from
    these fields (memory --users, recommend --users) and the registry agree on what is allowed."""
    from tools.memory import MemoryRequest
    from tools.workload import Constraints, Workload

    def upper(model: type[BaseModel], name: str) -> object:
        meta = model.model_fields[name].metadata
        return next(m.le for m in meta if isinstance(m, annotated_types.Le))

    assert upper(MemoryRequest, "batch") == upper(Workload, "users") == limits.MAX_SEQUENCES
    assert upper(MemoryRequest, "context") == upper(Workload, "context")
    assert upper(Workload, "context") == limits.MAX_CONTEXT_TOKENS == 2**24
    assert upper(MemoryRequest, "gpus") == upper(Constraints, "max_gpus") == limits.MAX_GPUS


def test_bounds_admit_every_real_model_and_gpu() -> None:
    """The catalog (21+ published models, 24+ GPUs) validates under the bounds, and the largest
    published context (Llama 4 Scout, 10,485,760 tokens) fits the context bound."""
    from tools.catalog import get_catalog

    catalog = get_catalog()
    assert catalog.models and catalog.gpus
    assert limits.MAX_CONTEXT_TOKENS >= 10_485_760


# --- file inputs: a config.json can hold anything -----------------------------------------------

_HOSTILE_CONFIG_VALUES = (0, -1, 10**12, 1e400, 4096.5, "32", "x", None, True, [], {"a": 1})


def test_a_hostile_config_json_is_an_error_naming_its_key_never_a_crash() -> None:
    """Every key of real configs (dense, MoE, MLA families) set to values a broken or hostile
    file holds: a ToolInputError naming a config field, never TypeError, ZeroDivisionError, a
    raw pydantic error or a 10^12-layer model that runs out of memory."""
    from tests.test_catalog import HF_CONFIGS
    from tools.errors import ToolInputError
    from tools.hf_config import architecture_from_config

    tried = 0
    for config in HF_CONFIGS.values():
        for key in config:
            if key == "model_type":
                continue
            for value in _HOSTILE_CONFIG_VALUES:
                tried += 1
                try:
                    architecture_from_config({**config, key: value})
                except ToolInputError as exc:
                    assert exc.field.startswith("config"), (key, value, exc.field)
    assert tried > 300
