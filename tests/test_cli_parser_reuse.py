"""`main` builds each command's parser once per process (`cli.command_parser`) and parses every
later invocation with it: whatever one invocation typed, refused or defaulted must not reach
the next, and every answer and error must be the one a freshly built parser gives."""

from __future__ import annotations

import argparse

import pytest

from assistant import cli
from tests.fuzzing_cli import Invocation, run_cli

SEQUENCE: tuple[tuple[str, ...], ...] = (
    # A flag typed, then not: the second run must see the model's default, not 5 users.
    ("memory", "--model", "llama-3.2-1b", "--users", "5", "--json"),
    ("memory", "--model", "llama-3.2-1b", "--json"),
    # A value the model refuses (exit 2 from the tool's validation, the flag named as typed).
    ("memory", "--model", "llama-3.2-1b", "--users", "0"),
    ("memory", "--model", "llama-3.2-1b", "--batch", "0"),
    # A value argparse refuses, and an option that is only a prefix of one.
    ("memory", "--model", "llama-3.2-1b", "--context", "lots"),
    ("memory", "--model", "llama-3.2-1b", "--gpu-mem", "0.9"),
    # A repeated list flag adds up within one run only.
    ("recommend", "--model", "llama-3.2-1b", "--only", "l4", "--only", "a10", "--json"),
    ("recommend", "--model", "llama-3.2-1b", "--only", "l4", "--json"),
    # A boolean flag (`--x` / `--no-x`) set, then left unset.
    ("cost", "--gpu", "h100-sxm", "--eu-only", "--json"),
    ("cost", "--gpu", "h100-sxm", "--json"),
    # Mutually exclusive groups: a required one missing, then both given, then one.
    ("proposal",),
    ("proposal", "--session", "nope", "--from-json", "x.json"),
    ("proposal", "--session", "no-such-session"),
    ("ask", "--offline", "-c", "--session", "x", "a question"),
    # The dispatcher's own errors and help.
    ("nosuch",),
    ("gpus", "--unit", "TB"),
    ("models", "--help"),
    ("--help",),
)


def _fresh(argv: tuple[str, ...]) -> Invocation:
    cli._parser_for.cache_clear()
    return run_cli(argv)


def test_a_reused_parser_answers_each_invocation_as_a_fresh_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("GPU_SIZER_NOW", "2026-12-14T09:00:00Z")  # price ages: one instant
    fresh = [_fresh(argv) for argv in SEQUENCE]
    cli._parser_for.cache_clear()
    reused = [run_cli(argv) for argv in SEQUENCE * 2]  # every one after all the others
    for number, (argv, first) in enumerate(zip(SEQUENCE, fresh, strict=True)):
        assert first.raised is None, (argv, first.raised)
        for other in (reused[number], reused[number + len(SEQUENCE)]):
            assert (other.code, other.out, other.err) == (first.code, first.out, first.err), argv
    codes = {argv: inv.code for argv, inv in zip(SEQUENCE, fresh, strict=True)}
    assert codes[SEQUENCE[2]] == codes[SEQUENCE[4]] == codes[("proposal",)] == 2
    assert codes[SEQUENCE[0]] == codes[SEQUENCE[1]] == 0
    assert fresh[0].out != fresh[1].out  # the 5 users were not carried into the next run


def test_each_parser_is_built_once_per_command_and_width(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[str | None] = []
    build = cli.build_parser

    def counted(only: str | None = None) -> argparse.ArgumentParser:
        built.append(only)
        return build(only)

    monkeypatch.setattr(cli, "build_parser", counted)
    monkeypatch.setenv("COLUMNS", "100")
    cli._parser_for.cache_clear()
    for _ in range(3):
        run_cli(["memory", "--model", "llama-3.2-1b", "--users", "0"])
        run_cli(["gpus", "--json"])
        run_cli(["nosuch"])
    assert built == ["memory", "gpus", None]
    # The width `mcp --help` wraps its tool list to is read when its parser is built.
    narrow = run_cli(["mcp", "--help"])
    monkeypatch.setenv("COLUMNS", "200")
    wide = run_cli(["mcp", "--help"])
    assert built == ["memory", "gpus", None, "mcp", "mcp"]
    assert max(map(len, narrow.out.splitlines())) <= 100 < max(map(len, wide.out.splitlines()))
    assert cli.command_parser("mcp") is cli.command_parser("mcp")
    assert cli.build_parser("mcp") is not cli.build_parser("mcp")  # callers may add to theirs
