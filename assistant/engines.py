"""Pick the engine for the settings: the LLM engine when an endpoint is configured, else offline."""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping

from assistant.config import Settings
from assistant.engine_base import Engine


def make_engine(config: Settings, env: Mapping[str, str] | None = None) -> Engine:
    """`LlmEngine` when `config` names a usable endpoint and model, else the offline engine.

    Both are imported lazily: the offline path never loads openai, the LLM path never loads
    the offline engine's UI-free renderer unless it needs it.
    """
    environ = dict(os.environ if env is None else env)
    if config.llm_configured(environ):
        from assistant.llm import LlmEngine

        return LlmEngine(config, env=environ)
    return offline_engine()


def offline_engine() -> Engine:
    """The offline engine (the parser, the tools and the answer templates; `ask --offline`)."""
    offline = importlib.import_module("assistant.offline.engine")
    engine: Engine = offline.OfflineEngine()
    return engine
