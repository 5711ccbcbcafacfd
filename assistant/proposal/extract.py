"""Collect what a proposal is built from: one sizing report, typed, and the turn it answers.

**Which turn the proposal covers**: the latest sizing report of the session that answered its
question (no pending "which GPU do you mean?"), i.e. the last `size` result — a follow-up
("and in fp8?") is sized as the whole workload refined, so the latest report is the current
answer. Earlier sizing reports are listed in the appendix with their headline, one line each,
never mixed into the figures; a later question that has no sizing result (a clarifying
question, a look-up) is named there too.

Results are loaded by `assistant.results` (the one reader of stored tool output). Sessions
without a sizing report (saved before it existed, or a model that called only the finer tools)
are quoted from the latest successful recommend and cost calls and the last turn's memory calls
(`legacy.py` renders them). Failed calls are skipped: a proposal quotes only calculations that
succeeded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from assistant.conversation import WORKLOAD_KEY, Conversation
from assistant.reading.parsed import ParsedWorkload
from assistant.results import LegacyResult, StoredCall, stored_calls
from tools.cost import CostComparison
from tools.memory import MemoryEstimate
from tools.recommend import Recommendation
from tools.sizing import SizingReport

R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class ToolRecord(Generic[R]):
    """One successful tool call: its name, arguments as sent, typed result, and where."""

    name: str
    arguments: dict[str, Any]
    result: R
    message_index: int
    turn: int
    """Number of user messages before the result (0 = before any user message)."""


@dataclass(frozen=True)
class SizingTurn:
    """A sizing report of the session and the question (1-based turn) it answered."""

    turn: int
    report: SizingReport


@dataclass(frozen=True)
class ProposalInputs:
    """The results a proposal quotes, and the user's requests that led to them."""

    memory: tuple[ToolRecord[MemoryEstimate], ...]
    recommend: ToolRecord[Recommendation] | None
    cost: ToolRecord[CostComparison] | None
    requests: tuple[str, ...]
    """Every user message of the session, in order (question n is `requests[n - 1]`)."""
    readings: tuple[str, ...] = ()
    """How the user's words were read (the parser's notes) for the turn covered."""
    notices: tuple[str, ...] = ()
    """Stored results that could not be read (saved by another version): what was left out."""
    arguments: tuple[tuple[str, dict[str, Any]], ...] = ()
    """(tool, arguments as sent) of the calls quoted."""
    report: SizingReport | None = None
    """The sizing report quoted, when the session has one."""
    turn: int = 0
    """The question (1-based user message) the proposal covers; 0 when none."""
    parsed: ParsedWorkload | None = None
    """The covered turn's workload as the offline parser read it (both engines store it when
    the parser planned the calls); None when a model chose the call itself."""
    sizing_turns: tuple[SizingTurn, ...] = ()
    """Every sizing report of the session, in order (the covered one included)."""

    @property
    def empty(self) -> bool:
        """True when the session holds no memory, recommend or cost result."""
        return not self.memory and self.recommend is None and self.cost is None

    @property
    def question(self) -> str:
        """The covered question in the user's words ('' when none)."""
        return self.requests[self.turn - 1] if 0 < self.turn <= len(self.requests) else ""


def _records(calls: list[StoredCall], kind: type[R]) -> list[ToolRecord[R]]:
    return [
        ToolRecord(c.name, c.arguments, c.value, c.message_index, c.turn)
        for c in calls
        if isinstance(c.value, kind)
    ]


def _parsed(conversation: Conversation, call: StoredCall) -> ParsedWorkload | None:
    """The latest parsed workload stored in the call's turn before its result (the LLM engine
    keeps it on the user message, the offline engine on the message with the tool calls)."""
    found: ParsedWorkload | None = None
    turn = 0
    for message in conversation.messages[: call.message_index + 1]:
        if message.get("role") == "user":
            turn += 1
        data = message.get(WORKLOAD_KEY)
        if turn == call.turn and isinstance(data, dict):
            try:
                found = ParsedWorkload.model_validate(data)
            except ValidationError:
                found = None
    return found


def _all_readings(conversation: Conversation) -> tuple[str, ...]:
    readings: dict[str, None] = {}
    for message in conversation.messages:
        workload = message.get(WORKLOAD_KEY)
        if isinstance(workload, dict):
            readings.update(dict.fromkeys(str(n) for n in workload.get("notes", [])))
    return tuple(readings)


def collect(conversation: Conversation) -> ProposalInputs:
    """The covered sizing report (module docstring), else the latest recommend and cost
    results and the last turn's memory results."""
    calls = stored_calls(conversation.messages)
    requests = tuple(
        str(m.get("content") or "") for m in conversation.messages if m.get("role") == "user"
    )
    notices = tuple(
        dict.fromkeys(c.value.notice for c in calls if isinstance(c.value, LegacyResult))
    )
    reports = [c for c in calls if isinstance(c.value, SizingReport)]
    turns = tuple(SizingTurn(c.turn, c.value) for c in reports if isinstance(c.value, SizingReport))
    answered = [c for c in reports if isinstance(c.value, SizingReport) and not c.value.question]
    covered = answered[-1] if answered else (reports[-1] if reports else None)
    if covered is not None and isinstance(covered.value, SizingReport):
        parsed = _parsed(conversation, covered)
        return ProposalInputs(
            memory=(),
            recommend=None,
            cost=None,
            requests=requests,
            readings=tuple(parsed.notes) if parsed is not None else (),
            notices=notices,
            arguments=((covered.name, covered.arguments),),
            report=covered.value,
            turn=covered.turn,
            parsed=parsed,
            sizing_turns=turns,
        )
    memory = _records(calls, MemoryEstimate)
    recommends = _records(calls, Recommendation)
    costs = _records(calls, CostComparison)
    last_turn = memory[-1].turn if memory else None
    shown = tuple(r for r in memory if r.turn == last_turn)
    recommend = recommends[-1] if recommends else None
    quoted: list[tuple[str, dict[str, Any]]] = [(r.name, r.arguments) for r in shown]
    if recommend is not None:
        quoted.append((recommend.name, recommend.arguments))
    cost = costs[-1] if costs else None
    if cost is not None:
        quoted.append((cost.name, cost.arguments))
    latest = [r.turn for r in (*shown, recommend, cost) if r is not None]
    return ProposalInputs(
        memory=shown,
        recommend=recommend,
        cost=cost,
        requests=requests,
        readings=_all_readings(conversation),
        notices=notices,
        arguments=tuple(quoted),
        turn=max(latest, default=0),
    )
