"""`gpu-sizer` with no arguments: load settings, pick the engine, run the chat app.

Exit codes: 0 after a normal quit, 2 for an invalid config file or flag or when stdin or stdout
is not a terminal (a pipe, cron, CI: one line says so and names `gpu-sizer ask`), 1 when the app
stopped
on an unhandled error. Textual prints that error's traceback once the terminal is restored;
`finish` then saves the conversation (nothing typed is lost) and adds one line saying what
happened and where the session is, so the message is still on screen after the app is gone.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TextIO

from assistant.config import Settings, load_config
from assistant.engine_base import Engine
from tools.errors import ToolInputError

if TYPE_CHECKING:
    from assistant.app.app import GpuSizerApp


def build_engine(settings: Settings) -> Engine:
    """The engine for `settings`: `assistant.engines.make_engine` (LLM when an endpoint is
    configured, else offline)."""
    from assistant.engines import make_engine

    return make_engine(settings)


def run_app(overrides: Mapping[str, Any] | None = None) -> int:
    """Open the chat app; `overrides` are CLI flags (`--base-url`, `--model`, `--offline`...).
    Returns the process exit code (2: invalid config file or flag)."""
    try:
        settings = load_config(overrides)
        engine = build_engine(settings)
    except ToolInputError as exc:
        print(f"gpu-sizer: error: {exc.message}", file=sys.stderr)
        return 2
    missing = not_a_terminal()
    if missing:
        # Textual would draw into a pipe and wait on input that never comes: say so at once.
        print(
            f"gpu-sizer: error: the chat needs a terminal ({missing}); for one "
            'answer on stdout: gpu-sizer ask "QUESTION" (gpu-sizer --help lists the commands)',
            file=sys.stderr,
        )
        return 2
    from assistant.app.app import GpuSizerApp

    app = GpuSizerApp(engine, settings, engine_factory=build_engine)
    app.run()
    return finish(app, sys.stderr)


def not_a_terminal(streams: Mapping[str, TextIO] | None = None) -> str:
    """Which standard streams the chat needs are not a terminal ('stdin is not one', 'stdin
    and stdout are not one'), or '' when both are."""
    chosen = {"stdin": sys.stdin, "stdout": sys.stdout} if streams is None else streams
    missing = []
    for name, stream in chosen.items():
        try:
            tty = stream is not None and stream.isatty()
        except (AttributeError, ValueError, OSError):
            tty = False
        if not tty:
            missing.append(name)
    if not missing:
        return ""
    return " and ".join(missing) + (" is not one" if len(missing) == 1 else " are not one")


def finish(app: GpuSizerApp, stderr: TextIO) -> int:
    """The exit code of a finished app run (never 0 after an unhandled error); after an error
    the conversation is saved and one line on `stderr` says so."""
    code = app.return_code or 0
    if code == 0:
        return 0
    where = "nothing to save"
    if app.conversation.messages:
        app.conversation.repair()
        try:
            saved = app.store.save(app.conversation)
            where = f"the conversation is saved as session {saved.path.stem}"
        except (OSError, ToolInputError) as exc:
            where = f"the conversation could not be saved ({exc})"
    print(f"gpu-sizer: the app stopped on an error (exit {code}); {where}.", file=stderr)
    return code
