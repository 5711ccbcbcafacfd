"""The reliability suite's file half (issue 34): hostile config.toml, prices.toml and session
files under the CLI. Shared by tests/test_fuzz_cli.py (through `tests.fuzzing_cli.fuzz_cli`)
and bench/bench_reliability.py (more cases).

Each case starts from a valid file — a config.toml with every kind of setting, a prices.toml
with a GPU price and an API price, a session saved from a real offline turn — and breaks it
once: a value replaced by a hostile one (NaN, inf, 5e-324, 1e308, a 5,000-digit number, a TOML
date, an impossible or future `as_of`, control and bidi characters, a lone surrogate, the
wrong type, an array or table nested 5,000 deep), or the text itself cut, flipped, doubled,
wrapped in deep nesting or made not UTF-8. Then one command reads it (`cost`, `ask --offline`,
`proposal --session`, `ask --session`) and the CLI contract is checked: no exception escapes,
exit 0 or 2, a failure is one stderr line naming the file or flag, `--json` is strict JSON.
Cases come from a seeded `random.Random`, so every run tries the same files.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.fuzzing import Finding, Tally
from tests.fuzzing_cli import Invocation, _refuse, run_cli

SEED = 34

CONFIG = """base_url = "http://127.0.0.1:9/v1"
model = "m"
api_key_env = "GPU_SIZER_TEST_KEY"
request_timeout_s = 30
connect_timeout_s = 5
max_retries = 1
eur_to_usd = 1.1
offline = true
tool_profile = "auto"

[keybindings]
new_session = "ctrl+n"

[endpoints."http://127.0.0.1:9/v1"]
tools = true
strict = false
"""
"""A valid config.toml (offline = true: no request is ever sent)."""

PRICES = """[[price]]
id = "mine-h100"
provider = "Mine"
instance = "one"
gpu = "h100-sxm"
gpu_label = "H100 SXM"
gpus_per_instance = 1
tier = "on_demand"
pricing_type = "on_demand"
price_per_gpu_hour = 2.5
price_per_instance_hour = 2.5
currency = "USD"
eu = false
as_of = "2026-11-01"
source = "https://example.com/prices"

[[api_price]]
id = "mine-api"
provider = "Mine"
model = "llama-3.2-1b-instruct"
model_id = "llama-3.2-1b"
input_per_mtok = 0.05
output_per_mtok = 0.1
currency = "USD"
as_of = "2026-11-01"
source = "https://example.com/api"
"""
"""A valid prices.toml: one H100 price and one API price for the model `cost` sizes."""

TOML_VALUES: tuple[str, ...] = (
    "nan",
    "inf",
    "-inf",
    "0",
    "-1",
    "5e-324",
    "1e308",
    "9" * 5000,
    '"' + "x" * 300 + '"',
    '"\\u001b[2J\\u001b]0;t\\u0007"',
    '"\\u202e\\u200b"',
    "1979-05-27T07:32:00Z",
    "1979-05-27",
    '"2026-13-45"',
    '"2099-01-01"',
    '""',
    "[]",
    "{}",
    "true",
    "[" * 5000 + "]" * 5000,
    "{a = " * 5000 + "1" + "}" * 5000,
    "[" * 70 + "]" * 70,
)
"""What a TOML value is replaced with (literals as written in the file)."""

JSON_VALUES: tuple[str, ...] = (
    "NaN",
    "Infinity",
    "1e400",
    "9" * 5000,
    "-1",
    "0",
    "null",
    "true",
    '""',
    '"\\ud800"',
    '"\\u001b]52;c;aGk=\\u0007"',
    '"\\u202e\\u2066"',
    "{}",
    "[]",
    '"' + "x" * 5000 + '"',
    "[" * 5000 + "]" * 5000,
    "[" * 70 + "]" * 70,
    '{"schema": "SizingReport", "data": {}}',
)
"""What a JSON value in a session is replaced with."""


def _toml_line_values(rng: random.Random, text: str) -> str:
    """One `key = value` line's value replaced by a hostile literal."""
    lines = text.splitlines()
    assignments = [i for i, line in enumerate(lines) if " = " in line]
    index = rng.choice(assignments)
    key = lines[index].split(" = ", 1)[0]
    lines[index] = f"{key} = {rng.choice(TOML_VALUES)}"
    return "\n".join(lines) + "\n"


def _toml_text(rng: random.Random, text: str) -> str | bytes:
    """The text itself broken: cut, a byte flipped, a table doubled, an unknown or secret key,
    a 5,000-part dotted key, a BOM, bytes that are not UTF-8, nothing."""
    kind = rng.randrange(9)
    if kind == 0:
        return text[: rng.randrange(len(text))]
    if kind == 1:
        position = rng.randrange(len(text))
        return text[:position] + rng.choice("[]{}=\"'\\\n#") + text[position + 1 :]
    if kind == 2:
        return text + text
    if kind == 3:
        return text.replace("\n", "\ncolour = 'red'\n", 1)
    if kind == 4:
        return 'api_key = "sk-secret"\n' + text
    if kind == 5:
        return ".".join(["a"] * 5000) + " = 1\n" + text
    if kind == 6:
        return "\ufeff" + text
    if kind == 7:
        return text.encode() + b"\xff\xfe\x80"
    return ""


def hostile_toml(rng: random.Random, text: str) -> str | bytes:
    """A valid TOML document broken once (a value or the text)."""
    return _toml_line_values(rng, text) if rng.random() < 0.6 else _toml_text(rng, text)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value inside a parsed JSON document."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


_MARK = "__HOSTILE_VALUE__"


def hostile_session(rng: random.Random, document: dict[str, Any]) -> str | bytes:
    """A valid session's JSON broken once: a value anywhere replaced (a message, a field of
    a stored sizing report, a tool call's arguments text), or the text cut, flipped, wrapped
    in deep nesting or made not UTF-8."""
    text = json.dumps(document)
    if rng.random() < 0.25:
        kind = rng.randrange(4)
        if kind == 0:
            return text[: rng.randrange(len(text))]
        if kind == 1:
            position = rng.randrange(len(text))
            return text[:position] + rng.choice('[]{}",:\\') + text[position + 1 :]
        if kind == 2:
            return "[" * 5000 + text + "]" * 5000
        return text.encode()[:200] + b"\xff\xfe" + text.encode()[200:]
    copy = json.loads(text)
    paths = [p for p in _paths(copy) if p]
    path = rng.choice(paths)
    replacement = rng.choice(JSON_VALUES)
    if path[-1] == "arguments" and rng.random() < 0.5:
        replacement = json.dumps('{"workload": ' + "[" * 5000 + "]" * 5000 + "}")
    node = copy
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = _MARK
    return json.dumps(copy).replace(json.dumps(_MARK), replacement)


def valid_session(session_id: str = "fuzzed") -> dict[str, Any]:
    """A session as the app saves it after one real offline turn (tool calls, a typed sizing
    report, the answer's sections)."""
    from assistant.conversation import Conversation
    from assistant.offline.engine import OfflineEngine

    conversation = Conversation(id=session_id)

    async def turn() -> None:
        async for _ in OfflineEngine().run_turn(conversation, "serve Llama 3.2 1B on an L4"):
            pass

    asyncio.run(turn())
    repaired, _ = conversation.repaired()
    return json.loads(repaired.model_dump_json())  # type: ignore[no-any-return]


@contextlib.contextmanager
def _environment(**values: str) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


_NAMED = re.compile(r"config\.toml|prices\.toml|prices|session|--session|--continue|\.json")


def check_file_invocation(inv: Invocation, tally: Tally, kind: str) -> None:
    """The CLI contract for a run that read a hostile `kind` file (tallied under `kind`)."""
    tally.inputs[kind] += 1
    shown = " ".join(inv.argv)[:200]
    if inv.raised is not None:
        tally.findings.append(Finding("crash", kind, shown, inv.raised))
        return
    if inv.code not in (0, 2):
        tally.findings.append(Finding("exit_code", kind, shown, f"exit {inv.code}: {inv.err}"))
        return
    if "Traceback" in inv.err:
        tally.findings.append(Finding("crash", kind, shown, inv.err[-300:]))
        return
    if inv.code == 2:
        tally.errors[kind] += 1
        lines = inv.err.strip("\n").split("\n")
        if len(lines) != 1 or ": error: " not in lines[0]:
            tally.findings.append(Finding("not_one_line", kind, shown, inv.err[:300]))
        elif not _NAMED.search(lines[0].split(": error: ", 1)[1]):
            tally.findings.append(Finding("unclear_error", kind, shown, lines[0][:300]))
        return
    if "--json" in inv.argv:
        try:
            json.loads(inv.out, parse_constant=_refuse)
        except ValueError as exc:
            tally.findings.append(Finding("non_finite", kind, shown, str(exc)[:300]))


def _write(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")


CONFIG_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("cost", "--gpu", "l4", "--json"),
    ("ask", "--offline", "--no-save", "Llama 3.2 1B on an L4"),
    ("recommend", "--model", "llama-3.2-1b", "--only", "l4", "--json"),
)
PRICE_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("cost", "--gpu", "h100-sxm", "--model", "llama-3.2-1b", "--json"),
    ("cost", "--gpu", "h100-sxm", "--model", "llama-3.2-1b"),
    ("ask", "--offline", "--no-save", "--json", "serve Llama 3.2 1B on an H100"),
)
SESSION_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("proposal", "--session", "fuzzed"),
    ("ask", "--offline", "--session", "fuzzed", "and on an H100?"),
    ("ask", "--offline", "-c", "--json", "and for 8 users?"),
    ("proposal", "--from-json", "SESSION_FILE"),
)


def fuzz_files(tally: Tally, workdir: Path, per_kind: int = 16, seed: int = SEED) -> None:
    """`per_kind` hostile config.toml, prices.toml and session files, each read by one of the
    commands that read that file (in turn), checked with `check_file_invocation`."""
    rng = random.Random(seed)
    session = valid_session()
    kinds: list[tuple[str, Callable[[], str | bytes], tuple[tuple[str, ...], ...]]] = [
        ("config.toml", lambda: hostile_toml(rng, CONFIG), CONFIG_COMMANDS),
        ("prices.toml", lambda: hostile_toml(rng, PRICES), PRICE_COMMANDS),
        ("session", lambda: hostile_session(rng, session), SESSION_COMMANDS),
    ]
    for kind, make, commands in kinds:
        for case in range(per_kind):
            home = workdir / f"{kind}-{case}"
            config, data = home / "config", home / "data"
            file = {
                "config.toml": config / "gpu-sizer" / "config.toml",
                "prices.toml": config / "gpu-sizer" / "prices.toml",
                "session": data / "gpu-sizer" / "sessions" / "fuzzed.json",
            }[kind]
            _write(file, make())
            argv = [a.replace("SESSION_FILE", str(file)) for a in commands[case % len(commands)]]
            with _environment(XDG_CONFIG_HOME=str(config), XDG_DATA_HOME=str(data)):
                check_file_invocation(run_cli(argv), tally, kind)
