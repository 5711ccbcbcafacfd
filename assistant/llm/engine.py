"""The LLM engine: one turn = pre-computed tools → verdict → model ⇄ tools rounds → checked answer.

Built on `openai.AsyncOpenAI` with `max_retries=0`: retries are ours (bounded, honouring a short
Retry-After, reporting a long one) so that a retry never happens after text has been shown.
Decisions follow the shared FIELD-NOTES: tool calls are detected by their presence, not
`finish_reason`; deltas are accumulated by index; capability switches an endpoint rejects are
turned off for the session (with a Notice); an endpoint without tools gets the tool results
computed by us, as text.

Issue 17 hardening, in the order a turn meets it:
- the verdict is rendered from the pre-computed results (`assistant.llm.verdict`) and sent as a
  `Verdict` event before the model is asked: it never depends on the model;
- the endpoint's context window is learned once (`assistant.llm.window`); every request is
  fitted inside it (oldest whole turns dropped, `max_tokens` capped), with the lean tool profile
  for small windows (`assistant.llm.profile`);
- the stream is watched: a stall (`stall_timeout_s` without a chunk), a malformed chunk, a cut
  connection or a server error ends the turn with a clear message, the partial answer kept and
  marked; repetition loops and runaway length are stopped (`assistant.llm.degenerate`);
  `finish_reason: length` is marked;
- a tool call identical to one already run this turn is answered by reference, not re-run;
- the answer is checked (grounding, contradictions) and the flags are stored on the message;
- the configured key and any bearer token are redacted from every message shown or saved.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

import openai

from assistant.answer import VERDICT_KEY, Answer
from assistant.config import (
    DEFAULT_BASE_URL,
    KEYLESS_PLACEHOLDER,
    Capabilities,
    Settings,
    resolve_api_key,
    resolve_url_credentials,
)
from assistant.contradiction import contradictions, facts_from_messages
from assistant.conversation import READING_KEY, WORKLOAD_KEY, Conversation
from assistant.events import (
    Done,
    ErrorEvent,
    Event,
    Notice,
    ReadAs,
    StopReason,
    TextDelta,
    ToolCallStarted,
    ToolResult,
    UsageReport,
    Verdict,
)
from assistant.grounding import turn_sources, unverified_figures
from assistant.internal_errors import log_internal_error
from assistant.llm import structured
from assistant.llm.accumulate import PendingCall, ToolCallAccumulator, assistant_message
from assistant.llm.degenerate import OutputGuard
from assistant.llm.errors import (
    Explained,
    KeyState,
    explain,
    rejected_capability,
    retry_after_s,
    retry_notice,
    retryable,
    tools_unsupported,
    wait_too_long,
)
from assistant.llm.planner import Planner, default_reading_calls, offline_planner
from assistant.llm.profile import LEAN_WINDOW_TOKENS, choose_profile, system_prompt, tool_schemas
from assistant.llm.verdict import model_verdict, parser_verdict, turn_parsed, turn_verdict_answer
from assistant.llm.window import (
    DEFAULT_WINDOW_TOKENS,
    PROBE_TIMEOUT_S,
    ContextExceeded,
    FittedRequest,
    TokenScale,
    Window,
    context_exceeded,
    fit_request,
    ollama_root,
    window_from_models,
    window_from_ollama_show,
)
from assistant.prompts import load_prompt
from assistant.reading.adopt import adopted
from assistant.reading.grounded import SIZING_TOOLS, conversed, ground_call, refusal
from assistant.reading.model import Reading
from assistant.reading.of_call import CallSlot, call_slots, reading_of_call
from assistant.reading.of_parsed import reading_of
from assistant.reading.parsed import ParsedWorkload
from assistant.reading.reconcile import Difference, chosen_reading, differences
from assistant.redact import UrlCredentials, redact_secrets
from assistant.registry import Registry, default_registry, parse_arguments
from assistant.results import DUPLICATE_KEY, ToolError, stored_calls, tool_message
from assistant.tokens import count_messages, count_text
from assistant.tool_calls import TOOL_TIMEOUT_S, refused_fields, run_tool_call
from assistant.wire import compact_json
from tools.sizing import SizingReport

REQUEST_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")
"""Message keys sent to the endpoint; others (our `verdict`, `checks`, `cancelled`, `error`,
`duplicate_of` marks) stay local."""

BACKOFF_S = (1.0, 2.0, 4.0)
"""Waits between retries when the server gives no Retry-After."""

STOP_NOTICES: dict[str, str] = {
    "repetition": "The model started repeating itself; gpu-sizer stopped the answer there.",
    "length": "The answer ran past the {cap:,}-token cap; gpu-sizer stopped it there.",
    "cut_off": "The endpoint cut the answer off at the {cap:,}-token limit (finish_reason: "
    "length); what follows the cut is missing.",
}


@dataclass
class _ModelReply:
    text: str = ""
    calls: list[PendingCall] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finished: bool = False
    failed: bool = False
    error_kind: str | None = None
    stopped: StopReason | None = None
    started: bool = False
    """The endpoint answered 200 and the stream began."""
    answering: bool = False
    """A first chunk arrived (a failure now is in the middle of the answer)."""


@dataclass
class _Turn:
    """What one turn has produced so far (for the answer message, `Done` and cancellation)."""

    partial: list[str] = field(default_factory=list)
    open_calls: list[PendingCall] = field(default_factory=list)
    seen_calls: dict[str, str] = field(default_factory=dict)
    """Canonical call (name + validated arguments) → id of the call that ran it."""
    verdict: str = ""
    verdict_answer: Answer | None = None
    provisional: bool = False
    """The verdict shown is the parser's, while the model may still read the question."""
    parser_slots: dict[str, CallSlot] | None = None
    """The parser's reading as a `size` call's slots (None: the parser sized nothing)."""
    parser_report: SizingReport | None = None
    parser_call_ids: set[str] = field(default_factory=set)
    model_size: _ModelSize | None = None
    """The model's latest grounded `size` call this turn."""
    chosen: Literal["parser", "model"] = "parser"
    structured_done: bool = False
    """The structured-output reading was asked for this turn (or could not be)."""
    stopped: StopReason | None = None
    error: str | None = None


def _carry_model_reading(conversation: Conversation, size: _ModelSize) -> None:
    """The turn's stored workload becomes the chosen reading (`reading.adopt`): follow-ups
    refine the reading the verdict used. With no parser workload, the model's reading of the
    question alone."""
    user = next((m for m in reversed(conversation.messages) if m.get("role") == "user"), None)
    if user is None:
        return
    stored = user.get(WORKLOAD_KEY)
    try:
        parsed = (
            ParsedWorkload.model_validate(stored)
            if isinstance(stored, dict)
            else ParsedWorkload(text=str(user.get("content") or ""))
        )
    except ValueError:
        return
    diffs = size.diffs if isinstance(stored, dict) else differences(size.slots, {})
    if size.report is None:
        return
    carried = adopted(parsed, size.report.request, size.slots, diffs, size.reading)
    user[WORKLOAD_KEY] = carried.model_dump(mode="json", exclude_defaults=True)


@dataclass(frozen=True)
class _ModelSize:
    """The model's reading of the question, from its grounded `size` call."""

    call_id: str
    slots: dict[str, CallSlot]
    reading: Reading
    diffs: list[Difference]
    report: SizingReport | None = None


@dataclass(frozen=True)
class _Checks:
    unverified: tuple[str, ...]
    contradictions: tuple[str, ...]


class _Stalled(Exception):
    """Internal: the stream sent nothing for `waited_s` (before its first chunk: the request
    timeout's wait; after it: `stall_timeout_s`)."""

    def __init__(self, waited_s: float, answering: bool) -> None:
        super().__init__(waited_s)
        self.waited_s = waited_s
        self.answering = answering


@dataclass
class _Retries:
    """The retries one model call has made: transient errors retried, the context retry."""

    attempt: int = 0
    context_retried: bool = False


@dataclass(frozen=True)
class _Recovery:
    """What to do after an API error before the answer began: a retry (after `notice`, once
    the figures are computed without tools, after `wait_s` seconds) or, with `failure` set,
    the (kind, message) to end the call with."""

    notice: Notice | None = None
    without_tools: bool = False
    wait_s: float | None = None
    failure: tuple[str, str] | None = None


class _NoRoom(Exception):
    """Internal: the latest turn alone does not fit the context window."""


class LlmEngine:
    """Engine for any OpenAI-compatible chat-completions endpoint."""

    mode: Literal["llm", "offline"] = "llm"

    def __init__(
        self,
        settings: Settings,
        *,
        registry: Registry | None = None,
        planner: Planner | None = None,
        client: openai.AsyncOpenAI | None = None,
        env: dict[str, str] | None = None,
        system_prompt: str | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        precompute: bool = True,
        tool_timeout_s: float = TOOL_TIMEOUT_S,
    ) -> None:
        self.settings = settings
        self.tool_timeout_s = tool_timeout_s
        self.registry = registry if registry is not None else default_registry()
        self.planner = planner if planner is not None else offline_planner
        self.capabilities: Capabilities = settings.capabilities.model_copy()
        self._custom_prompt = system_prompt is not None
        self.system_prompt = system_prompt if system_prompt is not None else load_prompt()
        self._sleep = sleep
        self.precompute = precompute
        key = resolve_api_key(settings, env)
        # Credentials in the base URL never reach httpx inside the URL (it would send them as
        # Basic auth whatever the scheme): effective_base_url has none, and they are sent as
        # an Authorization header only where the key's plain-http rule allows (config.py).
        credentials, withheld = resolve_url_credentials(settings)
        self._key_notice = " ".join(r for r in (key.withheld_reason, withheld) if r) or None
        self._key_state = KeyState(
            settings.api_key_env,
            key_sent=key.value != KEYLESS_PLACEHOLDER,
            credentials_sent=credentials is not None,
            withheld=key.withheld_reason,
        )
        headers = _SecretHeaders()
        if credentials is not None:
            headers["Authorization"] = basic_authorization(credentials)
        self._secrets = tuple(
            s
            for s in (
                key.value if key.value != KEYLESS_PLACEHOLDER else "",
                credentials.password if credentials else "",
                headers.get("Authorization", "").removeprefix("Basic "),
            )
            if s
        )
        self.client = client or openai.AsyncOpenAI(
            base_url=settings.effective_base_url,
            api_key=key.value,  # a placeholder when keyless: None would read OPENAI_API_KEY
            timeout=openai.Timeout(settings.request_timeout_s, connect=settings.connect_timeout_s),
            max_retries=0,
            default_headers=headers or None,
        )
        host = urlsplit(settings.effective_base_url).netloc
        self.label = f"llm · {settings.model} @ {host}"
        self.window: Window | None = (
            Window(settings.context_window_tokens, "setting")
            if settings.context_window_tokens
            else None
        )
        # o200k counts are exact for OpenAI's models; other servers' tokenizers give more.
        self.scale = TokenScale(1.0) if self._is_openai else TokenScale()
        self._dropped: dict[str, int] = {}
        """Conversation id → whole turns left out of its last request (kept out: a stable
        prefix for the server's prompt cache)."""

    @property
    def _is_openai(self) -> bool:
        return self.settings.effective_base_url == DEFAULT_BASE_URL

    @property
    def profile(self) -> Literal["full", "lean"]:
        """The tool profile for the endpoint's window (full until the window is known)."""
        tokens = self.window.tokens if self.window else DEFAULT_WINDOW_TOKENS
        return choose_profile(self.settings.tool_profile, tokens)

    # --- the turn ------------------------------------------------------------------------

    async def run_turn(self, conversation: Conversation, user_text: str) -> AsyncIterator[Event]:
        """Answer `user_text`; see `assistant.engine_base.Engine`."""
        conversation.mode = "llm"
        conversation.model = self.settings.model
        conversation.add({"role": "user", "content": user_text})
        turn = _Turn()
        final_text = ""
        try:
            if self._key_notice:
                yield Notice(self._key_notice, "warning")
                self._key_notice = None
            async for event in self._precompute(conversation, user_text, turn):
                yield event
            async for event in self._learn_window():
                yield event
            async for event in self._structured_reading(conversation, turn):
                yield event
            rounds = 0
            grounded_retry_done = False
            while True:
                offer_tools = self.capabilities.tools and rounds < self.settings.max_tool_rounds
                if not offer_tools and self.capabilities.tools and rounds:
                    yield Notice(
                        f"Tool round limit ({self.settings.max_tool_rounds}) reached; asking "
                        "the model to answer with the results it has.",
                        "warning",
                    )
                reply = _ModelReply()
                turn.partial.clear()
                async for event in self._call_model(conversation, offer_tools, reply, turn):
                    yield event
                if reply.failed:
                    for event in self._failed_turn(conversation, reply, turn):
                        yield event
                    return
                if reply.calls and offer_tools:
                    conversation.add(assistant_message(reply.text, reply.calls))
                    turn.open_calls[:] = reply.calls
                    async for ev in self._run_calls(
                        conversation, reply.calls, turn, from_model=True
                    ):
                        yield ev
                    # Nothing was pre-computed but the model sized it: the verdict still leads
                    # the answer it is about to write.
                    verdict = self._verdict(conversation, turn)
                    if verdict is not None:
                        yield verdict
                    rounds += 1
                    continue
                final_text = reply.text
                turn.stopped = reply.stopped
                if not grounded_retry_done and self._ignored_tools(conversation, final_text):
                    grounded_retry_done = True
                    count = len(conversation.messages)
                    async for ev in self._compute_ignored(
                        conversation, user_text, final_text, turn
                    ):
                        yield ev
                    if len(conversation.messages) > count:  # ran: the model explains them
                        continue
                break
            final = self._final_verdict(turn)
            if final is not None:
                yield final
            checks = self._save_answer(conversation, final_text, turn)
            yield self._done(conversation, final_text, turn, checks)
        except BaseException as exc:
            # Cancelled (Esc), closed, or a bug: the history must stay valid for the next request.
            self._close_open_calls(conversation, turn.open_calls)
            why = "error" if isinstance(exc, Exception) else "cancelled"
            self._save_answer(conversation, "".join(turn.partial), turn, mark=why)
            raise

    # --- pieces of a turn ----------------------------------------------------------------

    def _failed_turn(
        self, conversation: Conversation, reply: _ModelReply, turn: _Turn
    ) -> Iterator[Event]:
        """The model's request failed: the verdict (final now), then the partial answer saved
        with the error's kind, and `Done`."""
        final = self._final_verdict(turn)
        if final is not None:
            yield final
        turn.error = reply.error_kind or "error"
        text = "".join(turn.partial)
        checks = self._save_answer(conversation, text, turn, mark="error")
        yield self._done(conversation, text, turn, checks)

    async def _precompute(
        self, conversation: Conversation, user_text: str, turn: _Turn
    ) -> AsyncIterator[Event]:
        """Run the tools the parser's reading needs before the first model call (one round
        trip instead of two) — on a clarifying turn, those of its default reading — then send
        its verdict, provisional while the model may still read the question itself."""
        if not self.precompute:
            return
        planned, failed = self._plan(user_text, conversation)
        if failed is not None:
            yield failed
        parsed = turn_parsed(conversation.messages)
        readings: list[str] | None = None
        if failed is None and not planned and parsed is not None and parsed.questions:
            planned, readings = default_reading_calls(parsed)
        if parsed is not None:
            yield ReadAs(reading_of(parsed))
        if not planned:
            return
        size_args = next((args for name, args in planned if name == "size"), None)
        turn.parser_slots = self._slots("size", size_args) if size_args is not None else None
        start = len(conversation.messages)
        async for event in self._run_planned(conversation, planned, turn, verdict=False):
            yield event
        calls = [c for c in stored_calls(conversation.messages[start:]) if not c.is_error]
        turn.parser_call_ids = {c.call_id for c in calls}
        turn.parser_report = next(
            (c.value for c in calls if isinstance(c.value, SizingReport)), None
        )
        answer = parser_verdict(parsed, calls, readings)
        if answer is None:
            answer = turn_verdict_answer(conversation.messages)
        if answer is not None:
            # The model may still read the question (and size it otherwise): provisional.
            caps = self.capabilities
            turn.provisional = caps.tools or caps.structured_output
            yield self._set_verdict(turn, answer)

    def _slots(self, tool: str, arguments: dict[str, Any]) -> dict[str, CallSlot] | None:
        """A sizing call's reading as typed slots (None: its arguments do not validate)."""
        spec = self.registry.specs.get(tool)
        if spec is None:
            return None
        try:
            request = spec.input_model.model_validate(arguments)
            return call_slots(tool, request, arguments)
        except Exception:
            return None

    def _set_verdict(self, turn: _Turn, answer: Answer) -> Verdict:
        turn.verdict = answer.text.rstrip("\n")
        turn.verdict_answer = answer
        return Verdict(turn.verdict, answer, provisional=turn.provisional)

    def _verdict(self, conversation: Conversation, turn: _Turn) -> Verdict | None:
        """After the model's calls: the verdict the rule gives (`assistant.reading.reconcile`)
        — the model's grounded `size` reading when it differs from the parser's, else the
        parser's — sent when it changes; or, when nothing was pre-computed, the verdict of the
        results the model got."""
        size = turn.model_size
        if size is not None and size.report is not None:
            chosen = chosen_reading(True, size.diffs) if turn.verdict else "model"
            if chosen == "model":
                turn.chosen = "model"
                turn.provisional = False
                _carry_model_reading(conversation, size)
                # The parser sized nothing (it read no model, or asked first): no difference
                # to name, only the question it asked.
                diffs = size.diffs if turn.parser_slots is not None else []
                answer = model_verdict(
                    size.reading,
                    size.report,
                    diffs,
                    turn.parser_report,
                    _parser_question(conversation),
                )
                if answer.text.rstrip("\n") == turn.verdict:
                    return None
                return self._set_verdict(turn, answer)
            turn.chosen = "parser"
            return self._final_verdict(turn)
        if turn.verdict:
            return None
        found = turn_verdict_answer(conversation.messages)
        return None if found is None else self._set_verdict(turn, found)

    def _final_verdict(self, turn: _Turn) -> Verdict | None:
        """The provisional verdict confirmed (the model's reading agrees, or it sized nothing),
        sent again as final; None when it is final already."""
        if not turn.provisional or turn.verdict_answer is None:
            return None
        turn.provisional = False
        return self._set_verdict(turn, turn.verdict_answer)

    def _model_reading(
        self, conversation: Conversation, call: PendingCall, turn: _Turn
    ) -> tuple[_ModelSize | None, ToolError | None]:
        """Ground a sizing call the model made (issue 28): its reading when every value is
        grounded in the conversation, or the refusal the model reads instead."""
        parsed = parse_arguments(call.arguments)
        spec = self.registry.specs.get(call.name)
        if call.name not in SIZING_TOOLS or not isinstance(parsed, dict) or spec is None:
            return None, None
        if refused_fields(parsed):
            return None, None  # a local path a model may not name: refused as such first
        try:
            request = spec.input_model.model_validate(parsed)
        except Exception:
            return None, None  # the tool itself says what is wrong with it
        conv = conversed(conversation.messages)
        grounding = ground_call(call.name, parsed, spec.input_model, conv)
        if not grounding.ok:
            return None, refusal(grounding, conv)
        if call.name != "size":
            return None, None
        slots = call_slots(call.name, request, parsed)
        reading = reading_of_call(call.name, request, parsed, conv.question, grounding)
        diffs = differences(slots, turn.parser_slots or {})
        return _ModelSize(call.id, slots, reading, diffs), None

    async def _run_planned(
        self,
        conversation: Conversation,
        planned: list[tuple[str, dict[str, Any]]],
        turn: _Turn,
        verdict: bool = True,
    ) -> AsyncIterator[Event]:
        calls = [
            PendingCall(
                i, f"gs_{i}_{conversation.id}_{len(conversation.messages)}", name, json.dumps(args)
            )
            for i, (name, args) in enumerate(planned)
        ]
        conversation.add(assistant_message("", calls))
        turn.open_calls[:] = calls
        async for event in self._run_calls(conversation, calls, turn):
            yield event
        shown = self._verdict(conversation, turn) if verdict else None
        if shown is not None:
            yield shown

    def _call_key(self, call: PendingCall) -> str:
        """The call as the tool sees it: name + validated arguments (defaults filled in), so
        `{"model": "x"}` and `{"model": "x", "context": 4096}` are the same call."""
        parsed = parse_arguments(call.arguments)
        spec = self.registry.specs.get(call.name)
        canonical: Any = parsed
        if isinstance(parsed, dict) and spec is not None:
            try:
                canonical = spec.input_model.model_validate(parsed).model_dump(mode="json")
            except Exception:
                canonical = parsed
        return call.name + ":" + json.dumps(canonical, sort_keys=True, default=str)

    async def _run_calls(
        self,
        conversation: Conversation,
        calls: list[PendingCall],
        turn: _Turn,
        *,
        from_model: bool = False,
    ) -> AsyncIterator[Event]:
        """Run each call off the event loop (assistant.tool_calls); the card appears first.
        `from_model`: the model chose these arguments (no local file paths accepted). A call
        identical to one already run this turn is answered by reference (no second card, no
        second copy of the result in the next request)."""
        repeated = 0
        for call in calls:
            key = self._call_key(call)
            earlier = turn.seen_calls.get(key)
            if earlier is not None:
                content = compact_json(
                    {"same_as": earlier, "note": "identical to an earlier call; result above"}
                )
                conversation.add(
                    {
                        "role": "tool",
                        "tool_call_id": call.id,
                        "content": content,
                        DUPLICATE_KEY: earlier,
                    }
                )
                turn.open_calls.remove(call)
                repeated += 1
                continue
            parsed = parse_arguments(call.arguments)
            reading, refused = (
                self._model_reading(conversation, call, turn) if from_model else (None, None)
            )
            if reading is not None and reading.diffs:
                # The model read the question otherwise: its reading heads the card it sizes.
                yield ReadAs(reading.reading)
            yield ToolCallStarted(call.id, call.name, parsed if isinstance(parsed, dict) else {})
            if refused is not None:
                # Not grounded in the conversation: refused back to the model, never run.
                conversation.add(tool_message(call.id, call.name, refused, with_name=False))
                turn.open_calls.remove(call)
                yield ToolResult(call.id, call.name, refused, True)
                continue
            outcome = await run_tool_call(
                self.registry,
                call.name,
                call.arguments,
                from_model=from_model,
                timeout_s=self.tool_timeout_s,
            )
            conversation.add(tool_message(call.id, call.name, outcome.value, with_name=False))
            turn.open_calls.remove(call)
            if not outcome.is_error:
                turn.seen_calls[key] = call.id
                report = outcome.value
                if reading is not None and isinstance(report, SizingReport) and report.model_id:
                    # A report that sized a model (not one that could not find it).
                    turn.model_size = _ModelSize(
                        reading.call_id, reading.slots, reading.reading, reading.diffs, report
                    )  # fmt: skip
            yield ToolResult(call.id, call.name, outcome.value, outcome.is_error)
        if repeated:
            yield Notice(
                f"The model repeated {repeated} tool call(s) already answered this turn; "
                "the earlier results were reused, not run again."
            )

    def _ignored_tools(self, conversation: Conversation, text: str) -> bool:
        """The model stated figures with units but the turn has no tool result to back them.
        (A turn with a tool result returns before its sources are gathered: reading a stored
        sizing report back for the grounding check walks every option it holds.)"""
        if any(m.get("role") == "tool" for m in _last_turn(conversation.messages)):
            return False
        return bool(unverified_figures(text, turn_sources(conversation.messages)))

    async def _compute_ignored(
        self, conversation: Conversation, user_text: str, final_text: str, turn: _Turn
    ) -> AsyncIterator[Event]:
        """The model answered with figures but called no calculator: run the planned calls
        (after the answer it gave, kept) so it explains their results; nothing is added to
        the conversation when the planner plans nothing."""
        planned, failed = self._plan(user_text, conversation)
        if failed is not None:
            yield failed
        if not planned:
            return
        conversation.add({"role": "assistant", "content": final_text})
        yield Notice(
            "The model answered with figures but used no calculator; gpu-sizer "
            "ran the calculators itself and asked the model to explain them.",
            "warning",
        )
        async for ev in self._run_planned(conversation, planned, turn):
            yield ev

    def _plan(
        self, user_text: str, conversation: Conversation
    ) -> tuple[list[tuple[str, dict[str, Any]]], Notice | None]:
        """The planner's calls for `user_text`. A planner exception is a bug: logged as an
        internal error with the request (secrets masked) and said in a warning; the model
        then calls the tools itself — never a verdict skipped in silence."""
        try:
            return list(self.planner(user_text, conversation)), None
        except Exception as exc:
            said = log_internal_error("the question reader", user_text, exc, self._secrets)
            return [], Notice(
                f"{said} The model sizes this question with the calculators itself.", "warning"
            )

    def _redact(self, text: str) -> str:
        return redact_secrets(text, self._secrets)

    def _checks(self, conversation: Conversation, text: str, turn: _Turn) -> _Checks:
        if not text:
            return _Checks((), ())
        messages = conversation.messages
        flagged = unverified_figures(text, turn_sources(messages))
        # The model's claims are checked against the reading the verdict follows.
        skip = turn.parser_call_ids if turn.chosen == "model" else set()
        contra = contradictions(text, facts_from_messages(messages, skip))
        return _Checks(tuple(flagged), tuple(str(c) for c in contra))

    def _save_answer(
        self, conversation: Conversation, text: str, turn: _Turn, mark: str | None = None
    ) -> _Checks:
        """Append the answer with its verdict and flags (they survive saving and reopening);
        nothing when there is neither text nor verdict."""
        text = self._redact(text)
        checks = self._checks(conversation, text, turn)
        if not text and not turn.verdict:
            return checks
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if turn.verdict:
            message["verdict"] = turn.verdict
            if turn.verdict_answer is not None:
                message[VERDICT_KEY] = turn.verdict_answer.stored()
            if turn.chosen == "model" and turn.model_size is not None:
                # The reading the verdict follows, shown again when the session is reopened.
                message[READING_KEY] = turn.model_size.reading.model_dump(mode="json")
        flags: dict[str, Any] = {
            "unverified": list(checks.unverified),
            "contradictions": list(checks.contradictions),
            "stopped": turn.stopped,
            "error": turn.error,
        }
        flags = {k: v for k, v in flags.items() if v}
        if flags:
            message["checks"] = flags
        if mark:
            message[mark] = True
        conversation.add(message)
        return checks

    def _done(self, conversation: Conversation, text: str, turn: _Turn, checks: _Checks) -> Done:
        return Done(
            text=self._redact(text),
            conversation=conversation,
            unverified_figures=checks.unverified,
            verdict=turn.verdict,
            contradictions=checks.contradictions,
            stopped=turn.stopped,
            error=turn.error,
        )

    @staticmethod
    def _close_open_calls(conversation: Conversation, open_calls: list[PendingCall]) -> None:
        # A tool call without its result makes the history invalid for the next request.
        for call in list(open_calls):
            conversation.add(
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "content": json.dumps({"error": "the turn ended before this tool finished"}),
                }
            )
        open_calls.clear()

    # --- the context window --------------------------------------------------------------

    async def _learn_window(self) -> AsyncIterator[Event]:
        """Ask the endpoint for its context size once per engine (see assistant.llm.window)."""
        if self.window is not None:
            return
        found = None if self._is_openai else await self._probe_window()
        self.window = found or Window(DEFAULT_WINDOW_TOKENS, "default")
        if found is not None and found.tokens <= LEAN_WINDOW_TOKENS:
            yield Notice(
                f"The endpoint's context window is {found.tokens:,} tokens ({found.source}): "
                f"answers are fitted inside it ({self.profile} tool profile, older turns "
                "trimmed when needed)."
            )

    async def _probe_window(self) -> Window | None:
        model = self.settings.model or ""
        options: Any = {"max_retries": 0, "timeout": PROBE_TIMEOUT_S}
        try:
            body = await self.client.get("/models", cast_to=object, options=options)
            found = window_from_models(body, model)
            if found is not None:
                return found
        except Exception:
            pass  # not every server lists models; the next source may answer
        try:
            url = ollama_root(self.settings.effective_base_url) + "/api/show"
            body = await self.client.post(
                url, cast_to=object, body={"model": model}, options=options
            )
            return window_from_ollama_show(body)
        except Exception:
            return None

    def _fit(
        self,
        conversation: Conversation,
        system: list[dict[str, Any]],
        history: list[dict[str, Any]],
        tools: list[dict[str, Any]],
    ) -> FittedRequest:
        window = self.window.tokens if self.window else DEFAULT_WINDOW_TOKENS
        return fit_request(
            system,
            history,
            tools,
            window,
            self.settings.max_output_tokens,
            self.scale,
            already_dropped=self._dropped.get(conversation.id, 0),
        )

    # --- one model call, with retries and capability fallbacks ---------------------------

    def _history(self, conversation: Conversation) -> list[dict[str, Any]]:
        # The model gets summaries derived from the calculators' typed results
        # (`assistant.wire`); the conversation keeps the full typed results (tool cards,
        # proposals and the grounding check read those).
        history: list[dict[str, Any]] = []
        for message in conversation.messages:
            sent = {k: message[k] for k in REQUEST_KEYS if k in message}
            if sent.get("role") == "assistant" and not sent.get("tool_calls"):
                # An answer that failed before the model wrote anything is its verdict.
                sent["content"] = sent.get("content") or message.get("verdict") or ""
                if not sent["content"]:
                    continue
            history.append(sent)
        if not self.capabilities.tools:
            history = flatten_tool_messages(history)
        return history

    def _request(
        self, conversation: Conversation, offer_tools: bool
    ) -> tuple[dict[str, Any], bool, FittedRequest]:
        caps = self.capabilities
        profile = self.profile
        prompt = (
            self.system_prompt
            if self._custom_prompt
            else system_prompt(profile, self.system_prompt)
        )
        system = [{"role": "system", "content": prompt}]
        reading = turn_parsed(conversation.messages)  # the offer follows the workload read
        tools = tool_schemas(self.registry, profile, caps.strict, reading) if offer_tools else []
        history = self._history(conversation)
        fitted = self._fit(conversation, system, history, tools)
        if not fitted.fits and tools:
            # Without schemas the question and its results may still fit: the model explains.
            tools = []
            fitted = self._fit(conversation, system, history, tools)
        if not fitted.fits:
            raise _NoRoom
        self._dropped[conversation.id] = fitted.dropped_turns
        stream = not (tools and not caps.streaming_tools)
        kwargs: dict[str, Any] = {
            "model": self.settings.model,
            "messages": system + fitted.messages,
            "max_tokens": fitted.max_tokens,
            "stream": stream,
        }
        if tools:
            kwargs["tools"] = tools
            if caps.parallel_tool_calls:
                kwargs["parallel_tool_calls"] = True
        if stream and caps.stream_options:
            kwargs["stream_options"] = {"include_usage": True}
        return kwargs, stream, fitted

    def _in_use(self, kwargs: dict[str, Any], stream: bool) -> list[str]:
        used = []
        if "stream_options" in kwargs:
            used.append("stream_options")
        if "parallel_tool_calls" in kwargs:
            used.append("parallel_tool_calls")
        if self.capabilities.strict and "tools" in kwargs:
            used.append("strict")
        if stream and "tools" in kwargs:
            used.append("streaming_tools")
        return used

    def _fail(self, reply: _ModelReply, kind: str, message: str) -> ErrorEvent:
        reply.failed = True
        reply.error_kind = kind
        return ErrorEvent(self._redact(message), kind)

    async def _call_model(
        self,
        conversation: Conversation,
        offer_tools: bool,
        reply: _ModelReply,
        turn: _Turn,
    ) -> AsyncIterator[Event]:
        """Yield the events of one model call; the last event is an ErrorEvent on failure."""
        partial = turn.partial
        retries = _Retries()
        while True:
            try:
                kwargs, stream, fitted = self._request(
                    conversation, offer_tools and self.capabilities.tools
                )
            except _NoRoom:
                yield self._fail(reply, "context", self._no_room())
                return
            try:
                async for event in self._send(kwargs, stream, reply, partial):
                    yield event
                break
            except _Stalled as stalled:
                yield self._fail(reply, *self._stalled(stalled))
                return
            except openai.APIError as exc:
                if partial or reply.started:
                    # The answer had begun: never retry silently, keep it and explain.
                    yield self._fail(reply, *self._mid_answer(exc, partial, reply))
                    return
                recovery = self._recovery(exc, kwargs, stream, fitted, retries)
                if recovery.failure is not None:
                    yield self._fail(reply, *recovery.failure)
                    return
                if recovery.notice is not None:
                    yield recovery.notice
                if recovery.without_tools:
                    async for event in self._compute_without_tools(conversation, turn):
                        yield event
                if recovery.wait_s is not None:
                    await self._sleep(recovery.wait_s)
                continue
            except Exception as exc:
                # What the SDK does not wrap: a chunk that is not JSON, a connection cut in the
                # middle of the body, a chunk of the wrong shape. Nothing may crash the turn.
                yield self._fail(reply, *self._mid_answer(exc, partial, reply))
                return
        yield self._ended(kwargs, stream, fitted, reply)

    def _ended(
        self, kwargs: dict[str, Any], stream: bool, fitted: FittedRequest, reply: _ModelReply
    ) -> ErrorEvent | UsageReport:
        """The last event of a call the endpoint answered: a stream that stopped before the
        endpoint said it was complete is truncated; else the token usage (and the token
        scale learned from it)."""
        if stream and not reply.finished:
            return self._fail(
                reply,
                "truncated",
                "The answer stopped before the endpoint said it was complete (truncated "
                "stream). The partial answer is kept and marked; ask again to retry.",
            )
        self.scale.learn(fitted.estimated_tokens, reply.prompt_tokens)
        return self._usage(kwargs, reply)

    async def _send(
        self, kwargs: dict[str, Any], stream: bool, reply: _ModelReply, partial: list[str]
    ) -> AsyncIterator[Event]:
        """The request itself, streamed or not: the answer's text as it comes and, unstreamed,
        the notice of a stop before the end (a stream yields its own). Raises what the
        endpoint or the stream raised."""
        if stream:
            async for event in self._stream(kwargs, reply, partial):
                yield event
            return
        response = await self.client.chat.completions.create(**kwargs)
        self._read_response(response, reply)
        if reply.text:
            partial.append(reply.text)
            yield TextDelta(reply.text)
        if reply.stopped:
            yield self._stop_notice(reply.stopped, kwargs["max_tokens"])

    def _recovery(
        self,
        exc: openai.APIError,
        kwargs: dict[str, Any],
        stream: bool,
        fitted: FittedRequest,
        retries: _Retries,
    ) -> _Recovery:
        """What to do after `exc`, an API error before the answer began, in order: switch off
        what the endpoint rejected and retry (computing the figures first when it was the
        tools); retry once with older turns left out when the request was over the context
        window; retry a transient error after its backoff; else fail, the error explained."""
        notice = self._fallback(exc, kwargs, stream)
        if notice is not None:
            without_tools = "tools" in kwargs and not self.capabilities.tools
            return _Recovery(notice=notice, without_tools=without_tools)
        exceeded = context_exceeded(exc)
        if exceeded is not None and not retries.context_retried:
            retries.context_retried = True
            return _Recovery(notice=self._learn_from_context_error(exceeded, fitted))
        backoff = self._backoff(exc, retries)
        if backoff is not None:
            return backoff
        explained = self._explain(exc)
        return _Recovery(failure=(explained.kind, explained.message))

    def _backoff(self, exc: openai.APIError, retries: _Retries) -> _Recovery | None:
        """A retry after the wait the endpoint asked for (Retry-After, else `BACKOFF_S` by
        attempt) while retries are left and the wait is within `max_retry_wait_s`; a failure
        that says the wait for a 429 asking for longer; None when `exc` is not retried."""
        if not retryable(exc) or retries.attempt >= self.settings.max_retries:
            return None
        wait = retry_after_s(exc)
        if wait is None:
            wait = BACKOFF_S[min(retries.attempt, len(BACKOFF_S) - 1)]
        if wait <= self.settings.max_retry_wait_s:
            retries.attempt += 1
            notice = Notice(retry_notice(exc, wait, retries.attempt, self.settings.max_retries))
            return _Recovery(notice=notice, wait_s=wait)
        if getattr(exc, "status_code", None) == 429:
            long_wait = wait_too_long(wait, self.settings.max_retry_wait_s)
            return _Recovery(failure=(long_wait.kind, long_wait.message))
        return None

    def _learn_from_context_error(self, exceeded: ContextExceeded, fitted: FittedRequest) -> Notice:
        """Learn the window and the token scale from a context-exceeded error (the window it
        states, the prompt's size against the estimate sent) and say the retry."""
        if exceeded.window:
            self.window = Window(exceeded.window, "the endpoint's error")
        self.scale.learn(fitted.estimated_tokens, exceeded.prompt_tokens)
        size = f"{self.window.tokens:,}-token " if self.window else ""
        return Notice(
            f"The request was over the endpoint's {size}context window; "
            "retrying with older turns left out."
        )

    def _no_room(self) -> str:
        """The question and its results do not fit the window even without tool schemas."""
        window = self.window.tokens if self.window else DEFAULT_WINDOW_TOKENS
        return (
            f"The question and its tool results do not fit in the endpoint's "
            f"{window:,}-token context window. Raise the server's context size "
            "(llama.cpp -c, Ollama num_ctx) or ask a shorter question."
        )

    def _stalled(self, stalled: _Stalled) -> tuple[str, str]:
        """(kind, message) for a stream that went silent: before its first chunk a timeout,
        in the middle of the answer a stall."""
        if not stalled.answering:
            return "timeout", self._no_first_chunk(stalled.waited_s)
        return "stall", (
            f"The endpoint sent nothing for {stalled.waited_s:g} s in the middle of the "
            "answer, so gpu-sizer stopped waiting and closed the request. The partial "
            "answer is kept and marked; ask again to retry (stall_timeout_s in "
            "config.toml)."
        )

    def _no_first_chunk(self, waited_s: float) -> str:
        """A request the endpoint accepted but never began answering: not a stall mid-answer."""
        return (
            f"The endpoint {self.settings.shown_base_url} sent no answer within {waited_s:g} s "
            "(request_timeout_s), so gpu-sizer stopped waiting and closed the request. A local "
            "server may still be reading a long prompt: raise request_timeout_s in config.toml, "
            "or ask again."
        )

    def _mid_answer(
        self, exc: BaseException, partial: list[str], reply: _ModelReply
    ) -> tuple[str, str]:
        """(kind, message) for a failure after the request was accepted."""
        if isinstance(exc, openai.APITimeoutError) and not reply.answering:
            return "timeout", self._no_first_chunk(self.settings.request_timeout_s)
        if isinstance(exc, openai.APIStatusError | openai.APIResponseValidationError) or (
            isinstance(exc, openai.APIError) and not isinstance(exc, openai.APIConnectionError)
        ):
            explained = self._explain(exc)
            return explained.kind, explained.message
        if isinstance(exc, openai.APITimeoutError):
            kind, what = "stall", "it sent nothing before the read timeout"
        elif isinstance(exc, openai.APIConnectionError):
            kind, what = "truncated", "the connection closed in the middle of the answer"
        else:
            kind, what = _stream_fault(exc)
        shown = f" after {len(''.join(partial)):,} characters" if partial else ""
        return kind, (
            f"The endpoint's answer broke off{shown}: {what}. The partial answer is kept and "
            "marked; ask again to retry."
        )

    @staticmethod
    def _stop_notice(reason: StopReason, cap: int) -> Notice:
        return Notice(STOP_NOTICES[reason].format(cap=cap), "warning")

    def _fallback(self, exc: BaseException, kwargs: dict[str, Any], stream: bool) -> Notice | None:
        """Switch off what the endpoint rejected; a Notice when a retry is worth it."""
        if "tools" in kwargs and tools_unsupported(exc):
            self.capabilities.tools = False
            return Notice(
                "This endpoint does not support tool calling; gpu-sizer computes the figures "
                "with its own calculators and asks the model to explain them.",
                "warning",
            )
        rejected = rejected_capability(exc, self._in_use(kwargs, stream))
        if rejected is not None:
            setattr(self.capabilities, rejected, False)
            return Notice(f"The endpoint rejected {rejected}; retrying without it.")
        return None

    async def _compute_without_tools(
        self, conversation: Conversation, turn: _Turn
    ) -> AsyncIterator[Event]:
        """Tools are off: run the planned calculators ourselves unless this turn already did,
        then ask the model for its reading as structured output."""
        if not any(m.get("role") == "tool" for m in _last_turn(conversation.messages)):
            user_text = str(_last_turn(conversation.messages)[0].get("content", ""))
            planned, failed = self._plan(user_text, conversation)
            if failed is not None:
                yield failed
            if planned:
                async for event in self._run_planned(conversation, planned, turn):
                    yield event
        async for event in self._structured_reading(conversation, turn):
            yield event

    async def _structured_reading(
        self, conversation: Conversation, turn: _Turn
    ) -> AsyncIterator[Event]:
        """A model that cannot call tools reads the question into `reading.structured.SCHEMA`
        (`response_format` json_schema) before it explains: that reading is grounded and
        sized as its `size` call would be, and the rule decides between it and the parser's.
        An endpoint that rejects the schema gets it switched off (the parser's reading
        stands); one that answers nothing usable changes nothing."""
        if turn.structured_done or self.capabilities.tools:
            return
        turn.structured_done = True
        if not self.capabilities.structured_output:
            return
        question = str(_last_turn(conversation.messages)[0].get("content", ""))
        try:
            content = await self.read_question(question)
        except structured.TooLong:
            return
        except openai.APIError as exc:
            if rejected_capability(exc, ["structured_output"]) is not None:
                self.capabilities.structured_output = False
                yield structured.REJECTED
            else:
                yield structured.failed(self._explain(exc).message)
            return
        except Exception as exc:
            yield structured.failed(type(exc).__name__)
            return
        call = structured.reading_call(
            content, f"read_{conversation.id}_{len(conversation.messages)}"
        )
        if isinstance(call, Notice):
            yield call
            return
        # Grounded before anything is recorded: a model without tools cannot fix a refusal.
        _, refused = self._model_reading(conversation, call, turn)
        if refused is not None:
            yield structured.refused(refused.field or "a field")
            return
        conversation.add(assistant_message("", [call]))
        turn.open_calls[:] = [call]
        async for event in self._run_calls(conversation, [call], turn, from_model=True):
            yield event
        verdict = self._verdict(conversation, turn)
        if verdict is not None:
            yield verdict

    async def read_question(self, question: str) -> str | None:
        """The model's reading of `question` as JSON in `reading.structured.SCHEMA` (the
        reply's text, unchecked; `assistant.llm.structured`). Raises the endpoint's error
        (`openai.APIError`), or `structured.TooLong` when it would not fit the window."""
        window = self.window.tokens if self.window else DEFAULT_WINDOW_TOKENS
        kwargs = structured.request(self.settings.model, question, window, self.scale)
        return structured.reply_text(await self.client.chat.completions.create(**kwargs))

    async def _stream(
        self, kwargs: dict[str, Any], reply: _ModelReply, partial: list[str]
    ) -> AsyncIterator[Event]:
        acc = ToolCallAccumulator()
        guard = OutputGuard(int(kwargs["max_tokens"]))
        stream = await self.client.chat.completions.create(**kwargs)
        reply.started = True
        chunks = stream.__aiter__()
        # Until the first chunk the server may still be reading a long prompt (llama.cpp on a
        # CPU reads ~100-200 tokens/s): that wait is the request timeout's; a stall is a gap
        # once the answer has begun.
        wait_s = max(self.settings.request_timeout_s, self.settings.stall_timeout_s)
        try:
            while True:
                try:
                    chunk = await asyncio.wait_for(chunks.__anext__(), wait_s)
                    wait_s = self.settings.stall_timeout_s
                    reply.answering = True
                except StopAsyncIteration:
                    break
                except TimeoutError as exc:
                    raise _Stalled(wait_s, reply.answering) from exc
                usage = getattr(chunk, "usage", None)
                if usage is not None:
                    reply.prompt_tokens = usage.prompt_tokens
                    reply.completion_tokens = usage.completion_tokens
                    reply.finished = True  # the usage chunk comes after the last choice chunk
                for choice in chunk.choices or []:
                    delta = choice.delta
                    if delta is not None and delta.content:
                        partial.append(delta.content)
                        yield TextDelta(delta.content)
                        stop = guard.feed(delta.content)
                        if stop is not None:
                            reply.stopped = stop
                            reply.finished = True
                            yield self._stop_notice(stop, guard.max_tokens)
                            return
                    for tool_delta in (delta.tool_calls if delta is not None else None) or []:
                        acc.add(tool_delta)
                    if choice.finish_reason:
                        reply.finished = True
                        if choice.finish_reason == "length" and not acc:
                            reply.stopped = "cut_off"
            if reply.stopped == "cut_off":
                yield self._stop_notice("cut_off", guard.max_tokens)
        finally:
            reply.text = "".join(partial)
            reply.calls = acc.finish() if acc else []
            await _close_quietly(stream)

    @staticmethod
    def _read_response(response: Any, reply: _ModelReply) -> None:
        reply.finished = True
        if response.usage is not None:
            reply.prompt_tokens = response.usage.prompt_tokens
            reply.completion_tokens = response.usage.completion_tokens
        if not response.choices:
            return
        choice = response.choices[0]
        message = choice.message
        reply.text = message.content or ""
        acc = ToolCallAccumulator()
        for index, call in enumerate(message.tool_calls or []):
            fn = getattr(call, "function", None)
            acc.add(
                {
                    "index": index,
                    "id": call.id,
                    "function": {
                        "name": getattr(fn, "name", ""),
                        "arguments": getattr(fn, "arguments", ""),
                    },
                }
            )
        reply.calls = acc.finish() if acc else []
        if getattr(choice, "finish_reason", None) == "length" and not reply.calls:
            reply.stopped = "cut_off"

    def _usage(self, kwargs: dict[str, Any], reply: _ModelReply) -> UsageReport:
        if reply.prompt_tokens is not None:
            return UsageReport(reply.prompt_tokens, reply.completion_tokens)
        # Not reported: estimate with o200k_base (other tokenizers differ; marked estimated).
        completion = count_text(reply.text) + sum(
            count_text(c.name) + count_text(c.arguments) for c in reply.calls
        )
        prompt = count_messages(kwargs["messages"], kwargs.get("tools", ()))
        return UsageReport(prompt, completion, estimated=True)

    def _explain(self, exc: BaseException) -> Explained:
        if isinstance(exc, openai.APITimeoutError):
            return Explained("timeout", self._no_first_chunk(self.settings.request_timeout_s))
        return explain(
            exc,
            self.settings.shown_base_url,
            self.settings.model or "",
            self._key_state,
            self._secrets,
        )


class _SecretHeaders(dict[str, str]):
    """Request headers that hold a credential: never shown by repr (tracebacks, logs)."""

    def __repr__(self) -> str:
        return f"{{{', '.join(repr(k) for k in self)}: <redacted>}}"


def basic_authorization(credentials: UrlCredentials) -> str:
    """The `Authorization` value for HTTP Basic auth (RFC 7617) from a URL's credentials."""
    token = f"{credentials.username}:{credentials.password}".encode()
    return "Basic " + base64.b64encode(token).decode("ascii")


async def _close_quietly(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if close is None:
        return
    # The connection may be gone already; there is nothing left to release then.
    with contextlib.suppress(Exception):
        await close()


def _stream_fault(exc: BaseException) -> tuple[str, str]:
    """(kind, plain words) for a failure the SDK raised unwrapped while streaming."""
    name = type(exc).__name__
    if isinstance(exc, ValueError) and not isinstance(exc, UnicodeError):
        return "malformed", "it sent a chunk that is not valid JSON"
    if "Protocol" in name or "ReadError" in name or "Incomplete" in name or "Closed" in name:
        return "truncated", "the connection closed in the middle of the answer"
    return "stream", f"unexpected {name} while reading the stream"


def _parser_question(conversation: Conversation) -> str | None:
    """The question the parser asks back this turn, if it asks one."""
    parsed = turn_parsed(conversation.messages)
    if parsed is None or not parsed.questions:
        return None
    return parsed.questions[0].text


def _last_turn(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            return messages[i:]
    return messages


def flatten_tool_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """For endpoints without tools: fold tool results into the preceding user message as text.

    Assistant tool-call messages and tool messages are dropped (such servers reject them); the
    user message gets a block "Results computed by gpu-sizer's calculators" with each result.
    """
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            names[call["id"]] = call["function"]["name"]
        if message.get("role") == "tool":
            anchor = next((m for m in reversed(out) if m["role"] == "user"), None)
            line = f"{names.get(message.get('tool_call_id', ''), 'tool')}: {message['content']}"
            if anchor is not None:
                header = "\n\nResults computed by gpu-sizer's calculators (use these figures):"
                if header not in anchor["content"]:
                    anchor["content"] += header
                anchor["content"] += "\n" + line
            continue
        if message.get("tool_calls"):
            if message.get("content"):
                out.append({"role": "assistant", "content": message["content"]})
            continue
        out.append(dict(message))
    return out
