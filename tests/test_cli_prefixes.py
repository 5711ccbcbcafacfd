"""A prefix never silently becomes another flag (issue 15, item 5): argparse's `allow_abbrev` is
off on every command, so `recommend --gpu t4` is not `--gpu-memory-utilization t4`, and an
unknown option is one line, exit 2, naming the options it could have meant."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest

from assistant import cli


def _command_parser(command: str) -> argparse.ArgumentParser:
    parser = cli.build_parser(only=command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    chosen = sub.choices[command]
    assert isinstance(chosen, argparse.ArgumentParser)
    return chosen


def _parsers(argv: list[str], parser: argparse.ArgumentParser) -> list[tuple[list[str], Any]]:
    """(the words that reach it, parser) for a command and each of its own subcommands
    (`prices refresh`, `prices show`)."""
    out: list[tuple[list[str], Any]] = [(argv, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _parsers([*argv, name], sub)
    return out


def _prefixes(parser: argparse.ArgumentParser) -> list[str]:
    """Each long option of `parser` less its last letter, where that is no option itself."""
    options = {o for o in parser._option_string_actions if o.startswith("--")}
    return sorted({o[:-1] for o in options if len(o) > 4 and o[:-1] not in options})


# What a command needs before it looks at the rest (proposal: a session or a JSON file;
# prices and sessions: their action).
REQUIRED = {
    "proposal": ["--session", "no-such-session"],
    "prices": ["show"],
    "sessions": ["list"],
}
CASES = [
    (command, [*words, *REQUIRED.get(command, [])], prefix)
    for command in cli.COMMANDS
    for words, parser in _parsers([command], _command_parser(command))
    for prefix in _prefixes(parser)
]


def _exit(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = cli.main(argv)
    except SystemExit as stop:
        code = int(stop.code or 0)
    return code, capsys.readouterr().err


def test_every_command_refuses_abbreviations() -> None:
    for command in cli.COMMANDS:
        for words, parser in _parsers([command], _command_parser(command)):
            assert parser.allow_abbrev is False, words
    assert len(CASES) > 100  # every command's options are covered below


@pytest.mark.parametrize("command", sorted(cli.COMMANDS))
def test_no_prefix_of_an_option_is_read_as_it(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for words, prefix in ((w, p) for c, w, p in CASES if c == command):
        code, err = _exit([*words, prefix, "1"], capsys)
        assert code == 2, (words, prefix)
        (line,) = err.strip().splitlines()
        assert f"unrecognized arguments: {prefix}" in line
        # The option it is a prefix of is named, not taken.
        assert "did you mean --" in line, line


def test_recommend_gpu_is_the_gpu_not_the_memory_utilisation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = cli.main(["recommend", "--model", "qwen3-8b", "--gpu", "t4", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {o["gpu"] for o in out["options"]} == {"t4"}


def test_an_unknown_option_names_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _exit(["memory", "--model", "qwen3-8b", "--contxt", "8k"], capsys)
    assert code == 2
    assert err.strip() == (
        "gpu-sizer memory: error: unrecognized arguments: --contxt 8k "
        "(did you mean --context? an option is never read from a prefix)"
    )
