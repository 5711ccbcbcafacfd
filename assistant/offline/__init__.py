"""The offline engine: plain language → the same tools as the LLM engine → a templated answer.

`parse_workload` reads a request, `plan_tool_calls` maps it to tool calls (one `size` call,
`sizing_arguments`, plus llama.cpp / Ollama plans), `OfflineEngine` runs a turn. The LLM engine
reuses the parser and planner to pre-compute the same calls.
"""

# tools.memory before the parser: tools.model_sources (which the parser reads) and tools.memory
# import each other at import time, and only this order initialises both.
import tools.memory  # noqa: F401  # isort: split
from assistant.offline.engine import OfflineEngine, previous_workload
from assistant.offline.parsed import GpuMention, ParsedWorkload
from assistant.offline.parser import parse_workload
from assistant.offline.planner import PlannedCall, plan_tool_calls, sizing_arguments

__all__ = [
    "GpuMention",
    "OfflineEngine",
    "ParsedWorkload",
    "PlannedCall",
    "parse_workload",
    "plan_tool_calls",
    "previous_workload",
    "sizing_arguments",
]
