"""Hygiene (issue 21): escape sequences that get through, data lost, secrets leaked, and how
long a very long session takes to open.

Every case is generated here with a fixed seed, then pushed through the product's real paths:
- escapes: a dirty answer streamed in random fragments through the turn stream the app and
  `ask` read (turn_stream.clean_events), stored with Conversation.add, saved and reloaded, and
  written through the CLI's CleanStream; a case fails if any output holds a control character
  (C0 except newline/tab, DEL, C1) or a JSON-escaped one;
- sessions: a valid session file damaged in every way a disk, an editor or another version
  does it (cut at every 97th byte, bytes flipped, keys dropped, values retyped, tool calls
  broken); a case fails on any exception from listing or opening it, on a history a strict
  endpoint would reject (a tool call without its result), or when a well-formed message of a
  file that still parses is lost;
- concurrent instances: two stores saving one session in random interleavings; a case fails
  when a turn either side made is missing from disk afterwards;
- secrets: credentials in base URLs and an API key through every surface that shows a URL or
  an error (header, engine label, notices, error messages, config.toml); a case fails when any
  of them holds a secret, or when Basic auth would go over plain http to a remote host.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import random
import re
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import openai

from assistant.app.app import header_subtitle
from assistant.config import Settings, resolve_api_key, resolve_url_credentials
from assistant.config_file import save_config_changes
from assistant.conversation import Conversation
from assistant.events import Done, Event, TextDelta
from assistant.llm import LlmEngine
from assistant.llm.errors import explain
from assistant.llm.planner import no_planner
from assistant.message_shapes import repair_tool_results
from assistant.sanitize import CleanStream
from assistant.session_store import SessionStore
from assistant.sessions import list_sessions, read_session_file, save_session
from assistant.turn_stream import clean_events
from tools.errors import ToolInputError

SEED = 21
ESCAPE_CASES = 3000
SESSION_CUT_STEP = 97
INTERLEAVINGS = 300
LONG_SESSION_BYTES = 50 * 10**6

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ENCODED_CONTROL = re.compile(r"\\u00(?:[01][0-9a-fA-F]|7[fF]|[89][0-9a-fA-F])")
_SEQUENCES = [
    "\x1b]52;c;cm0gLXJmIH4=\x07",  # OSC 52 clipboard
    "\x1b]0;pwned\x1b\\",  # OSC 0 title
    "\x1b]8;;http://evil.example/\x1b\\",  # OSC 8 hyperlink
    "\x1b]8;;\x1b\\",
    "\x1b[2J",  # erase display
    "\x1b[31;1m",
    "\x1bc",  # reset
    "\x1bP1$qm\x1b\\",  # DCS
    "\x9b2J",  # 8-bit CSI
    "\x9d0;t\x9c",  # 8-bit OSC
    "\x1b]0;unterminated",
    "\r",
    "\x07",
    "\x00",
    "\x1b",
]
_WORDS = ["Fits", "on", "**1× L4**", "[/]", "[@click=app.quit]", "<b>", "\n", "\t", "é", "GiB"]


def _dirty_text(rng: random.Random) -> str:
    return "".join(rng.choice(_SEQUENCES if rng.random() < 0.3 else _WORDS) for _ in range(24))


def _fragments(rng: random.Random, text: str) -> list[str]:
    cuts = sorted({0, len(text), *(rng.randrange(len(text) + 1) for _ in range(6))})
    return [text[a:b] for a, b in itertools.pairwise(cuts)]


def _dirty(text: str) -> bool:
    return bool(_CONTROL.search(text.replace("\n", "").replace("\t", ""))) or bool(
        _ENCODED_CONTROL.search(text)
    )


async def _stream(fragments: list[str], conversation: Conversation) -> AsyncIterator[Event]:
    for fragment in fragments:
        yield TextDelta(fragment)
    text = "".join(fragments)
    conversation.add({"role": "assistant", "content": text})
    yield Done(text, conversation)


def escapes(directory: Path) -> dict[str, int]:
    """Dirty answers through stream, conversation, session file and stdout."""
    rng = random.Random(SEED)
    through = 0
    for case in range(ESCAPE_CASES):
        text = _dirty_text(rng)
        conversation = Conversation(id=f"e{case % 50}")
        conversation.add({"role": "user", "content": text})

        async def collect(conv: Conversation = conversation, t: str = text) -> list[Event]:
            return [e async for e in clean_events(_stream(_fragments(rng, t), conv))]

        events = asyncio.run(collect())
        shown = "".join(e.text for e in events if isinstance(e, TextDelta))
        done = events[-1]
        assert isinstance(done, Done)
        saved = save_session(conversation, directory).read_text(encoding="utf-8")
        reloaded = read_session_file(directory / f"{conversation.id}.json").conversation
        out = io.StringIO()
        stream = CleanStream(out)
        for fragment in _fragments(rng, text):
            stream.write(fragment)
        stream.flush()
        outputs = [shown, done.text, saved, reloaded.model_dump_json(), out.getvalue()]
        through += any(_dirty(o) for o in outputs) or shown != done.text
    return {"cases": ESCAPE_CASES, "failures": through}


def _valid_session(turns: int = 6) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for n in range(turns):
        function = {"name": "find_gpu", "arguments": json.dumps({"name": "l4"})}
        call = {"id": f"c{n}", "type": "function", "function": function}
        messages += [
            {"role": "user", "content": f"question {n}"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": '{"memory_GB":24}'},
            {"role": "assistant", "content": f"answer {n}"},
        ]
    return {"id": "victim", "title": "t", "updated": "2026-01-01T00:00:00+00:00",
            "mode": "offline", "messages": messages}  # fmt: skip


_UNKNOWN = -2
"""Damage somewhere unknown (cut, flipped byte): no message is known to be intact."""


def _damaged(rng: random.Random) -> list[tuple[str, bytes, int]]:
    """(kind, file bytes, index of the one damaged message: -1 none, _UNKNOWN unknown)."""
    valid = _valid_session()
    whole = json.dumps(valid, indent=1).encode()
    count = len(valid["messages"])
    cases: list[tuple[str, bytes, int]] = [
        ("truncated", whole[:cut], _UNKNOWN) for cut in range(0, len(whole), SESSION_CUT_STEP)
    ]
    for _ in range(200):
        flipped = bytearray(whole)
        flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        cases.append(("byte flipped", bytes(flipped), _UNKNOWN))
    broken_values: list[Any] = [None, 7, "x", [], {}, [1], {"id": 3}]
    for _ in range(300):
        data = json.loads(whole)
        index = rng.randrange(count)
        message = data["messages"][index]
        key = rng.choice([*message.keys(), "tool_calls", "function"])
        if key == "function" and message.get("tool_calls"):
            message["tool_calls"][0]["function"] = rng.choice(broken_values)
        elif rng.random() < 0.5:
            message.pop(key, None)
        else:
            message[key] = rng.choice(broken_values)
        cases.append(("message damaged", json.dumps(data).encode(), index))
    for key in ("id", "messages", "title", "updated"):
        data = json.loads(whole)
        for value in broken_values:
            data[key] = value
            damaged = _UNKNOWN if key == "messages" else -1
            cases.append((f"{key} retyped", json.dumps(data).encode(), damaged))
    return cases


def _texts_lost(loaded: list[dict[str, Any]], damaged: int) -> int:
    """Intact user questions and assistant answers of the original that did not load (a tool
    result whose call was damaged cannot be kept: no endpoint accepts it)."""
    original = _valid_session()["messages"]
    present = {(m.get("role"), m.get("content")) for m in loaded}
    return sum(
        (m["role"], m["content"]) not in present
        for index, m in enumerate(original)
        if index != damaged and m["role"] in ("user", "assistant") and m.get("content")
    )


def _answered(messages: list[dict[str, Any]]) -> bool:
    return not repair_tool_results(messages)[1]


def sessions(directory: Path) -> dict[str, int]:
    rng = random.Random(SEED)
    failures = lost = 0
    cases = _damaged(rng)
    for index, (_, raw, damaged) in enumerate(cases):
        path = directory / f"s{index}.json"
        path.write_bytes(raw)
        try:
            listed = [s for s in list_sessions(directory) if s.path == path]
            try:
                loaded = read_session_file(path)
            except ToolInputError:
                if not listed or listed[0].problem is None:
                    failures += 1  # unreadable but not listed as such
                continue
            if not _answered(loaded.conversation.messages):
                failures += 1
            if damaged != _UNKNOWN:
                lost += _texts_lost(loaded.conversation.messages, damaged)
        except Exception:
            failures += 1
        finally:
            path.unlink()
    return {"cases": len(cases), "failures": failures, "texts_lost": lost}


def concurrent(directory: Path) -> dict[str, int]:
    rng = random.Random(SEED)
    lost = 0
    for case in range(INTERLEAVINGS):
        folder = directory / f"c{case}"
        save_session(Conversation(id="shared", messages=[{"role": "user", "content": "0"}]), folder)
        stores = [SessionStore(folder), SessionStore(folder)]
        chats = [store.open(folder / "shared.json").conversation for store in stores]
        made: list[str] = []
        for step in range(8):
            side = rng.randrange(2)
            turn = f"window {side} turn {step}"
            chats[side].add({"role": "user", "content": turn})
            made.append(turn)
            stores[side].save(chats[side])
        on_disk = {
            m["content"]
            for path in folder.glob("*.json")
            for m in json.loads(path.read_text())["messages"]
        }
        lost += sum(turn not in on_disk for turn in made)
    return {"cases": INTERLEAVINGS, "turns_lost": lost}


def secrets(directory: Path) -> dict[str, int]:
    user, password, key = "alice", "s3cr3t-pw-1", "sk-bench-0123456789abcdef"
    urls = [
        f"http://{user}:{password}@gateway.example:8000/v1",
        f"https://{user}:{password}@gateway.example/v1/",
        f"http://{user}:{password}@127.0.0.1:8080/v1",
        f"https://{password}@api.example.com/v1",
    ]
    request = httpx2.Request("POST", "https://gateway.example/v1/chat/completions")
    errors: list[BaseException] = [
        openai.APIConnectionError(request=request),
        openai.APITimeoutError(request=request),
        openai.InternalServerError(
            f"bad token Bearer {key} for http://{user}:{password}@gateway.example/v1",
            response=httpx2.Response(500, request=request),
            body=None,
        ),
        openai.AuthenticationError(
            f"key {key} rejected", response=httpx2.Response(401, request=request), body=None
        ),
    ]
    cases = leaked = basic_over_http = 0
    for url in urls:
        settings = Settings(base_url=url, model="m", api_key_env="K")
        engine = LlmEngine(settings, planner=no_planner, env={"K": key}, system_prompt="S")
        credentials, withheld = resolve_url_credentials(settings)
        notices = [resolve_api_key(settings, {"K": key}).withheld_reason or "", withheld or ""]
        shown = [engine.label, header_subtitle(engine, settings), *notices]
        shown += [
            explain(e, settings.shown_base_url, "m", "K", [key, password]).message for e in errors
        ]
        try:
            save_config_changes({"base_url": url}, directory / "config.toml")
        except ToolInputError as exc:
            shown.append(exc.message)
        config = directory / "config.toml"
        shown.append(config.read_text() if config.exists() else "")
        for text in shown:
            cases += 1
            leaked += password in text or f"{user}:" in text or key in text
        remote_http = url.startswith("http://") and "127.0.0.1" not in url
        basic = engine.client.default_headers.get("Authorization", "")
        basic_over_http += remote_http and (credentials is not None or "Basic" in str(basic))
    return {
        "cases": cases,
        "urls": len(urls),
        "secrets_leaked": leaked,
        "basic_auth_over_plain_http": basic_over_http,
    }


def long_session(directory: Path) -> dict[str, float]:
    """Seconds to list and open (parse, check, repair, clean) a ~50 MB session file."""
    turn = _valid_session(1)["messages"]
    answer = "A long answer line with figures: 19.6 GiB of 19.8 GiB per GPU. " * 30
    turns = LONG_SESSION_BYTES // (len(json.dumps(turn)) + len(answer))
    messages: list[dict[str, Any]] = []
    for n in range(turns):
        for message in turn:
            copy = dict(message)
            if "tool_calls" in copy:
                copy["tool_calls"] = [{**copy["tool_calls"][0], "id": f"c{n}"}]
            if copy.get("tool_call_id"):
                copy["tool_call_id"] = f"c{n}"
            if copy["role"] == "assistant" and copy.get("content"):
                copy["content"] = answer
            messages.append(copy)
    path = directory / "long.json"
    path.write_text(json.dumps({**_valid_session(0), "id": "long", "messages": messages}))
    start = time.perf_counter()
    list_sessions(directory)
    listed = time.perf_counter() - start
    start, cpu = time.perf_counter(), time.process_time()
    loaded = read_session_file(path)
    opened, opened_cpu = time.perf_counter() - start, time.process_time() - cpu
    app_wall, app_cpu = asyncio.run(_open_in_app(directory))
    return {
        "size_MB": path.stat().st_size / 1e6,
        "turns": turns,
        "list_s": listed,
        "open_s": opened,
        "open_cpu_s": opened_cpu,
        "app_open_s": app_wall,
        "app_open_cpu_s": app_cpu,
        "problems": len(loaded.problems),
    }


async def _open_in_app(directory: Path) -> tuple[float, float]:
    """Wall and CPU seconds from /load to the reopened session drawn (its last
    RESTORED_TURNS turns). CPU time is what a machine shared with other jobs cannot inflate."""
    from assistant.app.app import GpuSizerApp
    from assistant.offline.engine import OfflineEngine

    app = GpuSizerApp(OfflineEngine(), sessions_directory=directory)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        start, cpu = time.perf_counter(), time.process_time()
        await app.cmd_load("long")
        await app.workers.wait_for_complete()
        await pilot.pause()
        return time.perf_counter() - start, time.process_time() - cpu


def run() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("escapes", "sessions", "concurrent", "secrets", "long"):
            (root / name).mkdir()
        esc = escapes(root / "escapes")
        ses = sessions(root / "sessions")
        con = concurrent(root / "concurrent")
        sec = secrets(root / "secrets")
        big = long_session(root / "long")
    reliability = [
        {"suite": "escape injection (stream, session, stdout)", "cases": esc["cases"],
         "failures": esc["failures"], "counts": "outputs holding a control character"},
        {"suite": "session corruption (list, open, repair)", "cases": ses["cases"],
         "failures": ses["failures"], "counts": "exceptions or unanswered tool calls"},
        {"suite": "session corruption: questions and answers lost", "cases": ses["cases"],
         "failures": ses["texts_lost"], "counts": "intact user/assistant texts not loaded"},
        {"suite": "two instances on one session", "cases": con["cases"],
         "failures": con["turns_lost"], "counts": "turns missing from disk"},
        {"suite": "secrets in URLs, errors, config.toml", "cases": sec["cases"],
         "failures": sec["secrets_leaked"], "counts": "outputs holding a secret"},
        {"suite": "Basic auth over plain http to a remote host", "cases": sec["urls"],
         "failures": sec["basic_auth_over_plain_http"], "counts": "requests that would send it"},
    ]  # fmt: skip
    return {
        "reliability": reliability,
        "measurements": {
            f"read a {big['size_MB']:.0f} MB session ({big['turns']:,} turns), s": big["open_s"],
            "read it, CPU s": big["open_cpu_s"],
            "open it in the app (read + last 20 turns drawn), s": big["app_open_s"],
            "open it in the app, CPU s": big["app_open_cpu_s"],
            "list sessions with that file, s": big["list_s"],
        },
    }
