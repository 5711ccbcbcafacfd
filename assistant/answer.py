"""`Answer`: an answer's Markdown as typed sections, so every surface knows what is folded.

The offline renderer builds an answer as sections (`AnswerSection`: a title, its lines, and
whether it is folded). The visible sections come first and the folded ones after them, so the
visible text is always a prefix of the full text: it streams as it grows, and the full text
(what is copied, saved, and what a model reads later) is the visible part followed by the
details. Surfaces fold by these fields — the app mounts the details in a collapsed
`Collapsible`, `ask` prints one line instead unless `--details` — and never by reading the
text: prose is output, never input.

The sections travel on `Done.answer` and are stored on the assistant message under
`ANSWER_KEY` (`stored_answer`), so a reopened session folds the same way. An answer with no
stored sections (an LLM's) is shown whole.

A surface that leads the answer with the verdict card (the app) leaves out the lines the card
states too (`AnswerSection.card_lines`, marked where the line is made: `CardLine`), so the
verdict shows once; the text (`ask`, copy, saved sessions, what a model reads) keeps them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

ANSWER_KEY = "answer_sections"
"""The assistant message key holding the answer's sections (never sent to an API)."""

VERDICT_KEY = "verdict_sections"
"""The assistant message key holding an LLM answer's verdict as sections, beside its text
under `verdict` (never sent to an API)."""


class CardLine(str):
    """A line that states what the verdict card states too (a configuration fits or not, what
    holds the load, the headline option): a surface showing the card leaves it out. A marker
    set where the line is made — never found by reading text."""

    __slots__ = ()


class AnswerSection(BaseModel):
    """One part of an answer: an optional bold title, its Markdown lines, folded or not."""

    model_config = ConfigDict(frozen=True)

    title: str | None = Field(default=None, description="Shown bold above the lines.")
    lines: tuple[str, ...] = Field(default=(), description="Markdown lines, in order.")
    folded: bool = Field(default=False, description="Shown only when the reader opens it.")
    card_lines: tuple[int, ...] = Field(
        default=(),
        description="Indices of the lines the verdict card states too (left out beside it).",
    )

    @classmethod
    def of_lines(
        cls, lines: list[str], title: str | None = None, folded: bool = False
    ) -> AnswerSection:
        """The section of `lines`, the `CardLine`s among them recorded in `card_lines`."""
        marked = tuple(i for i, line in enumerate(lines) if isinstance(line, CardLine))
        return cls(title=title, lines=tuple(lines), folded=folded, card_lines=marked)

    def beside_card(self) -> AnswerSection:
        """The section as shown under the verdict card: without the lines the card states."""
        kept = [line for i, line in enumerate(self.lines) if i not in self.card_lines]
        # A blank line left at either end (it separated a line the card states) is dropped.
        while kept and not kept[0].strip():
            kept.pop(0)
        while kept and not kept[-1].strip():
            kept.pop()
        return self.model_copy(update={"lines": tuple(kept), "card_lines": ()})

    @property
    def markdown(self) -> str:
        """The section as Markdown: '**title**' then its lines (a blank line before a table,
        which Markdown needs to start one); '' when it has no lines."""
        if not self.lines:
            return ""
        body = list(self.lines)
        if self.title is None:
            return "\n".join(body)
        gap = [""] if body[0].startswith("|") else []
        return "\n".join([f"**{self.title}**", *gap, *body])


class Answer(BaseModel):
    """An answer as sections: the visible ones, then the folded ones, and the fold's title."""

    model_config = ConfigDict(frozen=True)

    sections: tuple[AnswerSection, ...] = ()
    details_title: str | None = Field(
        default=None, description="The fold's title (what the folded sections hold)."
    )

    @classmethod
    def of(cls, sections: list[AnswerSection], details_title: str | None = None) -> Answer:
        """The answer of `sections`, visible ones first (each group in its given order), empty
        sections dropped; the title kept only when something is folded."""
        kept = [s for s in sections if s.lines]
        ordered = [s for s in kept if not s.folded] + [s for s in kept if s.folded]
        folded = any(s.folded for s in ordered)
        return cls(sections=tuple(ordered), details_title=details_title if folded else None)

    @staticmethod
    def _join(sections: list[AnswerSection]) -> str:
        parts = [s.markdown for s in sections if s.lines]
        return "\n\n".join(parts).strip("\n") + "\n" if parts else ""

    @property
    def visible(self) -> str:
        """The Markdown shown by default (a prefix of `text`)."""
        return self._join([s for s in self.sections if not s.folded])

    @property
    def visible_beside_card(self) -> str:
        """The visible Markdown as shown under the verdict card: without the lines the card
        states (`AnswerSection.card_lines`)."""
        return self._join([s.beside_card() for s in self.sections if not s.folded])

    @property
    def details(self) -> str:
        """The folded Markdown ('' when nothing is folded)."""
        return self._join([s for s in self.sections if s.folded])

    @property
    def text(self) -> str:
        """The whole answer: the visible part, a blank line, then the details."""
        if not self.details:
            return self.visible
        return self.visible + "\n" + self.details if self.visible else self.details

    @property
    def folded_lines(self) -> int:
        """Lines in the folded part."""
        return len(self.details.splitlines())

    def stored(self) -> dict[str, Any]:
        """The form kept on the assistant message under `ANSWER_KEY`."""
        return self.model_dump(mode="json")


def stored_answer(
    message: Mapping[str, Any], key: str = ANSWER_KEY, text_key: str = "content"
) -> Answer | None:
    """The sections stored on an assistant message under `key`, when they still make up its
    text under `text_key` (a message edited or cut short since is shown whole); None
    otherwise. `VERDICT_KEY`, "verdict": an LLM answer's verdict."""
    data = message.get(key)
    if not isinstance(data, Mapping):
        return None
    try:
        answer = Answer.model_validate(data)
    except ValidationError:
        return None
    text = str(message.get(text_key) or "")
    return answer if answer.text.rstrip("\n") == text.rstrip("\n") else None
