"""Settings: endpoint, model, the NAME of the key's environment variable, capability switches.

The key itself is never asked for, shown or stored: only the variable's name is. Credentials in
the base URL are not shown either (the field holds the URL without them and keeps them while it
is left unchanged) and are never saved. Saving writes only the fields the user changed into
config.toml (`assistant.config_file.save_config_changes`: the file's other values and comments
stay, one-run flags such as `--offline` are not made permanent) and returns the new settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic import ValidationError
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.notifications import SeverityLevel
from textual.widgets import Button, Input, Label, Switch

from assistant.app.screens import ChatModal
from assistant.config import Capabilities, Settings
from assistant.config_file import save_config_changes, settings_changes
from assistant.redact import split_credentials
from assistant.sanitize import clean_text
from tools.errors import ToolInputError

CAPABILITY_LABELS: dict[str, str] = {
    "tools": "offer tools (function calling)",
    "streaming_tools": "stream while tools are offered",
    "stream_options": "ask for token usage in the stream",
    "parallel_tool_calls": "parallel tool calls",
    "strict": "strict function schemas",
}


class SettingsScreen(ChatModal[Settings | None]):
    """Edit and save settings; returns the saved `Settings`, or None when cancelled."""

    DEFAULT_CSS = """
    SettingsScreen { align: center middle; }
    SettingsScreen > VerticalScroll {
        width: 90%; max-width: 90; height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    SettingsScreen Input { margin-bottom: 1; }
    SettingsScreen .switch-row { height: auto; }
    SettingsScreen .switch-row Label { padding: 1 1; }
    SettingsScreen #buttons { height: auto; margin-top: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="settings.cancel"),
        # At 80×24 the buttons can be below the fold: Ctrl+S saves from any field.
        Binding("ctrl+s", "save", "Save", id="settings.save"),
    ]

    def __init__(self, settings: Settings, config_file: Path | None = None) -> None:
        super().__init__()
        self.settings = settings
        self.config_file = config_file
        url = settings.base_url or ""
        self._shown_url, credentials = split_credentials(url)
        self._url_note = " — its credentials are kept, not shown" if credentials else ""

    def compose(self) -> ComposeResult:
        caps = self.settings.capabilities
        with VerticalScroll():
            yield Label("Settings — Ctrl+S save · Esc cancel", classes="title")
            yield Label(f"Endpoint (OpenAI-compatible base URL; empty = OpenAI){self._url_note}")
            yield Input(self._shown_url, id="base_url")
            yield Label("Model")
            yield Input(self.settings.model or "", id="model")
            yield Label("Environment variable holding the API key (its name, not the key)")
            yield Input(self.settings.api_key_env, id="api_key_env")
            with Horizontal(classes="switch-row"):
                yield Switch(self.settings.offline, id="offline")
                yield Label("offline mode (built-in parser + calculators, no model)")
            for name, label in CAPABILITY_LABELS.items():
                with Horizontal(classes="switch-row"):
                    yield Switch(bool(getattr(caps, name)), id=f"cap-{name}")
                    yield Label(label)
            with Horizontal(id="buttons"):
                yield Button("Save", variant="primary", id="save")
                yield Button("Cancel", id="cancel")

    def edited_settings(self) -> Settings:
        """Settings with the form's values (validated by the Settings model)."""
        typed = self.query_one("#base_url", Input).value.strip()
        # Unchanged: keep the URL as configured (with any credentials it had).
        base_url = self.settings.base_url if typed == self._shown_url else (typed or None)
        updated = self.settings.model_copy(
            update={
                "base_url": base_url,
                "model": self.query_one("#model", Input).value.strip() or None,
                "api_key_env": self.query_one("#api_key_env", Input).value.strip(),
                "offline": self.query_one("#offline", Switch).value,
            }
        )
        caps = Capabilities(
            **{name: self.query_one(f"#cap-{name}", Switch).value for name in CAPABILITY_LABELS}
        )
        # Round-trip through validation: model_copy(update=...) does not validate.
        return Settings.model_validate(updated.with_capabilities(caps).model_dump())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self.action_save()

    def action_save(self) -> None:
        if not self.query_one("#api_key_env", Input).value.strip():
            self.notify(
                "api_key_env: give the NAME of a variable, e.g. OPENAI_API_KEY", severity="error"
            )
            return
        try:
            settings = self.edited_settings()
        except ValidationError as exc:
            problem = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
            self._say(f"Not saved: {problem}", "error")
            return
        changes = settings_changes(self.settings, settings)
        if not changes:
            self._say("Nothing changed: config.toml left as it is.")
            self.dismiss(settings)
            return
        try:
            path = save_config_changes(changes, self.config_file)
        except ToolInputError as exc:
            self._say(f"Not saved: {exc.message}", "error")
            return
        except OSError as exc:
            self._say(f"Not saved: {exc}", "error")
            return
        self._say(f"Saved {', '.join(sorted(changes))} to {path}.")
        self.dismiss(settings)

    def _say(self, message: str, severity: SeverityLevel = "information") -> None:
        # Paths and server-side names are outside text: literal, cleaned (never markup).
        self.notify(clean_text(message), severity=severity, markup=False)

    def action_cancel(self) -> None:
        self.dismiss(None)
