"""Settings: source precedence (env < file < CLI), atomic save, key rules (issue 6, Security)."""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

import pytest

from assistant.config import (
    DEFAULT_BASE_URL,
    KEYLESS_PLACEHOLDER,
    Capabilities,
    Settings,
    add_config_arguments,
    config_path,
    load_config,
    overrides_from_args,
    resolve_api_key,
)
from assistant.config_file import save_config_changes, settings_changes
from tools.errors import ToolInputError

SECRET = "sk-test-DO-NOT-LEAK-1234567890"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"GPU_SIZER_CONFIG_DIR": str(tmp_path), **extra}


def test_nothing_configured_means_offline(tmp_path: Path) -> None:
    settings = load_config(env=_env(tmp_path))
    assert settings.base_url is None
    assert not settings.llm_configured(_env(tmp_path))
    assert "no endpoint configured" in (settings.offline_reason(_env(tmp_path)) or "")


def test_config_dir_override_from_env(tmp_path: Path) -> None:
    assert config_path(_env(tmp_path)) == tmp_path / "config.toml"


def test_precedence_env_then_file_then_cli(tmp_path: Path) -> None:
    env = _env(tmp_path, OPENAI_BASE_URL="http://localhost:1111/v1", GPU_SIZER_MODEL="env-model")
    assert load_config(env=env).base_url == "http://localhost:1111/v1"
    assert load_config(env=env).model == "env-model"

    (tmp_path / "config.toml").write_text('model = "file-model"\n')
    loaded = load_config(env=env)
    assert loaded.model == "file-model"  # file beats env
    assert loaded.base_url == "http://localhost:1111/v1"  # env kept where the file is silent

    cli = load_config({"model": "cli-model", "base_url": None}, env=env)
    assert cli.model == "cli-model"  # CLI beats file; None flags are ignored
    assert cli.base_url == "http://localhost:1111/v1"
    assert cli.llm_configured(env)


def test_base_url_is_normalised(tmp_path: Path) -> None:
    env = _env(tmp_path, OPENAI_BASE_URL=" http://localhost:8080/v1/ ")
    assert load_config(env=env).base_url == "http://localhost:8080/v1"


def test_endpoint_without_model_is_offline_with_reason(tmp_path: Path) -> None:
    env = _env(tmp_path, OPENAI_BASE_URL="http://localhost:8080/v1")
    settings = load_config(env=env)
    assert "no model" in (settings.offline_reason(env) or "")


def test_unknown_key_in_file_names_the_field(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("modle = 'x'\n")
    with pytest.raises(ToolInputError) as info:
        load_config(env=_env(tmp_path))
    assert "modle" in info.value.field
    assert "model" in (info.value.allowed or "")


def test_bad_value_in_file_names_the_field(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("max_tool_rounds = 0\n")
    with pytest.raises(ToolInputError) as info:
        load_config(env=_env(tmp_path))
    assert "max_tool_rounds" in info.value.field


def test_invalid_toml_is_reported(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("model = \n")
    with pytest.raises(ToolInputError, match="not valid TOML"):
        load_config(env=_env(tmp_path))


def test_api_key_in_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(f'api_key = "{SECRET}"\n')
    with pytest.raises(ToolInputError) as info:
        load_config(env=_env(tmp_path))
    assert SECRET not in str(info.value)


def test_save_roundtrip_and_no_key_in_file(tmp_path: Path) -> None:
    env = _env(tmp_path, OPENAI_API_KEY=SECRET)
    before = load_config(env=env)
    settings = before.model_copy(
        update={"base_url": "http://localhost:8080/v1", "model": "qwen3:8b"}
    ).with_capabilities(Capabilities(tools=False, stream_options=False))
    settings.keybindings = {**settings.keybindings, "quit": "ctrl+x"}
    path = save_config_changes(settings_changes(before, settings), config_path(env))
    text = path.read_text()
    assert SECRET not in text
    assert tomllib.loads(text)["endpoints"]["http://localhost:8080/v1"]["tools"] is False
    again = load_config(env=env)
    assert again == settings
    assert again.capabilities.tools is False
    assert again.capabilities.parallel_tool_calls is True
    assert again.keybindings["quit"] == "ctrl+x"
    # Atomic write leaves no temporary file behind.
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_cli_flags(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_config_arguments(parser)
    args = parser.parse_args(["--model", "m", "--timeout", "7", "--offline"])
    overrides = overrides_from_args(args)
    assert overrides == {"model": "m", "request_timeout_s": 7.0, "offline": True}
    settings = load_config(overrides, env=_env(tmp_path, OPENAI_BASE_URL="http://127.0.0.1/v1"))
    assert settings.offline_reason({}) == "offline mode chosen (offline = true or --offline)"


# --- key rules -------------------------------------------------------------------------------


def test_openai_key_goes_to_openai() -> None:
    settings = Settings(model="gpt-4o-mini")
    assert settings.effective_base_url == DEFAULT_BASE_URL
    assert resolve_api_key(settings, {"OPENAI_API_KEY": SECRET}).value == SECRET


def test_openai_key_not_sent_to_custom_endpoint_by_default() -> None:
    settings = Settings(base_url="https://llm.example.com/v1", model="m")
    resolved = resolve_api_key(settings, {"OPENAI_API_KEY": SECRET})
    assert resolved.value == KEYLESS_PLACEHOLDER
    assert resolved.withheld_reason is not None
    assert SECRET not in repr(resolved) and SECRET not in resolved.withheld_reason


def test_openai_key_sent_to_custom_endpoint_when_configured() -> None:
    consent = Settings(
        base_url="https://llm.example.com/v1", model="m", send_key_to_custom_endpoint=True
    )
    assert resolve_api_key(consent, {"OPENAI_API_KEY": SECRET}).value == SECRET
    own_var = Settings(base_url="https://llm.example.com/v1", model="m", api_key_env="MY_KEY")
    assert resolve_api_key(own_var, {"MY_KEY": SECRET}).value == SECRET


def test_key_never_over_plain_http_to_remote_host() -> None:
    remote = Settings(base_url="http://10.0.0.5:8000/v1", model="m", api_key_env="MY_KEY")
    resolved = resolve_api_key(remote, {"MY_KEY": SECRET})
    assert resolved.value == KEYLESS_PLACEHOLDER
    assert "http" in (resolved.withheld_reason or "")
    allowed = remote.model_copy(update={"allow_insecure_key": True})
    assert resolve_api_key(allowed, {"MY_KEY": SECRET}).value == SECRET


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]", "127.1.2.3"])
def test_plain_http_to_loopback_is_fine(host: str) -> None:
    local = Settings(base_url=f"http://{host}:8080/v1", model="m", api_key_env="MY_KEY")
    assert resolve_api_key(local, {"MY_KEY": SECRET}).value == SECRET


def test_no_key_gives_placeholder_not_none() -> None:
    # api_key=None would make the openai client read OPENAI_API_KEY itself (FIELD-NOTES).
    assert resolve_api_key(Settings(), {}).value == KEYLESS_PLACEHOLDER


# --- EUR→USD rate (QA round 2, finding 5) ---------------------------------------------------


def test_eur_to_usd_from_env_then_file_then_cli(tmp_path: Path) -> None:
    from assistant.config import configured_eur_to_usd

    assert load_config(env=_env(tmp_path)).eur_to_usd is None
    env = _env(tmp_path, GPU_SIZER_EUR_TO_USD=" 1.08 ")
    assert configured_eur_to_usd(env) == pytest.approx(1.08)
    (tmp_path / "config.toml").write_text("eur_to_usd = 1.1\n", encoding="utf-8")
    assert configured_eur_to_usd(env) == pytest.approx(1.1)  # the file wins over the env
    assert load_config({"eur_to_usd": 1.2}, env=env).eur_to_usd == pytest.approx(1.2)


@pytest.mark.parametrize("raw", ["abc", "0", "-1.1", "nan"])
def test_bad_eur_to_usd_env_names_the_variable(tmp_path: Path, raw: str) -> None:
    with pytest.raises(ToolInputError) as err:
        load_config(env=_env(tmp_path, GPU_SIZER_EUR_TO_USD=raw))
    assert err.value.field == "GPU_SIZER_EUR_TO_USD"
    assert repr(raw) in err.value.message and "US dollars per euro" in err.value.message


@pytest.mark.parametrize("raw", ["0", "5e-324", "1e308", "nan"])
def test_bad_eur_to_usd_in_file_names_the_field(tmp_path: Path, raw: str) -> None:
    # The same bounds as the price filter's rate (tools.limits: 0.001 to 1,000 USD per EUR):
    # 5e-324 passed a bare "> 0" here and then failed the price filter with a traceback.
    (tmp_path / "config.toml").write_text(f"eur_to_usd = {raw}\n", encoding="utf-8")
    with pytest.raises(ToolInputError) as err:
        load_config(env=_env(tmp_path))
    assert "eur_to_usd" in err.value.field
    assert any(
        words in err.value.message
        for words in ("greater than or equal to 0.001", "less than or equal to 1000", "finite")
    )


def test_eur_to_usd_round_trips_through_the_file(tmp_path: Path) -> None:
    path = save_config_changes({"eur_to_usd": 1.08}, tmp_path / "config.toml")
    assert tomllib.loads(path.read_text(encoding="utf-8"))["eur_to_usd"] == 1.08
