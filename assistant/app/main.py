"""`gpu-sizer` with no arguments: load settings, pick the engine, run the chat app."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from typing import Any, cast

from assistant.config import Settings, load_config
from assistant.engine_base import Engine
from tools.errors import ToolInputError


class EngineUnavailable(RuntimeError):
    """Neither the engine factory nor the offline engine could be imported."""


def build_engine(settings: Settings) -> Engine:
    """The engine for `settings`: `assistant.engines.make_engine` (LLM when an endpoint is
    configured, else offline); falls back to the offline engine when that module is absent."""
    try:
        engines = importlib.import_module("assistant.engines")
    except ModuleNotFoundError:
        engines = None
    if engines is not None:
        return cast(Engine, engines.make_engine(settings))
    offline_engine = getattr(importlib.import_module("assistant.offline"), "OfflineEngine", None)
    if offline_engine is None:
        raise EngineUnavailable(
            "no engine is installed: assistant.engines and assistant.offline.OfflineEngine are "
            "both missing"
        )
    return cast(Engine, offline_engine())


def run_app(overrides: Mapping[str, Any] | None = None) -> int:
    """Open the chat app; `overrides` are CLI flags (`--base-url`, `--model`, `--offline`...).
    Returns the process exit code (2: invalid config file or flag)."""
    try:
        settings = load_config(overrides)
        engine = build_engine(settings)
    except ToolInputError as exc:
        print(f"gpu-sizer: error: {exc.message}", file=sys.stderr)
        return 2
    except EngineUnavailable as exc:
        print(f"gpu-sizer: error: {exc}", file=sys.stderr)
        return 1
    from assistant.app.app import GpuSizerApp

    GpuSizerApp(engine, settings, engine_factory=build_engine).run()
    return 0
