"""Pick the engine for the settings: the LLM engine when an endpoint is configured, else offline."""

from __future__ import annotations

import os
from collections.abc import Mapping

from assistant.config import Settings
from assistant.engine_base import Engine


def make_engine(config: Settings, env: Mapping[str, str] | None = None) -> Engine:
    """`LlmEngine` when `config` names a usable endpoint and model, else the offline engine.

    Each is imported where it is chosen (the offline path never loads openai), by a plain
    import: an engine that cannot be imported is an error, never a quiet switch to the other.
    """
    environ = dict(os.environ if env is None else env)
    if config.llm_configured(environ):
        from assistant.llm import LlmEngine

        return LlmEngine(config, env=environ)
    return offline_engine()


def offline_engine() -> Engine:
    """The offline engine (the parser, the tools and the answer templates; `ask --offline`)."""
    from assistant.offline.engine import OfflineEngine

    return OfflineEngine()
