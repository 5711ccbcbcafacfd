"""The LLM engine: any OpenAI-compatible endpoint, tool calling, grounded answers (issue 6)."""

from assistant.llm.engine import LlmEngine

__all__ = ["LlmEngine"]
