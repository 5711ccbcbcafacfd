"""Deployment questions beyond the memory fit (issue 30 items 5-7): each serving engine's own
KV-pool rule and launch line (`engines`: `plan_engine`)."""

from tools.deployment.engine_rules import RULES, ServeEngine, sglang_default_fraction
from tools.deployment.engines import EnginePlan, EngineRequest, plan_engine

__all__ = [
    "RULES",
    "EnginePlan",
    "EngineRequest",
    "ServeEngine",
    "plan_engine",
    "sglang_default_fraction",
]
