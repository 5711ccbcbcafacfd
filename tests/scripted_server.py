"""A scripted OpenAI-compatible HTTP server on loopback, for tests over real sockets.

Each request to `/v1/chat/completions` takes the next `Step` of the script (a plain answer
when the script is empty); the step answers in the request's mode (SSE when `stream` is true,
one JSON body otherwise) or misbehaves: an HTTP error, a stall, a malformed chunk, a connection
cut mid-body. `GET /v1/models` answers `models` (llama.cpp's shape, with `meta.n_ctx`). Every
request body and its headers are recorded. The server runs in a daemon thread (stdlib
`ThreadingHTTPServer`); `stop()` wakes any stalled handler so shutdown is immediate.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Step:
    """How the server answers one chat request."""

    kind: str = "text"
    text: str = ""
    calls: list[tuple[str, str]] = field(default_factory=list)
    """(tool name, raw arguments) for a tool-call answer."""
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    finish: str = "stop"
    seconds: float = 0.0
    echo_auth: bool = False
    """Put the request's Authorization header into the error body (a leaky proxy)."""
    headers_after_s: float = 0.0
    """Send nothing at all (not even headers) for this long first: a server reading the prompt
    before it answers (llama.cpp sends its headers with the first token)."""
    respond: Callable[[dict[str, Any]], Step] | None = None
    """Decide the answer from the request (e.g. repeat a call the engine already ran)."""


def text(
    content: str,
    finish: str = "stop",
    first_chunk_after_s: float = 0.0,
    headers_after_s: float = 0.0,
) -> Step:
    return Step(
        "text",
        text=content,
        finish=finish,
        seconds=first_chunk_after_s,
        headers_after_s=headers_after_s,
    )


def tool_calls(*calls: tuple[str, str], content: str = "") -> Step:
    return Step("calls", text=content, calls=list(calls), finish="tool_calls")


def error(
    status: int, message: str, *, headers: dict[str, str] | None = None, **extra: Any
) -> Step:
    return Step(
        "error", status=status, body={"error": {"message": message, **extra}}, headers=headers or {}
    )


def stall(seconds: float, after: str = "") -> Step:
    """Send `after` as content chunks, then nothing for `seconds` (then close)."""
    return Step("stall", text=after, seconds=seconds)


def malformed(after: str = "") -> Step:
    return Step("malformed", text=after)


def cut(after: str = "") -> Step:
    """Send `after`, then close the connection before the declared body length."""
    return Step("cut", text=after)


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _pieces(content: str) -> list[str]:
    """Split like a real server: a word (with its leading space) per chunk."""
    out: list[str] = []
    for i, word in enumerate(content.split(" ")):
        out.append(word if i == 0 else " " + word)
    return [p for p in out if p]


class _Handler(BaseHTTPRequestHandler):
    server: ScriptedHttpServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        return  # quiet: pytest shows failures, not access logs

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        owner = self.server.owner
        owner.gets.append(self.path)
        if self.path.rstrip("/").endswith("/models") and owner.models is not None:
            self._json(200, owner.models)
        else:
            self._json(404, {"error": {"message": "Not Found"}})

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": "Not Found"}})
            return
        owner.requests.append(body)
        owner.headers.append(dict(self.headers))
        with owner.lock:
            step = owner.script.pop(0) if owner.script else text(owner.default_text)
        self._answer(step, body)

    # --- answers -------------------------------------------------------------------------

    def _answer(self, step: Step, request: dict[str, Any]) -> None:
        if step.respond is not None:
            step = step.respond(request)
        if step.headers_after_s and self._wait(step.headers_after_s):
            return
        if step.kind == "error":
            body = step.body
            if step.echo_auth:
                body = {"error": {**body["error"], "request_headers": dict(self.headers)}}
            self._json(step.status, body, step.headers)
            return
        if not request.get("stream"):
            self._non_stream(step)
            return
        chunks = [_chunk({"role": "assistant", "content": None})]
        chunks += [_chunk({"content": p}) for p in _pieces(step.text)]
        if step.kind == "calls":
            for index, (name, arguments) in enumerate(step.calls):
                delta = {
                    "index": index,
                    "id": f"call_{len(self.server.owner.requests)}_{index}",
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
                chunks.append(_chunk({"tool_calls": [delta]}))
        tail = [_chunk({}, step.finish)] if step.kind in ("text", "calls") else []
        lines = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks + tail]
        if step.kind in ("text", "calls"):
            lines.append(b"data: [DONE]\n\n")
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        if step.kind == "cut":
            # Declare more than will be sent, then close: a body cut in the middle.
            self.send_header("content-length", str(sum(map(len, lines)) + 4096))
        self.end_headers()
        if step.kind in ("text", "calls") and step.seconds:
            # A server still reading a long prompt: headers now, the first chunk later.
            self.wfile.flush()
            if self._wait(step.seconds):
                return
        for line in lines:
            self.wfile.write(line)
            self.wfile.flush()
        if step.kind == "malformed":
            self.wfile.write(b'data: {"choices": [{"delta": {"content": "x"\n\n')
            self.wfile.flush()
        elif step.kind == "stall":
            self._wait(step.seconds)
        self.close_connection = True

    def _wait(self, seconds: float) -> bool:
        """Wait `seconds` as a busy server would, watching the socket: True when the client
        closed the connection meanwhile (recorded in `owner.disconnects`, as llama.cpp frees
        the slot of a request whose client went away)."""
        owner = self.server.owner
        deadline = time.monotonic() + seconds
        while not owner.closing.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            readable, _, _ = select.select([self.connection], [], [], min(left, 0.02))
            if readable:
                try:
                    gone = self.connection.recv(1, socket.MSG_PEEK) == b""
                except OSError:
                    gone = True
                if gone:
                    owner.disconnects.append(time.monotonic())
                    self.close_connection = True
                    return True
        return False

    def _non_stream(self, step: Step) -> None:
        if step.kind == "stall" and self._wait(step.seconds):
            return
        message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
        if step.kind == "calls":
            message["tool_calls"] = [
                {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
                for i, (n, a) in enumerate(step.calls)
            ]
        self._json(
            200,
            {
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "created": 0,
                "model": "scripted",
                "choices": [{"index": 0, "message": message, "finish_reason": step.finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            },
        )


class ScriptedHttpServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: ScriptedServer


class ScriptedServer:
    """Start with `start()`; set `script` per test; read `requests`; `stop()` at the end."""

    def __init__(self) -> None:
        self.script: list[Step] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.gets: list[str] = []
        self.disconnects: list[float] = []
        """When a client closed its connection while the server was still answering."""
        self.models: dict[str, Any] | None = None
        self.default_text = "Explained from the results above."
        self.lock = threading.Lock()
        self.closing = threading.Event()
        self._server: ScriptedHttpServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> ScriptedServer:
        self._server = ScriptedHttpServer(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )
        self._thread.start()
        return self

    def reset(self, *steps: Step, n_ctx: int | None = None) -> None:
        """A new script; `n_ctx` makes `/models` report that context (None: no /models)."""
        self.script = list(steps)
        self.requests.clear()
        self.headers.clear()
        self.gets.clear()
        self.disconnects.clear()
        self.models = (
            None
            if n_ctx is None
            else {
                "object": "list",
                "data": [
                    {"id": "scripted", "object": "model", "meta": {"n_ctx": n_ctx}},
                ],
            }
        )

    def stop(self) -> None:
        self.closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        time.sleep(0)


def dynamic(respond: Callable[[dict[str, Any]], Step]) -> Step:
    return Step("dynamic", respond=respond)
