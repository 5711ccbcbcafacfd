"""Issue 21 item 3: credentials in a base URL and the API key appear nowhere — not in labels,
notices, errors, the app header, sessions or config.toml — and never go over plain http to a
host that is not local.

The plain-http check runs twice: on the request respx intercepts (exactly what httpx would
send), and against a real loopback HTTP server reached through a host name that does not look
local ("gateway.test", resolved to 127.0.0.1 by patching socket.getaddrinfo), so the rule is
tested on the name the user wrote, not on the address it resolves to.
"""

from __future__ import annotations

import asyncio
import base64
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import openai
import pytest
import respx

from assistant.app.app import GpuSizerApp, header_subtitle
from assistant.app.screens.settings import SettingsScreen
from assistant.config import Settings, load_config, resolve_url_credentials
from assistant.config_file import save_config_changes
from assistant.conversation import Conversation
from assistant.events import ErrorEvent, Event, Notice
from assistant.llm import LlmEngine
from assistant.llm.errors import explain
from assistant.llm.planner import no_planner
from assistant.redact import redact_secrets, redact_url, split_credentials
from tests.app_fakes import FakeEngine
from tests.test_engine import text_reply
from tools.errors import ToolInputError

USER, PASSWORD = "alice", "s3cr3t-pw"
KEY = "sk-test-never-shown-0123456789"
BASIC = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()


def _engine(base_url: str, **settings: Any) -> LlmEngine:
    async def no_sleep(_: float) -> None:
        return None

    return LlmEngine(
        Settings(base_url=base_url, model="m", max_retries=0, **settings),
        planner=no_planner,
        env={"GATEWAY_KEY": KEY},
        system_prompt="S",
        sleep=no_sleep,
    )


def _turn(engine: LlmEngine) -> tuple[list[Event], Conversation]:
    conversation = Conversation()

    async def run() -> list[Event]:
        return [e async for e in engine.run_turn(conversation, "hello")]

    return asyncio.run(run()), conversation


def _everything_shown(engine: LlmEngine, events: list[Event], conversation: Conversation) -> str:
    return " ".join(
        [
            engine.label,
            header_subtitle(engine, engine.settings),
            conversation.model_dump_json(),
            *(e.message for e in events if isinstance(e, Notice | ErrorEvent)),
        ]
    )


def test_url_credentials_are_split_off_and_masked() -> None:
    url = f"http://{USER}:{PASSWORD}@gateway.example:8000/v1/"
    settings = Settings(base_url=url)
    assert settings.effective_base_url == "http://gateway.example:8000/v1"
    assert settings.shown_base_url == "http://***@gateway.example:8000/v1"
    assert settings.url_credentials is not None
    assert settings.url_credentials.password == PASSWORD
    assert PASSWORD not in repr(settings.url_credentials)
    assert PASSWORD not in repr(settings) and PASSWORD not in str(settings)  # tracebacks, logs
    assert split_credentials("https://h/v1") == ("https://h/v1", None)
    assert redact_url("https://tok@h/v1") == "https://***@h/v1"


def test_server_error_bodies_are_masked() -> None:
    text = f"denied for Authorization: Bearer {KEY} at http://{USER}:{PASSWORD}@h/v1 key={KEY}"
    masked = redact_secrets(text, [KEY])
    assert KEY not in masked and PASSWORD not in masked and USER not in masked
    assert "Bearer ***" in masked and "http://***@h/v1" in masked
    request = httpx.Request("POST", "https://h/v1/chat/completions")
    echoed = openai.InternalServerError(
        f"upstream said: invalid token {KEY} (Bearer {KEY})",
        response=httpx.Response(500, request=request),
        body=None,
    )
    message = explain(echoed, "https://h/v1", "m", "GATEWAY_KEY", [KEY]).message
    assert "HTTP 500" in message and KEY not in message and "***" in message


def test_plain_http_to_a_remote_host_sends_no_basic_auth_and_says_why() -> None:
    url = f"http://{USER}:{PASSWORD}@gateway.example:8000/v1"
    engine = _engine(url, api_key_env="GATEWAY_KEY")
    with respx.mock() as mock:
        route = mock.post("http://gateway.example:8000/v1/chat/completions").mock(
            return_value=httpx.Response(401, json={"error": {"message": f"who is {USER}?"}})
        )
        events, conversation = _turn(engine)
    request = route.calls[0].request
    # Neither the credentials nor the key: only the keyless placeholder.
    assert request.headers["authorization"] == "Bearer no-key"
    assert request.url.userinfo == b""
    shown = _everything_shown(engine, events, conversation)
    assert "credentials in the base URL are not sent over plain http" in shown
    assert PASSWORD not in shown and f"{USER}:" not in shown and KEY not in shown


@pytest.mark.parametrize(
    ("url", "settings"),
    [
        (f"https://{USER}:{PASSWORD}@gateway.example/v1", {}),
        (f"http://{USER}:{PASSWORD}@gateway.example/v1", {"allow_insecure_key": True}),
    ],
)
def test_credentials_are_sent_where_the_key_rules_allow(url: str, settings: Any) -> None:
    engine = _engine(url, **settings)
    with respx.mock() as mock:
        route = mock.post(url.replace(f"{USER}:{PASSWORD}@", "") + "/chat/completions").mock(
            return_value=text_reply("hi")
        )
        events, conversation = _turn(engine)
    assert route.calls[0].request.headers["authorization"] == BASIC
    assert PASSWORD not in _everything_shown(engine, events, conversation)


class _Recorder(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, str]]] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        if not self.path.endswith("/chat/completions"):
            # The LLM engine's context-window probe (Ollama's /api/show): not a chat request.
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        _Recorder.seen.append({k.lower(): v for k, v in self.headers.items()})
        body = text_reply("hi").content
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def gateway(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """A loopback HTTP server reachable as gateway.test:<port> (bounded: stopped after)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    # Polled every 50 ms (tests/scripted_server.py does the same): at serve_forever's default
    # 0.5 s, shutdown() waited up to half a second at every teardown.
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    real = socket.getaddrinfo

    def resolve(host: Any, *args: Any, **kwargs: Any) -> Any:
        # anyio passes the IDNA-encoded name (bytes).
        name = host.decode() if isinstance(host, bytes) else host
        return real("127.0.0.1" if name == "gateway.test" else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    _Recorder.seen = []
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_a_real_server_behind_a_remote_looking_name_gets_no_basic_auth(gateway: int) -> None:
    remote = _engine(f"http://{USER}:{PASSWORD}@gateway.test:{gateway}/v1")
    events, _ = _turn(remote)
    assert not [e.message for e in events if isinstance(e, ErrorEvent)]
    local = _engine(f"http://{USER}:{PASSWORD}@127.0.0.1:{gateway}/v1")
    _turn(local)  # loopback: the credentials may go
    assert [h.get("authorization") for h in _Recorder.seen] == ["Bearer no-key", BASIC]
    assert resolve_url_credentials(remote.settings)[0] is None


def test_credentials_are_never_written_to_config_toml(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    with pytest.raises(ToolInputError) as info:
        save_config_changes({"base_url": f"https://{USER}:{PASSWORD}@h/v1"}, path)
    assert info.value.field == "base_url" and not path.exists()
    assert PASSWORD not in info.value.message


async def test_settings_screen_shows_and_saves_no_credentials(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('# mine\nmodel = "m"\n', encoding="utf-8")
    settings = load_config(
        {"base_url": f"https://{USER}:{PASSWORD}@gateway.example/v1"},
        env={"GPU_SIZER_CONFIG_DIR": str(tmp_path)},
    )
    app = GpuSizerApp(FakeEngine(mode="llm"), settings, config_file=config,
                      sessions_directory=tmp_path)  # fmt: skip
    async with app.run_test(size=(100, 40)) as pilot:
        assert PASSWORD not in app.sub_title and "***@gateway.example" in app.sub_title
        await pilot.press("f2")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        from textual.widgets import Input

        assert screen.query_one("#base_url", Input).value == "https://gateway.example/v1"
        screen.query_one("#model", Input).value = "other-model"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.settings is not None and app.settings.url_credentials is not None
    text = config.read_text(encoding="utf-8")
    assert text == '# mine\nmodel = "other-model"\n'
    assert PASSWORD not in text
