"""`gpu-sizer mcp`: serve the sizing tools to coding agents over MCP on stdin/stdout.

Meant to be started by an MCP client (Claude Code, Claude Desktop, Cursor, ...; the README has
their configuration). It needs no network and no API key: the tools are the offline engine's.
stdout carries the protocol only; diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subparsers: Any, help_text: str) -> None:
    """Register the `mcp` sub-command (no options: a client starts it)."""
    subparsers.add_parser("mcp", help=help_text, description=help_text)


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
