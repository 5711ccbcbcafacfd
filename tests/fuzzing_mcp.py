"""The reliability suite's MCP half (issue 34, item 5): hostile JSON-RPC lines on the wire of a
real `gpu-sizer mcp` process, and whether every request with an id got its answer.

`wire_cases` builds messages from a seeded `random.Random`: valid requests (ping, tools/list,
resources/list, cheap tool calls) and those broken once — the envelope (no or another
`"jsonrpc"`, a numeric or missing method, string or array params, an id that is a float, a
bool, an object or 5,000 digits), the text (cut short, not JSON, an array, a 100,000-deep
nesting), and the arguments (NaN, Infinity, a 5,000-digit integer, a lone
surrogate, control and bidi characters, wrong types, deep nesting). Each case knows what it
must get back: a response with its id, an error with `"id": null` (no usable id), or nothing
(a notification). `WireServer` runs the server over pipes and reads its replies.
"""

from __future__ import annotations

import json
import os
import random
import select
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

SEED = 34
Expect = Literal["id", "null", "none"]

POLL_S = 0.01
"""How long the pipe stays quiet before what arrived is looked at: replies are waited for
until the ones a batch is owed are in, not for a fixed quiet time after each batch."""
LATE_S = 0.2
"""How long, once every id is answered, the null-id errors a batch is still owed are waited
for, and how long after the last batch any further reply (one nobody asked for) is."""


@dataclass(frozen=True)
class WireCase:
    """One line to send and what must come back: `id` (a response carrying `request_id`),
    `null` (an error with a null id), `none` (no response: a notification)."""

    kind: str
    line: str
    expect: Expect
    request_id: int | str | None = None


def _request(request_id: int | str, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


_CHEAP_CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("find_model", {"name": "llama-3.1-8b"}),
    ("find_gpu", {"name": "H100"}),
    ("list_gpus", {"vendor": "AMD"}),
    ("estimate_memory", {"model": "llama-3.2-1b", "gpu": "l4"}),
    ("plan_local_serving", {"model": "llama-3.2-1b", "gpu": "rtx-4090"}),
)
"""Tool calls that answer in milliseconds: the wire is under test, not the calculators."""

_HOSTILE_ARGUMENTS: tuple[str, ...] = (
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    "9" * 5000,
    '"\\ud800"',
    '"\\udfff\\ud800"',
    '"\\u001b]52;c;aGk=\\u0007\\u001b[2J"',
    '"\\u202e\\u200b"',
    '"' + "x" * 5000 + '"',
    "[]",
    "{}",
    "null",
    "true",
    "-1",
    "[" * 40 + "]" * 40,
    "[" * 100_000 + "]" * 100_000,
)
"""What an argument's value is replaced with (JSON text as sent)."""


def wire_cases(count: int, seed: int = SEED) -> list[WireCase]:
    """`count` cases (see the module docstring), ids unique so every answer is matched."""
    rng = random.Random(seed)
    cases: list[WireCase] = []
    for number in range(count):
        request_id: int | str = 1000 + number if rng.random() < 0.7 else f"req-{number}"
        cases.append(_case(rng, request_id))
    return cases


def _case(rng: random.Random, request_id: int | str) -> WireCase:
    choice = rng.randrange(10)
    if choice == 0:  # valid protocol requests
        method = rng.choice(("ping", "tools/list", "resources/list"))
        return WireCase("valid", json.dumps(_request(request_id, method)), "id", request_id)
    if choice <= 2:  # a tool call whose one argument is hostile
        tool, arguments = rng.choice(_CHEAP_CALLS)
        key = rng.choice([*arguments, "extra"])
        params = {"name": tool, "arguments": {**arguments, key: "__VALUE__"}}
        line = json.dumps(_request(request_id, "tools/call", params))
        value = rng.choice(_HOSTILE_ARGUMENTS)
        line = line.replace('"__VALUE__"', value)
        return WireCase("arguments", line, "id", request_id)
    if choice <= 5:  # the envelope broken
        message = _request(request_id, "tools/call", {"name": "find_gpu", "arguments": {}})
        kind = rng.randrange(7)
        if kind == 0:
            del message["jsonrpc"]
        elif kind == 1:
            message["jsonrpc"] = rng.choice(["1.0", 2, None, "2.0 "])
        elif kind == 2:
            message["method"] = rng.choice([5, None, [], {"x": 1}])
        elif kind == 3:
            message["params"] = rng.choice(["x", 5, [1, 2], True])
        elif kind == 4:
            del message["method"]
            message["params"] = {}
        elif kind == 5:
            message["method"] = rng.choice(["tools/nope", "", "x" * 300, "initialize"])
        else:
            message["params"] = {"name": rng.choice([5, None, "", "no_tool"]), "arguments": 7}
        return WireCase("envelope", json.dumps(message), "id", request_id)
    if choice == 6:  # an id no JSON-RPC answer can carry
        bad_id = rng.choice(["9" * 5000, "1.5", "true", "{}", "[1]", "-0.0"])
        line = json.dumps(_request(0, "ping")).replace('"id": 0', f'"id": {bad_id}')
        return WireCase("bad_id", line, "null")
    if choice == 7:  # text that is not one message
        kind = rng.randrange(5)
        if kind == 0:
            return WireCase("not_json", rng.choice(["hello", "{", "}", "[1, 2", "\x1b[2J"]), "null")
        if kind == 1:
            return WireCase("array", json.dumps([_request(request_id, "ping")]), "null")
        if kind == 2:  # cut short after the id: the id is still recovered
            full = json.dumps(_request(request_id, "tools/call", {"name": "find_gpu"}))
            return WireCase("cut", full[: full.index('"method"') + 10], "id", request_id)
        if kind == 3:
            deep = "[" * 100_000 + "]" * 100_000
            line = json.dumps(_request(request_id, "ping")).replace(
                '"ping"', f'"ping", "x": {deep}'
            )
            return WireCase("deep", line, "id", request_id)
        return WireCase("scalar", rng.choice(["5", '"x"', "null", "true"]), "null")
    if choice == 8:  # notifications: never answered, broken or not
        method = rng.choice(["notifications/initialized", "notifications/cancelled", 5])
        line = json.dumps({"jsonrpc": "2.0", "method": method, "params": rng.choice([{}, "x"])})
        return WireCase("notification", line, "none")
    # a request carrying a lone surrogate or control characters in its method or id
    text = rng.choice(['"\\ud800"', '"\\u001b[2J"', '"\\u202eping"'])
    line = json.dumps(_request(request_id, "ping")).replace('"ping"', text)
    return WireCase("strange_method", line, "id", request_id)


def server_command() -> list[str]:
    """`gpu-sizer mcp` as installed next to this interpreter (else `python -m assistant`)."""
    script = Path(sys.executable).with_name("gpu-sizer")
    if script.exists():
        return [str(script), "mcp"]
    found = shutil.which("gpu-sizer")
    return [found, "mcp"] if found else [sys.executable, "-m", "assistant", "mcp"]


class WireServer:
    """A `gpu-sizer mcp` subprocess spoken to line by line over its pipes."""

    def __init__(self, home: Path) -> None:
        env = {
            **os.environ,
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "GPU_SIZER_NOW": "2026-12-14T09:00:00Z",
        }
        self.process = subprocess.Popen(
            server_command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._buffer = b""

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        data = line.encode("utf-8", errors="surrogatepass") + b"\n"
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def replies(self, timeout_s: float) -> list[dict[str, Any]]:
        """Every reply that arrives within `timeout_s` of quiet (parsed; a line that is not
        JSON is a reply too, recorded as {"unparsable": text})."""
        assert self.process.stdout is not None
        out: list[dict[str, Any]] = []
        fd = self.process.stdout.fileno()
        while True:
            ready, _, _ = select.select([fd], [], [], timeout_s)
            if not ready:
                return out
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return out
            self._buffer += chunk
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                try:
                    out.append(json.loads(line))
                except ValueError:
                    out.append({"unparsable": line[:200].decode("utf-8", "replace")})

    def initialize(self) -> dict[str, Any]:
        self.send(
            json.dumps(
                _request(
                    0,
                    "initialize",
                    {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "wire-fuzz", "version": "1"},
                    },
                )
            )
        )
        got: list[dict[str, Any]] = []
        deadline = time.monotonic() + 60  # the server's first start compiles and imports
        while not got and time.monotonic() < deadline:
            got = self.replies(POLL_S)
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        return got[0] if got else {}

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclass
class WireTally:
    """Cases sent and what broke: an id left unanswered, an answer nobody asked for, a null-id
    error count that differs, a reply that is not JSON, a ping unanswered after a case."""

    cases: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0


def fuzz_wire(home: Path, count: int, seed: int = SEED, batch: int = 25) -> WireTally:
    """Send `count` cases to one server, `batch` at a time, each batch followed by a ping;
    check every expectation (see `WireCase`)."""
    tally = WireTally()
    server = WireServer(home)
    start = time.perf_counter()
    try:
        init = server.initialize()
        if "result" not in init:
            tally.failures.append(f"initialize: {init}")
            return tally
        cases = wire_cases(count, seed)
        for first in range(0, len(cases), batch):
            chunk = cases[first : first + batch]
            for case in chunk:
                tally.cases[case.kind] += 1
                server.send(case.line)
            ping_id = f"ping-after-{first}"
            server.send(json.dumps(_request(ping_id, "ping")))
            _check(chunk, ping_id, _collect(server, chunk, ping_id), tally)
        # A reply that comes after its batch was checked is found by the next batch's check
        # (an id it never sent, or one null-id error too many); after the last, here.
        late = server.replies(LATE_S)
        if late:
            tally.failures.append(f"{len(late)} replies after the last batch: {str(late)[:200]}")
    finally:
        server.close()
        tally.seconds = time.perf_counter() - start
    return tally


def _collect(server: WireServer, chunk: list[WireCase], ping_id: str) -> list[dict[str, Any]]:
    """Replies until every id of `chunk` and the ping came back (or 60 s passed), then, while
    fewer null-id errors than its cases without an id arrived, `LATE_S` more (the server's
    reader answers those before it passes the ping on, so they are normally in by then)."""
    wanted = {c.request_id for c in chunk if c.expect == "id"} | {ping_id}
    nulls = sum(c.expect == "null" for c in chunk)
    got: list[dict[str, Any]] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        got += server.replies(POLL_S)
        ids = [r.get("id") for r in got if "unparsable" not in r]
        if wanted <= set(ids):
            if ids.count(None) < nulls:
                got += server.replies(LATE_S)  # null-id errors still on their way
            break
    return got


def _check(
    chunk: list[WireCase], ping_id: str, replies: list[dict[str, Any]], tally: WireTally
) -> None:
    ids = Counter(r.get("id") for r in replies if "unparsable" not in r)
    for reply in replies:
        if "unparsable" in reply:
            tally.failures.append(f"a reply that is not JSON: {reply['unparsable']}")
        elif reply.get("jsonrpc") != "2.0" or ("result" in reply) == ("error" in reply):
            tally.failures.append(f"not a JSON-RPC response: {str(reply)[:200]}")
    for case in chunk:
        if case.expect == "id" and ids[case.request_id] != 1:
            got = ids[case.request_id]
            tally.failures.append(f"{case.kind}: id {case.request_id!r} answered {got} times")
    nulls = sum(c.expect == "null" for c in chunk)
    if ids[None] != nulls:
        tally.failures.append(f"{ids[None]} null-id errors for {nulls} cases without an id")
    if ids[ping_id] != 1:
        tally.failures.append(f"the ping after a batch got {ids[ping_id]} answers")
    known = {c.request_id for c in chunk} | {ping_id, None}
    strays = [i for i in ids if i not in known]
    if strays:
        tally.failures.append(f"answers to ids never sent: {strays[:5]}")
