"""Deployment questions beyond the memory fit (issue 30 items 5-7): each serving engine's own
KV-pool rule and launch line (`engines`: `plan_engine`); buying GPUs against renting them, power
and energy per token (`buy_vs_rent`); speculative decoding, prefix caching and a prefill/decode
split (`speedups`: `plan_speedups`)."""

from tools.deployment.buy_vs_rent import BuyOptions, BuyVsRent, BuyVsRentRequest, buy_vs_rent
from tools.deployment.engine_rules import RULES, ServeEngine, sglang_default_fraction
from tools.deployment.engines import EnginePlan, EngineRequest, plan_engine
from tools.deployment.speedups import SpeedupOptions, SpeedupRequest, Speedups, plan_speedups

__all__ = [
    "RULES",
    "BuyOptions",
    "BuyVsRent",
    "BuyVsRentRequest",
    "EnginePlan",
    "EngineRequest",
    "ServeEngine",
    "SpeedupOptions",
    "SpeedupRequest",
    "Speedups",
    "buy_vs_rent",
    "plan_engine",
    "plan_speedups",
    "sglang_default_fraction",
]
