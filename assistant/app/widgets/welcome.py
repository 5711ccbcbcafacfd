"""The welcome screen of an empty chat: what gpu-sizer does, where answers come from, how to
connect a model, six example questions and the recent sessions — all reachable by keyboard.

Tab from the prompt reaches the examples; ↑/↓ choose, Enter asks one, `e` puts it in the prompt
to edit first. Choices go up as messages (`ExampleChosen`, `SessionChosen`); the app sends or
opens. The widget reads nothing itself: the app hands it the mode line and the sessions
(from its `SessionStore`'s folder), so a test can fix both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from assistant.sessions import SessionSummary

EXAMPLES: tuple[str, ...] = (
    "Can I serve Llama 3.1 70B in 4-bit to 20 users with 8k context on 2x L40S?",
    "Can Qwen3 32B run on one RTX 4090?",
    "Full fine-tune of Llama 3.1 8B on H100s: how many GPUs?",
    "Is an L40S cheaper than an H100 per million tokens for Llama 3.1 8B?",
    "How much context can I fit for Llama 3.1 8B on an RTX 4090?",
    "Run Mixtral 8x7B with Ollama on a 24 GB GPU and 64 GB of RAM",
)
"""One per kind of answer: a serving fit, a single-GPU fit, training, cost, context, local."""

TITLE_CHARS = 44
"""A session's title is cut to this, so its line fits an 80-column window with its date."""

RECENT_SESSIONS = 3
"""Sessions listed (Ctrl+O lists them all)."""

WHAT_IT_DOES = (
    "Tells you what hardware an LLM workload needs: whether it fits, how many GPUs, what it "
    "costs. Every figure comes from deterministic tools (memory, GPU recommender, cost) over "
    "a sourced, dated catalog."
)
CONNECT_OFFLINE = (
    "Connect a model: gpu-sizer --base-url http://localhost:11434/v1 --model qwen2.5:7b "
    "(any OpenAI-compatible endpoint), or F2 settings."
)
TITLE = "gpu-sizer — will it fit, on how many GPUs, at what cost?"
EXAMPLES_HEADING = "Try one · Tab to choose, Enter asks it, e edits it first"
SESSIONS_HEADING = "Recent sessions · Enter reopens · Ctrl+O lists all"
CONNECT_LLM = "Offline instead: /offline on · another model: /model NAME · F2 settings."


@dataclass(frozen=True)
class WelcomeInfo:
    """What the welcome shows that the app knows: the mode line and recent sessions."""

    mode_line: str
    llm: bool
    sessions: Sequence[SessionSummary] = ()


def session_label(summary: SessionSummary) -> Text:
    """One line per session: its title, then when and how it was held."""
    title = summary.title
    text = Text(title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…")
    when = summary.updated[:16].replace("T", " ")
    text.append(f"  {when} · {summary.mode or 'chat'}", style="dim")
    return text


class Welcome(Vertical):
    """The empty chat's first screen (see the module docstring)."""

    DEFAULT_CSS = """
    Welcome { height: auto; max-width: 110; padding: 0 1; margin: 1 0 0 0; }
    Welcome > .title { text-style: bold; color: $accent; }
    Welcome > .mode { margin-top: 1; }
    Welcome > .connect { color: $text-muted; }
    Welcome > .heading { margin-top: 1; text-style: bold; }
    Welcome > OptionList { height: auto; border: none; padding: 0; background: transparent; }
    Welcome > OptionList:focus { border: none; background: $boost; }
    /* Only the list being used shows its choice. */
    Welcome > OptionList > .option-list--option-highlighted { background: transparent; }
    Welcome > OptionList:focus > .option-list--option-highlighted {
        background: $block-cursor-background; color: $block-cursor-foreground;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "edit_example", "Edit in prompt", id="welcome.edit")
    ]

    class ExampleChosen(Message):
        """An example was picked: `send` it at once, or put it in the prompt to edit."""

        def __init__(self, text: str, send: bool) -> None:
            super().__init__()
            self.text = text
            self.send = send

    class SessionChosen(Message):
        """A recent session was picked: the app reopens it."""

        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    def __init__(self, info: WelcomeInfo) -> None:
        super().__init__(id="welcome")
        self.info = info
        self.sessions = list(info.sessions)[:RECENT_SESSIONS]

    def compose(self) -> ComposeResult:
        yield Static(Text(TITLE), classes="title")
        yield Static(Text(WHAT_IT_DOES))
        yield Static(Text(self.info.mode_line), classes="mode")
        yield Static(Text(CONNECT_LLM if self.info.llm else CONNECT_OFFLINE), classes="connect")
        yield Static(Text(EXAMPLES_HEADING), classes="heading")
        examples = [Option(Text(q), id=f"example-{i}") for i, q in enumerate(EXAMPLES)]
        yield OptionList(*examples, id="examples")
        if self.sessions:
            yield Static(Text(SESSIONS_HEADING), classes="heading")
            recent = [Option(session_label(s), id=f"s-{i}") for i, s in enumerate(self.sessions)]
            yield OptionList(*recent, id="recent")

    @on(OptionList.OptionSelected, "#examples")
    def _example_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.ExampleChosen(EXAMPLES[event.option_index], send=True))

    @on(OptionList.OptionSelected, "#recent")
    def _session_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.SessionChosen(self.sessions[event.option_index].path))

    def action_edit_example(self) -> None:
        examples = self.query_one("#examples", OptionList)
        if examples.has_focus and examples.highlighted is not None:
            self.post_message(self.ExampleChosen(EXAMPLES[examples.highlighted], send=False))
