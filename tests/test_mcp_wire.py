"""The MCP server always answers (issue 34, item 5): every request that carries an id gets a
response — a result or a JSON-RPC error — and the server keeps serving.

The issue's seven kinds of request the SDK's transport dropped without a word are sent to a
real `gpu-sizer mcp` over its pipes, each followed by a ping; then a generated wire fuzz
(tests/fuzzing_mcp.py) sends 150 more. `read_line` itself is checked in process.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from assistant.mcp.wire import MAX_LINE_BYTES, read_line, scan_id
from tests.fuzzing_mcp import POLL_S, WireServer, fuzz_wire

INVALID_REQUEST, PARSE_ERROR = -32600, -32700

CALL = '{"jsonrpc": "2.0", "id": %s, "method": "tools/call", "params": %s}'
ISSUE_CASES: dict[str, tuple[str, int | None]] = {
    # (the line as sent, the id its answer must carry; None: JSON-RPC's null id)
    "an integer over 4,300 digits in the arguments": (
        CALL % (1, '{"name": "find_model", "arguments": {"name": %s}}' % ("9" * 5000)),
        1,
    ),
    "an id of 5,000 digits": (
        '{"jsonrpc": "2.0", "id": %s, "method": "ping"}' % ("9" * 5000),
        None,
    ),
    "a lone surrogate": (CALL % (2, '{"name": "find_model", "arguments": {"name": "\\ud800"}}'), 2),
    "100k-deep nesting": (
        CALL % (3, '{"name": "size", "arguments": {"x": %s}}' % ("[" * 100_000 + "]" * 100_000)),
        3,
    ),
    'a missing "jsonrpc"': ('{"id": 4, "method": "ping"}', 4),
    "a numeric method": ('{"jsonrpc": "2.0", "id": 5, "method": 5}', 5),
    "string params": ('{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": "x"}', 6),
}


# --- in process: what each line is read as ----------------------------------------------------


def test_the_issues_requests_are_answered_with_their_id() -> None:
    for name, (line, request_id) in ISSUE_CASES.items():
        read = read_line(line)
        if name in ("an integer over 4,300 digits in the arguments", "a lone surrogate"):
            # Valid envelopes: served, the odd value kept as text the tool will refuse.
            assert read.line is not None and read.reply is None, name
            continue
        assert read.reply is not None, name
        assert read.reply.id == request_id, name
        assert read.reply.error.code == INVALID_REQUEST, name
    assert (
        "'jsonrpc' must be \"2.0\"" in read_line('{"id": 4, "method": "ping"}').reply.error.message
    )  # type: ignore[union-attr]


def test_values_no_tool_can_take_reach_it_as_text() -> None:
    served = read_line(CALL % (7, '{"name": "size", "arguments": {"users": NaN, "x": 1e400}}'))
    assert served.line is not None
    arguments = json.loads(served.line)["params"]["arguments"]
    assert arguments == {"users": "NaN", "x": "1e400"}  # the tool names the field it refuses
    surrogate = read_line(CALL % (8, '{"name": "find_gpu", "arguments": {"name": "a\\ud800b"}}'))
    assert json.loads(surrogate.line or "")["params"]["arguments"]["name"] == "a\ufffdb"


@pytest.mark.parametrize(
    ("line", "code", "request_id"),
    [
        ("hello", PARSE_ERROR, None),
        ('{"jsonrpc": "2.0", "id": 9, "method": "pi', PARSE_ERROR, 9),  # cut: id recovered
        ('[{"jsonrpc": "2.0", "id": 10, "method": "ping"}]', INVALID_REQUEST, None),
        ('{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', INVALID_REQUEST, None),
        ('{"jsonrpc": "2.0", "id": true, "method": "ping"}', INVALID_REQUEST, None),
        ('{"jsonrpc": "2.0", "id": 11, "params": {}}', INVALID_REQUEST, 11),
        ('{"jsonrpc": "2.0", "id": "s", "method": "ping", "params": [1]}', INVALID_REQUEST, "s"),
    ],
)
def test_malformed_requests_get_a_json_rpc_error(
    line: str, code: int, request_id: int | str | None
) -> None:
    read = read_line(line)
    assert read.reply is not None and read.reply.error.code == code
    assert read.reply.id == request_id


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc": "2.0", "method": 5}',  # a broken notification
        '{"jsonrpc": "2.0", "method": "notifications/initialized", "params": "x"}',
        '{"jsonrpc": "2.0", "id": 1.5, "result": {}}',  # a broken response
        "   ",
    ],
)
def test_what_json_rpc_never_answers_is_not_answered(line: str) -> None:
    read = read_line(line)
    assert read.reply is None and read.line is None


def test_the_id_is_found_in_text_that_does_not_parse() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    line = '{"jsonrpc": "2.0", "method": "x", "params": ' + deep + ', "id": "last"}'
    assert scan_id(line) == "last"
    assert scan_id('{"a": {"id": 1}, "id": 2') == 2  # the top level's, not a nested one
    assert scan_id('{"params": {"id": 1}}') is None
    assert scan_id('{"id": ' + "9" * 5000 + ', "method"') is None  # no id can carry that
    assert scan_id("not json") is None


def test_a_valid_request_passes_unchanged() -> None:
    line = (
        '{"jsonrpc": "2.0", "id": 12, "method": "tools/call", '
        '"params": {"name": "find_gpu", "arguments": {"name": "H100"}}}'
    )
    read = read_line(line)
    assert read.line is not None and json.loads(read.line) == json.loads(line)


# --- a real server over its pipes -------------------------------------------------------------


def _answers(
    server: WireServer, line: str, ping_id: str, expect: object = None
) -> list[dict[str, Any]]:
    """The replies to `line` and a ping after it, read until the ping and — when the request
    carries an id (`expect`) — its own answer arrived: a tool call runs in a worker thread, so
    the ping after it may be answered first. Every reply answers one of the two (`None`: the
    null id, when `expect` is None): a second answer to an earlier line, arriving late, fails
    the test that reads it."""
    server.send(line)
    server.send(json.dumps({"jsonrpc": "2.0", "id": ping_id, "method": "ping"}))
    got: list[dict[str, Any]] = []
    deadline = time.monotonic() + 60  # a 100k-deep line is scanned for its id
    while time.monotonic() < deadline:
        got += server.replies(POLL_S)
        ids = {r.get("id") for r in got}
        if ping_id in ids and (expect is None or expect in ids):
            break
    strays = [r for r in got if r.get("id") not in (ping_id, expect)]
    assert not strays, str(strays)[:300]
    return got


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    wire = WireServer(tmp_path_factory.mktemp("mcp-wire"))
    assert "result" in wire.initialize()
    yield wire
    wire.close()


def test_every_request_of_the_issue_gets_an_answer_and_the_server_keeps_serving(
    server: WireServer,
) -> None:
    for number, (name, (line, request_id)) in enumerate(ISSUE_CASES.items()):
        got = _answers(server, line, f"ping-{number}", request_id)
        answered = [r for r in got if r.get("id") == request_id]
        assert len(answered) == 1, (name, got)
        assert any(r.get("id") == f"ping-{number}" and "result" in r for r in got), name
    # The 5,000-digit integer and the lone surrogate reached their tools, which refused them
    # by field: error results, not protocol errors.
    big = _answers(server, ISSUE_CASES["an integer over 4,300 digits in the arguments"][0], "p", 1)
    result = next(r for r in big if r.get("id") == 1)["result"]
    assert result["isError"] is True and "name" in result["content"][0]["text"]


def test_nan_arguments_get_the_validation_error_not_an_internal_limit(
    server: WireServer,
) -> None:
    line = CALL % (
        20,
        '{"name": "compare_costs", "arguments": {"options": [{"gpu": "h100-sxm", "count": 1}],'
        ' "eur_to_usd": NaN}}',
    )
    got = _answers(server, line, "p20", 20)
    result = next(r for r in got if r.get("id") == 20)["result"]
    text = result["content"][0]["text"]
    assert result["isError"] is True and "eur_to_usd" in text
    assert "internal limit" not in text


def test_a_line_longer_than_the_limit_is_answered_without_being_held(
    server: WireServer,
) -> None:
    padding = "x" * (MAX_LINE_BYTES + 1024)
    line = '{"jsonrpc": "2.0", "id": 30, "method": "ping", "params": {"pad": "' + padding + '"}}'
    got = _answers(server, line, "p30", 30)
    error = next(r for r in got if r.get("id") == 30)["error"]
    assert error["code"] == INVALID_REQUEST and "at most" in error["message"]


def test_generated_wire_messages_are_all_answered(tmp_path: Path) -> None:
    tally = fuzz_wire(tmp_path, 150)
    assert sum(tally.cases.values()) == 150
    assert {"valid", "arguments", "envelope", "bad_id", "notification"} <= set(tally.cases)
    assert not tally.failures, "\n".join(tally.failures[:10])
