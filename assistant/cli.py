"""`gpu-sizer` entry point. No arguments: open the chat app. Subcommands: see `--help`.

Each subcommand lives in `assistant/commands/<name>.py` with `add_parser(subparsers)` and
`run(args) -> int`; modules are imported lazily so `gpu-sizer memory` never loads Textual or
openai. Exit codes: 0 ok, 1 runtime failure (an unexpected error prints its traceback and one
line saying so), 2 bad input (with a message naming the field).

Everything a subcommand prints goes through `assistant.sanitize.CleanStream`: no model answer,
tool string or file content can write a terminal escape sequence to stdout or stderr.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import shutil
import sys
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from types import ModuleType

from assistant.sanitize import CleanStream
from assistant.start_up import imports_uncollected

# name -> one-line help; the module assistant.commands.<name> provides add_parser/run.
COMMANDS: dict[str, str] = {
    "memory": "memory needed by a model and workload, per GPU, with a breakdown",
    "recommend": "smallest configuration on each GPU that fits and meets the targets",
    "cost": "cloud cost per hour, month and million tokens; hosted API comparison",
    "fits": "which catalog models run on your GPU(s) or Mac, best GGUF type first",
    "ask": "answer a sizing question in plain language (one shot)",
    "proposal": "render a hardware proposal from a saved session",
    "sessions": "list, show or delete the saved sessions",
    "models": "list the models in the catalog",
    "gpus": "list the GPUs in the catalog",
    "prices": "refresh cloud GPU prices from open catalogs (network), or show the file in use",
    "mcp": "serve the sizing tools to coding agents over MCP (stdio)",
}


def version() -> str:
    """The installed package's version ('0.1.0'), or 'unknown' when run from a bare tree."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("gpu-sizer")
    except PackageNotFoundError:
        return "unknown"


class _VersionAction(argparse.Action):
    """`--version` in the help, its text read only when asked (importlib.metadata is ~25 ms
    of every command's start otherwise)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help=str(kwargs.get("help", "")))

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"gpu-sizer {version()}")
        parser.exit()


SURFACE_COMMANDS = {"mcp": "assistant.mcp.command"}
"""Subcommands that start another surface, by the module that surface owns them in (the
dispatcher is the one place that joins the CLI to them; `assistant.commands` never imports
another surface)."""


def command_module(name: str) -> str:
    """The module that provides a subcommand's `add_parser` and `run`."""
    return SURFACE_COMMANDS.get(name, f"assistant.commands.{name}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    from assistant.cli_examples import help_with_examples
    from assistant.commands._parser import OneLineParser  # errors: one line, exit 2

    parser = OneLineParser(
        prog="gpu-sizer",
        description="Size GPU hardware for LLM workloads. With no command, opens the chat app "
        "(app flags: --base-url URL, --model NAME, --api-key-env VAR, --timeout S, --offline).",
        **help_with_examples(""),
    )
    parser.add_argument("-V", "--version", action=_VersionAction, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        if name == only:
            module = importlib.import_module(command_module(name))
            module.add_parser(sub, help_text)
        else:
            sub.add_parser(name, help=help_text)
    return parser


def command_parser(only: str | None) -> argparse.ArgumentParser:
    """`build_parser(only)` as `main` parses with it: built once per process for each command
    and terminal width, then reused (a test suite calls `main` over a thousand times; each
    build is 1-4 ms of argparse and flag generation).

    Reuse is safe because parsing leaves a parser as it was: each `parse_args` fills a new
    Namespace (its defaults, `set_defaults`' FlagSet included, copied in by reference and only
    read afterwards), what was typed is kept in that Namespace (`_flags.TYPED`), and mutually
    exclusive groups and required arguments are checked against what one call saw. Nothing the
    parser is built from is read at run time: flags, help and choices come from the pydantic
    models and fixed tables, never from catalogs, settings or the environment, with one
    exception, the width `mcp --help` wraps its tool list to when built (`tools_text`), hence
    the width in the key. `build_parser` itself still builds a new parser on every call, for
    callers that add to the one they get."""
    return _parser_for(only, shutil.get_terminal_size().columns)


@functools.cache
def _parser_for(only: str | None, columns: int) -> argparse.ArgumentParser:
    del columns  # in the key only: build_parser reads the width itself
    return build_parser(only)


def _run_app(args_list: list[str]) -> int:
    """`gpu-sizer [--base-url URL] [--model NAME] [--offline] ...`: open the chat app."""
    from assistant.app.main import run_app
    from assistant.commands._parser import OneLineParser
    from assistant.config import add_config_arguments, overrides_from_args

    parser = OneLineParser(prog="gpu-sizer", add_help=False)
    add_config_arguments(parser)
    known, unknown = parser.parse_known_args(args_list)
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    return run_app(overrides_from_args(known))


def main(argv: Sequence[str] | None = None) -> int:
    """`gpu-sizer ARGV`: a subcommand, or the chat app when none is given; the exit code.
    With no `argv` this is the process's own command line (the console script, `python -m
    assistant`), whose command imports run with the collector paused
    (`start_up.imports_uncollected`)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] in (["--version"], ["-V"]):
        print(f"gpu-sizer {version()}")
        return 0
    if not args_list or (args_list[0].startswith("-") and args_list[0] not in ("-h", "--help")):
        return _run_app(args_list)
    command = args_list[0] if args_list[0] in COMMANDS else None
    with imports_uncollected(active=argv is None):
        parser = command_parser(command)
        args = parser.parse_args(args_list)
        module = (
            None if args.command is None else importlib.import_module(command_module(args.command))
        )
    if module is None:
        parser.print_help()
        return 0
    with _clean_stdio():
        return _run_command(module, args)


@contextmanager
def _clean_stdio() -> Iterator[None]:
    """stdout and stderr cleaned of control sequences while a subcommand runs."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = CleanStream(sys.stdout), CleanStream(sys.stderr)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            # OSError: the reader left; ValueError: the stream is closed. Nothing more to say.
            with suppress(OSError, ValueError):
                stream.flush()
        sys.stdout, sys.stderr = saved


def _run_command(module: ModuleType, args: argparse.Namespace) -> int:
    from tools.errors import ToolInputError  # here: `--help` and `--version` load no tool

    try:
        code: int = module.run(args)
    except ToolInputError as exc:
        from assistant.commands._flags import named  # a tool's field → the flag typed

        print(f"gpu-sizer {args.command}: error: {named(exc, args).message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader left (`gpu-sizer ask … | head`): stop quietly, as Unix tools do. Point
        # stdout at /dev/null so the interpreter's final flush does not raise again
        # (Python docs, signal module, "Note on SIGPIPE").
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a tool killed by it
    except Exception as exc:  # a bug: keep the traceback (for a report) and say it plainly
        traceback.print_exc(file=sys.stderr)
        print(
            f"gpu-sizer {args.command}: internal error ({type(exc).__name__}: {exc})",
            file=sys.stderr,
        )
        return 1
    return code


if __name__ == "__main__":
    raise SystemExit(main())
