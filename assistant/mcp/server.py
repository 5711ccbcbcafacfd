"""The MCP server: every registry tool as an MCP tool, the catalog listings as resources.

`build_server(registry)` is generic over `Registry.specs`: a tool's MCP name, description and
input schema are its `ToolSpec`'s (the compact schema generated from its pydantic input
model, the one the chat offers), and a call is `Registry.call(name, arguments)`: the same
validation, the same error results (returned with `isError`, so the agent can fix its
arguments), the same lean JSON, which is the structured content; `text.render_result` adds
the short text with the verdict first.

Calls run in a worker thread (a recommendation can take a fraction of a second; the server
keeps answering pings meanwhile) and are bounded by `TOOL_TIMEOUT_S`.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from assistant.mcp.resources import MIME_TYPE, RESOURCES, read_resource
from assistant.mcp.text import render_result
from assistant.registry import Registry, ToolOutcome, default_registry, error_result
from assistant.schemas import compact_schema

SERVER_NAME = "gpu-sizer"
TOOL_TIMEOUT_S = 120.0
"""A call still running after this long gets an error result (the thread finishes unseen)."""

INSTRUCTIONS = (
    "gpu-sizer sizes GPU hardware for LLM workloads with deterministic, sourced calculators: "
    "call its tools instead of estimating memory, speed or cost yourself, and quote their "
    "figures with their units, sources and as_of dates. Bytes are reported as *_GB (10^9 "
    "bytes). An error result names the field to fix and what is allowed: correct the "
    "arguments and call again. Catalog listings are resources (gpu-sizer://catalog/...)."
)


def timeout_s() -> float:
    """The per-call limit (a function, so tests can shorten it)."""
    return TOOL_TIMEOUT_S


def _version() -> str:
    try:
        return importlib.metadata.version("gpu-sizer")
    except importlib.metadata.PackageNotFoundError:
        return "0"


def tool_definitions(registry: Registry) -> list[types.Tool]:
    """The MCP tool list: one entry per registered tool, schema from its input model."""
    read_only = types.ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    return [
        types.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=compact_schema(spec.input_model, hidden=spec.hidden),
            annotations=read_only,
        )
        for spec in registry.specs.values()
    ]


def call_result(outcome: ToolOutcome) -> types.CallToolResult:
    """A registry outcome as an MCP result: the JSON as structured content, the text first."""
    text = render_result(outcome.value)
    return types.CallToolResult(
        content=[types.TextContent(text=text)],
        structured_content=outcome.result,
        is_error=outcome.is_error,
    )


def build_server(registry: Registry | None = None) -> Server[Any]:
    """The gpu-sizer MCP server over `registry` (the chat's default registry if None)."""
    tools = registry or default_registry()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_definitions(tools))

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments: dict[str, Any] = dict(params.arguments or {})
        with anyio.move_on_after(timeout_s()):
            outcome = await anyio.to_thread.run_sync(
                tools.call, params.name, arguments, abandon_on_cancel=True
            )
            return call_result(outcome)
        timed_out = error_result(
            f"the calculation took longer than {timeout_s():g} s and was abandoned; "
            "narrow the request (fewer GPUs, one objective) and call again",
            kind="timeout",
        )
        return call_result(ToolOutcome(params.name, arguments, timed_out, is_error=True))

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=r.uri, name=r.name, description=r.description, mime_type=MIME_TYPE
                )
                for r in RESOURCES
            ]
        )

    async def read(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        text = await anyio.to_thread.run_sync(read_resource, uri)
        if text is None:
            known = ", ".join(r.uri for r in RESOURCES)
            raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri!r}; resources: {known}")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=MIME_TYPE, text=text)]
        )

    return Server(
        SERVER_NAME,
        version=_version(),
        title="gpu-sizer: GPU sizing for LLM workloads",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read,
    )


async def serve_stdio(registry: Registry | None = None) -> None:
    """Serve over this process's stdin/stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    server = build_server(registry)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
