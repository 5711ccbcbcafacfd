"""Reliability (issue 21, items 1 and 7; issue 34): generated inputs through every tool of the
registry, every CLI entry point, hostile config.toml / prices.toml / session files, the MCP
wire, and the app opening a 50 MB session — and how many broke the contract.

The same engines as the test suite (tests/fuzzing.py, tests/fuzzing_cli.py), at twice the
volume of the tests' acceptance runs (10,000 registry inputs per tool in `make test-deep`, 30
CLI invocations per command in `make test`): per tool, a valid share drawn from the field types
and bounds, one-field mutations with hostile values and broken JSON text; per command,
invocations built from its own options with hostile values, plus fixed cases (the issue's,
unreadable paths, huge-number questions).
Failures counted: uncaught exceptions, non-finite figures in a result or `--json`, internal
errors or limits reached, errors that name no field (registry) or no flag (CLI), CLI failures
that do not exit 2 with one line. The offline parser's huge numbers (1e400 users, 26-digit
counts) are counted too: a failure is a figure read in part or dropped.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REGISTRY_INPUTS_PER_TOOL = 20_000
CLI_INVOCATIONS_PER_COMMAND = 60
FILES_PER_KIND = 200
"""Hostile config.toml, prices.toml and session files read by the CLI (CI: 16 of each)."""
WIRE_MESSAGES = 2_000
"""Generated JSON-RPC lines sent to one `gpu-sizer mcp` (CI: 150)."""
LARGE_SESSION_BYTES = 50 * 10**6
"""The session the app opens while keys are pressed (issue 34: 50 MB blocked it for 73 s)."""
KEY_LATENCY_TARGET_S = 0.5

_KINDS = {
    "crash": "uncaught exceptions",
    "non_finite": "non-finite figures (NaN/inf in a result, Infinity in --json)",
    "internal": "internal errors or limits reached",
    "unclear_error": "errors that name no field or flag",
    "not_one_line": "CLI failures not on one stderr line",
    "exit_code": "CLI exits other than 0 and 2",
}


@contextlib.contextmanager
def _isolated() -> Iterator[Path]:
    """A throwaway config/data dir and no endpoint settings, so the CLI cases never read or
    write the user's own files, and the chat app is never opened."""
    import assistant.app.main as app_main

    keys = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "OPENAI_BASE_URL", "OPENAI_API_KEY",
            "GPU_SIZER_MODEL", "GPU_SIZER_EUR_TO_USD", "GPU_SIZER_CONFIG_DIR")  # fmt: skip
    saved = {k: os.environ.get(k) for k in keys}
    run_app = app_main.run_app
    with tempfile.TemporaryDirectory() as tmp:
        for key in keys:
            os.environ.pop(key, None)
        os.environ["XDG_CONFIG_HOME"] = f"{tmp}/config"
        os.environ["XDG_DATA_HOME"] = f"{tmp}/data"
        app_main.run_app = lambda overrides=None: 0  # type: ignore[assignment]
        try:
            yield Path(tmp)
        finally:
            app_main.run_app = run_app
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def _parser_huge_numbers() -> tuple[int, int]:
    """(cases, failures): '<N> users/tokens/...' with N past every bound, in four notations."""
    from assistant.offline.parser import parse_workload

    nouns = ("users", "concurrent users", "requests", "tokens of context", "tokens/s", "GPUs")
    numbers = [f"1e{e}" for e in (16, 20, 308, 400, 5000)]
    numbers += [f"10^{e}" for e in (16, 30, 400)] + ["9" * n for n in (17, 26, 60, 400)]
    numbers += ["3×10^40", "2.5e99"]
    cases = failures = 0
    for number in numbers:
        for noun in nouns:
            parsed = parse_workload(f"Llama 3.1 8B for {number} {noun}")
            cases += 1
            read = [parsed.users, parsed.context, parsed.tokens_per_s, parsed.gpu_count]
            asked = any("more than gpu-sizer can size" in q for q in parsed.questions)
            failures += any(v is not None for v in read) or not asked
    return cases, failures


def _large_session(folder: Path) -> Path:
    """A ~50 MB session of real offline turns (a 70B sizing report each, ~0.46 MB), as a
    long-used chat saves it."""
    import asyncio
    import json

    from assistant.conversation import Conversation
    from assistant.offline.engine import OfflineEngine
    from assistant.sessions import save_session, session_json

    conversation = Conversation(id="large")

    async def turn() -> None:
        question = "serve Llama 3.1 70B to 40 users with 16k context"
        async for _ in OfflineEngine().run_turn(conversation, question):
            pass

    asyncio.run(turn())
    one = conversation.messages
    turns = LARGE_SESSION_BYTES // len(session_json(conversation)) + 1
    messages = []
    for number in range(turns):
        for message in json.loads(json.dumps(one)):
            for call in message.get("tool_calls") or []:
                call["id"] = f"{call['id']}-{number}"
            if message.get("tool_call_id"):
                message["tool_call_id"] = f"{message['tool_call_id']}-{number}"
            messages.append(message)
    conversation.messages = messages
    return save_session(conversation, folder)


def _large_session_latency(folder: Path) -> dict[str, Any]:
    """Open the large session in the app (Pilot) and, every 50 ms until it is drawn, type a
    key: the time from the key event reaching the app's driver to the prompt holding the
    character (what a user sees as the key being taken), and how long the open took. Not
    `Pilot.press`, which waits for every widget to go idle — during an open that is the
    open, not the key."""
    import asyncio
    import statistics

    from textual import events

    from assistant.app.app import GpuSizerApp
    from assistant.offline.engine import OfflineEngine
    from assistant.session_store import SessionStore

    path = _large_session(folder)
    read_s: list[float] = []
    original = SessionStore.open

    def timed_open(store: SessionStore, target: Path) -> Any:
        start = time.perf_counter()
        try:
            return original(store, target)
        finally:
            read_s.append(time.perf_counter() - start)

    SessionStore.open = timed_open  # type: ignore[method-assign]

    async def measure() -> tuple[list[float], float]:
        app = GpuSizerApp(OfflineEngine(), sessions_directory=folder)
        latencies: list[float] = []
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.pause()
            start = time.perf_counter()
            await app.cmd_load("large")
            app.prompt.focus()
            await pilot.pause()
            done: float | None = None
            # Keys until the open is over and 5 s more: the log's layout after the last turn
            # is mounted (one pass over every widget drawn) comes after the worker ends.
            while done is None or time.perf_counter() - done < 5:
                if done is None and not app.opening:
                    done = time.perf_counter()
                typed = len(app.prompt.text)
                pressed = time.perf_counter()
                key = events.Key("x", "x")
                key.set_sender(app)
                app._driver.send_message(key)  # type: ignore[union-attr]
                while len(app.prompt.text) == typed and time.perf_counter() - pressed < 120:
                    await asyncio.sleep(0.005)
                latencies.append(time.perf_counter() - pressed)
                await asyncio.sleep(0.05)
            await pilot.pause()
            return latencies, (done or time.perf_counter()) - start

    try:
        latencies, open_s = asyncio.run(measure())
    finally:
        SessionStore.open = original  # type: ignore[method-assign]
    return {
        "size_MB": path.stat().st_size / 1e6,
        "read_s": read_s[0] if read_s else float("nan"),
        "open_s": open_s,
        "keys": len(latencies),
        "keys_over_target": sum(s > KEY_LATENCY_TARGET_S for s in latencies),
        "max_key_s": max(latencies, default=0.0),
        "median_key_s": statistics.median(latencies) if latencies else 0.0,
    }


def run() -> dict[str, Any]:
    from assistant.registry import default_registry
    from tests.fuzzing import Tally, fuzz_tool
    from tests.fuzzing_cli import fuzz_cli

    registry = default_registry()
    registry_tally = Tally()
    start = time.perf_counter()
    for tool in registry.names:
        fuzz_tool(registry, tool, registry_tally, REGISTRY_INPUTS_PER_TOOL)
    registry_s = time.perf_counter() - start
    cli_tally = Tally()
    start = time.perf_counter()
    with _isolated() as workdir:
        fuzz_cli(cli_tally, workdir, CLI_INVOCATIONS_PER_COMMAND, FILES_PER_KIND)
    cli_s = time.perf_counter() - start
    parser_cases, parser_failures = _parser_huge_numbers()
    from tests.fuzzing_mcp import fuzz_wire

    with tempfile.TemporaryDirectory() as home:
        wire = fuzz_wire(Path(home), WIRE_MESSAGES)
    with tempfile.TemporaryDirectory() as folder:
        opening = _large_session_latency(Path(folder))

    rows: list[dict[str, Any]] = []
    for tool in registry.names:
        rows.append(
            {
                "suite": f"registry: {tool}",
                "cases": registry_tally.inputs[tool],
                "failures": sum(f.tool == tool for f in registry_tally.findings),
                "counts": "calls breaking the contract (any kind below)",
            }
        )
    total = sum(registry_tally.inputs.values())
    kinds = registry_tally.kinds()
    for kind in ("crash", "non_finite", "internal", "unclear_error"):
        rows.append(
            {
                "suite": f"registry, all {len(registry.names)} tools",
                "cases": total,
                "failures": kinds[kind],
                "counts": _KINDS[kind],
            }
        )
    cli_kinds = cli_tally.kinds()
    for kind in ("crash", "exit_code", "not_one_line", "unclear_error", "non_finite"):
        rows.append(
            {
                "suite": "CLI, every entry point",
                "cases": cli_tally.inputs["cli"],
                "failures": cli_kinds[kind],
                "counts": _KINDS[kind],
            }
        )
    for kind in ("config.toml", "prices.toml", "session"):
        rows.append(
            {
                "suite": f"CLI reading a hostile {kind}",
                "cases": cli_tally.inputs[kind],
                "failures": sum(f.tool == kind for f in cli_tally.findings),
                "counts": "tracebacks, exits other than 0/2, unclear or multi-line errors",
            }
        )
    rows.append(
        {
            "suite": "MCP wire: generated JSON-RPC lines",
            "cases": sum(wire.cases.values()),
            "failures": len(wire.failures),
            "counts": "requests with an id left unanswered, stray or malformed replies, "
            "pings unanswered after a batch",
        }
    )
    rows.append(
        {
            "suite": "app opening a 50 MB session",
            "cases": opening["keys"],
            "failures": opening["keys_over_target"],
            "counts": f"key presses processed later than {KEY_LATENCY_TARGET_S} s",
        }
    )
    rows.append(
        {
            "suite": "offline parser: figures past every bound",
            "cases": parser_cases,
            "failures": parser_failures,
            "counts": "figures read in part or dropped instead of asked back",
        }
    )
    return {
        "reliability": rows,
        "measurements": {
            "registry inputs tried (all tools)": total,
            "registry inputs refused with an error naming the field": sum(
                registry_tally.errors.values()
            ),
            "registry fuzzing, s": round(registry_s, 1),
            "CLI invocations tried": cli_tally.inputs["cli"],
            "CLI invocations refused (exit 2, one line)": cli_tally.errors["cli"],
            "CLI fuzzing, s": round(cli_s, 1),
            "MCP wire messages sent": sum(wire.cases.values()),
            "MCP wire fuzzing, s": round(wire.seconds, 1),
            "large session, MB": round(opening["size_MB"], 1),
            "large session: read + checked in the worker, s": round(opening["read_s"], 2),
            "large session: opened and drawn, s": round(opening["open_s"], 2),
            "large session: key presses while opening": opening["keys"],
            "large session: slowest key press, s": round(opening["max_key_s"], 3),
            "large session: median key press, s": round(opening["median_key_s"], 3),
        },
        "findings": [vars(f) for f in (*registry_tally.findings, *cli_tally.findings)][:50]
        + [{"kind": "wire", "detail": failure} for failure in wire.failures[:20]],
    }
