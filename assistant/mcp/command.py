"""`gpu-sizer mcp`: serve the sizing tools to coding agents over MCP on stdin/stdout (the
subcommand the dispatcher, `assistant.cli`, hands to this surface).

Meant to be started by an MCP client (Claude Code, Claude Desktop, Cursor, ...; the README has
their configuration). It needs no network and no API key: the tools are the offline engine's.
stdout carries the protocol only; diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import textwrap
from typing import Any

from assistant.cli_examples import help_with_examples


def tools_text(width: int | None = None) -> str:
    """What `mcp --help` lists: every tool the server offers (the registry's, with their
    descriptions) and the catalog resources, wrapped to the terminal's width."""
    from assistant.mcp.resources import RESOURCES
    from assistant.registry import default_registry

    width = width or max(40, min(shutil.get_terminal_size().columns, 100) - 2)
    specs = list(default_registry().specs.values())
    name_width = max(len(s.name) for s in specs) + 2
    out = ["tools (each a deterministic calculator; read-only, no network):"]
    for spec in specs:
        out += textwrap.wrap(
            " ".join(spec.description.split()),
            width=width,
            initial_indent=f"  {spec.name:<{name_width}}",
            subsequent_indent=" " * (name_width + 2),
            break_long_words=False,
            break_on_hyphens=False,
        )
    out += ["", "resources:"]
    for resource in RESOURCES:
        out += textwrap.wrap(
            resource.description,
            width=width,
            initial_indent=f"  {resource.uri}  ",
            subsequent_indent="    ",
            break_long_words=False,
        )
    return "\n".join(out)


def add_parser(subparsers: Any, help_text: str) -> None:
    """Register the `mcp` sub-command (no options: a client starts it); its help lists the
    tools and resources it serves."""
    subparsers.add_parser(
        "mcp",
        help=help_text,
        description=help_text + ". No network and no API key: the agent does the reasoning, "
        "the tools the arithmetic.",
        **help_with_examples("mcp", tools_text()),
    )


def run(args: argparse.Namespace) -> int:
    """Serve until the client closes the connection; 0 on a clean close."""
    import anyio

    from assistant.mcp.server import serve_stdio

    # stdout is the protocol channel: JSON-RPC lines (a control character in a string arrives
    # escaped, never raw), read by the client, not a terminal. The dispatcher's cleaning
    # wrapper has no binary buffer, so the SDK gets the process's own stdout; the dispatcher
    # puts its wrapper back afterwards. stderr stays cleaned.
    sys.stdout = sys.__stdout__
    anyio.run(serve_stdio)
    return 0
