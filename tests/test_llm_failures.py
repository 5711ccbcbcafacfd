"""Failure matrix of the LLM mode over real loopback sockets (issue 17): for each way an endpoint
fails, `gpu-sizer ask` says what happened and what to check, exits 1, still leads with the
tools' verdict (computed before the model was asked), keeps any partial answer and marks it; the
session it saves holds the question, the verdict and the marked partial answer (what the app
saves too: the same engine turn); and the API key appears nowhere — not on stdout or stderr, not
in the saved file — even when the server echoes the request's Authorization header in its error
body."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.config import load_config
from assistant.conversation import Conversation
from assistant.events import Done
from assistant.llm import LlmEngine
from assistant.sessions import load_session, session_path
from tests import scripted_server as ss
from tests.offline_turns import after_reading

SECRET = "sk-test-9f8e7d6c5b4a39281706SECRET"
KEY_ENV = "GPU_SIZER_TEST_KEY"
QUESTION = "Does Llama 3.1 70B fit on one H100?"
PARTIAL = "So far the weights alone"


@pytest.fixture(scope="module")
def server() -> Iterator[ss.ScriptedServer]:
    srv = ss.ScriptedServer().start()
    yield srv
    srv.stop()


def _closed_port_url() -> str:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now: connections are refused
    return f"http://127.0.0.1:{port}/v1"


@dataclass(frozen=True)
class Case:
    name: str
    steps: tuple[ss.Step, ...]
    kind: str
    words: str
    partial: bool = False
    refused: bool = False
    config: dict[str, object] = field(default_factory=dict)


_OVER = {"type": "exceed_context_size_error", "n_prompt_tokens": 5031, "n_ctx": 4096}
CASES = [
    Case("refused", (), "connection", "Could not connect", refused=True),
    Case(
        "401",
        (ss.Step("error", status=401, body={"error": {"message": "bad key"}}, echo_auth=True),),
        "auth",
        "rejected the API key",
    ),
    Case("404", (ss.error(404, "model 'scripted' not found"),), "model", "does not know the model"),
    Case(
        "429 long Retry-After",
        (ss.error(429, "slow down", headers={"retry-after": "120"}),),
        "rate_limit",
        "asked to wait 120 s",
        config={"max_retries": 2},
    ),
    Case("429 no Retry-After", (ss.error(429, "slow down"),), "rate_limit", "(429)"),
    Case(
        "500",
        (ss.Step("error", status=500, body={"error": {"message": "boom"}}, echo_auth=True),),
        "server",
        "HTTP 500",
    ),
    Case("stall", (ss.stall(5.0, PARTIAL),), "stall", "sent nothing for 0.5 s", partial=True),
    Case("malformed SSE", (ss.malformed(PARTIAL),), "malformed", "not valid JSON", partial=True),
    Case("truncated", (ss.cut(PARTIAL),), "truncated", "closed in the middle", partial=True),
    Case(
        "context exceeded",
        (
            ss.error(400, "request (5031 tokens) exceeds the available context size", **_OVER),
            ss.error(400, "request (5031 tokens) exceeds the available context size", **_OVER),
        ),
        "context",
        "context window",
    ),
]


def _configure(tmp_path: Path, url: str, case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = {
        "base_url": url,
        "model": "scripted",
        "api_key_env": KEY_ENV,
        "max_retries": 0,
        "stall_timeout_s": 0.5,
        "request_timeout_s": 5.0,
        **case.config,
    }
    lines = [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    (tmp_path / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("GPU_SIZER_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv(KEY_ENV, SECRET)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_failure_matrix(
    case: Case,
    server: ss.ScriptedServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = _closed_port_url() if case.refused else server.base_url
    _configure(tmp_path, url, case, monkeypatch)

    # 1. The CLI: message on stderr, exit 1, verdict and partial answer on stdout.
    server.reset(*case.steps)
    code = await _in_thread(lambda: main(["ask", QUESTION]))
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    assert case.words in err
    # The reading, then the verdict ('Does Llama 3.1 70B fit…?' is answered no first).
    assert out.startswith("*Read as: Llama 3.1 70B")
    assert after_reading(out).startswith("**No.** **Does not fit on 1× H100")
    assert (PARTIAL in out) == case.partial
    assert "the turn ended with an error" in out
    assert "Traceback" not in out + err
    if not case.refused:
        # The key was really sent (so a leak was possible)...
        sent = {k.lower(): v for k, v in server.headers[0].items()}
        assert sent["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in out + err  # ...and is shown nowhere.

    # 2. The session ask saved: the question, the verdict, the partial answer marked, no key.
    session_id = re.search(r"^session (\w+):", err, re.M)
    assert session_id is not None, err
    path = session_path(session_id.group(1))
    assert SECRET not in path.read_text(encoding="utf-8")
    saved = load_session(session_id.group(1))
    assert saved.messages[0]["role"] == "user" and saved.messages[0]["content"] == QUESTION
    answer = saved.messages[-1]
    assert answer["role"] == "assistant" and answer["error"] is True
    assert answer["checks"]["error"] == case.kind
    assert "Does not fit on 1× H100" in answer["verdict"]
    assert answer["content"] == (PARTIAL if case.partial else "")

    # 3. --json: the error is a field, the verdict and partial answer are there.
    server.reset(*case.steps)
    code = await _in_thread(lambda: main(["ask", "--json", "--no-save", QUESTION]))
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 1 and report["error"]["kind"] == case.kind
    assert case.words in report["error"]["message"]
    assert "Does not fit on 1× H100" in report["verdict"]
    assert (report["answer"] == PARTIAL) == case.partial
    assert SECRET not in out + err


async def test_a_short_retry_after_is_honoured(
    server: ss.ScriptedServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    case = Case("429 short", (), "", "", config={"max_retries": 1})
    _configure(tmp_path, server.base_url, case, monkeypatch)
    server.reset(
        ss.error(429, "slow down", headers={"retry-after": "0"}), ss.text("It does not fit.")
    )
    code = await _in_thread(lambda: main(["ask", QUESTION]))
    out, err = capsys.readouterr()
    assert code == 0 and "It does not fit." in out
    assert "rate-limiting (429) and asked to wait 0 s" in err
    assert len(server.requests) == 2


async def test_context_exceeded_once_is_learned_and_retried(
    server: ss.ScriptedServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _configure(tmp_path, server.base_url, CASES[0], monkeypatch)
    small = {**_OVER, "n_ctx": 2048}
    server.reset(ss.error(400, "exceeds the available context size", **small), ss.text("ok"))
    engine = LlmEngine(load_config(), env={KEY_ENV: SECRET})
    events = [e async for e in engine.run_turn(Conversation(), QUESTION)]
    assert isinstance(events[-1], Done) and events[-1].error is None
    assert engine.window is not None and engine.window.tokens == 2048
    # The retry fits the learned window: at most a quarter of it for the answer.
    assert server.requests[1]["max_tokens"] <= 512


async def _in_thread(run: object) -> int:
    """Run the synchronous CLI (which calls asyncio.run) off this test's event loop."""
    import asyncio

    assert callable(run)
    return int(await asyncio.to_thread(run))
