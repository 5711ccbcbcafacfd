"""The default request shape: what `memory`, `recommend` and the engines size when the user
gives no lengths. Defined once so the two tools size the same sequence for the same question.

Why these values (a choice, stated back to the user in the tools' assumptions, not a measured
figure): 4,096 tokens is the context most memory calculators and serving quick-starts use as
their default, and a 3:1 prompt:output split is the shape of a chat or RAG request (a long
prompt with retrieved context, a shorter answer). Fine-tuning uses the same 4,096-token sequence.

Kept free of imports from `tools.memory` and `tools.workload`, which both import it.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PROMPT_TOKENS = 3072
"""Input tokens per request when none are given, tokens."""
DEFAULT_OUTPUT_TOKENS = 1024
"""Generated tokens per request when none are given, tokens."""
DEFAULT_CONTEXT_TOKENS = DEFAULT_PROMPT_TOKENS + DEFAULT_OUTPUT_TOKENS
"""KV-cache length per sequence (serving) and sequence length (training) by default, tokens."""
DEFAULT_KV_DTYPE = "bf16"
"""KV-cache element type when none is given: the serving engines' default for bf16 models (vLLM
kv_cache_dtype='auto' follows the model dtype)."""


@dataclass(frozen=True)
class RequestShape:
    """Prompt and output lengths of one request, tokens."""

    prompt_tokens: int
    output_tokens: int

    @property
    def context_tokens(self) -> int:
        """Prompt + output: the KV-cache length a finished request holds, tokens."""
        return self.prompt_tokens + self.output_tokens


def default_request_shape(max_context: int) -> RequestShape:
    """The default shape for a model whose maximum context is `max_context` tokens.

    3,072 + 1,024 = 4,096 tokens, or, for a model with a shorter maximum, that maximum split
    the same 3:1 way (2,048 → 1,536 + 512), so a default never asks for more than the model
    takes. The context is min(4,096, max_context) exactly, the memory tool's default (a
    degenerate 1-token maximum still gets one prompt and one output token).
    """
    context = min(DEFAULT_CONTEXT_TOKENS, max_context)
    if context == DEFAULT_CONTEXT_TOKENS:
        return RequestShape(DEFAULT_PROMPT_TOKENS, DEFAULT_OUTPUT_TOKENS)
    prompt = context * DEFAULT_PROMPT_TOKENS // DEFAULT_CONTEXT_TOKENS
    return RequestShape(max(1, prompt), max(1, context - prompt))
