"""Endpoints as users configure them (issue 28, point 6), over real loopback sockets: the key of
the `OPENAI_BASE_URL` + `OPENAI_API_KEY` pair reaches that endpoint (never over plain http to a
non-local host), a 401 says whether a key was sent, a first chunk later than the request
timeout is reported as such (not as a stall "in the middle of the answer"), and a timed-out or
cancelled request closes its connection, so a llama.cpp server frees the slot at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.config import KEYLESS_PLACEHOLDER, load_config, resolve_api_key
from assistant.conversation import Conversation
from assistant.events import Done, ErrorEvent, Event
from assistant.llm import LlmEngine
from assistant.llm.planner import no_planner
from tests import scripted_server as ss

SECRET = "sk-endpoint-test-0123456789abcdef"


@pytest.fixture(scope="module")
def server() -> Iterator[ss.ScriptedServer]:
    srv = ss.ScriptedServer().start()
    yield srv
    srv.stop()


def _env(tmp_path: Path, **values: str) -> dict[str, str]:
    return {"GPU_SIZER_CONFIG_DIR": str(tmp_path), "GPU_SIZER_MODEL": "m", **values}


# --- the key ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://api.together.xyz/v1",
        "https://llm.example.com/openai/v1/",
        "http://127.0.0.1:8080/v1",
    ],
)
def test_the_pair_sends_its_key_to_its_endpoint(tmp_path: Path, url: str) -> None:
    env = _env(tmp_path, OPENAI_BASE_URL=url, OPENAI_API_KEY=SECRET)
    settings = load_config(env=env)
    resolved = resolve_api_key(settings, env)
    assert resolved.value == SECRET and resolved.withheld_reason is None


def test_the_pair_never_goes_over_plain_http_to_a_remote_host(tmp_path: Path) -> None:
    env = _env(tmp_path, OPENAI_BASE_URL="http://10.1.2.3:8000/v1", OPENAI_API_KEY=SECRET)
    resolved = resolve_api_key(load_config(env=env), env)
    assert resolved.value == KEYLESS_PLACEHOLDER
    assert "plain http" in (resolved.withheld_reason or "")


def test_an_explicit_api_key_env_sends_openai_api_key(tmp_path: Path) -> None:
    # `--api-key-env OPENAI_API_KEY` names the variable explicitly: the user means it.
    env = _env(tmp_path, OPENAI_API_KEY=SECRET)
    flags = {"base_url": "https://llm.example.com/v1", "api_key_env": "OPENAI_API_KEY"}
    assert resolve_api_key(load_config(flags, env=env), env).value == SECRET
    # A base URL from a flag alone, with the default variable: the key is taken to be OpenAI's.
    alone = load_config({"base_url": "https://llm.example.com/v1"}, env=env)
    withheld = resolve_api_key(alone, env)
    assert withheld.value == KEYLESS_PLACEHOLDER
    assert "OPENAI_BASE_URL" in (withheld.withheld_reason or "")


def _engine(server: ss.ScriptedServer, env: dict[str, str], **settings: object) -> LlmEngine:
    config = {"base_url": server.base_url, "model": "scripted", "max_retries": 0, **settings}
    return LlmEngine(load_config(config, env=env), env=env, system_prompt="SYS", planner=no_planner)


async def _turn(engine: LlmEngine, text: str = "hi") -> list[Event]:
    return [e async for e in engine.run_turn(Conversation(), text)]


def _auth(server: ss.ScriptedServer) -> str:
    """The Authorization header of the first request (header names are case-insensitive)."""
    return next(v for k, v in server.headers[0].items() if k.lower() == "authorization")


def _error(events: list[Event]) -> ErrorEvent:
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1, events
    return errors[0]


async def test_a_401_says_the_key_was_sent(server: ss.ScriptedServer, tmp_path: Path) -> None:
    env = _env(tmp_path, OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY=SECRET)
    server.reset(ss.error(401, "invalid key"))
    message = _error(await _turn(_engine(server, env))).message
    assert _auth(server) == f"Bearer {SECRET}"
    assert "rejected the API key from $OPENAI_API_KEY" in message and SECRET not in message


async def test_a_401_says_no_key_was_sent_and_why(
    server: ss.ScriptedServer, tmp_path: Path
) -> None:
    env = _env(tmp_path, OPENAI_API_KEY=SECRET)  # base URL from a flag: the key is OpenAI's
    server.reset(ss.error(401, "missing key"))
    message = _error(await _turn(_engine(server, env))).message
    assert _auth(server) == f"Bearer {KEYLESS_PLACEHOLDER}"
    assert "no key was sent" in message and "OPENAI_BASE_URL" in message
    assert "rejected the API key" not in message
    server.reset(ss.error(401, "missing key"))
    message = _error(await _turn(_engine(server, _env(tmp_path)))).message
    assert "no key was sent ($OPENAI_API_KEY is not set)" in message


# --- timeouts and closing --------------------------------------------------------------------


async def _disconnected(server: ss.ScriptedServer, within_s: float = 2.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if server.disconnects:
            return True
        await asyncio.sleep(0.01)
    return False


@pytest.mark.parametrize("headers_first", [True, False])
async def test_a_late_first_chunk_is_a_timeout_not_a_stall_and_the_request_is_closed(
    server: ss.ScriptedServer, tmp_path: Path, headers_first: bool
) -> None:
    # The server accepts the request (and sends its headers, or not even those: llama.cpp
    # sends them with the first token), then nothing for 30 s — a slot reading a long prompt —
    # past the 0.4 s request timeout.
    late = {"first_chunk_after_s" if headers_first else "headers_after_s": 30.0}
    server.reset(ss.text("too late", **late))
    engine = _engine(server, _env(tmp_path), request_timeout_s=0.4, stall_timeout_s=0.2)
    started = time.monotonic()
    events = await _turn(engine)
    error = _error(events)
    assert time.monotonic() - started < 5.0
    assert error.kind == "timeout"
    assert "no answer within 0.4 s" in error.message
    assert "middle of the answer" not in error.message and "broke off" not in error.message
    assert await _disconnected(server)  # the server saw the client go: the slot is free


async def test_a_stall_mid_answer_closes_the_request(
    server: ss.ScriptedServer, tmp_path: Path
) -> None:
    server.reset(ss.stall(30.0, "The weights alone"))
    engine = _engine(server, _env(tmp_path), request_timeout_s=5.0, stall_timeout_s=0.3)
    events = await _turn(engine)
    error = _error(events)
    assert error.kind == "stall" and "in the middle of the answer" in error.message
    done = events[-1]
    assert isinstance(done, Done) and done.text == "The weights alone"
    assert await _disconnected(server)


@pytest.mark.parametrize("when", ["before headers", "before the first chunk", "mid-answer"])
async def test_a_cancelled_request_closes_its_stream(
    server: ss.ScriptedServer, tmp_path: Path, when: str
) -> None:
    step = {
        "before headers": ss.text("x", headers_after_s=30.0),
        "before the first chunk": ss.text("x", first_chunk_after_s=30.0),
        "mid-answer": ss.stall(30.0, "Partial"),
    }[when]
    server.reset(step)
    engine = _engine(server, _env(tmp_path), request_timeout_s=60.0, stall_timeout_s=60.0)
    task = asyncio.ensure_future(_turn(engine))
    deadline = time.monotonic() + 5.0
    while not server.requests and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)  # the request is being answered (headers sent, maybe a chunk)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _disconnected(server)
