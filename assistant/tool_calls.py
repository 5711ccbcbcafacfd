"""How an engine runs one tool call: off the event loop, with a time limit, cleaned, and never
with a local file the model chose.

Both engines call the registry through `run_tool_call`. The call runs in its own daemon thread,
so a slow calculation (or a file read that blocks) never freezes the UI: Esc and Ctrl+Q keep
working, and after `timeout_s` the engine gets an error result it can show and record (the
thread is abandoned; being a daemon it cannot keep the process alive at exit, which the shared
executor of `asyncio.to_thread` would). The result's strings are passed through
`assistant.sanitize` so nothing a tool echoes back (a model name, a file's contents) can carry
terminal escape sequences into a card, a session or stdout.

Local files: the calculators accept `config_path` and `model_file` (a config.json, a GGUF file, a
model folder) for the CLI and for what the user typed, but a call the *model* makes may not name
one. Otherwise a model (or a
prompt injected into its context) could make gpu-sizer open any path the user can read — a FIFO
that blocks, /dev/zero, a private file whose parse error quotes it. Such a call gets an error
result naming the field; the schemas never offer them (`registry._MEMORY_HIDDEN`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from assistant.registry import Registry, ToolOutcome, error_result, parse_arguments
from assistant.results import cleaned
from assistant.sanitize import clean_value

TOOL_TIMEOUT_S = 30.0
"""Longest a tool call may run, seconds. The calculators take milliseconds (bench/): a call
still running after this is stuck (a blocked read), not slow."""

MODEL_REFUSED_FIELDS = frozenset({"config_path", "model_file"})
"""Argument names (at any depth) a model-made call may not send: they name local files."""

R = TypeVar("R")


async def run_tool_call(
    registry: Registry,
    name: str,
    arguments: str | Mapping[str, Any] | None,
    *,
    from_model: bool = False,
    timeout_s: float = TOOL_TIMEOUT_S,
) -> ToolOutcome:
    """Run `registry.call(name, arguments)` in a worker thread; never raises for the call itself.

    `from_model`: the arguments came from the model's reply (not from the user's words through a
    planner), so fields that name local files are refused. A call still running after
    `timeout_s` seconds returns an error result (kind "timeout").
    """
    if from_model:
        refused = refused_fields(arguments)
        if refused:
            return _refusal(name, arguments, refused)
    try:
        outcome = await in_thread(
            lambda: registry.call(name, arguments), timeout_s, thread_name=f"tool {name}"
        )
    except TimeoutError:
        parsed = parse_arguments(arguments)
        return ToolOutcome(
            name,
            clean_value(parsed) if isinstance(parsed, dict) else {},
            error_result(
                f"the tool did not finish within {timeout_s:g} s and was abandoned; do not "
                "retry the same arguments, tell the user this calculation is unavailable",
                kind="timeout",
            ),
            is_error=True,
        )
    return ToolOutcome(
        outcome.name,
        clean_value(outcome.arguments),
        cleaned(outcome.value),
        outcome.is_error,
    )


async def in_thread(func: Callable[[], R], timeout_s: float, *, thread_name: str = "worker") -> R:
    """`func()` in a new daemon thread (with this task's context variables); TimeoutError
    after `timeout_s` seconds, the thread left to finish on its own. Exceptions propagate."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[R] = loop.create_future()
    context = contextvars.copy_context()

    def settle(result: R | None, error: BaseException | None) -> None:
        if future.done():  # timed out or cancelled meanwhile
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def target() -> None:
        try:
            result, error = context.run(func), None
        except BaseException as exc:  # handed to the awaiting task, which re-raises it
            result, error = None, exc
        # RuntimeError: the event loop is closed, nobody is waiting any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=target, name=thread_name, daemon=True).start()
    return await asyncio.wait_for(future, timeout_s)


def refused_fields(arguments: str | Mapping[str, Any] | None) -> list[str]:
    parsed = parse_arguments(arguments)
    if not isinstance(parsed, dict):
        return []  # the registry reports the JSON problem itself
    found: list[str] = []

    def walk(value: Any, prefix: str) -> None:
        if isinstance(value, Mapping):
            for key, item in value.items():
                path = f"{prefix}{key}"
                if key in MODEL_REFUSED_FIELDS:
                    found.append(path)
                walk(item, f"{path}.")
        elif isinstance(value, list):
            for item in value:
                walk(item, prefix)

    walk(parsed, "")
    return found


def _refusal(
    name: str, arguments: str | Mapping[str, Any] | None, fields: list[str]
) -> ToolOutcome:
    parsed = parse_arguments(arguments)
    problems = [
        {
            "field": field,
            "problem": "local files are read only when the user names them (gpu-sizer memory "
            "--config PATH), never on a model's request",
        }
        for field in fields
    ]
    return ToolOutcome(
        name,
        clean_value(parsed) if isinstance(parsed, dict) else {},
        error_result(
            "invalid arguments; remove these fields and call again (use model or params)",
            problems=problems,
        ),
        is_error=True,
    )
