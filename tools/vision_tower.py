"""Vision towers of multimodal checkpoints, and their exact parameter counts.

Gemma 3 (4B/12B/27B), Llama 4 and Mistral Small 3.1 ship a vision encoder and a projector into
the text model's hidden size inside the same checkpoint. Their parameters count towards the
checkpoint's total (as `sum(p.numel())` over the instantiated *ForConditionalGeneration does);
whether they are in memory depends on the engine (tools/memory/weights.py says which).

Each count mirrors the modules of the Transformers implementation, term by term:
- `siglip`: SiglipVisionModel (modeling_siglip.py: Conv2d patch embedding with bias, learned
  position embedding of (image/patch)² rows, encoder layers of LayerNorm + q/k/v/o with biases +
  LayerNorm + fc1/fc2 with biases, post LayerNorm; no pooling head: `vision_use_head` false) and
  Gemma3MultiModalProjector (modeling_gemma3.py: `mm_input_projection_weight` of vision × text
  hidden, `mm_soft_emb_norm` RMSNorm of the vision hidden size).
- `pixtral`: PixtralVisionModel (modeling_pixtral.py: bias-free Conv2d patch embedding, RMSNorm
  `ln_pre`, layers of RMSNorm + q/k/v/o without biases + RMSNorm + gated FFN without biases) and
  Mistral3MultiModalProjector (modeling_mistral3.py: RMSNorm, patch merger of
  hidden·merge² → hidden, linear_1 vision → text hidden, linear_2 text → text, biases only when
  `multimodal_projector_bias`).
- `llama4`: Llama4VisionModel (modeling_llama4.py: unfold-convolution patch embedding without
  bias, class embedding, position embedding of patches + 1 rows, pre/post LayerNorm, layers of
  LayerNorm + q/k/v/o with biases + LayerNorm + fc1/fc2 with biases, a pixel-shuffle adapter
  MLP of intermediate → projector_input_dim → projector_output_dim without biases) and
  Llama4MultiModalProjector (vision_output_dim → text hidden, no bias).
Checked against meta-device counts in tests/test_catalog_new_models.py.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tools.limits import (
    FINITE,
    MAX_FFN_WIDTH,
    MAX_HEADS,
    MAX_HIDDEN_SIZE,
    MAX_IMAGE_SIDE,
    MAX_LAYERS,
    MAX_SPATIAL_MERGE,
)

VisionKind = Literal["siglip", "pixtral", "llama4"]


class VisionTower(BaseModel):
    """A vision encoder and its projector into the text model (config.json `vision_config`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, **FINITE)

    kind: VisionKind = Field(description="Encoder family: siglip (Gemma 3), pixtral, llama4.")
    num_layers: int = Field(gt=0, le=MAX_LAYERS, description="Encoder layers.")
    hidden_size: int = Field(gt=0, le=MAX_HIDDEN_SIZE, description="Encoder width.")
    intermediate_size: int = Field(gt=0, le=MAX_FFN_WIDTH, description="Encoder FFN width.")
    num_attention_heads: int = Field(gt=0, le=MAX_HEADS)
    image_size: int = Field(gt=0, le=MAX_IMAGE_SIDE, description="Input image side, pixels.")
    patch_size: int = Field(gt=0, le=MAX_IMAGE_SIDE, description="Patch side, pixels.")
    num_channels: int = Field(default=3, gt=0, le=MAX_SPATIAL_MERGE)
    spatial_merge_size: int = Field(
        default=1,
        gt=0,
        le=MAX_SPATIAL_MERGE,
        description="Pixtral patch merger: merge² patches → one token.",
    )
    projector_bias: bool = Field(default=False, description="Projector linears have biases.")
    projector_input_dim: int | None = Field(
        default=None,
        gt=0,
        le=MAX_FFN_WIDTH,
        description="Llama 4 pixel-shuffle adapter output width.",
    )
    projector_output_dim: int | None = Field(
        default=None,
        gt=0,
        le=MAX_FFN_WIDTH,
        description="Llama 4 adapter / vision_output_dim width.",
    )

    @model_validator(mode="after")
    def _kind_fields(self) -> VisionTower:
        if self.kind == "llama4" and (
            self.projector_input_dim is None or self.projector_output_dim is None
        ):
            raise ValueError("a llama4 vision tower needs projector_input_dim and _output_dim")
        if self.patch_size > self.image_size:
            raise ValueError("patch_size exceeds image_size")
        return self

    @property
    def num_patches(self) -> int:
        """Patches of one image: (image_size / patch_size)²."""
        return (self.image_size // self.patch_size) ** 2


def _siglip_params(v: VisionTower, text_hidden: int) -> int:
    h, f = v.hidden_size, v.intermediate_size
    patch = v.num_channels * v.patch_size**2 * h + h  # Conv2d weight + bias
    position = v.num_patches * h
    layer = 2 * h + 4 * (h * h + h) + 2 * h + (h * f + f) + (f * h + h)
    post_norm = 2 * h
    projector = h * text_hidden + h  # mm_input_projection_weight + mm_soft_emb_norm
    return patch + position + v.num_layers * layer + post_norm + projector


def _pixtral_params(v: VisionTower, text_hidden: int) -> int:
    h, f = v.hidden_size, v.intermediate_size
    patch = v.num_channels * v.patch_size**2 * h  # Conv2d without bias
    ln_pre = h
    layer = h + 4 * h * h + h + 3 * h * f
    bias = 1 if v.projector_bias else 0
    merged = h * v.spatial_merge_size**2
    projector = (
        h  # RMSNorm
        + merged * h  # patch_merger.merging_layer (no bias)
        + h * text_hidden
        + bias * text_hidden  # linear_1
        + text_hidden * text_hidden
        + bias * text_hidden  # linear_2
    )
    return patch + ln_pre + v.num_layers * layer + projector


def _llama4_params(v: VisionTower, text_hidden: int) -> int:
    assert v.projector_input_dim is not None and v.projector_output_dim is not None
    h, f = v.hidden_size, v.intermediate_size
    patch = v.num_channels * v.patch_size**2 * h  # unfold + linear, no bias
    class_embedding = h
    position = (v.num_patches + 1) * h
    pre_post_norms = 2 * 2 * h
    layer = 4 * (h * h + h) + (h * f + f) + (f * h + h) + 2 * 2 * h
    adapter = f * v.projector_input_dim + v.projector_output_dim * v.projector_output_dim
    projector = v.projector_output_dim * text_hidden
    return (
        patch
        + class_embedding
        + position
        + pre_post_norms
        + v.num_layers * layer
        + adapter
        + projector
    )


def vision_tower_params(v: VisionTower, text_hidden: int) -> int:
    """Parameters of the vision encoder plus its projector into a `text_hidden`-wide model."""
    if v.kind == "siglip":
        return _siglip_params(v, text_hidden)
    if v.kind == "pixtral":
        return _pixtral_params(v, text_hidden)
    return _llama4_params(v, text_hidden)
