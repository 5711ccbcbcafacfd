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

from assistant.mcp.compact import (
    DETAIL,
    DETAIL_LEVELS,
    detail_property,
    error_structured,
    failed_report,
    structured,
    summarised,
)
from assistant.mcp.resources import MIME_TYPE, RESOURCES, read_resource
from assistant.mcp.text import render_result, verdict_lines
from assistant.registry import Registry, ToolOutcome, ToolSpec, default_registry, error_result
from assistant.schemas import compact_schema
from tools.sizing import SizingReport

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


def input_schema(spec: ToolSpec) -> dict[str, Any]:
    """A tool's MCP input schema: the chat's compact schema, plus `detail` for the tools whose
    results are summarised by default (`assistant.mcp.compact`)."""
    schema = compact_schema(spec.input_model, hidden=spec.hidden)
    if summarised(spec.name):
        schema = {
            **schema,
            "properties": {**schema.get("properties", {}), DETAIL: detail_property()},
        }
    return schema


def tool_definitions(registry: Registry) -> list[types.Tool]:
    """The MCP tool list: one entry per registered tool, schema from its input model."""
    read_only = types.ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    return [
        types.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=input_schema(spec),
            annotations=read_only,
        )
        for spec in registry.specs.values()
    ]


def call_result(outcome: ToolOutcome, full: bool = False) -> types.CallToolResult:
    """A registry outcome as an MCP result: the text first (verdict first), the structured
    content compact unless `full` (`assistant.mcp.compact`). A sizing report with a name that
    was not found is an error result with the closest names."""
    value = outcome.value
    failed = failed_report(value) if isinstance(value, SizingReport) else None
    if failed is not None:
        return types.CallToolResult(
            content=[types.TextContent(text=render_result(failed))],
            structured_content=error_structured(failed),
            is_error=True,
        )
    compact = not full and not outcome.is_error and summarised(outcome.name)
    return types.CallToolResult(
        content=[types.TextContent(text=render_result(value, summarised=compact))],
        structured_content=structured(outcome, full, verdict_lines(value)),
        is_error=outcome.is_error,
    )


def _detail(arguments: dict[str, Any], tool: str) -> tuple[bool, ToolOutcome | None]:
    """(full result?, an error outcome for a bad `detail`), `detail` taken out of
    `arguments` (the tool's own input model does not have it)."""
    if DETAIL not in arguments or not summarised(tool):
        return False, None
    level = arguments.pop(DETAIL)
    if level in DETAIL_LEVELS:
        return level == "full", None
    bad = error_result(
        f"{str(level)[:40]!r} is not a detail level",
        field=DETAIL,
        allowed=" or ".join(DETAIL_LEVELS),
    )
    return False, ToolOutcome(tool, arguments, bad, is_error=True)


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
        full, refused = _detail(arguments, params.name)
        if refused is not None:
            return call_result(refused)
        with anyio.move_on_after(timeout_s()):
            outcome = await anyio.to_thread.run_sync(
                tools.call, params.name, arguments, abandon_on_cancel=True
            )
            return call_result(outcome, full)
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
    """Serve over this process's stdin/stdout until the client closes them; every line is read
    through `assistant.mcp.wire` (a malformed request is answered, never dropped)."""
    from assistant.mcp.wire import stdio_wire

    server = build_server(registry)
    async with stdio_wire() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
