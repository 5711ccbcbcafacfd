"""The conversation layer: engines (LLM or offline) → tool registry → events → Textual UI."""
