"""The reliability suite's command-line half (issue 21, item 7): generated invocations of every
`gpu-sizer` entry point, run in-process, each checked against the CLI contract. Shared by
tests/test_fuzz_cli.py (which asserts) and bench/bench_reliability.py (which reports).

Options come from each command's own parser (so a flag added later is fuzzed too), values from
a hostile pool (0, -1, inf, nan, 1e400, a 30-digit count, 2.5, words, control characters,
300 characters). The contract: no exception escapes; the exit code is 0, or 2 with exactly one
line on stderr that names the flag or argument at fault; `--json` output is strict JSON (no
NaN/Infinity) and text output prints no `inf`/`nan` figure.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import re
import time
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant import cli
from tests.fuzzing import EXAMPLE_DEADLINE_S, Finding, Tally

VALUES: tuple[str, ...] = (
    "0",
    "-1",
    "1",
    "2.5",
    "inf",
    "-inf",
    "nan",
    "1e400",
    "9" * 30,
    "16k",
    "lots",
    "",
    "x" * 300,
    "\x1b[2J\x1b]0;t\x07",
    "-7B",
    "h100-sxm",
    "llama-3.1-8b",
    "full",
    "3",
)

# What every generated invocation of a command starts with: a model and one GPU type keep the
# valid runs cheap (a whole-catalog recommendation is ~0.3 s).
BASES: dict[str, tuple[tuple[str, ...], ...]] = {
    "memory": (("--model", "llama-3.1-8b"), ("--params", "7B"), ()),
    "recommend": (("--model", "llama-3.2-1b", "--only", "l4"), ("--params", "7B", "--only", "a10")),
    "cost": (("--gpu", "h100-sxm"), ("--model", "llama-3.2-1b", "--gpu", "l4")),
    "ask": (("--offline",),),
    "proposal": (("--session", "no-such-session"), ()),
    "models": ((), ("--json",)),
    "gpus": ((), ("--json",)),
    # `prices` without an action shows the file in use; `refresh` would use the network.
    "prices": (("show",), ()),
}
SERVERS = frozenset({"mcp"})
"""Commands that serve a protocol on stdin/stdout until the client leaves: driven by their own
client tests (tests/test_mcp_server.py), not by generated invocations."""

QUESTIONS: tuple[str, ...] = (
    "Llama 3.1 8B for 1e400 users",
    "serve Llama 3.1 70B to 99999999999999999999999999 users on H100",
    "llama 3.1 8b on an L4 with -5 users and 10^30 tokens of context",
    "\x1b]52;c;aGk=\x07 Mixtral on \x1b[2J an A100",
    "",
    "   ",
    "Qwen2.5 7B " + "very " * 400 + "long",
)

_CLEAR = re.compile(
    r"^(?:argument [\w-]+|unrecognized arguments|the following arguments are required|"
    r"one of the arguments|(--?[\w-]+(?:/--?[\w-]+)*)|([\w-]+))[:\s]"
)
# How Python prints a non-finite float in text ("inf", "-inf", "nan"); never a word such as
# "Infinity Fabric" (AMD's link) or "information".
_NON_FINITE_TEXT = re.compile(r"(?<![\w.-])-?(?:inf|nan)(?![\w-])")


@dataclass(frozen=True)
class Invocation:
    """One run of the CLI: what it returned and printed."""

    argv: tuple[str, ...]
    code: int | None
    out: str
    err: str
    raised: str | None = None


def run_cli(argv: Sequence[str]) -> Invocation:
    """`gpu-sizer ARGV` in this process, stdout and stderr captured; the chat app is never
    opened (an invocation that would open it returns 0 at once)."""
    out, err = io.StringIO(), io.StringIO()
    raised: str | None = None
    code: int | None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(argv))
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
        except BaseException as exc:  # a crash is what this suite looks for
            if isinstance(exc, KeyboardInterrupt):
                raise
            code, raised = None, f"{type(exc).__name__}: {exc}"[:300]
    return Invocation(tuple(argv), code, out.getvalue(), err.getvalue(), raised)


@functools.cache
def _names(command: str | None) -> frozenset[str]:
    """Every option string and positional name of `command` (None: the dispatcher and the
    app's flags). Read from a parser of its own once per process, as `cli.command_parser`
    builds the one `main` parses with once: both come from the same fixed definitions."""
    parser = cli.build_parser(only=command)
    if command is not None:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[command]
    else:
        from assistant.config import add_config_arguments

        add_config_arguments(parser)
    names: set[str] = set()
    for action in parser._actions:
        names |= set(action.option_strings)
        names |= {s.lstrip("-") for s in action.option_strings}
        names.add(str(action.dest))
        if action.metavar:
            names.add(str(action.metavar))
    return frozenset(names)


def check_invocation(inv: Invocation, tally: Tally, names: AbstractSet[str]) -> None:
    """Every CLI contract for one invocation; findings go to `tally` under "cli"."""
    tally.inputs["cli"] += 1
    shown = " ".join(inv.argv)[:300]
    if inv.raised is not None:
        tally.findings.append(Finding("crash", "cli", shown, inv.raised))
        return
    if inv.code not in (0, 2):
        tally.findings.append(Finding("exit_code", "cli", shown, f"exit {inv.code}: {inv.err}"))
        return
    if inv.code == 2:
        tally.errors["cli"] += 1
        lines = inv.err.strip("\n").split("\n")
        if len(lines) != 1 or ": error: " not in lines[0]:
            tally.findings.append(Finding("not_one_line", "cli", shown, inv.err[:300]))
            return
        said = lines[0].split(": error: ", 1)[1]
        match = _CLEAR.match(said)
        lowered = {n.lower() for n in names}
        named = match and (match.group(1) is None or match.group(1).split("/")[0] in names)
        bare = match and match.group(2) is not None and match.group(2).lower() not in lowered
        if not named or bare:
            tally.findings.append(Finding("unclear_error", "cli", shown, said[:300]))
        return
    if "--json" in inv.argv:
        try:
            json.loads(inv.out, parse_constant=_refuse)
        except ValueError as exc:
            tally.findings.append(Finding("non_finite", "cli", shown, str(exc)[:300]))
    elif _NON_FINITE_TEXT.search(inv.out):
        found = _NON_FINITE_TEXT.search(inv.out)
        assert found is not None
        context = inv.out[max(0, found.start() - 60) : found.end() + 20]
        tally.findings.append(Finding("non_finite", "cli", shown, context))


def _refuse(literal: str) -> Any:
    raise ValueError(f"{literal} in --json output")


def _options(command: str) -> list[tuple[str, bool]]:
    """(option string, takes a value) for every option of `command` but --help."""
    parser = cli.build_parser(only=command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = []
    for action in sub.choices[command]._actions:
        for name in action.option_strings:
            if name not in ("-h", "--help"):
                out.append((name, action.nargs != 0))
    return sorted(out)


def _fuzz_settings(examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return settings(
        max_examples=examples,
        deadline=timedelta(seconds=EXAMPLE_DEADLINE_S),  # one invocation (ask: one turn)
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def command_invocations(command: str, tally: Tally, examples: int) -> None:
    """`examples` generated invocations of one command: a base, then 1-3 options with values
    from the hostile pool (or none, for a switch)."""
    options = _options(command)
    names = _names(command) | _names(None)
    pairs = st.tuples(st.sampled_from(options), st.sampled_from(VALUES))

    @_fuzz_settings(examples)
    @given(base=st.sampled_from(BASES.get(command, ((),))), extra=st.lists(pairs, max_size=3))
    def run(base: tuple[str, ...], extra: list[tuple[tuple[str, bool], str]]) -> None:
        argv: list[str] = [command, *base]
        for (option, takes_value), value in extra:
            argv += [option, value] if takes_value else [option]
        if command == "ask":
            argv.append("Llama 3.1 8B on an L4 for 4 users")
        check_invocation(run_cli(argv), tally, names)

    run()


def fixed_invocations(tally: Tally, workdir: Path) -> Iterator[None]:
    """Hand-picked cases per entry point: the issue's examples, files that are not what they
    claim, questions with huge numbers and control characters, the dispatcher's own errors."""
    garbage = workdir / "garbage.json"
    garbage.write_text('{"id": 1, "messages": [{"role": ', encoding="utf-8")
    deep_toml, deep_json = workdir / "deep.toml", workdir / "config.json"
    deep_toml.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    deep_json.write_text('{"model_type": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    cases: list[list[str]] = [
        ["memory", "--model", "llama-3.1-8b", "--users", "0"],
        ["memory", "--model", "llama-3.1-8b", "--context", "1e400", "--json"],
        ["memory", "--model", "deepseek-v3", "--users", "10000000", "--context", "16M", "--json"],
        ["memory", "--config", str(workdir), "--json"],
        ["memory", "--model-file", str(garbage)],
        ["recommend", "--model", "llama-3.1-8b", "--users", "inf"],
        [
            "recommend",
            "--model",
            "llama-3.1-405b",
            "--users",
            "10000000",
            "--only",
            "h100-sxm",
            "--context",
            "16777216",
            "--json",
        ],
        ["cost", "--model", "llama-3.1-8b", "--context", "-1"],
        ["cost", "--gpu", "h100-sxm", "--count", "100000", "--tokens-per-s", "1e9", "--json"],
        ["cost", "--gpu", "h100-sxm", "--eur-usd", "1000", "--max-usd-per-hour", "1e7", "--json"],
        ["cost", "--gpu", "h100-sxm", "--prices", str(garbage)],
        ["cost", "--gpu", "h100-sxm", "--prices", str(workdir / "missing.toml")],
        ["cost", "--gpu", "h100-sxm", "--prices", str(deep_toml), "--json"],
        ["memory", "--config", str(deep_json)],
        ["memory", "--model-file", str(deep_json)],
        ["proposal", "--from-json", str(deep_json)],
        ["proposal", "--from-json", str(garbage)],
        ["proposal", "--from-json", str(workdir)],
        ["models", "no-such-model"],
        ["gpus", "no-such-gpu", "--json"],
        ["prices", "refresh", "--source", "no-such-source"],
        ["prices", "refresh", "--timeout", "1e400"],
        ["prices", "show", "--source", "skypilot-aws"],
        ["--timeout", "abc"],
        ["--bogus"],
        ["nosuch"],
        ["memory"],
        ["cost"],
        ["proposal"],
        ["ask"],
    ]
    cases += [["ask", "--offline", question] for question in QUESTIONS]
    cases += [["ask", "--offline", "--json", question] for question in QUESTIONS[:3]]
    for argv in cases:
        command = argv[0] if argv[0] in cli.COMMANDS else None
        check_invocation(run_cli(argv), tally, _names(command) | _names(None))
        yield


def fuzz_cli(tally: Tally, workdir: Path, per_command: int = 30, files_per_kind: int = 16) -> None:
    """Every entry point: the fixed cases, then `per_command` generated invocations each, then
    `files_per_kind` hostile config.toml, prices.toml and session files read by the commands
    that read them (tests/fuzzing_files.py; tallied under those names).

    Runs inside `workdir`: a generated `proposal --output 16k` writes a real file, and it must
    land in the test's folder, never in the checkout."""
    from tests.fuzzing_files import fuzz_files

    start = time.process_time()
    with contextlib.chdir(workdir):
        for _ in fixed_invocations(tally, workdir):
            pass
        for command in cli.COMMANDS:
            if command in SERVERS:
                continue
            examples = max(6, per_command // 4) if command == "ask" else per_command
            command_invocations(command, tally, examples)
        if files_per_kind:
            fuzz_files(tally, workdir / "files", files_per_kind)
    tally.seconds["cli"] += time.process_time() - start
