"""Issue 21 item 6: saving settings writes only what the user edited (the file's other values
and comments stay; one-run flags stay one-run), a failed save says so, and key bindings are
checked when settings load so a bad one is a clear error instead of a dead key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.keys import KEY_ALIASES, Keys, _character_to_key
from textual.widgets import Input, Switch

from assistant.app.app import PROMPT_ACTIONS, GpuSizerApp
from assistant.app.screens.settings import SettingsScreen
from assistant.cli import main
from assistant.config import Settings, load_config
from assistant.config_file import save_config_changes
from assistant.keybindings import DEFAULT_KEYBINDINGS, NAMED_KEYS
from tests.app_fakes import FakeEngine
from tools.errors import ToolInputError

SIZE = (100, 40)
USER_FILE = """\
# my local server
base_url = "http://127.0.0.1:8080/v1"  # llama.cpp on the workstation
model = "qwen3"

# learned the hard way
[endpoints."http://127.0.0.1:8080/v1"]
tools = false
"""


def _env(tmp_path: Path) -> dict[str, str]:
    return {"GPU_SIZER_CONFIG_DIR": str(tmp_path)}


async def _edit_and_save(tmp_path: Path, **edits: str | bool) -> tuple[GpuSizerApp, list[str]]:
    settings = load_config({"offline": True}, env=_env(tmp_path))  # --offline for this run
    app = GpuSizerApp(FakeEngine(), settings, config_file=tmp_path / "config.toml",
                      sessions_directory=tmp_path / "sessions")  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        for field, value in edits.items():
            if isinstance(value, bool):
                screen.query_one(f"#{field}", Switch).value = value
            else:
                screen.query_one(f"#{field}", Input).value = value
        await pilot.press("ctrl+s")
        await pilot.pause()
        notes = [n.message for n in app._notifications]
        still_open = isinstance(app.screen, SettingsScreen)
    return app, [*notes, "screen open" if still_open else "screen closed"]


async def test_only_the_edited_value_is_written_and_comments_stay(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(USER_FILE, encoding="utf-8")
    app, notes = await _edit_and_save(tmp_path, model="qwen3:32b", **{"cap-strict": True})
    text = (tmp_path / "config.toml").read_text(encoding="utf-8")
    expected = USER_FILE.replace('model = "qwen3"', 'model = "qwen3:32b"') + "strict = true\n"
    assert text == expected  # --offline (a one-run flag) is not in it
    assert app.settings is not None and app.settings.offline  # but still in effect
    assert "screen closed" in notes


async def test_a_save_that_fails_says_so_and_keeps_the_form(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("model = [unclosed\n", encoding="utf-8")
    with pytest.raises(ToolInputError):
        load_config(env=_env(tmp_path))
    with pytest.raises(ToolInputError, match="not valid TOML"):
        save_config_changes({"model": "x"}, tmp_path / "config.toml")
    assert (tmp_path / "config.toml").read_text(encoding="utf-8") == "model = [unclosed\n"
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the config directory should be", encoding="utf-8")
    with pytest.raises(OSError):
        save_config_changes({"model": "x"}, blocked / "config.toml")


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ('send = ""', "send: no key given"),
        ('send = "entr"', "'entr' is not a key name"),
        ('save_session = "ctr+s"', "'ctr' is not a modifier"),
        ('send = "enter, "', "an empty key"),
        ('quit = "ctrl+s"', "bound to both"),
        ('sendd = "enter"', "'sendd' is not an action"),
    ],
)
def test_bad_key_bindings_are_errors_at_start_up(
    tmp_path: Path,
    table: str,
    expected: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "config.toml").write_text(f"[keybindings]\n{table}\n", encoding="utf-8")
    with pytest.raises(ToolInputError) as info:
        load_config(env=_env(tmp_path))
    assert "keybindings" in info.value.field and expected in info.value.message
    # The app does not open with it: one line, exit 2.
    monkeypatch.setenv("GPU_SIZER_CONFIG_DIR", str(tmp_path))
    assert main([]) == 2
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1


def test_key_names_are_textuals_and_every_action_is_bound() -> None:
    textual_names = (
        {k.value.split("+")[-1] for k in Keys}
        | {_character_to_key(chr(c)) for c in range(33, 127)}
        | {alias for aliases in KEY_ALIASES.values() for alias in aliases}
    )
    assert not NAMED_KEYS - textual_names  # names Textual would never match
    bound = GpuSizerApp(FakeEngine()).binding_ids() | PROMPT_ACTIONS
    assert set(DEFAULT_KEYBINDINGS) <= bound


async def test_a_remapped_send_key_sends(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('[keybindings]\nsend = "f5"\n', encoding="utf-8")
    settings = load_config(env=_env(tmp_path))
    assert settings.keybindings["quit"] == "ctrl+q"  # the others keep their defaults
    engine = FakeEngine()
    app = GpuSizerApp(engine, settings, sessions_directory=tmp_path / "sessions")
    async with app.run_test(size=SIZE) as pilot:
        app.prompt.insert("question")
        await pilot.press("f5")
        await app.workers.wait_for_complete()
        assert engine.started.is_set()


def test_a_fifo_as_config_toml_is_an_error_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "config.toml")  # a plain read would wait for a writer forever
    with pytest.raises(ToolInputError, match="not a regular file"):
        load_config(env=_env(tmp_path))


async def test_settings_the_engine_cannot_use_are_reported_not_a_crash(tmp_path: Path) -> None:
    def factory(settings: Settings) -> FakeEngine:
        raise ValueError("no client for that endpoint")

    app = GpuSizerApp(FakeEngine(), Settings(model="m"), engine_factory=factory,
                      sessions_directory=tmp_path)  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        before = app.sub_title
        await app.cmd_model("other")
        await pilot.pause()
        assert app.sub_title == before and app.settings is not None
        assert app.settings.model == "m"  # the settings in effect are the ones that work
        assert any("Settings not applied" in n.message for n in app._notifications)
