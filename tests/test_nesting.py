"""Bounded nesting wherever JSON or TOML is read back (issue 34, items 1 and 3).

Python's json and tomllib recurse once per nested container (the default recursion limit is
1,000), and so does every walk over what they return. These are the documents that broke a
session for good or printed a traceback: a model's tool arguments stored 100,000 levels deep,
a config.json, config.toml or prices.toml nested 5,000 deep. Each is now refused (or, inside a
session, skipped) with a one-line reason; `tools.nesting.MAX_DEPTH` is 64.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from assistant.cli import main
from assistant.conversation import Conversation
from assistant.offline.engine import OfflineEngine
from assistant.registry import default_registry
from assistant.results import parse_arguments_text, stored_calls
from assistant.sanitize import clean_json_text
from assistant.sessions import read_session_file, save_session
from tools.nesting import MAX_DEPTH, NestingError, loads_json, loads_toml, too_deep


def nested(depth: int, leaf: str = "1") -> str:
    """A JSON array nested `depth` levels: '[[[1]]]' for 3."""
    return "[" * depth + leaf + "]" * depth


DEEP = 100_000
"""What a model sent (issue 34, item 1): far past the parser's own recursion limit."""
SHALLOW_ENOUGH_TO_PARSE = 900
"""Parses (under Python's 1,000-frame limit) but is past what downstream walks can afford."""


# --- the loaders ------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [1, MAX_DEPTH])
def test_documents_up_to_the_limit_load(depth: int) -> None:
    value = loads_json(nested(depth))
    for _ in range(depth):
        value = value[0]
    assert value == 1
    assert loads_toml(f"x = {nested(depth - 1)}")["x"] is not None  # the table is a level


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, SHALLOW_ENOUGH_TO_PARSE, DEEP])
def test_deeper_documents_are_refused_as_nesting_errors(depth: int) -> None:
    with pytest.raises(NestingError, match=f"more than {MAX_DEPTH} levels"):
        loads_json(nested(depth))
    # An object inside the array counts as a level too; TOML arrays and inline tables alike.
    with pytest.raises(NestingError):
        loads_toml(f"x = {nested(depth)}")
    with pytest.raises(NestingError):
        loads_toml("x = " + "{a = " * depth + "1" + "}" * depth)
    assert isinstance(NestingError(), ValueError)  # callers catching ValueError catch it


def test_dotted_toml_keys_nest_too() -> None:
    # `a.a.a… = 1` is one line that tomllib turns into nested tables without recursing.
    with pytest.raises(NestingError):
        loads_toml(".".join(["a"] * 5_000) + " = 1")
    assert loads_toml(".".join(["a"] * 10) + " = 1")["a"]["a"]


def test_too_deep_walks_without_recursing() -> None:
    value: Any = 1
    for _ in range(50_000):  # built without json: deeper than any recursion could walk
        value = {"k": [value]}
    assert too_deep(value)
    assert not too_deep({"a": [{"b": [1, 2]}]}, limit=4)
    assert too_deep({"a": [{"b": [1, 2]}]}, limit=3)


def test_a_session_file_nested_past_the_parser_is_corrupt_not_a_traceback(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"messages": ' + nested(DEEP) + "}", encoding="utf-8")
    with pytest.raises(Exception) as caught:
        read_session_file(path)
    assert type(caught.value).__name__ == "ToolInputError"
    assert "nested more than 64 levels deep" in str(caught.value)


# --- a session holding a model's deeply nested arguments --------------------------------------


async def _session_with_deep_arguments(directory: Path, depth: int) -> str:
    """A real offline turn, then a second turn whose `size` call carries arguments nested
    `depth` levels (as a model sent them: stored as the string it sent)."""
    conversation = Conversation(id=f"deep{depth}")
    async for _ in OfflineEngine().run_turn(conversation, "serve Llama 3.1 8B on an L4"):
        pass
    arguments = '{"workload": ' + nested(depth) + "}"
    outcome = default_registry().call("size", arguments)
    assert outcome.is_error  # the registry refused it when it came in
    conversation.messages += [
        {"role": "user", "content": "and a deep one"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "deep",
                    "type": "function",
                    "function": {"name": "size", "arguments": arguments},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "deep",
            "name": "size",
            "content": json.dumps(outcome.result),
        },
        {"role": "assistant", "content": "That call was refused."},
    ]
    save_session(conversation, directory)
    return conversation.id


@pytest.mark.parametrize("depth", [SHALLOW_ENOUGH_TO_PARSE, DEEP])
def test_ask_and_proposal_continue_a_session_with_deep_arguments(
    depth: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GPU_SIZER_DATA_DIR", str(tmp_path))
    session = asyncio.run(_session_with_deep_arguments(tmp_path / "sessions", depth))
    assert main(["ask", "--offline", "--session", session, "and on an H100?"]) == 0
    assert main(["proposal", "--session", session]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert "# Hardware proposal" in captured.out
    # The stored arguments read back as their raw text (nothing is lost), never parsed.
    loaded = read_session_file(tmp_path / "sessions" / f"{session}.json").conversation
    deep = next(c for c in stored_calls(loaded.messages) if c.call_id == "deep")
    assert list(deep.arguments) == ["raw"] and deep.arguments["raw"].count("[") == depth


async def test_the_app_reopens_a_session_with_deep_arguments(tmp_path: Path) -> None:
    from assistant.app.app import GpuSizerApp
    from assistant.app.widgets.tool_card import ToolCard

    session = await _session_with_deep_arguments(tmp_path, DEEP)
    app = GpuSizerApp(OfflineEngine(), sessions_directory=tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await app.cmd_load(session)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.is_running and app.conversation.id == session
        cards = [c for c in app.query(ToolCard) if "raw" in c.arguments]
        assert cards, "the deep call's card shows its raw arguments"


def test_a_message_nested_too_deeply_is_skipped_and_the_rest_kept(tmp_path: Path) -> None:
    deep_value: Any = "x"
    for _ in range(MAX_DEPTH + 10):
        deep_value = [deep_value]
    data = {
        "id": "mixed",
        "messages": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "kept"},
            {"role": "user", "content": "second", "extra": deep_value},
            {"role": "user", "content": "third"},
        ],
    }
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = read_session_file(path)
    assert [m["content"] for m in loaded.conversation.messages] == ["first", "kept", "third"]
    assert any("message 3 skipped: nested more than 64 levels deep" in p for p in loaded.problems)


def test_stored_arguments_and_results_never_raise() -> None:
    text = '{"a": ' + nested(DEEP) + "}"
    assert parse_arguments_text(text) == {"raw": text}
    assert clean_json_text(text) == text  # too deep to walk: cleaned as plain text
    from assistant.results import load_result

    stored = {"role": "tool", "name": "size", "result": {"schema": "SizingReport", "data": "x"}}
    stored["result"]["data"] = json.loads(nested(SHALLOW_ENOUGH_TO_PARSE))
    legacy = load_result(stored, "size")
    assert "cannot be shown" in legacy.notice  # type: ignore[attr-defined]


def test_model_sent_arguments_too_deep_are_a_tool_error() -> None:
    registry = default_registry()
    for arguments in (
        '{"workload": ' + nested(49_000) + "}",  # under the 100,000-character cap
        '{"workload": ' + nested(SHALLOW_ENOUGH_TO_PARSE) + "}",
    ):
        outcome = registry.call("size", arguments)
        assert outcome.is_error and "nest more than 64 levels" in outcome.value.error  # type: ignore[attr-defined]
    deep: Any = 1
    for _ in range(200):
        deep = [deep]
    outcome = registry.call("size", {"workload": deep})  # a dict, as MCP hands it over
    assert outcome.is_error and "nest more than 64 levels" in outcome.value.error  # type: ignore[attr-defined]


# --- user files on the CLI: one line, exit 2 -------------------------------------------------


def _config_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "config" / "gpu-sizer"
    folder.mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return folder


@pytest.mark.parametrize("name", ["config.toml", "prices.toml"])
def test_a_5000_deep_toml_file_is_one_line_exit_2(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (_config_dir(monkeypatch, tmp_path) / name).write_text(f"x = {nested(5_000)}\n")
    assert main(["cost", "--gpu", "h100-sxm"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert name in err and "nested more than 64 levels deep" in err


def test_a_nested_config_json_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.json"
    config.write_text('{"model_type": "llama", "x": ' + nested(DEEP) + "}", encoding="utf-8")
    assert main(["memory", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpu-sizer memory: error: --config: ") and len(err.splitlines()) == 1
    assert "nested more than 64 levels deep" in err


def test_a_nested_safetensors_header_is_refused(tmp_path: Path) -> None:
    import struct

    from tools.errors import ToolInputError
    from tools.model_sources.safetensors_files import header_size

    header = ('{"w": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4], "x": '
              + nested(5_000) + "}}").encode()  # fmt: skip
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 4)
    with pytest.raises(ToolInputError, match="nested more than 64 levels deep"):
        header_size(path)
