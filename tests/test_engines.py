"""make_engine: LLM engine when an endpoint is configured, offline otherwise."""

from __future__ import annotations

import pytest

from assistant.config import Settings
from assistant.engines import make_engine


def test_endpoint_and_model_give_llm_engine() -> None:
    eng = make_engine(Settings(base_url="http://localhost:8080/v1", model="m"), env={})
    assert eng.mode == "llm" and "localhost:8080" in eng.label


def test_nothing_configured_gives_offline_engine() -> None:
    offline = pytest.importorskip("assistant.offline")
    if not hasattr(offline, "OfflineEngine"):
        pytest.skip("assistant.offline.OfflineEngine not written yet")
    assert make_engine(Settings(), env={}).mode == "offline"
