"""Slash commands typed in the prompt, and the same actions as command-palette entries.

One table (`SLASH_COMMANDS`) drives both the `/name` parser and the palette, so every action is
reachable from the keyboard either way and the help screen lists exactly what exists.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from textual.app import SystemCommand

from tools.errors import ToolInputError, closest_names


class SlashTarget(Protocol):
    """What the app exposes to commands (implemented by `GpuSizerApp`)."""

    async def cmd_new(self, argument: str) -> None: ...
    async def cmd_save(self, argument: str) -> None: ...
    async def cmd_load(self, argument: str) -> None: ...
    async def cmd_export(self, argument: str) -> None: ...
    async def cmd_model(self, argument: str) -> None: ...
    async def cmd_endpoint(self, argument: str) -> None: ...
    async def cmd_offline(self, argument: str) -> None: ...
    async def cmd_gpus(self, argument: str) -> None: ...
    async def cmd_models(self, argument: str) -> None: ...
    async def cmd_help(self, argument: str) -> None: ...
    async def cmd_settings(self, argument: str) -> None: ...
    async def cmd_copy(self, argument: str) -> None: ...


@dataclass(frozen=True)
class SlashCommand:
    """`/name [argument]`: `title` and `help` also label its command-palette entry."""

    name: str
    usage: str
    title: str
    help: str

    def handler(self, target: SlashTarget) -> Callable[[str], Awaitable[None]]:
        """The app method that runs this command."""
        method: Callable[[str], Awaitable[None]] = getattr(target, f"cmd_{self.name}")
        return method


SLASH_COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("new", "/new", "New chat", "Start a new conversation (the current one is saved)"),
    SlashCommand("save", "/save", "Save session", "Save this conversation now"),
    SlashCommand("load", "/load [id]", "Open session", "Reopen a saved conversation"),
    SlashCommand(
        "export", "/export [path.md|.html]", "Export proposal", "Write a hardware proposal file"
    ),
    SlashCommand("model", "/model NAME", "Set model", "Use another model at the endpoint"),
    SlashCommand("endpoint", "/endpoint URL", "Set endpoint", "Use another endpoint"),
    SlashCommand("offline", "/offline [on|off]", "Toggle offline", "Switch offline mode"),
    SlashCommand("gpus", "/gpus", "List GPUs", "Show the GPU catalog"),
    SlashCommand("models", "/models", "List models", "Show the model catalog"),
    SlashCommand("settings", "/settings", "Settings", "Endpoint, model, key variable, switches"),
    SlashCommand("copy", "/copy", "Copy answer", "Copy the last answer to the clipboard"),
    SlashCommand("help", "/help", "Help", "Keys and slash commands"),
)
_BY_NAME = {command.name: command for command in SLASH_COMMANDS}


def is_slash_command(text: str) -> bool:
    """True when the prompt text is a command rather than a question."""
    return text.lstrip().startswith("/")


def parse_slash(text: str) -> tuple[SlashCommand, str]:
    """Split `/name argument` into the command and its (stripped) argument.

    Unknown names raise `ToolInputError` with the closest command names and the full list.
    """
    head, _, argument = text.strip()[1:].partition(" ")
    name = head.lower()
    if name not in _BY_NAME:
        raise ToolInputError(
            "command",
            f"/{name} is not a command",
            allowed=" ".join(f"/{c.name}" for c in SLASH_COMMANDS),
            suggestions=[f"/{n}" for n in closest_names(name, _BY_NAME)],
        )
    return _BY_NAME[name], argument.strip()


async def run_slash(target: SlashTarget, text: str) -> None:
    """Parse and run one slash command (raises ToolInputError for unknown names)."""
    command, argument = parse_slash(text)
    await command.handler(target)(argument)


def palette_commands(target: SlashTarget) -> Iterable[SystemCommand]:
    """Command-palette entries for every slash command (those needing an argument ask for it
    in the prompt: the palette runs them with an empty argument)."""
    for command in SLASH_COMMANDS:
        handler = command.handler(target)

        async def callback(handler: Callable[[str], Awaitable[None]] = handler) -> None:
            await handler("")

        yield SystemCommand(command.title, f"{command.help} ({command.usage})", callback)


def help_markdown(key_rows: Iterable[tuple[str, str]]) -> str:
    """The help screen: keys (from the live bindings, so remaps show) and slash commands."""
    lines = ["# gpu-sizer", "", "## Keys", "", "| key | action |", "|---|---|"]
    lines.extend(f"| `{key}` | {description} |" for key, description in key_rows)
    lines += ["", "## Slash commands", "", "| command | what it does |", "|---|---|"]
    lines.extend(f"| `{c.usage}` | {c.help} |" for c in SLASH_COMMANDS)
    lines += [
        "",
        "Every action is also in the command palette (Ctrl+P). Focus an answer or a tool card "
        "(Tab) and press `c` to copy it.",
    ]
    return "\n".join(lines)
