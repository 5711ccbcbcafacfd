"""make_engine: LLM engine when an endpoint is configured, offline otherwise."""

from __future__ import annotations

from assistant.config import Settings
from assistant.engines import make_engine


def test_endpoint_and_model_give_llm_engine() -> None:
    eng = make_engine(Settings(base_url="http://localhost:8080/v1", model="m"), env={})
    assert eng.mode == "llm" and "localhost:8080" in eng.label


def test_nothing_configured_gives_offline_engine() -> None:
    # The offline engine is built now: a missing one must fail here, not skip silently.
    from assistant.offline.engine import OfflineEngine

    engine = make_engine(Settings(), env={})
    assert isinstance(engine, OfflineEngine) and engine.mode == "offline"


def test_llm_precompute_planner_refines_the_previous_workload_on_follow_ups() -> None:
    from assistant.conversation import Conversation
    from assistant.llm.planner import offline_planner

    conversation = Conversation()
    conversation.add({"role": "user", "content": "serve Llama 3.1 70B on an H100 for 40 users"})
    first = dict(offline_planner(conversation.messages[-1]["content"], conversation))
    # The pre-computation is one `size` call: what the offline engine runs.
    assert list(first) == ["size"] and first["size"]["workload"]["model"] == "llama-3.1-70b"
    conversation.add({"role": "assistant", "content": "..."})
    conversation.add({"role": "user", "content": "what about 8-bit?"})
    second = dict(offline_planner("what about 8-bit?", conversation))
    # The follow-up names neither model nor GPU: both come from the previous turn.
    assert second["size"]["workload"]["model"] == "llama-3.1-70b"
    assert [c["gpu"] for c in second["size"]["configurations"]] == ["h100-sxm"]
    assert second["size"]["workload"]["weights"] == "int8"
