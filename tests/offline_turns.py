"""Run one offline turn and read its tool results: shared by the offline answer tests."""

from __future__ import annotations

from assistant.answer import Answer, stored_answer
from assistant.conversation import Conversation
from assistant.events import Done
from assistant.offline.engine import OfflineEngine
from assistant.results import stored_calls
from tools.cost import ServingCostResult
from tools.local_serving import LocalServingPlan
from tools.recommend import Recommendation
from tools.sizing import SizingReport


async def answer(text: str) -> tuple[str, Conversation]:
    """The final answer text of one offline turn on a new conversation, and the conversation."""
    conversation = Conversation()
    events = [e async for e in OfflineEngine().run_turn(conversation, text)]
    done = next(e for e in events if isinstance(e, Done))
    return done.text, conversation


def local_plans(conversation: Conversation) -> list[LocalServingPlan]:
    """The turn's llama.cpp / Ollama plans: separate calls, and those its sizing report carries
    (owned hardware, issue 29)."""
    out: list[LocalServingPlan] = []
    for c in stored_calls(conversation.messages):
        if isinstance(c.value, LocalServingPlan):
            out.append(c.value)
        elif isinstance(c.value, SizingReport):
            out += c.value.local
    return out


def sizing(conversation: Conversation) -> SizingReport:
    """The sizing report of the conversation's last `size` call (typed, loaded from the
    stored tool message)."""
    reports = [c.value for c in stored_calls(conversation.messages) if c.name == "size"]
    report = reports[-1]
    assert isinstance(report, SizingReport), report
    return report


def costs(conversation: Conversation) -> ServingCostResult:
    """The serving cost comparison of the last sizing report (it must have one)."""
    comparison = sizing(conversation).costs
    assert comparison is not None and comparison.serving is not None
    return comparison.serving


def recommendation(conversation: Conversation) -> Recommendation:
    """The recommender's result in the last sizing report (it must have one)."""
    rec = sizing(conversation).recommendation
    assert rec is not None
    return rec


def last_answer(conversation: Conversation) -> Answer:
    """The last assistant answer of the conversation as its typed sections (a whole-text
    answer when none were stored: nothing folded)."""
    message = next(m for m in reversed(conversation.messages) if m.get("role") == "assistant")
    stored = stored_answer(message)
    if stored is not None:
        return stored
    from assistant.answer import AnswerSection

    text = str(message.get("content") or "").rstrip("\n")
    return Answer.of([AnswerSection(lines=tuple(text.splitlines()))])


def visible(conversation: Conversation) -> str:
    """What the last answer shows before its fold is opened."""
    return last_answer(conversation).visible


def after_reading(text: str) -> str:
    """An answer without the 'Read as' line it opens with (and the blank line after it): the
    lines that answer the question, as a test of what the answer leads with reads them."""
    lines = text.splitlines()
    while lines and (not lines[0].strip() or lines[0].startswith("*Read as:")):
        lines.pop(0)
    return "\n".join(lines)


def lines_after_reading(lines: tuple[str, ...] | list[str]) -> list[str]:
    """A section's lines without the 'Read as' line it opens with (and the blank after it)."""
    return after_reading("\n".join(lines)).splitlines()


def datacenter_part(text: str) -> str:
    """The datacenter sizing of an owned-hardware answer: what follows its 'Datacenter
    alternative' heading (issue 29: the local plan leads, this follows); the whole answer
    after its reading when it has none."""
    from assistant.render.local import DATACENTER_HEADING

    body = after_reading(text)
    return body.split(DATACENTER_HEADING, 1)[1].lstrip("\n") if DATACENTER_HEADING in body else body


def without_yes_no(line: str) -> str:
    """A verdict line without the '**Yes.** ' / '**No.** ' a yes/no question's answer opens
    with (tests of what follows it)."""
    return line.removeprefix("**Yes.** ").removeprefix("**No.** ")
