"""`gpu-sizer proposal`: render a hardware proposal (Markdown or HTML) from a saved session.

`--session ID` loads a saved session (assistant/sessions.py); `--from-json FILE` renders a
conversation JSON file directly. Without `--output` the document goes to stdout — Markdown
rendered (and paged) on a terminal, raw in a pipe; with it, the file is written only if it
does not exist yet, unless `--force`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from assistant.cli_examples import help_with_examples
from assistant.conversation import Conversation
from assistant.proposal import (
    FORMATS,
    check_output,
    format_for_path,
    render_proposal,
    write_proposal,
)
from assistant.render.output import add_pager_option, emit, markdown_doc
from assistant.sessions import load_session, read_conversation_file
from tools.errors import ToolInputError


def add_parser(subparsers: Any, help_text: str) -> None:
    """Register the `proposal` sub-command."""
    parser = subparsers.add_parser(
        "proposal", help=help_text, description=help_text, **help_with_examples("proposal")
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--session", metavar="ID", help="id of a saved session")
    source.add_argument(
        "--from-json", metavar="FILE", type=Path, help="a conversation JSON file (session format)"
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="md (default) or html; with --output, taken from the extension when not given",
    )
    parser.add_argument("--output", "-o", metavar="FILE", type=Path, help="write to FILE")
    parser.add_argument(
        "--force", action="store_true", help="replace FILE if it exists (default: refuse)"
    )
    add_pager_option(parser)


def _load_json(path: Path) -> Conversation:
    """A conversation file read as a session (regular file, size cap, messages checked and
    cleaned: assistant.sessions.read_conversation_file); what it skipped is said on stderr."""
    try:
        loaded = read_conversation_file(path)
    except ToolInputError as exc:
        raise ToolInputError(
            "--from-json",
            f"{exc.problem} — not a conversation JSON file",
            "a session file as saved by gpu-sizer (id, messages, ...)",
        ) from exc
    if not loaded.conversation.tool_results():
        # `{"a": 1}` reads as an empty conversation: a proposal of it would be a document
        # without one figure, so it is refused as the app refuses to export an empty chat.
        raise ToolInputError(
            "--from-json",
            f"{path.name} holds no tool result to write a proposal from (no sizing question "
            "answered in it)",
            "a session file as saved by gpu-sizer, with at least one answered question",
        )
    for problem in loaded.problems:
        print(f"gpu-sizer proposal: {path.name}: {problem}", file=sys.stderr)
    return loaded.conversation


def run(args: argparse.Namespace) -> int:
    """Render the proposal; bad ids, files or an existing output raise ToolInputError."""
    if args.output is not None:
        check_output(args.output, "--output")  # before reading anything
    if args.session is not None:
        conversation = load_session(args.session)
    else:
        conversation = _load_json(args.from_json)
    if args.output is None:
        fmt = args.format or "md"
        document = render_proposal(conversation, fmt)
        if fmt == "md":
            emit(markdown_doc(document), args)  # rendered on a terminal, raw in a pipe
        else:
            sys.stdout.write(document)
        return 0
    fmt = args.format or format_for_path(args.output)
    # A path that cannot be written (no such folder, a folder, /proc) is a ToolInputError
    # naming --output: bad input, one line, exit 2.
    path = write_proposal(conversation, args.output, fmt, force=args.force, field="--output")
    print(f"proposal written to {path}", file=sys.stderr)
    return 0
