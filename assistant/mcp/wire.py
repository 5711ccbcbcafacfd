"""The MCP server's stdio wire: every line a client sends is served or answered, never dropped.

The SDK's stdio transport validates each line as a JSON-RPC message and, when that fails, logs
the error and sends nothing: a client whose request held an integer of 5,000 digits, a lone
surrogate (`"\\ud800"`), 100,000 nested arrays, no `"jsonrpc"`, a numeric method or string
params waited for a reply forever. Here every line is read first by `read_line`:

- it is parsed with Python's json, bounded (`tools.nesting.MAX_DEPTH` levels, a line at most
  `MAX_LINE_BYTES`), NaN/Infinity and integers of more than 400 digits kept as text and lone
  surrogates replaced by U+FFFD — so a tool then refuses such a value naming its field
  ("users: Input should be a valid integer"), as the chat's registry does for a model's
  arguments (`assistant.guard.loads_arguments`);
- what is then a valid JSON-RPC message goes on to the SDK, re-encoded;
- a request that is not (anything with an `id` and a `method`) gets a JSON-RPC error at once:
  -32700 (parse error) for text that is not JSON, -32600 (invalid request) for the rest, with
  the request's id — recovered by a scan of the top-level object when the line cannot be
  parsed (too deep, cut) — or `null` when there is none to recover (JSON-RPC 2.0, section 5);
- a broken notification (no `id`) is noted on stderr only: JSON-RPC never answers one.

The server keeps serving after each of them (tests/test_mcp_wire.py).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from tools.nesting import MAX_DEPTH, NestingError, loads_json

MAX_LINE_BYTES = 16 * 2**20
"""Longest message read (16 MiB): a tools/call is at most the registry's 100,000-character
arguments plus its envelope; a longer line is answered with an error, never held in memory."""

_MAX_INT_DIGITS = 400
"""Integers longer than this stay text (Python refuses int() of 4,300+ digits; no MCP field
holds a number anywhere near 400 digits)."""

_SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate in a parsed string (json pairs valid ones into one character)."""


class _LongInt(str):
    """An integer literal too long to be a number anything here reads: kept as its text."""


def _long_int(text: str) -> int | str:
    return int(text) if len(text) <= _MAX_INT_DIGITS else _LongInt(text)


def _finite(text: str) -> float | str:
    value = float(text)
    return value if math.isfinite(value) else text  # 1e400 → text, refused by validation


def _constant(literal: str) -> str:
    return literal  # NaN, Infinity, -Infinity stay text: validation names the field


def _loads(text: str) -> Any:
    return loads_json(
        text,
        limit=MAX_DEPTH,
        parse_constant=_constant,
        parse_float=_finite,
        parse_int=_long_int,
    )


@dataclass(frozen=True)
class Read:
    """What one line is: a message to serve (`line`, re-encoded), an error to answer at once
    (`reply`), or neither (a broken notification, `note` says why)."""

    line: str | None = None
    reply: types.JSONRPCError | None = None
    note: str | None = None


def _error(request_id: int | str | None, code: int, message: str) -> Read:
    return Read(
        reply=types.JSONRPCError(
            jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
        )
    )


def _valid_id(value: Any) -> bool:
    """A JSON-RPC id the SDK can answer: a string, or an integer (not a bool, not a float)."""
    if isinstance(value, _LongInt | bool):
        return False
    return isinstance(value, int | str)


def read_line(raw: str) -> Read:
    """One line from the client, read (see the module docstring)."""
    text = raw.strip()
    if not text:
        return Read(note="blank line")
    try:
        value = _loads(text)
    except NestingError as exc:
        return _error(scan_id(text), types.INVALID_REQUEST, f"Invalid request: {exc}")
    except ValueError as exc:  # json.JSONDecodeError: not JSON at all
        reason = getattr(exc, "msg", str(exc))
        return _error(scan_id(text), types.PARSE_ERROR, f"Parse error: {reason}")
    if not isinstance(value, dict):
        kind = "an array (batches are not supported)" if isinstance(value, list) else "not one"
        return _error(
            None, types.INVALID_REQUEST, f"Invalid request: a message is an object, {kind}"
        )
    encoded = _SURROGATE.sub("\ufffd", json.dumps(value, ensure_ascii=False, allow_nan=False))
    request_id = value.get("id")
    has_id = "id" in value and request_id is not None
    # A request is what is not a response: a message with an id and no result or error asks
    # for something, even when its method is missing.
    request = "method" in value or not ("result" in value or "error" in value)
    if has_id and not _valid_id(request_id):
        if not request:
            return Read(note="a response with an id that is not a string or an integer")
        return _error(
            None,
            types.INVALID_REQUEST,
            "Invalid request: the id must be a string or an integer of at most "
            f"{_MAX_INT_DIGITS} digits",
        )
    try:
        types.jsonrpc_message_adapter.validate_json(encoded, by_name=False)
    except ValidationError as exc:
        problem = _problem(value, exc)
        if has_id and request:
            return _error(request_id, types.INVALID_REQUEST, f"Invalid request: {problem}")
        what = "a response" if request is False else "a notification"
        return Read(note=f"{what} dropped ({problem}): JSON-RPC answers neither")
    return Read(line=encoded)


def _problem(value: dict[str, Any], exc: ValidationError) -> str:
    """What is wrong with a message, in the envelope's own terms."""
    if value.get("jsonrpc") != "2.0":
        return "'jsonrpc' must be \"2.0\""
    if "method" not in value and "result" not in value and "error" not in value:
        return "'method' is missing"
    if "method" in value and not isinstance(value["method"], str):
        return "'method' must be a string"
    if value.get("params") is not None and not isinstance(value["params"], dict):
        return "'params' must be an object"
    err = exc.errors()[0]
    where = ".".join(str(part) for part in err["loc"][1:]) or "message"
    return f"{where}: {err['msg']}"


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]|[^\s\[\]{}:,"]+')


def scan_id(text: str) -> int | str | None:
    """The `id` of a top-level JSON object that cannot be parsed whole (nested too deep, cut
    short): the value after the key "id" at depth 1, when it is a string or an integer; None
    otherwise. A token scan, no recursion."""
    depth = 0
    expect_key = False
    key: str | None = None
    tokens = _TOKEN.finditer(text)
    for match in tokens:
        token = match.group()
        if token in "{[":
            depth += 1
            expect_key = token == "{" and depth == 1
            continue
        if token in "}]":
            depth -= 1
            continue
        if depth != 1:
            continue
        if token == ",":
            expect_key = True
        elif token == ":":
            expect_key = False
        elif expect_key and token.startswith('"'):
            key = token
        elif key == '"id"':
            try:
                found = json.loads(token, parse_int=_long_int)
            except ValueError:
                return None
            return found if _valid_id(found) else None
        else:
            key = None
    return None


async def _lines(source: BinaryIO) -> AsyncIterator[str]:
    """Lines of `source`, each at most `MAX_LINE_BYTES` (a longer one comes as one line
    holding only what `read_line` answers for it), read in a worker thread."""
    while True:
        chunk = await anyio.to_thread.run_sync(source.readline, MAX_LINE_BYTES + 1)
        if not chunk:
            return
        if len(chunk) > MAX_LINE_BYTES and not chunk.endswith(b"\n"):
            head = chunk[:4096].decode("utf-8", errors="replace")
            while chunk and not chunk.endswith(b"\n"):  # the rest of the line, dropped
                chunk = await anyio.to_thread.run_sync(source.readline, MAX_LINE_BYTES)
            yield _TOO_LONG + head
            continue
        yield chunk.decode("utf-8", errors="replace")


_TOO_LONG = "\x00too-long\x00"
"""Marks a line cut at `MAX_LINE_BYTES` (a NUL never starts a JSON message)."""


class _Filtered:
    """The async file of lines the SDK's transport reads: only valid messages pass; the rest
    are answered through `replies` (the server's own write stream, set once it exists)."""

    def __init__(self, source: BinaryIO) -> None:
        self.source = source
        self.replies: Any = None
        self.ready = anyio.Event()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._serve()

    async def _serve(self) -> AsyncIterator[str]:
        async for raw in _lines(self.source):
            if raw.startswith(_TOO_LONG):
                head = raw.removeprefix(_TOO_LONG)
                read = _error(
                    scan_id(head),
                    types.INVALID_REQUEST,
                    f"Invalid request: a message is at most {MAX_LINE_BYTES:,} bytes",
                )
            else:
                read = read_line(raw)
            if read.line is not None:
                yield read.line + "\n"
            elif read.reply is not None:
                await self.ready.wait()
                await self.replies.send(SessionMessage(read.reply))
            elif read.note and read.note != "blank line":
                print(f"gpu-sizer mcp: {read.note}", file=sys.stderr)


@asynccontextmanager
async def stdio_wire() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio transport (stdout claimed, so stray output misses the wire) reading
    stdin through `read_line`: yields the (read, write) streams `Server.run` takes."""
    filtered = _Filtered(sys.stdin.buffer)
    async with stdio_server(stdin=cast(Any, filtered)) as (read_stream, write_stream):
        filtered.replies = write_stream
        filtered.ready.set()
        yield read_stream, write_stream
