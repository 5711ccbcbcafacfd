"""`--help` of every command ends with examples that run (each is parsed by the command's own
parser here, so an example cannot rot), and `mcp --help` lists the tools it serves (issue 33)."""

from __future__ import annotations

import shlex

import pytest

from assistant import cli
from assistant.cli_examples import EXAMPLES
from assistant.registry import default_registry


def _help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", ["", *cli.COMMANDS])
def test_every_help_ends_with_examples_that_parse(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _help([command, "--help"] if command else ["--help"], capsys)
    examples = text.split("\nexamples:\n")[1]
    commands = [
        line.strip() for line in examples.splitlines() if line.strip().startswith("gpu-sizer")
    ]
    assert commands and len(commands) == len(
        [w for w, line in EXAMPLES[command] if line.startswith("gpu-sizer")]
    )
    for line in commands:
        argv = shlex.split(line)[1:]
        if not argv or argv[0].startswith("-"):
            continue  # the chat's own flags (`gpu-sizer --base-url …`): the app's parser
        parser = cli.build_parser(only=argv[0])
        if "--help" in argv:
            with pytest.raises(SystemExit) as stop:
                parser.parse_args(argv)
            assert stop.value.code == 0
            continue
        parsed = parser.parse_args(argv)  # SystemExit here: an example that does not run
        assert parsed.command == argv[0]


def test_mcp_help_lists_every_tool_it_serves(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(["mcp", "--help"], capsys)
    listed = text.split("tools (")[1].split("resources:")[0]
    names = [
        line.split()[0]
        for line in listed.splitlines()[1:]
        if line.startswith("  ") and not line.startswith("   ")
    ]
    assert names == list(default_registry().specs)
    for spec in default_registry().specs.values():
        assert spec.description.split()[0] in listed  # with what it does
    assert "gpu-sizer://catalog/gpus" in text
