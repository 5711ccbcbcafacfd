"""The offline engine: plain language → the same tools as the LLM engine → a templated answer.

`parse_workload` reads a request, `plan_tool_calls` maps it to tool calls, `OfflineEngine`
runs a turn. The LLM engine reuses the parser and planner to pre-compute tool results.
"""

from assistant.offline.parsed import GpuMention, ParsedWorkload
from assistant.offline.parser import parse_workload

__all__ = ["GpuMention", "ParsedWorkload", "parse_workload"]
