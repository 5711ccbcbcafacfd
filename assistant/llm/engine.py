"""The LLM engine: one turn = (pre-computed tools) → model ⇄ tools rounds → grounded answer.

Built on `openai.AsyncOpenAI` with `max_retries=0`: retries are ours (bounded, honouring
Retry-After) so that a retry never happens after text has been shown. Decisions follow the shared
FIELD-NOTES: tool calls are detected by their presence, not `finish_reason`; deltas are
accumulated by index; capability switches an endpoint rejects are turned off for the session
(with a Notice); an endpoint without tools gets the tool results computed by us, as text.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

import openai

from assistant.config import (
    KEYLESS_PLACEHOLDER,
    Capabilities,
    Settings,
    resolve_api_key,
    resolve_url_credentials,
)
from assistant.conversation import Conversation
from assistant.events import (
    Done,
    ErrorEvent,
    Event,
    Notice,
    TextDelta,
    ToolCallStarted,
    ToolResult,
    UsageReport,
)
from assistant.grounding import turn_sources, unverified_figures
from assistant.llm.accumulate import PendingCall, ToolCallAccumulator, assistant_message
from assistant.llm.errors import (
    Explained,
    explain,
    rejected_capability,
    retry_after_s,
    retryable,
    tools_unsupported,
)
from assistant.llm.planner import Planner, offline_planner
from assistant.prompts import load_prompt
from assistant.redact import UrlCredentials
from assistant.registry import Registry, default_registry, parse_arguments
from assistant.summaries import model_view
from assistant.tokens import count_messages, count_text, trim_messages
from assistant.tool_calls import TOOL_TIMEOUT_S, run_tool_call

REQUEST_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")
"""Message keys sent to the endpoint; others (e.g. our `cancelled` mark) stay local."""

BACKOFF_S = (1.0, 2.0, 4.0)
"""Waits between retries when the server gives no Retry-After."""


@dataclass
class _ModelReply:
    text: str = ""
    calls: list[PendingCall] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finished: bool = False
    failed: bool = False


class _Retry(Exception):
    """Internal: a capability was switched off; send the request again."""


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
        self.system_prompt = system_prompt if system_prompt is not None else load_prompt()
        self._sleep = sleep
        self.precompute = precompute
        key = resolve_api_key(settings, env)
        # Credentials in the base URL never reach httpx inside the URL (it would send them as
        # Basic auth whatever the scheme): effective_base_url has none, and they are sent as
        # an Authorization header only where the key's plain-http rule allows (config.py).
        credentials, withheld = resolve_url_credentials(settings)
        self._key_notice = " ".join(r for r in (key.withheld_reason, withheld) if r) or None
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

    # --- the turn ------------------------------------------------------------------------

    async def run_turn(self, conversation: Conversation, user_text: str) -> AsyncIterator[Event]:
        """Answer `user_text`; see `assistant.engine_base.Engine`."""
        conversation.mode = "llm"
        conversation.model = self.settings.model
        conversation.add({"role": "user", "content": user_text})
        partial: list[str] = []
        open_calls: list[PendingCall] = []
        final_text = ""
        try:
            if self._key_notice:
                yield Notice(self._key_notice, "warning")
                self._key_notice = None
            async for event in self._precompute(conversation, user_text, open_calls):
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
                partial.clear()
                async for event in self._call_model(conversation, offer_tools, reply, partial):
                    yield event
                if reply.failed:
                    if partial:
                        self._append_partial(conversation, "".join(partial), "error")
                    yield self._done(conversation, "".join(partial))
                    return
                if reply.calls and offer_tools:
                    conversation.add(assistant_message(reply.text, reply.calls))
                    open_calls[:] = reply.calls
                    async for ev in self._run_calls(
                        conversation, reply.calls, open_calls, from_model=True
                    ):
                        yield ev
                    rounds += 1
                    continue
                final_text = reply.text
                conversation.add({"role": "assistant", "content": final_text})
                partial.clear()
                if not grounded_retry_done and self._ignored_tools(conversation, final_text):
                    grounded_retry_done = True
                    planned = list(self.planner(user_text, conversation))
                    if planned:
                        yield Notice(
                            "The model answered with figures but used no calculator; gpu-sizer "
                            "ran the calculators itself and asked the model to explain them.",
                            "warning",
                        )
                        async for ev in self._run_planned(conversation, planned, open_calls):
                            yield ev
                        continue
                break
            yield self._done(conversation, final_text)
        except BaseException as exc:
            # Cancelled (Esc), closed, or a bug: the history must stay valid for the next request.
            self._close_open_calls(conversation, open_calls)
            why = "error" if isinstance(exc, Exception) else "cancelled"
            self._append_partial(conversation, "".join(partial), why)
            raise

    # --- pieces of a turn ----------------------------------------------------------------

    async def _precompute(
        self, conversation: Conversation, user_text: str, open_calls: list[PendingCall]
    ) -> AsyncIterator[Event]:
        """Run the tools the request clearly needs before the first model call (one round
        trip instead of two)."""
        planned = list(self.planner(user_text, conversation)) if self.precompute else []
        if planned:
            async for event in self._run_planned(conversation, planned, open_calls):
                yield event

    def _run_planned(
        self,
        conversation: Conversation,
        planned: list[tuple[str, dict[str, Any]]],
        open_calls: list[PendingCall],
    ) -> AsyncIterator[Event]:
        calls = [
            PendingCall(
                i, f"gs_{i}_{conversation.id}_{len(conversation.messages)}", name, json.dumps(args)
            )
            for i, (name, args) in enumerate(planned)
        ]
        conversation.add(assistant_message("", calls))
        open_calls[:] = calls
        return self._run_calls(conversation, calls, open_calls)

    async def _run_calls(
        self,
        conversation: Conversation,
        calls: list[PendingCall],
        open_calls: list[PendingCall],
        *,
        from_model: bool = False,
    ) -> AsyncIterator[Event]:
        """Run each call off the event loop (assistant.tool_calls); the card appears first.
        `from_model`: the model chose these arguments (no local file paths accepted)."""
        for call in calls:
            parsed = parse_arguments(call.arguments)
            yield ToolCallStarted(call.id, call.name, parsed if isinstance(parsed, dict) else {})
            outcome = await run_tool_call(
                self.registry,
                call.name,
                call.arguments,
                from_model=from_model,
                timeout_s=self.tool_timeout_s,
            )
            conversation.add({"role": "tool", "tool_call_id": call.id, "content": outcome.content})
            open_calls.remove(call)
            yield ToolResult(call.id, call.name, outcome.result, outcome.is_error)

    def _ignored_tools(self, conversation: Conversation, text: str) -> bool:
        """The model stated figures with units but the turn has no tool result to back them."""
        sources = turn_sources(conversation.messages)
        has_tool_result = any(m.get("role") == "tool" for m in _last_turn(conversation.messages))
        return not has_tool_result and bool(unverified_figures(text, sources))

    def _done(self, conversation: Conversation, text: str) -> Done:
        flagged = unverified_figures(text, turn_sources(conversation.messages)) if text else []
        return Done(text=text, conversation=conversation, unverified_figures=tuple(flagged))

    @staticmethod
    def _append_partial(conversation: Conversation, text: str, why: str) -> None:
        if text:
            conversation.add({"role": "assistant", "content": text, why: True})

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

    # --- one model call, with retries and capability fallbacks ---------------------------

    def _request_messages(
        self, conversation: Conversation, tools: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        system = [{"role": "system", "content": self.system_prompt}]
        history = [{k: m[k] for k in REQUEST_KEYS if k in m} for m in conversation.messages]
        # The model gets summaries of the calculators' large results; the conversation keeps
        # the full results (tool cards, proposals and the grounding check read those).
        history = model_view(history)
        if not self.capabilities.tools:
            history = flatten_tool_messages(history)
        budget = self.settings.context_window_tokens - self.settings.max_output_tokens
        return system + trim_messages(history, budget, tools, system)

    def _request(
        self, conversation: Conversation, offer_tools: bool
    ) -> tuple[dict[str, Any], bool]:
        caps = self.capabilities
        tools = self.registry.schemas(strict=caps.strict) if offer_tools else []
        stream = not (tools and not caps.streaming_tools)
        kwargs: dict[str, Any] = {
            "model": self.settings.model,
            "messages": self._request_messages(conversation, tools),
            "max_tokens": self.settings.max_output_tokens,
            "stream": stream,
        }
        if tools:
            kwargs["tools"] = tools
            if caps.parallel_tool_calls:
                kwargs["parallel_tool_calls"] = True
        if stream and caps.stream_options:
            kwargs["stream_options"] = {"include_usage": True}
        return kwargs, stream

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

    async def _call_model(
        self,
        conversation: Conversation,
        offer_tools: bool,
        reply: _ModelReply,
        partial: list[str],
    ) -> AsyncIterator[Event]:
        """Yield the events of one model call; the last event is an ErrorEvent on failure."""
        attempt = 0
        while True:
            kwargs, stream = self._request(conversation, offer_tools and self.capabilities.tools)
            try:
                if stream:
                    async for event in self._stream(kwargs, reply, partial):
                        yield event
                else:
                    response = await self.client.chat.completions.create(**kwargs)
                    self._read_response(response, reply)
                    if reply.text:
                        partial.append(reply.text)
                        yield TextDelta(reply.text)
                break
            except (openai.APIError, _Retry) as exc:
                if partial:
                    # Text was shown already: never retry silently, keep it and explain.
                    reply.failed = True
                    yield ErrorEvent(self._explain(exc).message, self._explain(exc).kind)
                    return
                notice = self._fallback(exc, kwargs, stream)
                if notice is not None:
                    yield notice
                    if "tools" in kwargs and not self.capabilities.tools:
                        async for event in self._compute_without_tools(conversation):
                            yield event
                    continue
                if retryable(exc) and attempt < self.settings.max_retries:
                    wait = retry_after_s(exc)
                    if wait is None:
                        wait = BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]
                    if wait <= self.settings.max_retry_wait_s:
                        attempt += 1
                        yield Notice(f"The endpoint asked us to wait; retrying in {wait:g} s.")
                        await self._sleep(wait)
                        continue
                explained = self._explain(exc)
                reply.failed = True
                yield ErrorEvent(explained.message, explained.kind)
                return
        if stream and not reply.finished:
            reply.failed = True
            yield ErrorEvent(
                "The answer stopped before the endpoint said it was complete (truncated "
                "stream). The partial answer is kept; ask again to retry.",
                "truncated",
            )
            return
        yield self._usage(kwargs, reply)

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

    async def _compute_without_tools(self, conversation: Conversation) -> AsyncIterator[Event]:
        """Tools are off: run the planned calculators ourselves unless this turn already did."""
        if any(m.get("role") == "tool" for m in _last_turn(conversation.messages)):
            return
        user_text = str(_last_turn(conversation.messages)[0].get("content", ""))
        planned = list(self.planner(user_text, conversation))
        open_calls: list[PendingCall] = []
        if planned:
            async for event in self._run_planned(conversation, planned, open_calls):
                yield event

    async def _stream(
        self, kwargs: dict[str, Any], reply: _ModelReply, partial: list[str]
    ) -> AsyncIterator[Event]:
        acc = ToolCallAccumulator()
        stream = await self.client.chat.completions.create(**kwargs)
        async for chunk in stream:
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
                for tool_delta in (delta.tool_calls if delta is not None else None) or []:
                    acc.add(tool_delta)
                if choice.finish_reason:
                    reply.finished = True
        reply.text = "".join(partial)
        reply.calls = acc.finish() if acc else []

    @staticmethod
    def _read_response(response: Any, reply: _ModelReply) -> None:
        reply.finished = True
        if response.usage is not None:
            reply.prompt_tokens = response.usage.prompt_tokens
            reply.completion_tokens = response.usage.completion_tokens
        if not response.choices:
            return
        message = response.choices[0].message
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
        return explain(
            exc,
            self.settings.shown_base_url,
            self.settings.model or "",
            self.settings.api_key_env,
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
