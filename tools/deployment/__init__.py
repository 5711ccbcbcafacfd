"""Deployment questions beyond the memory fit (issue 30 items 5-7): each serving engine's own
KV-pool rule and launch line (`engines`: `plan_engine`); buying GPUs against renting them, power
and energy per token (`buy_vs_rent`)."""

from tools.deployment.buy_vs_rent import BuyOptions, BuyVsRent, BuyVsRentRequest, buy_vs_rent
from tools.deployment.engine_rules import RULES, ServeEngine, sglang_default_fraction
from tools.deployment.engines import EnginePlan, EngineRequest, plan_engine

__all__ = [
    "RULES",
    "BuyOptions",
    "BuyVsRent",
    "BuyVsRentRequest",
    "EnginePlan",
    "EngineRequest",
    "ServeEngine",
    "buy_vs_rent",
    "plan_engine",
    "sglang_default_fraction",
]
