"""Read a Hugging Face `config.json` into an `Architecture`, with no network access.

Supported `model_type`s: llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, gemma2, phi3,
deepseek_v3, gpt_oss. Field names follow each family's Transformers configuration class.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tools.architecture import MLA, Architecture, MoE
from tools.errors import ToolInputError

# The model_types this mapping reads field by field. Listed, not derived from
# tools.architecture.FAMILIES: a family the catalog knows (llama4, gemma3, ...) is not
# supported here until its config fields are mapped.
SUPPORTED_MODEL_TYPES: tuple[str, ...] = (
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen3",
    "qwen3_moe",
    "gemma2",
    "phi3",
    "deepseek_v3",
    "gpt_oss",
)


def _require(cfg: dict[str, Any], key: str) -> Any:
    """A required size or count of the config: present and a positive whole number."""
    if key not in cfg or cfg[key] is None:
        raise ToolInputError(f"config.{key}", "is missing", "a value from the model's config.json")
    value = cfg[key]
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ToolInputError(f"config.{key}", f"{str(value)[:40]!r} is not a positive whole number")
    return value


def _sliding_layers(
    cfg: dict[str, Any], model_type: str, num_layers: int
) -> tuple[int | None, int]:
    """(window, number of layers that use it). Their KV cache stops growing at the window."""
    window = cfg.get("sliding_window")
    if not window:
        return None, 0
    layer_types = cfg.get("layer_types")
    if layer_types:
        count = sum(1 for t in layer_types if t == "sliding_attention")
        return (window if count else None), count
    if model_type == "gemma2":
        # Gemma 2 alternates local (sliding, even-indexed) and global layers
        # (transformers Gemma2Config.layer_types).
        return window, (num_layers + 1) // 2
    if model_type == "mistral" or (model_type.startswith("qwen") and cfg.get("use_sliding_window")):
        return window, num_layers
    # phi3's window (2047) is below its 4k context but serving engines (vLLM) budget the full
    # context for it, so we do too: the estimate errs on the side of more memory.
    return None, 0


def architecture_from_config(cfg: dict[str, Any]) -> Architecture:
    """Map a parsed config.json to an `Architecture`. Raises ToolInputError on bad input: a
    file can hold anything (a string for a count, 0 heads, a 10^12-layer model), and none of
    it may surface as a TypeError, a ZeroDivisionError or a raw pydantic error."""
    try:
        return _architecture_from_config(cfg)
    except ValidationError as exc:  # MoE / MLA / Architecture bounds and types
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "config"
        prefix = {"MoE": "moe.", "MLA": "mla."}.get(exc.title, "")
        raise ToolInputError(f"config.{prefix}{loc}", err["msg"]) from None
    except (TypeError, ArithmeticError) as exc:
        raise ToolInputError(
            "config",
            f"its sizes cannot be combined ({type(exc).__name__})",
            "positive whole numbers for the sizes, heads and layers",
        ) from None


def _architecture_from_config(cfg: dict[str, Any]) -> Architecture:
    model_type = cfg.get("model_type")
    if model_type not in SUPPORTED_MODEL_TYPES:
        raise ToolInputError(
            "config.model_type",
            f"{model_type!r} is not supported",
            ", ".join(SUPPORTED_MODEL_TYPES),
        )
    hidden = _require(cfg, "hidden_size")
    heads = _require(cfg, "num_attention_heads")
    layers = _require(cfg, "num_hidden_layers")
    head_dim = cfg.get("head_dim") or hidden // heads
    kv_heads = cfg.get("num_key_value_heads") or heads
    attention_bias = bool(cfg.get("attention_bias", False))
    window, sliding_layers = _sliding_layers(cfg, model_type, layers)
    fields: dict[str, Any] = {
        "family": model_type,
        "num_layers": layers,
        "hidden_size": hidden,
        "intermediate_size": _require(cfg, "intermediate_size"),
        "num_attention_heads": heads,
        "num_kv_heads": kv_heads,
        "head_dim": head_dim,
        "vocab_size": _require(cfg, "vocab_size"),
        "tied_embeddings": bool(cfg.get("tie_word_embeddings", model_type == "gemma2")),
        "max_context": _require(cfg, "max_position_embeddings"),
        "qkv_bias": attention_bias or model_type == "qwen2",
        "o_bias": attention_bias,
        "mlp_bias": bool(cfg.get("mlp_bias", False)),
        "qk_norm": model_type in ("qwen3", "qwen3_moe"),
        "attention_sinks": model_type == "gpt_oss",
        "norms_per_layer": 4 if model_type == "gemma2" else 2,
        "sliding_window": window,
        "sliding_window_layers": sliding_layers,
    }
    if model_type in ("mixtral", "gpt_oss"):
        fields["moe"] = MoE(
            num_experts=_require(cfg, "num_local_experts"),
            experts_per_token=_require(cfg, "num_experts_per_tok"),
            expert_intermediate_size=cfg["intermediate_size"],
            router_bias=model_type == "gpt_oss",
            expert_bias=model_type == "gpt_oss",
        )
    elif model_type == "qwen3_moe":
        if cfg.get("mlp_only_layers") or cfg.get("decoder_sparse_step", 1) != 1:
            raise ToolInputError(
                "config.mlp_only_layers",
                "dense layers interleaved with MoE layers are not supported",
                "mlp_only_layers = [] and decoder_sparse_step = 1",
            )
        fields["moe"] = MoE(
            num_experts=_require(cfg, "num_experts"),
            experts_per_token=_require(cfg, "num_experts_per_tok"),
            expert_intermediate_size=_require(cfg, "moe_intermediate_size"),
        )
    elif model_type == "deepseek_v3":
        fields["moe"] = MoE(
            num_experts=_require(cfg, "n_routed_experts"),
            experts_per_token=_require(cfg, "num_experts_per_tok"),
            expert_intermediate_size=_require(cfg, "moe_intermediate_size"),
            num_shared_experts=cfg.get("n_shared_experts") or 0,
            first_dense_layers=cfg.get("first_k_dense_replace") or 0,
        )
        fields["mla"] = MLA(
            q_lora_rank=cfg.get("q_lora_rank"),
            kv_lora_rank=_require(cfg, "kv_lora_rank"),
            qk_nope_head_dim=_require(cfg, "qk_nope_head_dim"),
            qk_rope_head_dim=_require(cfg, "qk_rope_head_dim"),
            v_head_dim=_require(cfg, "v_head_dim"),
        )
        fields["head_dim"] = cfg["qk_nope_head_dim"] + cfg["qk_rope_head_dim"]
        # Multi-token-prediction modules: in the checkpoint, not in memory (tools/architecture).
        fields["mtp_layers"] = cfg.get("num_nextn_predict_layers") or 0
    try:
        return Architecture(**fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "config"
        raise ToolInputError(f"config.{loc}", err["msg"]) from None


def text_config(data: dict[str, Any]) -> dict[str, Any]:
    """The language model's part of a config.json: a multimodal config's `text_config`."""
    inner = data.get("text_config")
    if isinstance(inner, dict) and "hidden_size" not in data:
        return {**inner, "model_type": inner.get("model_type")}
    return data


def load_config_file(path: str | Path) -> Architecture:
    """Read a local config.json (never the network; a regular file of bounded size). Raises
    ToolInputError naming the problem."""
    from tools.model_sources.safe_files import read_json_object

    p = Path(path).expanduser()
    if p.is_dir():
        p = p / "config.json"
    return architecture_from_config(text_config(read_json_object(p, "config")))
