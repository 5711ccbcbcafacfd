"""The shape a stored message must have, and the repairs that keep a history sendable.

A session file is input like any other: it may have been edited by hand, cut short by a full
disk, written by an older version or by a second app instance. `check_messages` keeps every
message that has the OpenAI chat shape our engines write and skips the rest, saying which and
why (never an exception). `repair_tool_results` makes the history one a strict endpoint
accepts: every assistant `tool_calls` entry is answered by exactly one `tool` message right
after it (a turn that died between a call and its result gets a result saying so), and a tool
message that answers no call is dropped. `clean_message` removes terminal control sequences
from every string a message holds (assistant.sanitize), JSON-encoded ones included.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from assistant.sanitize import clean_json_text, clean_text, clean_value
from tools.nesting import MAX_DEPTH, too_deep

ROLES = ("user", "assistant", "tool")
"""Roles a conversation stores (the system prompt is never stored: it comes from prompts/)."""

MISSING_RESULT = "no result was recorded: the turn ended before this tool finished"
"""The error a repaired tool message carries (the model reads it as the tool's result)."""

REPAIRED_KEY = "repaired"
"""Marks a tool message `repair_tool_results` wrote (local: never sent to an endpoint)."""


def clean_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """`message` with control sequences removed from every string, JSON-encoded tool arguments
    and results included; the same object when there was nothing to remove."""
    cleaned: dict[str, Any] = {}
    for key, value in message.items():
        if key == "content" and isinstance(value, str):
            cleaned[key] = (
                clean_json_text(value) if message.get("role") == "tool" else (clean_text(value))
            )
        elif key == "tool_calls" and isinstance(value, list):
            cleaned[key] = [_clean_call(call) for call in value]
        else:
            cleaned[clean_text(str(key))] = clean_value(value)
    if cleaned == message and isinstance(message, dict):
        return message
    return cleaned


def _clean_call(call: Any) -> Any:
    if not isinstance(call, Mapping):
        return clean_value(call)
    out = clean_value({k: v for k, v in call.items() if k != "function"})
    function = call.get("function")
    if isinstance(function, Mapping):
        fn = clean_value({k: v for k, v in function.items() if k != "arguments"})
        arguments = function.get("arguments")
        fn["arguments"] = (
            clean_json_text(arguments) if isinstance(arguments, str) else (clean_value(arguments))
        )
        out["function"] = fn
    elif "function" in call:
        out["function"] = clean_value(function)
    return out


def check_messages(raw: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """The well-formed messages of a stored list, and one line per thing skipped or fixed.

    Kept as they are: user messages with text content; assistant messages with text content
    and/or `tool_calls` entries {id, function {name, arguments}}; tool messages with a
    `tool_call_id` and content. Malformed `tool_calls` entries are dropped one by one (the rest
    of the message is kept); JSON objects stored where a string belongs are re-encoded.
    """
    if not isinstance(raw, list):
        return [], [f"'messages' is {type(raw).__name__}, not a list: no messages loaded"]
    kept: list[dict[str, Any]] = []
    problems: list[str] = []
    for index, message in enumerate(raw, start=1):
        checked, notes = _check_message(message, index)
        problems += notes
        if checked is not None:
            kept.append(checked)
    return kept, problems


def _check_message(message: Any, index: int) -> tuple[dict[str, Any] | None, list[str]]:
    where = f"message {index}"
    if not isinstance(message, dict):
        return None, [f"{where} skipped: not an object ({type(message).__name__})"]
    role = message.get("role")
    if role not in ROLES:
        return None, [f"{where} skipped: role {str(role)[:40]!r} is not one of {', '.join(ROLES)}"]
    if too_deep(message):  # nothing downstream (cleaning, validation, saving) recurses that far
        return None, [f"{where} skipped: nested more than {MAX_DEPTH} levels deep"]
    out = dict(message)
    content = message.get("content")
    notes: list[str] = []
    if role != "assistant" and "tool_calls" in out:
        del out["tool_calls"]  # only assistant messages make calls
        notes.append(f"{where}: tool_calls on a {role} message dropped")
    if role == "tool":
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            return None, [f"{where} skipped: a tool result without a tool_call_id"]
        if not isinstance(content, str):
            if content is None:
                return None, [f"{where} skipped: the tool result for {call_id!r} has no content"]
            out["content"] = _as_json(content)
        return out, notes
    if role == "user":
        if not isinstance(content, str):
            return None, [f"{where} skipped: user content is {type(content).__name__}, not text"]
        return out, notes
    if content is not None and not isinstance(content, str):
        notes.append(f"{where}: assistant content ({type(content).__name__}) dropped, not text")
        out["content"] = None
    calls = message.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            notes.append(f"{where}: tool_calls is {type(calls).__name__}, not a list: dropped")
            calls = []
        valid = []
        for number, call in enumerate(calls, start=1):
            checked, problem = _check_call(call)
            if checked is None:
                notes.append(f"{where}: tool call {number} skipped ({problem})")
            else:
                valid.append(checked)
        if valid:
            out["tool_calls"] = valid
        else:
            out.pop("tool_calls", None)
    if "verdict" in out and not isinstance(out["verdict"], str):
        notes.append(f"{where}: verdict ({type(out['verdict']).__name__}) dropped, not text")
        del out["verdict"]
    # An LLM answer that failed before the model wrote anything still holds the tools' verdict.
    if not out.get("content") and not out.get("tool_calls") and not out.get("verdict"):
        return None, [*notes, f"{where} skipped: an assistant message with no text or tool call"]
    return out, notes


def _check_call(call: Any) -> tuple[dict[str, Any] | None, str]:
    if not isinstance(call, dict):
        return None, f"not an object: {type(call).__name__}"
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id:
        return None, "no id"
    function = call.get("function")
    if not isinstance(function, dict):
        return None, f"{call_id}: no function"
    name = function.get("name")
    if not isinstance(name, str) or not name:
        return None, f"{call_id}: no function name"
    arguments = function.get("arguments", "")
    if arguments is None:
        arguments = ""
    if not isinstance(arguments, str):
        arguments = _as_json(arguments)
    return {**call, "type": "function", "function": {**function, "arguments": arguments}}, ""


def _as_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return json.dumps(str(value))


def repair_tool_results(
    messages: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[str]]:
    """A copy of `messages` in which every tool call has exactly one result right after it.

    A call left without a result (the turn died or was saved mid-call) gets a tool message
    with an error (`MISSING_RESULT`, marked `REPAIRED_KEY`); a tool message that answers no
    call in the block before it is dropped. The list is shared when nothing needed repair.
    """
    out: list[dict[str, Any]] = []
    problems: list[str] = []
    open_calls: dict[str, str] = {}  # id → tool name, in call order

    def close_open() -> None:
        for call_id, name in open_calls.items():
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": call_id,
                    "name": name,
                    "content": json.dumps({"error": MISSING_RESULT}),
                    REPAIRED_KEY: True,
                }
            )
            problems.append(f"tool call {call_id} ({name}) had no result: marked as failed")
        open_calls.clear()

    for message in messages:
        if message.get("role") == "tool":
            call_id = message.get("tool_call_id")
            if call_id in open_calls:
                del open_calls[call_id]
                out.append(message)
            else:
                problems.append(f"a tool result for {call_id!r} answers no tool call: dropped")
            continue
        close_open()
        out.append(message)
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                function = call.get("function")
                name = function.get("name", "tool") if isinstance(function, dict) else "tool"
                open_calls[str(call.get("id"))] = str(name)
    close_open()
    return (messages if not problems else out), problems
