"""`gpu-sizer sessions`: the saved chat and `ask` sessions — list them, show one, delete some.

`sessions` (or `sessions list`) is a table, newest first, files that cannot be read last with
the reason; `sessions show [ID]` prints one session's questions and answers as Markdown (the
latest without an id), rendered on a terminal and raw in a pipe; `sessions delete ID…` removes
those files, after asking on a terminal — without one (a script) it needs `--yes`, so nothing
is deleted by a command nobody saw. Ids are the file names (`assistant.sessions`), the same
ids `ask` prints, `ask --session` continues and `proposal --session` renders.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from assistant.cli_examples import help_with_examples
from assistant.conversation import Conversation
from assistant.render.output import (
    Column,
    Document,
    Line,
    Styled,
    Table,
    add_format_options,
    emit,
    isatty,
    markdown_doc,
    output_format,
)
from assistant.sanitize import clean_text
from assistant.sessions import SessionSummary, delete_session, list_sessions, open_session
from tools.errors import ToolInputError

ACTIONS = ("list", "show", "delete")


def add_parser(subparsers: Any, help_text: str) -> None:
    """Register `sessions` with its list / show / delete actions."""
    p = subparsers.add_parser(
        "sessions", help=help_text, description=__doc__.split("\n\n")[1].replace("\n", " "),
        **help_with_examples("sessions"),
    )  # fmt: skip
    p.add_argument(
        "action",
        nargs="?",
        default="list",
        choices=ACTIONS,
        help="list (default), show one session, or delete sessions",
    )
    p.add_argument("ids", nargs="*", metavar="ID", help="session id(s), as `ask` prints them")
    p.add_argument(
        "-y", "--yes", action="store_true", help="delete without asking (needed without a terminal)"
    )
    add_format_options(p, "print JSON")


def _updated(summary: SessionSummary) -> str:
    """The ISO timestamp as a date and minute ('2026-11-28 16:20 UTC')."""
    stamp = summary.updated
    if len(stamp) >= 16 and stamp[10] == "T":
        zone = " UTC" if stamp.endswith(("+00:00", "Z")) else ""
        return f"{stamp[:10]} {stamp[11:16]}{zone}"
    return stamp or "-"


def sessions_table(summaries: list[SessionSummary]) -> Table:
    """One row per session file: id, last update, mode, messages, title (or why unreadable)."""
    columns = (
        Column("id"),
        Column("updated", drop=2),
        Column("mode", drop=3),
        Column("messages", numeric=True, drop=1),
        Column("title"),
    )
    rows = [
        [
            s.id,
            _updated(s),
            s.mode or "-",
            str(s.message_count),
            s.title if s.problem is None else Styled(f"cannot be read: {s.problem}", "bad"),
        ]
        for s in summaries
    ]
    return Table(columns, rows)


def _list(args: argparse.Namespace) -> int:
    summaries = list_sessions()
    if output_format(args) == "json":
        print(json.dumps([_record(s) for s in summaries], indent=2))
        return 0
    table = sessions_table(summaries)
    doc = Document(data=table)
    if summaries:
        doc.add(table)
        doc.add(Line("`gpu-sizer sessions show ID` prints one; `gpu-sizer ask --session ID` "
                     "continues it; `gpu-sizer proposal --session ID` writes its proposal.",
                     style="dim"))  # fmt: skip
    else:
        doc.line("No saved sessions yet: `gpu-sizer ask` and the chat save every answer.")
    emit(doc, args)
    return 0


def _record(s: SessionSummary) -> dict[str, Any]:
    return {
        "id": s.id,
        "title": s.title,
        "updated": s.updated,
        "mode": s.mode,
        "messages": s.message_count,
        "path": str(s.path),
        "problem": s.problem,
    }


def conversation_markdown(conversation: Conversation) -> str:
    """A session's questions and answers as Markdown: each question as a heading, the tools'
    verdict and the answer under it, the tools each turn called named in one line."""
    title = clean_text(conversation.title) or "(untitled)"
    out = [
        f"# {title}",
        "",
        f"Session `{conversation.id}` · {conversation.mode} · updated {conversation.updated}",
    ]
    turn = 0
    tools: list[str] = []

    def close_turn() -> None:
        if tools:
            out.extend(["", f"*Tools called: {', '.join(dict.fromkeys(tools))}.*"])
            tools.clear()

    for message in conversation.messages:
        role = message.get("role")
        if role == "user":
            close_turn()
            turn += 1
            question = " ".join(str(message.get("content") or "").split())
            out.extend(["", f"## {turn}. {question}"])
        elif role == "assistant":
            for key in ("verdict", "content"):
                text = str(message.get(key) or "").strip()
                if text:
                    out.extend(["", text])
            tools += [
                str(call.get("function", {}).get("name", "tool"))
                for call in message.get("tool_calls") or []
                if isinstance(call, dict)
            ]
    close_turn()
    return clean_text("\n".join(out)) + "\n"


def _show(args: argparse.Namespace) -> int:
    if len(args.ids) > 1:
        raise ToolInputError("ID", "show takes one session id", "gpu-sizer sessions show ID")
    if args.ids:
        session_id = args.ids[0]
    else:
        readable = [s for s in list_sessions() if s.problem is None]
        if not readable:
            raise ToolInputError("ID", "there is no saved session to show", "ask a question first")
        session_id = readable[0].id
    loaded = open_session(session_id)  # an unknown id: a ToolInputError naming it
    for problem in loaded.problems:
        print(f"gpu-sizer sessions: {session_id}: {problem}", file=sys.stderr)
    conversation = loaded.conversation
    if output_format(args) == "json":
        print(conversation.model_dump_json(indent=2))
        return 0
    if output_format(args) == "csv":
        raise ToolInputError("--format", "csv is for tables; a session is text", "markdown, json")
    emit(markdown_doc(conversation_markdown(conversation)), args)
    return 0


def _confirm(ids: list[str], titles: dict[str, str]) -> bool:
    """Ask on the terminal; anything but y/yes keeps the sessions."""
    for session_id in ids:
        print(f"  {session_id}  {titles.get(session_id, '')}", file=sys.stderr)
    noun = "session" if len(ids) == 1 else f"{len(ids)} sessions"
    print(f"Delete {noun}? [y/N] ", end="", file=sys.stderr, flush=True)
    try:
        answer = sys.stdin.readline()
    except KeyboardInterrupt:
        return False
    return answer.strip().lower() in ("y", "yes")


def _delete(args: argparse.Namespace) -> int:
    if not args.ids:
        raise ToolInputError("ID", "no session id given", "gpu-sizer sessions delete ID [ID ...]")
    known = {s.id: s.title for s in list_sessions()}
    for session_id in args.ids:
        open_session(session_id)  # refuse an unknown id before deleting anything
    if not args.yes:
        if not (isatty(sys.stdin) and isatty(sys.stderr)):
            raise ToolInputError(
                "--yes", "deleting without a terminal to confirm on", "--yes to delete anyway"
            )
        if not _confirm(list(args.ids), known):
            print("nothing deleted", file=sys.stderr)
            return 0
    for session_id in dict.fromkeys(args.ids):
        if delete_session(session_id):
            print(f"deleted session {session_id}", file=sys.stderr)
    return 0


def run(args: argparse.Namespace) -> int:
    """List, show or delete (see the module docstring)."""
    if args.action == "list":
        if args.ids:
            raise ToolInputError("ID", "list takes no id", "gpu-sizer sessions show ID")
        return _list(args)
    if args.action == "show":
        return _show(args)
    return _delete(args)
