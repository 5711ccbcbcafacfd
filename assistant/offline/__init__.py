"""The offline engine: plain language → the same tools as the LLM engine → a templated answer.

`parse_workload` reads a request, `plan_tool_calls` maps it to tool calls, `OfflineEngine`
runs a turn. The LLM engine reuses the parser and planner to pre-compute tool results.
"""

from assistant.offline.engine import OfflineEngine, previous_workload
from assistant.offline.parsed import GpuMention, ParsedWorkload
from assistant.offline.parser import parse_workload
from assistant.offline.planner import PlannedCall, plan_cost_call, plan_tool_calls

__all__ = [
    "GpuMention",
    "OfflineEngine",
    "ParsedWorkload",
    "PlannedCall",
    "parse_workload",
    "plan_cost_call",
    "plan_tool_calls",
    "previous_workload",
]
