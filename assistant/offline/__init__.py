"""The offline engine: plain language → the same tools as the LLM engine → a templated answer.

`parser.parse_workload` reads a request into the typed workload (`parsed.ParsedWorkload`),
`planner.plan_tool_calls` maps it to tool calls (one `size` call, `sizing_arguments`, plus
llama.cpp / Ollama plans), `engine.OfflineEngine` runs a turn. The LLM engine reuses the parser
and planner to pre-compute the same calls.

This package's own module imports nothing: the reading and presentation layers read the typed
workload (`assistant.reading.parsed`) and the engine imports those layers, so an eager import
here would make every `assistant.offline.*` import load the engine first (an import cycle, and
start-up cost for commands that only read the workload).
"""
