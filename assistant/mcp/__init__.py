"""`gpu-sizer mcp`: the sizing tools for coding agents, over the Model Context Protocol (stdio).

Built on the official `mcp` SDK's low-level server, over the same tool registry the chat uses
(`assistant.registry.default_registry`), generically: every registered tool becomes an MCP
tool with its input model's schema (the compact schema the chat offers) and its calls go
through `Registry.call`, so validation, error results and lean JSON results are the chat's.
A tool added to the registry appears here with no code of its own.

One job a module: `server` (the MCP server: tools, resources, stdio), `text` (the short
text rendering of a result, verdict first; the structured content is the tool's JSON),
`resources` (catalog listings: models, GPUs, prices in force, hosted API prices).

No network and no API key: the tools are the offline engine's.
"""
