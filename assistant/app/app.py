"""The gpu-sizer chat app: header, chat log, prompt, status bar; keys, palette, slash commands.

Kept small on purpose: turns are presented by `turn.TurnPresenter`, widgets live in `widgets/`,
modal screens in `screens/`, command parsing in `commands.py`, persistence in
`assistant.sessions`. This class wires them together and owns the session state.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Header
from textual.worker import Worker

from assistant.app import commands
from assistant.app.screens import ChatModal
from assistant.app.units import answer_unit
from assistant.app.widgets.chat_log import ChatLog
from assistant.app.widgets.prompt import PromptInput
from assistant.app.widgets.status_bar import StatusBar
from assistant.app.widgets.welcome import Welcome, WelcomeInfo
from assistant.config import DEFAULT_KEYBINDINGS, Settings, normalize_url, validate_settings
from assistant.conversation import Conversation
from assistant.engine_base import Engine
from assistant.keybindings import keys_of
from assistant.redact import redact_secrets
from assistant.sanitize import clean_text
from assistant.session_store import FileStamp, SessionStore
from assistant.sessions import data_dir, list_sessions, session_path
from tools.errors import ToolInputError

EngineFactory = Callable[[Settings], Engine]

PROMPT_ACTIONS = frozenset({"send", "newline"})
"""Remappable actions the prompt widget binds itself (not app bindings)."""


def header_subtitle(engine: Engine, settings: Settings | None) -> str:
    """Mode, model and endpoint for the header (the endpoint without any credentials)."""
    mode = "LLM" if engine.mode == "llm" else "offline"
    if engine.mode == "offline" or settings is None:
        # Engine labels may already start with their mode ("offline · built-in ...").
        label = engine.label
        for prefix in (f"{engine.mode} · ", f"{mode} · "):
            label = label.removeprefix(prefix)
        return clean_text(f"{mode} · {label}")
    return clean_text(f"LLM · {settings.model or '?'} @ {settings.shown_base_url}")


KEY_NAMES = {"pageup": "PageUp", "pagedown": "PageDown"}


def key_label(key: str) -> str:
    """ "ctrl+n" → "Ctrl+N", "f1" → "F1", "pageup" → "PageUp": keys as the help writes them."""
    return "+".join(
        KEY_NAMES.get(part) or (part.capitalize() if len(part) > 2 else part.upper())
        for part in key.split("+")
    )


WARM_UP_MODULES = (
    "assistant.app.turn",
    "assistant.app.widgets.tool_card",
    "assistant.session_format",
)
"""The app's own modules a turn needs, imported after the first paint (`_warm_up`), not before
it: the first screen shows without them (issue 32, fast start: first paint within 0.5 s)."""

OPENING_NOTICE_BYTES = 2 * 10**6
"""Session files from this size on (a few hundred turns) get an 'Opening …' toast: reading
them takes long enough to notice."""


class GpuSizerApp(App[None]):
    """The chat. `engine_factory` rebuilds the engine when settings change (/model, /offline)."""

    CSS_PATH = "app.tcss"
    TITLE = "gpu-sizer"
    AUTO_FOCUS = "PromptInput"

    # Priority: these must work while the prompt (a TextArea with its own Ctrl keys) has focus.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel_turn", "Cancel answer", id="cancel"),
        # Textual's own ctrl+q binding has no id, so a remapped "quit" would be ignored.
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True, show=False),
        Binding("ctrl+n", "new_chat", "New chat", id="new_session", priority=True),
        Binding("ctrl+s", "save_session", "Save session", id="save_session", priority=True),
        Binding("ctrl+o", "open_sessions", "Open session", id="open_session", priority=True),
        Binding("ctrl+e", "export_proposal", "Export proposal", id="save_proposal", priority=True),
        Binding("ctrl+y", "copy_answer", "Copy answer", id="copy_answer", priority=True),
        Binding("ctrl+d", "toggle_details", "Fold tool cards", id="toggle_details", priority=True),
        Binding("f1", "help", "Help", id="help", priority=True),
        Binding("f2", "settings", "Settings", id="settings", priority=True),
        # The prompt keeps the focus, so the log has scroll keys of its own (check_action
        # leaves Home/End to the prompt while it holds text; Ctrl+End always follows).
        *(
            Binding(key, f"scroll_chat('{where}')", description, id=binding_id, priority=True)
            for key, where, description, binding_id in (
                ("pageup", "page_up", "Scroll up", "scroll_up"),
                ("pagedown", "page_down", "Scroll down", "scroll_down"),
                ("home", "home", "Scroll to the first line", "scroll_home"),
                ("end", "end", "Follow new answers", "scroll_end"),
                ("ctrl+end", "follow", "Follow new answers", "follow"),
            )
        ),
    ]

    def __init__(
        self,
        engine: Engine,
        settings: Settings | None = None,
        engine_factory: EngineFactory | None = None,
        sessions_directory: Path | None = None,
        config_file: Path | None = None,
        conversation: Conversation | None = None,
    ) -> None:
        super().__init__()
        self.engine = engine
        self.settings = settings
        self.engine_factory = engine_factory
        self.sessions_directory = sessions_directory
        self.store = SessionStore(sessions_directory)
        self.config_file = config_file
        self.conversation = conversation or self._fresh_conversation()
        if conversation is not None:
            # Handed in just after being read: its file as it is now is the version we hold.
            self.store.track(conversation.id, FileStamp.of(self._session_file(conversation.id)))
        self._sent_text = ""
        self._turn: Worker[None] | None = None
        self._opening: Worker[None] | None = None

    def _fatal_error(self) -> None:
        """An unhandled error's traceback, printed once the terminal is restored — without the
        local variables Textual shows by default: they can hold the API key, URL credentials
        or a whole conversation. (Overrides a private Textual hook; `main.finish` adds the
        line saying what happened and where the session was saved.)"""
        from rich.segment import Segments
        from rich.traceback import Traceback

        self.bell()
        traceback = Traceback(show_locals=False, width=None)
        self._exit_renderables.append(
            Segments(self.console.render(traceback, self.console.options))
        )
        self._close_messages_no_wait()

    def _fresh_conversation(self) -> Conversation:
        model = self.settings.model if self.settings and self.engine.mode == "llm" else None
        return Conversation(mode=self.engine.mode, model=model)

    # ---- layout -------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header(icon="▣")
        yield ChatLog(id="chat-log")
        yield PromptInput(id="prompt", placeholder="Ask a sizing question, or /help")
        yield StatusBar(id="status")

    async def on_mount(self) -> None:
        self._apply_keymap()
        self.sub_title = header_subtitle(self.engine, self.settings)
        self.chat_log.unit = answer_unit(self.engine.mode)
        if self.conversation.messages:
            await self.chat_log.restore(self.conversation)
        else:
            await self.show_welcome()

    def on_ready(self) -> None:
        # Textual's Ready: the DOM is mounted and the first frame has been displayed.
        self._warm_up()

    @work(group="warm-up")
    async def _warm_up(self) -> None:
        """Import what a turn needs — the turn's widgets, the session file format and the
        engine's own `turn_modules` (the offline engine's parser and tools) — once the first
        screen is painted, one module per pass of the event loop, so keys typed meanwhile are
        taken between them; on the app's own thread, never beside a turn's imports."""
        for name in (*WARM_UP_MODULES, *getattr(self.engine, "turn_modules", ())):
            importlib.import_module(name)
            await asyncio.sleep(0)

    def welcome_info(self) -> WelcomeInfo:
        """The welcome screen's facts: the mode (endpoint shown without credentials) and the
        most recent readable sessions of this app's store in which something was sized."""
        if self.engine.mode == "llm":
            mode = f"Mode: {self.sub_title} — the tools compute every figure, the model explains"
        else:
            mode = f"Mode: {self.sub_title} — no model, no network needed"
        # Recent sessions are the ones something was sized in: a question nothing could be
        # read from ("asdf") is kept on disk (Ctrl+O lists every file) but not offered here.
        sessions = [
            summary
            for summary in list_sessions(self.store.folder)
            if summary.problem is None and summary.sized and summary.id != self.conversation.id
        ]
        return WelcomeInfo(clean_text(mode), llm=self.engine.mode == "llm", sessions=sessions)

    async def show_welcome(self) -> None:
        """The welcome screen of an empty chat (also after a new chat or a mode change)."""
        await self.chat_log.show_welcome(self.welcome_info())

    @on(Welcome.ExampleChosen)
    def _on_example(self, event: Welcome.ExampleChosen) -> None:
        if event.send and not self.turn_running and not self.opening:
            self.send(event.text)
        else:
            self.prompt.restore(event.text)
        self.prompt.focus()

    @on(Welcome.SessionChosen)
    async def _on_recent_session(self, event: Welcome.SessionChosen) -> None:
        await self._open_session(event.path)
        self.prompt.focus()

    def _apply_keymap(self) -> None:
        # Every remappable action must have a binding with its id, or a remap would be
        # ignored without a word (tests/test_keybindings.py checks the table against this).
        unbound = set(DEFAULT_KEYBINDINGS) - PROMPT_ACTIONS - self.binding_ids()
        if unbound:
            self.say(f"Key bindings not applied for: {', '.join(sorted(unbound))}", "warning")
        if self.settings is None:
            return
        # Only entries the user changed from DEFAULT_KEYBINDINGS (the same keys the bindings
        # above declare), so an untouched config file never rebinds anything.
        changed = {
            action: keys
            for action, keys in self.settings.keybindings.items()
            if DEFAULT_KEYBINDINGS.get(action) != keys
        }
        prompt = self.prompt
        if "send" in changed:
            prompt.send_keys = frozenset(keys_of(changed.pop("send")))
        if "newline" in changed:
            prompt.newline_keys = frozenset(keys_of(changed.pop("newline")))
        if changed:
            self.set_keymap(changed)

    def binding_ids(self) -> set[str]:
        """Ids of the app's own bindings (what `set_keymap` can remap)."""
        return {b.id for b in self.BINDINGS if isinstance(b, Binding) and b.id}

    @property
    def chat_log(self) -> ChatLog:
        return self.query_one(ChatLog)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def turn_running(self) -> bool:
        return self._turn is not None and self._turn.is_running

    @property
    def opening(self) -> bool:
        """Whether a session is being read (`_open_in_background`): nothing is sent meanwhile,
        so no question lands in the conversation about to be replaced."""
        return self._opening is not None and self._opening.is_running

    def say(self, message: str, severity: SeverityLevel = "information", **kw: Any) -> None:
        """A toast with text that may hold outside words (a title, a path, a server's error):
        cleaned of control sequences and shown literally, never parsed as markup (a stray
        '[/]' would raise, '[@click=...]' would add an action)."""
        self.notify(clean_text(message), severity=severity, markup=False, **kw)

    # ---- sending ------------------------------------------------------------------------
    @on(PromptInput.Submitted)
    async def _on_submitted(self, event: PromptInput.Submitted) -> None:
        # Pasted text can hold escape sequences: they are never echoed, stored or sent.
        text = clean_text(event.text)
        if commands.is_slash_command(text):
            self.prompt.clear()
            try:
                await commands.run_slash(self, text)
            except ToolInputError as exc:
                self.prompt.restore(text)
                self.say(exc.message, severity="error")
            return
        if self.turn_running:
            self.notify("An answer is still running: Esc cancels it.", severity="warning")
            return
        if self.opening:
            self.notify("A session is still opening: send this once it shows.", severity="warning")
            return
        self.send(text)

    def send(self, text: str) -> None:
        """Persist the user's message, clear the prompt, and start the turn."""
        text = clean_text(text)  # also when called directly, not from the prompt
        # The message is on disk before any request goes out: save a copy that already holds
        # it (the engine appends the same message to the live conversation itself).
        pending = self.conversation.model_copy(deep=True)
        pending.add({"role": "user", "content": text})
        self._save(pending)
        self.conversation.id = pending.id  # a new id when the save had to fork
        self._sent_text = text
        self.prompt.clear()
        self._turn = self._run_turn(text)

    @work(exclusive=True, group="turn")
    async def _run_turn(self, text: str) -> None:
        await self.chat_log.add_user(text)
        from assistant.app.turn import TurnPresenter

        presenter = TurnPresenter(self.chat_log, self.status)
        try:
            outcome = await presenter.run(self.engine, self.conversation, text)
        except BaseException as exc:
            # Cancelled (Esc) or crashed: keep what the engine appended (every tool call
            # answered, so the next request is valid), give the text back.
            self.conversation.repair()
            self._save(self.conversation)
            self._give_back_prompt()
            if not isinstance(exc, Exception):
                raise
            # No raw repr (it may quote a request with its key): the type and a redacted text.
            message = redact_secrets(clean_text(f"The turn failed ({type(exc).__name__}): {exc}"))
            await self.chat_log.add_notice(message, "error")
            self.say(message, severity="error")
            return
        self.conversation = outcome.conversation
        self.conversation.repair()
        self._save(self.conversation)
        if outcome.errors:
            self._give_back_prompt()
            self.say(outcome.errors[-1].message, severity="error", timeout=10)

    def _give_back_prompt(self) -> None:
        # Nothing typed is lost: restore the sent text unless the user already typed anew.
        if not self.prompt.text.strip():
            self.prompt.restore(self._sent_text)

    def _session_file(self, session_id: str) -> Path:
        return session_path(session_id, self.sessions_directory)

    def _save(self, conversation: Conversation) -> bool:
        """Save through the store; False (and an error toast) when it could not be written.
        When another instance changed this session's file, the chat continues as a new
        session and the user is told (nothing is overwritten)."""
        try:
            saved = self.store.save(conversation)
        except (OSError, ToolInputError) as exc:
            self.say(f"Session not saved: {exc}", severity="error", timeout=10)
            self.status.saved = "not saved"
            return False
        if saved.forked_from is not None:
            self.say(
                f"Another gpu-sizer window saved session {saved.forked_from} meanwhile: this chat "
                f"now continues as session {conversation.id} (both are kept).",
                severity="warning",
                timeout=15,
            )
        self.status.saved = f"saved {saved.path.stem}"
        return True

    # ---- actions (keys, palette, slash commands) ----------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_turn":
            return self.turn_running
        if action == "scroll_chat" and parameters in {("home",), ("end",)}:
            # Home/End move the cursor in a prompt that holds text, scroll the chat otherwise.
            focused = self.focused
            if isinstance(focused, PromptInput) and focused.text:
                return False
        # App-level keys act on the chat only, not under a modal screen (by action name:
        # `scroll_chat('page_down')` arrives here as `scroll_chat`, so the help screen's own
        # PageDown scrolls the help, not the chat behind it).
        if action in {b.action.split("(")[0] for b in self.BINDINGS if isinstance(b, Binding)}:
            return not isinstance(self.screen, commands_modal_types())
        return True

    def action_cancel_turn(self) -> None:
        if self._turn is not None and self._turn.is_running:
            self._turn.cancel()

    async def action_new_chat(self) -> None:
        if self._opening is not None and self._opening.is_running:
            self._opening.cancel()  # a new chat instead of the session being opened
        if self.turn_running:
            self.notify("Cancel the running answer first (Esc).", severity="warning")
            return
        if self.conversation.messages:
            self._save(self.conversation)
        self.conversation = self._fresh_conversation()
        self.status.reset_usage()
        self.status.saved = ""
        self.status.state = "ready"  # not the last turn's "cancelled" or "error"
        await self.chat_log.clear_log()
        await self.show_welcome()
        self.prompt.focus()

    def action_save_session(self) -> None:
        if self._save(self.conversation):
            self.say(f"Session saved ({self.conversation.id}).")

    def action_open_sessions(self) -> None:
        from assistant.app.screens.sessions import SessionsScreen

        self.push_screen(SessionsScreen(self.sessions_directory), self._open_session)

    async def _open_session(self, path: Path | None) -> None:
        """Open the session saved in `path`, in the background (`_open_in_background`): the
        handler returns at once, so keys, scrolling and Esc keep working while it loads."""
        if path is None:
            return
        if self.turn_running:
            self.say("Cancel the running answer first (Esc).", severity="warning")
            return
        self._opening = self._open_in_background(path)

    @work(exclusive=True, group="open")
    async def _open_in_background(self, path: Path) -> None:
        """Read, check and clean the file in a worker thread (a 50 MB session is seconds of
        parsing) while the chat log shows a loading indicator and a toast says what is
        opening; then draw it. An unreadable file is a toast; the chat shown stays."""
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        if size >= OPENING_NOTICE_BYTES:
            self.say(f"Opening {path.name} ({size / 1e6:,.1f} MB)…", timeout=3)
        self.chat_log.loading = True
        try:
            loaded = await asyncio.to_thread(self.store.open, path)
        except ToolInputError as exc:
            self.say(exc.message, severity="error")
            return
        finally:
            self.chat_log.loading = False
        if self.turn_running:  # a question sent from elsewhere meanwhile keeps its chat
            self.say("Not opened: an answer started meanwhile.", severity="warning")
            return
        # The session's messages live as long as the chat; a 50 MB one is millions of objects
        # that every full collection would walk again (half a second each, the app frozen).
        # Frozen, collections skip them; reference counting still frees them when replaced.
        gc.freeze()
        self.conversation = loaded.conversation
        self.status.reset_usage()
        self.status.state = "ready"
        # The session shown is the one named in the status bar (not the one before it).
        self.status.saved = f"opened {loaded.conversation.id}"
        await self.chat_log.restore(loaded.conversation)
        if loaded.problems:
            await self.chat_log.add_notice(session_problems_text(loaded.problems), "warning")
        self.say(f"Reopened “{loaded.conversation.title or loaded.conversation.id}”.")

    def action_export_proposal(self) -> None:
        self.export_proposal()

    def export_proposal(self, path: str = "") -> None:
        """Write the proposal for this conversation (default: data dir/proposals/<id>.md).

        The default file belongs to this session and is refreshed on each export; a path the
        user names is never overwritten (the notice says to pick another or delete it)."""
        from assistant.proposal import write_proposal  # lazy: keeps first paint fast

        if not any(m.get("role") == "tool" for m in self.conversation.messages):
            self.say("Nothing to export yet: ask a sizing question first.", severity="warning")
            return
        target = Path(path) if path else data_dir() / "proposals" / f"{self.conversation.id}.md"
        self._save(self.conversation)
        try:
            written = write_proposal(
                self.conversation, target, force=not path, create_folders=not path
            )
        except (ToolInputError, OSError) as exc:
            self.say(f"Proposal not written: {exc}", severity="error")
            return
        self.say(f"Proposal written to {written}.")

    def action_scroll_chat(self, where: str) -> None:
        self.chat_log.scroll_chat("end" if where == "follow" else where)

    def action_copy_answer(self) -> None:
        answer = self.chat_log.last_answer()
        if answer is None:
            self.notify("No answer to copy yet.", severity="warning")
            return
        answer.action_copy()

    def action_toggle_details(self) -> None:
        from assistant.app.widgets.tool_card import ToolCard

        cards = list(self.query(ToolCard))
        collapse = any(not card.collapsed for card in cards)
        for card in cards:
            card.collapsed = collapse

    def action_help(self) -> None:
        rows = [
            (key_label(binding.key), binding.description)
            for binding in self.active_bindings_for_help()
            if binding.action != "cancel_turn"
        ]
        rows += [
            ("Esc", "cancel the running answer (keeps the partial answer)"),
            ("Enter", "send"),
            ("Shift+Enter / Ctrl+J", "new line"),
            ("↑ / ↓", "previous / next sent message"),
            ("Home / End", "the chat's first line / its end; with text in the prompt: the line's"),
            ("Tab", "from an empty chat's prompt: the example questions and recent sessions"),
            ("Ctrl+P", "command palette"),
            ("Ctrl+Q", "quit"),
        ]
        from assistant.app.screens.help import HelpScreen

        self.push_screen(HelpScreen(commands.help_markdown(rows)))

    def active_bindings_for_help(self) -> Iterable[Binding]:
        """The app's bindings as currently mapped (user remaps included)."""
        for key, active in self.active_bindings.items():
            if active.node is self and active.binding.description:
                yield active.binding.with_key(key)

    def action_settings(self) -> None:
        if self.settings is None:
            self.notify("No settings loaded (the app was started with a fixed engine).")
            return
        from assistant.app.screens.settings import SettingsScreen

        self.push_screen(SettingsScreen(self.settings, self.config_file), self._apply_settings)

    def _apply_settings(self, settings: Settings | None) -> None:
        if settings is None:
            return
        if self.engine_factory is not None:
            try:
                engine = self.engine_factory(settings)
            except Exception as exc:  # a client the settings cannot build: keep the old one
                self.say(f"Settings not applied: {exc}", severity="error", timeout=10)
                return
            self.engine = engine
            self.conversation.mode = self.engine.mode
            self.conversation.model = settings.model if self.engine.mode == "llm" else None
        self.settings = settings
        self.sub_title = header_subtitle(self.engine, settings)
        self.chat_log.unit = answer_unit(self.engine.mode)
        if self.chat_log.welcome is not None:
            self.call_later(self.show_welcome)  # the mode line changed

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Cancel answer", "Stop the running answer (Esc)", self.action_cancel_turn
        )
        yield SystemCommand(
            "Toggle tool cards", "Collapse/expand all cards", self.action_toggle_details
        )
        yield from commands.palette_commands(self)

    # ---- slash commands (commands.SlashTarget) ------------------------------------------
    async def cmd_new(self, argument: str) -> None:
        await self.action_new_chat()

    async def cmd_save(self, argument: str) -> None:
        self.action_save_session()

    async def cmd_load(self, argument: str) -> None:
        if not argument:
            self.action_open_sessions()
            return
        path = self._session_file(argument)  # ToolInputError for an id that is no file name
        if not path.exists():
            raise ToolInputError("session", f"no saved session with id {argument!r}")
        await self._open_session(path)

    async def cmd_export(self, argument: str) -> None:
        self.export_proposal(argument)

    async def cmd_help(self, argument: str) -> None:
        self.action_help()

    async def cmd_settings(self, argument: str) -> None:
        self.action_settings()

    async def cmd_copy(self, argument: str) -> None:
        self.action_copy_answer()

    async def _change_settings(self, **update: Any) -> None:
        if self.settings is None:
            raise ToolInputError("settings", "this app was started without settings to change")
        # ToolInputError naming the field (shown as a toast), never a pydantic traceback.
        settings = validate_settings({**self.settings.model_dump(), **update}, "settings")
        self._apply_settings(settings)
        self.say(f"Now using: {self.sub_title}")

    async def cmd_model(self, argument: str) -> None:
        if not argument:
            raise ToolInputError("model", "missing model name", allowed="/model NAME")
        await self._change_settings(model=argument)

    async def cmd_endpoint(self, argument: str) -> None:
        if not argument.startswith(("http://", "https://")):
            raise ToolInputError(
                "endpoint", f"{argument!r} is not a URL", allowed="/endpoint http(s)://host/v1"
            )
        await self._change_settings(base_url=normalize_url(argument))

    async def cmd_offline(self, argument: str) -> None:
        choices = {"on": True, "off": False, "": not (self.settings and self.settings.offline)}
        if argument.lower() not in choices:
            raise ToolInputError("offline", f"{argument!r} not understood", allowed="on, off")
        await self._change_settings(offline=choices[argument.lower()])

    async def cmd_gpus(self, argument: str) -> None:
        from assistant.app.catalog_view import gpus_markdown

        await self.chat_log.add_listing(gpus_markdown(self.chat_log.text_width()))

    async def cmd_models(self, argument: str) -> None:
        from assistant.app.catalog_view import models_markdown

        await self.chat_log.add_listing(models_markdown(self.chat_log.text_width()))


def commands_modal_types() -> tuple[type[Screen[Any]], ...]:
    """Screens under which the chat's keys are inactive: the help, sessions and settings
    screens (`ChatModal`), not the command palette."""
    return (ChatModal,)


def session_problems_text(problems: list[str], shown: int = 5) -> str:
    """The notice under a reopened session that had to be repaired: what, in a few lines."""
    lines = [f"This session file needed repairs ({len(problems)}); nothing else was changed:"]
    lines += [f"• {problem}" for problem in problems[:shown]]
    if len(problems) > shown:
        lines.append(f"• … and {len(problems) - shown} more")
    return "\n".join(lines)
