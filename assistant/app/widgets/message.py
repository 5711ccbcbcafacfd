"""Chat messages: the user's text, the assistant's streamed Markdown answer, notices.

The answer streams through `MarkdownStream` (which batches fragments so the UI keeps up) and,
when the turn ends, gets one full `Markdown.update(text)` — the stream appends block by block,
and the final update guarantees the document matches the complete answer exactly.

An offline answer comes as typed sections (`assistant.answer.Answer`: `Done.answer`, or the
sections stored on a reopened session's message): only its visible part streams, and its folded
part goes into a `Collapsible`, collapsed, titled with the answer's `details_title`. `text`
always keeps the full answer (copy, sessions). Any other text (an LLM's) is shown whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from assistant.answer import Answer
from assistant.app.widgets.literal import LiteralCollapsible


def _hard_breaks(state: StateCore) -> None:
    # Textual draws a soft break as a space; the answer's line breaks are meant as lines.
    for token in state.tokens:
        for child in token.children or ():
            if child.type == "softbreak":
                child.type = "hardbreak"


def answer_parser() -> MarkdownIt:
    """Textual's own "gfm-like" parser, with a line break kept as a line break: an answer's
    verdict lines (and a model's short lines) read one per line, not run into a paragraph."""
    parser = MarkdownIt("gfm-like")
    parser.core.ruler.push("hard_breaks", _hard_breaks)
    return parser


def answer_markdown(text: str, classes: str) -> Markdown:
    """A Markdown widget for answer text (see `answer_parser`)."""
    return Markdown(text, classes=classes, parser_factory=answer_parser)


class UserMessage(Static, can_focus=True):
    """What the user sent, verbatim (no markup interpretation)."""

    DEFAULT_CSS = """
    UserMessage {
        margin: 1 0 0 8;
        padding: 0 1;
        background: $primary 15%;
        border-left: thick $primary;
    }
    UserMessage:focus { background: $primary 30%; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("c", "copy", "Copy", id="message.copy")]

    def __init__(self, text: str) -> None:
        super().__init__(Text(text))
        self.text = text

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.notify("Message copied to the clipboard.")


class AssistantMessage(Vertical, can_focus=True):
    """One answer segment, streamed as Markdown; flags figures the grounding check missed."""

    DEFAULT_CSS = """
    AssistantMessage {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $success;
    }
    AssistantMessage:focus { background: $success 10%; }
    AssistantMessage > Markdown { margin: 0; padding: 0; }
    /* Answer tables compact: no rule between rows, so a breakdown fits an 80x24 window. */
    AssistantMessage MarkdownTableContent { grid-gutter: 0 1; keyline: none; }
    AssistantMessage > Collapsible { margin: 0; padding-bottom: 0; }
    AssistantMessage > Collapsible Markdown { margin: 0; padding: 0; }
    AssistantMessage > .flags { color: $warning; }
    AssistantMessage > .cancelled { color: $text-muted; text-style: italic; }
    AssistantMessage.verdict { border-left: thick $accent; }
    AssistantMessage.verdict.provisional { border-left: thick $accent 40%; text-opacity: 70%; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("c", "copy", "Copy answer", id="message.copy")]

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.text = text
        self._stream: MarkdownStream | None = None
        self.finished = False

    def compose(self) -> ComposeResult:
        yield answer_markdown(self.text, "answer")

    @property
    def markdown(self) -> Markdown:
        """The answer's visible Markdown (the folded details have their own, inside `details`)."""
        return self.query_one(".answer", Markdown)

    @property
    def details(self) -> Collapsible | None:
        """The folded assumptions, once the answer is finished and has them."""
        found = self.query_children(Collapsible)
        return found.first() if found else None

    async def write(self, fragment: str) -> None:
        """Append a fragment of the answer (batched by the stream, never re-rendered whole).
        Engines stream only the visible part; a folded part arrives with `finish`."""
        self.text += fragment
        if self._stream is None:
            self._stream = Markdown.get_stream(self.markdown)
        await self._stream.write(fragment)

    async def finish(
        self,
        final_text: str | None = None,
        unverified_figures: Sequence[str] = (),
        cancelled: bool = False,
        contradictions: Sequence[str] = (),
        interrupted: str | None = None,
        stopped: str | None = None,
        answer: Answer | None = None,
        beside_card: bool = False,
    ) -> None:
        """Stop streaming and show the complete answer with one full update, plus any flags:
        figures not found in the tool results, claims the tools contradict, an answer cut
        short by an error (`interrupted`: its kind) or stopped early (`stopped`). An `answer`
        in sections shows its visible part and folds the rest under its details title;
        `beside_card`: the turn's verdict card shows above, so the lines it states are left
        out of what is shown (`text` keeps them: copy, sessions)."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if final_text is not None:
            self.text = final_text
        # The sections only while they still make up the text (a verdict has no final newline).
        same = answer is not None and answer.text.rstrip("\n") == self.text.rstrip("\n")
        sections = answer if same else None
        shown = self.text
        if sections is not None:
            shown = sections.visible_beside_card if beside_card else sections.visible
        await self.markdown.update(shown)
        self.finished = True
        if sections is not None and sections.details_title is not None:
            await self.mount(FoldedDetails(sections.details, title=sections.details_title))
        if contradictions:
            await self.mount(Static(contradiction_flag_text(contradictions), classes="flags"))
        if unverified_figures:
            await self.mount(Static(unverified_flag_text(unverified_figures), classes="flags"))
        if cancelled:
            await self.mount(Static("(cancelled: partial answer)", classes="cancelled"))
        elif interrupted:
            what = "partial answer" if self.text else "no answer from the model"
            await self.mount(
                Static(f"(interrupted — {interrupted}: {what})", classes="cancelled interrupted")
            )
        elif stopped:
            await self.mount(
                Static(f"({STOPPED_LABELS.get(stopped, stopped)})", classes="cancelled")
            )

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.notify("Answer copied to the clipboard.")


STOPPED_LABELS = {
    "repetition": "stopped: the model was repeating itself",
    "length": "stopped at the token cap",
    "cut_off": "cut off at the endpoint's token limit",
}


def contradiction_flag_text(claims: Sequence[str]) -> Text:
    """The warning under an answer whose claims the turn's tool results contradict."""
    flag = Text("⚠ Contradicts the tools: ", style="bold")
    flag.append("; ".join(claims))
    return flag


def unverified_flag_text(figures: Sequence[str]) -> Text:
    """The warning under an answer listing figures not found in the turn's tool results."""
    flag = Text("⚠ Unverified: ", style="bold")
    flag.append(", ".join(figures))
    flag.append(" — not found in this turn's tool results; check before relying on them.")
    return flag


class FoldedDetails(LiteralCollapsible):
    """An answer's folded part (tool assumptions, sources), drawn when first opened: folded
    Markdown would otherwise be hundreds of widgets per answer (its tables' cells, its
    bullets) laid out on every pass over the log though never shown — what made a reopened
    long session hold the app for seconds. The title is the answer's own, shown literally."""

    def __init__(self, text: str, *, title: str) -> None:
        super().__init__(title=title, collapsed=True)
        self.text = text
        self._drawn = False

    @on(Collapsible.Expanded)
    async def _draw(self, event: Collapsible.Expanded) -> None:
        if event.collapsible is not self or self._drawn:
            return
        self._drawn = True
        await self.query_one(Collapsible.Contents).mount(answer_markdown(self.text, "details"))


class NoticeLine(Static):
    """An info/warning/error line in the chat log (fallbacks, retries, failures)."""

    DEFAULT_CSS = """
    NoticeLine { margin: 1 0 0 0; padding: 0 1; color: $text-muted; }
    NoticeLine.warning { color: $warning; }
    NoticeLine.error { color: $error; border-left: thick $error; }
    """

    def __init__(self, message: str, level: str = "info") -> None:
        super().__init__(Text(message), classes=level)
        self.message = message
