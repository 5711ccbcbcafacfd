"""Read a Hugging Face `config.json` into an `Architecture`, with no network access.

Supported `model_type`s (`SUPPORTED_MODEL_TYPES`): the families of the catalog, each mapped field
by field as its Transformers configuration and modeling classes read them. A multimodal config
(Llama 4, Gemma 3, Mistral Small 3.1 = `mistral3`) is read from its `text_config`, and its
`vision_config` becomes the `VisionTower` whose parameters the checkpoint holds
(tools/vision_tower.py). Family rules that no config field states (Gemma's four norms per
layer, Cohere's one, which families always carry q/k norms and of which width) live in
`_FAMILY_RULES` below, with the Transformers class that fixes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from tools.architecture import MLA, Architecture, MoE
from tools.errors import ToolInputError
from tools.vision_tower import VisionTower

QkNorm = Literal["never", "always", "flag"]


@dataclass(frozen=True)
class _FamilyRule:
    """What a family's implementation fixes, beyond the config's own fields."""

    family: str
    """tools.architecture Family the model_type maps to."""
    qk_norm: QkNorm = "never"
    """always: the modeling class always builds q/k norms; flag: when `use_qk_norm` is true."""
    qk_norm_scope: Literal["head", "projection"] = "head"
    norms_per_layer: int = 2
    tied_default: bool = False
    """tie_word_embeddings when the config leaves it out (the config class's default)."""
    o_bias_follows_attention_bias: bool = True
    norm_bias: bool = False


# model_type → its rule. Sources: transformers models/<family>/modeling_<family>.py.
_FAMILY_RULES: dict[str, _FamilyRule] = {
    "llama": _FamilyRule("llama"),
    "mistral": _FamilyRule("mistral"),
    "mixtral": _FamilyRule("mixtral"),
    "qwen2": _FamilyRule("qwen2"),
    # Qwen3Attention: q_norm / k_norm = Qwen3RMSNorm(head_dim).
    "qwen3": _FamilyRule("qwen3", qk_norm="always"),
    "qwen3_moe": _FamilyRule("qwen3_moe", qk_norm="always"),
    # Gemma2/3DecoderLayer: input, post-attention, pre- and post-feedforward norms; tied by
    # default (Gemma2Config / Gemma3TextConfig tie_word_embeddings=True); Gemma3Attention has
    # q_norm / k_norm of head_dim.
    "gemma2": _FamilyRule("gemma2", norms_per_layer=4, tied_default=True),
    "gemma3_text": _FamilyRule("gemma3", "always", norms_per_layer=4, tied_default=True),
    "phi3": _FamilyRule("phi3"),
    # PhimoeDecoderLayer: LayerNorms with biases (final norm included); lm_head bias per config.
    "phimoe": _FamilyRule("phimoe", norm_bias=True),
    "deepseek_v2": _FamilyRule("deepseek_v2"),
    "deepseek_v3": _FamilyRule("deepseek_v3"),
    "gpt_oss": _FamilyRule("gpt_oss"),
    # Llama4TextAttention's qk norm (use_qk_norm) is a parameter-free L2 norm: no weights.
    "llama4_text": _FamilyRule("llama4"),
    # Glm4MoeAttention: q/k/v biases from attention_bias, o_proj without one; q_norm / k_norm of
    # head_dim when use_qk_norm.
    "glm4_moe": _FamilyRule("glm4_moe", "flag", o_bias_follows_attention_bias=False),
    # MiniMaxM2Attention: q_norm / k_norm over all heads (num_heads·head_dim, num_kv·head_dim).
    "minimax_m2": _FamilyRule("minimax_m2", "flag", "projection"),
    # CohereDecoderLayer: one input_layernorm (attention and FFN in parallel); CohereLayerNorm
    # without bias; q/k norms of (heads, head_dim) when use_qk_norm; tied by default.
    "cohere": _FamilyRule("cohere", "flag", "projection", norms_per_layer=1, tied_default=True),
    # Olmo2Attention: q_norm over num_heads·head_dim, k_norm over num_kv_heads·head_dim, always;
    # Olmo2DecoderLayer: post-attention and post-feedforward norms only (two).
    "olmo2": _FamilyRule("olmo2", "always", "projection"),
    "smollm3": _FamilyRule("smollm3"),
    "granite": _FamilyRule("granite"),
}
# Multimodal wrappers: the text model's own model_type is in text_config.
_WRAPPERS = {"llama4": "llama4_text", "gemma3": "gemma3_text", "mistral3": "mistral"}

SUPPORTED_MODEL_TYPES: tuple[str, ...] = (*_FAMILY_RULES, *_WRAPPERS)
"""The model_types this mapping reads (a multimodal wrapper and its text model_type both)."""


def _require(cfg: dict[str, Any], key: str, where: str = "config") -> Any:
    """A required size or count of the config (of its `where` part): present and a positive
    whole number."""
    if key not in cfg or cfg[key] is None:
        raise ToolInputError(f"{where}.{key}", "is missing", "a value from the model's config.json")
    return _whole(cfg, key, where=where)


def _whole(cfg: dict[str, Any], key: str, default: int = 0, where: str = "config") -> int:
    """An optional whole number of the config (`default` when absent or null)."""
    value = cfg.get(key)
    if value is None:
        return default
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problem = f"{str(value)[:40]!r} is not a positive whole number"
        raise ToolInputError(f"{where}.{key}", problem)
    if value == 0 and key not in _MAY_BE_ZERO:
        raise ToolInputError(f"{where}.{key}", "0 is not a positive whole number")
    return value


_MAY_BE_ZERO = frozenset(
    {"n_shared_experts", "first_k_dense_replace", "num_nextn_predict_layers", "sliding_window"}
)


def _layer_types(cfg: dict[str, Any], layers: int) -> list[str] | None:
    types = cfg.get("layer_types")
    if types is None:
        return None
    if not isinstance(types, list) or len(types) != layers:
        raise ToolInputError(
            "config.layer_types", f"must list one type per layer ({layers})", "a list of strings"
        )
    return [str(t) for t in types]


def _sliding_layers(
    cfg: dict[str, Any], model_type: str, num_layers: int
) -> tuple[int | None, int]:
    """(window, number of layers that use it). Their KV cache stops growing at the window."""
    window = _whole(cfg, "sliding_window") or None
    if window is None:
        return None, 0
    layer_types = _layer_types(cfg, num_layers)
    if layer_types:
        count = sum(1 for t in layer_types if t == "sliding_attention")
        return (window if count else None), count
    if model_type == "gemma2":
        # Gemma 2 alternates local (sliding, even-indexed) and global layers
        # (transformers Gemma2Config.layer_types).
        return window, (num_layers + 1) // 2
    if model_type == "gemma3_text":
        # Gemma3TextConfig: every sliding_window_pattern-th layer (default 6) is global.
        pattern = _whole(cfg, "sliding_window_pattern", 6)
        return window, sum(1 for i in range(num_layers) if (i + 1) % pattern)
    if model_type == "mistral" or (model_type.startswith("qwen") and cfg.get("use_sliding_window")):
        return window, num_layers
    # phi3's window (2047) is below its 4k context but serving engines (vLLM) budget the full
    # context for it, so we do too: the estimate errs on the side of more memory.
    return None, 0


def _chunked_layers(cfg: dict[str, Any], num_layers: int) -> tuple[int | None, int]:
    """Llama 4: (attention_chunk_size, layers that attend within a chunk). The RoPE layers are
    chunked, the NoPE layers (every no_rope_layer_interval-th, default 4) global
    (Llama4TextConfig.no_rope_layers: 1 = RoPE, chunked)."""
    chunk = _whole(cfg, "attention_chunk_size") or None
    if chunk is None:
        return None, 0
    flags = cfg.get("no_rope_layers")
    if flags:
        if not isinstance(flags, list) or len(flags) != num_layers:
            raise ToolInputError(
                "config.no_rope_layers", f"must list one flag per layer ({num_layers})"
            )
        return chunk, sum(1 for f in flags if f)
    interval = _whole(cfg, "no_rope_layer_interval", 4)
    return chunk, sum(1 for i in range(num_layers) if (i + 1) % interval)


def architecture_from_config(cfg: dict[str, Any]) -> Architecture:
    """Map a parsed config.json (a multimodal one with its text_config and vision_config, or a
    text config alone) to an `Architecture`. Raises ToolInputError on bad input: a file can
    hold anything (a string for a count, 0 heads, a 10^12-layer model), and none of it may
    surface as a TypeError, a ZeroDivisionError or a raw pydantic error."""
    try:
        return _architecture_from_config(cfg)
    except ValidationError as exc:  # MoE / MLA / VisionTower / Architecture bounds and types
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "config"
        prefix = {"MoE": "moe.", "MLA": "mla.", "VisionTower": "vision_config."}.get(exc.title, "")
        raise ToolInputError(f"config.{prefix}{loc}", err["msg"]) from None
    except (TypeError, ArithmeticError, AttributeError) as exc:
        raise ToolInputError(
            "config",
            f"its sizes cannot be combined ({type(exc).__name__})",
            "positive whole numbers for the sizes, heads and layers",
        ) from None


def text_config(data: dict[str, Any]) -> dict[str, Any]:
    """The language model's part of a config.json: a multimodal config's `text_config` (with
    the wrapper's tie_word_embeddings when the text config does not say it)."""
    inner = data.get("text_config")
    if isinstance(inner, dict) and "hidden_size" not in data:
        merged = {**inner, "model_type": inner.get("model_type")}
        if "tie_word_embeddings" not in inner and "tie_word_embeddings" in data:
            merged["tie_word_embeddings"] = data["tie_word_embeddings"]
        if merged["model_type"] is None and data.get("model_type") in _WRAPPERS:
            merged["model_type"] = _WRAPPERS[data["model_type"]]
        return merged
    return data


def _text_model_type(cfg: dict[str, Any]) -> str:
    model_type = cfg.get("model_type")
    if model_type in _WRAPPERS and "hidden_size" in cfg:
        return _WRAPPERS[model_type]  # a text config written under the wrapper's name
    if model_type not in _FAMILY_RULES:
        raise ToolInputError(
            "config.model_type",
            f"{str(model_type)[:40]!r} is not supported",
            ", ".join(SUPPORTED_MODEL_TYPES),
        )
    return str(model_type)


def _architecture_from_config(data: dict[str, Any]) -> Architecture:
    if not isinstance(data, dict):
        raise ToolInputError("config", "is not a JSON object", "a config.json object")
    wrapper = data.get("model_type") if isinstance(data.get("text_config"), dict) else None
    cfg = text_config(data)
    model_type = _text_model_type(cfg)
    rule = _FAMILY_RULES[model_type]
    hidden = _require(cfg, "hidden_size")
    heads = _require(cfg, "num_attention_heads")
    layers = _require(cfg, "num_hidden_layers")
    head_dim = _whole(cfg, "head_dim") or hidden // heads
    kv_heads = _whole(cfg, "num_key_value_heads") or heads
    attention_bias = bool(cfg.get("attention_bias", False))
    window, sliding_layers = _sliding_layers(cfg, model_type, layers)
    qk_norm = rule.qk_norm == "always" or (rule.qk_norm == "flag" and bool(cfg.get("use_qk_norm")))
    fields: dict[str, Any] = {
        "family": rule.family,
        "num_layers": layers,
        "hidden_size": hidden,
        "intermediate_size": _require(cfg, "intermediate_size"),
        "num_attention_heads": heads,
        "num_kv_heads": kv_heads,
        "head_dim": head_dim,
        "vocab_size": _require(cfg, "vocab_size"),
        "tied_embeddings": bool(cfg.get("tie_word_embeddings", rule.tied_default)),
        "max_context": _require(cfg, "max_position_embeddings"),
        "qkv_bias": attention_bias or model_type == "qwen2",
        "o_bias": attention_bias and rule.o_bias_follows_attention_bias,
        "mlp_bias": bool(cfg.get("mlp_bias", False)),
        "qk_norm": qk_norm,
        "qk_norm_scope": rule.qk_norm_scope if qk_norm else "head",
        "attention_sinks": model_type == "gpt_oss",
        "norms_per_layer": rule.norms_per_layer,
        "norm_bias": rule.norm_bias,
        "lm_head_bias": bool(cfg.get("lm_head_bias", False)),
        "sliding_window": window,
        "sliding_window_layers": sliding_layers,
    }
    if model_type == "llama4_text":
        chunk, chunked = _chunked_layers(cfg, layers)
        fields |= {"attention_chunk_size": chunk, "chunked_attention_layers": chunked}
    fields |= _moe_fields(cfg, model_type, layers)
    if model_type in ("deepseek_v2", "deepseek_v3"):
        fields |= _mla_fields(cfg)
    if model_type == "glm4_moe":
        fields["mtp_layers"] = _whole(cfg, "num_nextn_predict_layers")
    vision = data.get("vision_config") if wrapper is not None else None
    if isinstance(vision, dict):
        fields["vision"] = _vision_tower(str(wrapper), vision, data)
    return Architecture(**fields)


def _moe_fields(cfg: dict[str, Any], model_type: str, layers: int) -> dict[str, Any]:
    """The MoE part (and, for Llama 4, the dense layers' own FFN width)."""
    if model_type in ("mixtral", "gpt_oss", "phimoe", "minimax_m2"):
        # One expert = the config's intermediate_size; every layer is MoE.
        biased = model_type == "gpt_oss"
        moe = MoE(
            num_experts=_require(cfg, "num_local_experts"),
            experts_per_token=_require(cfg, "num_experts_per_tok"),
            expert_intermediate_size=_require(cfg, "intermediate_size"),
            router_bias=biased,
            expert_bias=biased,
        )
        return {"moe": moe}
    if model_type == "qwen3_moe":
        step = _whole(cfg, "decoder_sparse_step", 1)
        if cfg.get("mlp_only_layers"):
            raise ToolInputError(
                "config.mlp_only_layers",
                "listed dense layers among the MoE layers are not supported",
                "mlp_only_layers = [] (decoder_sparse_step gives the interleave)",
            )
        moe = MoE(
            num_experts=_require(cfg, "num_experts"),
            experts_per_token=_require(cfg, "num_experts_per_tok"),
            expert_intermediate_size=_require(cfg, "moe_intermediate_size"),
            layer_step=step,
        )
        return {"moe": moe}
    if model_type in ("deepseek_v2", "deepseek_v3", "glm4_moe"):
        if _whole(cfg, "moe_layer_freq", 1) != 1:
            raise ToolInputError(
                "config.moe_layer_freq", "MoE on every k-th layer is not supported", "1"
            )
        moe = MoE(
            num_experts=_require(cfg, "n_routed_experts"),
            experts_per_token=_require(cfg, "num_experts_per_tok"),
            expert_intermediate_size=_require(cfg, "moe_intermediate_size"),
            num_shared_experts=_whole(cfg, "n_shared_experts"),
            first_dense_layers=_whole(cfg, "first_k_dense_replace"),
        )
        return {"moe": moe}
    if model_type == "llama4_text":
        step = _whole(cfg, "interleave_moe_layer_step", 1)
        listed = cfg.get("moe_layers")
        if listed is not None and list(listed) != [i for i in range(layers) if (i + 1) % step == 0]:
            raise ToolInputError(
                "config.moe_layers",
                "MoE layers other than every interleave_moe_layer_step-th are not supported",
                "moe_layers left out, or every step-th layer",
            )
        # Llama4TextMoe: routed experts of intermediate_size plus one shared expert of the same
        # width; the dense layers (Llama4TextMLP) use intermediate_size_mlp.
        moe = MoE(
            num_experts=_require(cfg, "num_local_experts"),
            experts_per_token=_require(cfg, "num_experts_per_tok"),
            expert_intermediate_size=_require(cfg, "intermediate_size"),
            num_shared_experts=1,
            layer_step=step,
        )
        dense = _whole(cfg, "intermediate_size_mlp") or cfg["intermediate_size"]
        return {"moe": moe, "intermediate_size": dense}
    return {}


def _mla_fields(cfg: dict[str, Any]) -> dict[str, Any]:
    mla = MLA(
        q_lora_rank=_whole(cfg, "q_lora_rank") or None,
        kv_lora_rank=_require(cfg, "kv_lora_rank"),
        qk_nope_head_dim=_require(cfg, "qk_nope_head_dim"),
        qk_rope_head_dim=_require(cfg, "qk_rope_head_dim"),
        v_head_dim=_require(cfg, "v_head_dim"),
    )
    return {
        "mla": mla,
        "head_dim": mla.qk_nope_head_dim + mla.qk_rope_head_dim,
        # Multi-token-prediction modules: in the checkpoint, not in memory (tools/architecture).
        "mtp_layers": _whole(cfg, "num_nextn_predict_layers"),
    }


def _vision_tower(wrapper: str, vision: dict[str, Any], data: dict[str, Any]) -> VisionTower:
    """The vision_config of a multimodal checkpoint as a VisionTower (tools/vision_tower.py
    counts its parameters): SigLIP for Gemma 3, Pixtral for Mistral 3, Llama 4's own."""
    kind = {"gemma3": "siglip", "mistral3": "pixtral", "llama4": "llama4"}.get(wrapper)
    if kind is None:
        raise ToolInputError("config.vision_config", f"a vision tower of {wrapper} is not mapped")
    if kind == "siglip" and vision.get("vision_use_head"):
        raise ToolInputError(
            "config.vision_config.vision_use_head",
            "a SigLIP pooling head is not counted",
            "false (Gemma 3)",
        )
    where = "config.vision_config"
    fields: dict[str, Any] = {
        name: _require(vision, key, where)
        for name, key in (
            ("num_layers", "num_hidden_layers"),
            ("hidden_size", "hidden_size"),
            ("intermediate_size", "intermediate_size"),
            ("num_attention_heads", "num_attention_heads"),
            ("image_size", "image_size"),
            ("patch_size", "patch_size"),
        )
    }
    fields |= {"kind": kind, "num_channels": _whole(vision, "num_channels", 3, where)}
    if kind == "pixtral":
        fields["spatial_merge_size"] = _whole(data, "spatial_merge_size", 2)
        fields["projector_bias"] = bool(data.get("multimodal_projector_bias", False))
    if kind == "llama4":
        fields["projector_input_dim"] = _require(vision, "projector_input_dim", where)
        fields["projector_output_dim"] = _require(vision, "projector_output_dim", where)
    return VisionTower(**fields)


def load_config_file(path: str | Path) -> Architecture:
    """Read a local config.json (never the network; a regular file of bounded size). Raises
    ToolInputError naming the problem."""
    from tools.model_sources.safe_files import read_json_object

    p = Path(path).expanduser()
    if p.is_dir():
        p = p / "config.json"
    return architecture_from_config(read_json_object(p, "config"))
