"""Models that cannot call tools can still read (issue 28, point 3): the engine asks for the
question's reading in a JSON schema (`response_format` json_schema) before the explanation, and
that reading is grounded and reconciled like a `size` call; an endpoint that rejects the schema
gets it switched off (the parser's reading stands), as does an ungrounded reading. The scripted
server of tests/scripted_server.py plays the endpoint; the parser's reading is fixed as in
tests/test_llm_readings.py."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from assistant.config import Capabilities, Settings
from assistant.conversation import Conversation
from assistant.events import Event, Notice, ToolCallStarted, Verdict
from assistant.llm import LlmEngine
from assistant.reading.structured import SCHEMA
from tests import scripted_server as ss
from tests.test_llm_readings import QUESTION, _parsed, fixed_parser


@pytest.fixture(scope="module")
def server() -> Iterator[ss.ScriptedServer]:
    srv = ss.ScriptedServer().start()
    yield srv
    srv.stop()


def _engine(server: ss.ScriptedServer, tools: bool = False) -> LlmEngine:
    settings = Settings(
        base_url=server.base_url,
        model="scripted",
        max_retries=0,
        endpoints={server.base_url: Capabilities(tools=tools)},
    )
    return LlmEngine(settings, env={}, system_prompt="SYS", planner=fixed_parser(_parsed(1000)))


async def _turn(engine: LlmEngine, conv: Conversation | None = None) -> list[Event]:
    return [e async for e in engine.run_turn(conv or Conversation(), QUESTION)]


def _final(events: list[Event]) -> Verdict:
    verdicts = [e for e in events if isinstance(e, Verdict)]
    assert verdicts and not verdicts[-1].provisional
    return verdicts[-1]


async def test_a_structured_reading_is_grounded_and_wins_by_the_rule(
    server: ss.ScriptedServer,
) -> None:
    server.reset(ss.text('{"model": "Llama 3.1 70B", "users": 40}'), ss.text("Explained."))
    events = await _turn(_engine(server))
    reading_request = server.requests[0]
    assert reading_request["response_format"]["type"] == "json_schema"
    assert reading_request["response_format"]["json_schema"]["schema"] == SCHEMA
    assert "tools" not in reading_request and reading_request["stream"] is False
    assert QUESTION in json.dumps(reading_request["messages"])
    sized = [e for e in events if isinstance(e, ToolCallStarted) and e.call_id.startswith("read_")]
    assert [e.arguments["workload"]["users"] for e in sized] == [40]
    final = _final(events).text
    assert "Read as 40 concurrent users; the built-in parser read 1,000 concurrent users" in final
    # The explanation request carries both results folded into the question (no tools).
    explain = server.requests[1]
    assert "tools" not in explain and "response_format" not in explain


async def test_an_endpoint_that_rejects_the_schema_keeps_the_parsers_reading(
    server: ss.ScriptedServer,
) -> None:
    server.reset(ss.error(400, "response_format is not supported"), ss.text("Explained."))
    engine = _engine(server)
    events = await _turn(engine)
    assert engine.capabilities.structured_output is False
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any("does not take a JSON schema" in n for n in notices)
    assert "the built-in parser read" not in _final(events).text
    # Switched off for the session: the next turn does not ask again.
    server.reset(ss.text("Again."))
    await _turn(engine)
    assert all("response_format" not in r for r in server.requests)


async def test_an_ungrounded_structured_reading_is_refused(server: ss.ScriptedServer) -> None:
    # 100 tokens/s is nowhere in the question (the 100 of 'H100' would be a name's digits; here
    # there is none at all): the reading is refused, never sized.
    reply = '{"model": "Llama 3.1 70B", "users": 40, "tokens_per_s": 100}'
    server.reset(ss.text(reply), ss.text("Explained."))
    events = await _turn(_engine(server))
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert not [e for e in started if e.call_id.startswith("read_")]
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any("workload.tokens_per_s" in n for n in notices)
    assert _final(events).text.startswith("*Read as: Llama 3.1 70B · 1,000 concurrent users")


@pytest.mark.parametrize("reply", ["not json", '{"users": 40}', '{"model": "Quux 9000"}'])
async def test_a_reading_that_names_nothing_sizable_changes_nothing(
    server: ss.ScriptedServer, reply: str
) -> None:
    server.reset(ss.text(reply), ss.text("Explained."))
    events = await _turn(_engine(server))
    assert "the built-in parser read" not in _final(events).text
    assert len([e for e in events if isinstance(e, ToolCallStarted)]) == 1  # the parser's


async def test_an_endpoint_that_rejects_tools_then_reads_structured(
    server: ss.ScriptedServer,
) -> None:
    server.reset(
        ss.error(500, "tools param requires --jinja flag"),
        ss.text('{"model": "Llama 3.1 70B", "users": 40}'),
        ss.text("Explained."),
    )
    engine = _engine(server, tools=True)
    events = await _turn(engine)
    assert engine.capabilities.tools is False
    assert "response_format" in server.requests[1]
    assert "the built-in parser read 1,000" in _final(events).text
