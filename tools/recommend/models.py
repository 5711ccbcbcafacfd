"""What the recommender returns: `Option` (one configuration of one GPU type: layout, memory,
KV capacity, speed, price, reasons) and `Recommendation` (options ranked, rejected layouts,
notes, assumptions, warnings); `_gib`, the unit the option reasons write bytes in.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class Option(BaseModel):
    """One configuration of one GPU type: layout, memory, KV capacity, speed, cost, reasons."""

    gpu: str = Field(description="Catalog GPU id.")
    gpu_name: str
    count: int = Field(description="GPUs in total (tp × pp × dp).")
    tp: int = Field(description="Tensor-parallel size (GPUs sharing each layer).")
    pp: int = Field(description="Pipeline-parallel stages.")
    dp: int = Field(description="Data-parallel replicas.")
    nodes: int = Field(description="Servers needed (GPUs per node from the catalog).")
    fits: bool
    meets_targets: bool
    per_gpu_bytes: int = Field(
        description="Memory needed per GPU at the requested load, bytes: weights, runtime, "
        "activations and the KV cache of sequences_per_replica full-context sequences (for a "
        "layout that does not fit: the minimum, one sequence)."
    )
    budget_bytes_per_gpu: int = Field(description="Memory the engine may use per GPU, bytes.")
    headroom_bytes: int = Field(description="Budget − needed, bytes (negative: overflow).")
    kv_cache_capacity_bytes: int = Field(description="Bytes per GPU left for KV cache.")
    kv_cache_capacity_tokens: int = Field(description="KV tokens one replica can hold.")
    max_concurrent_sequences: int = Field(description="Sequences of the requested context.")
    sequences_per_replica: int = Field(
        default=0, description="Concurrent sequences each replica runs (the speed's batch)."
    )
    full_load_sequences_per_replica: int = Field(
        default=0,
        description="Concurrent sequences per replica at full load: every KV slot in use (fewer "
        "if a per-user speed target caps the batch).",
    )
    full_load_tokens_per_s: float | None = Field(
        default=None,
        description="Output tokens/s over all replicas at full load (what $/M-token "
        "comparisons use when the load is lighter).",
    )
    decode_tokens_per_s_per_seq: float | None = Field(
        default=None, description="Decode speed each user sees at the chosen concurrency, tok/s."
    )
    aggregate_tokens_per_s: float | None = Field(
        default=None, description="Output tokens/s over all replicas at that concurrency."
    )
    prefill_tokens_per_s: float | None = Field(default=None, description="Prompt tokens/s.")
    ttft_s: float | None = Field(default=None, description="Time to first token, seconds.")
    training_step_s: float | None = None
    training_hours: float | None = None
    gpu_hours: float | None = None
    usd_per_hour: float | None = Field(
        default=None,
        description="On-demand USD/hour of the whole configuration at its cheapest rentable "
        "price: whole instances billed, each tensor-parallel group in one machine.",
    )
    price_id: str | None = Field(default=None, description="Catalog price row used, if any.")
    billed_gpus: int | None = Field(
        default=None, description="GPUs billed at that price (whole instances), count."
    )
    price_as_of: str | None = Field(default=None, description="`as_of` of that price row.")
    price_age: str | None = Field(
        default=None, description="How old that price is on the ranking's clock ('74 days old')."
    )
    reasons: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    gpu_as_of: str = ""


class Recommendation(BaseModel):
    """Options ranked by the objective (best per GPU), rejected layouts, notes, assumptions."""

    model_id: str
    total_params: int
    active_params: int
    weights_format: str = Field(description="Weight format sized (memory calculator's name).")
    weight_bytes: int = Field(description="Whole-model weight bytes in that format.")
    kv_cache_bytes_per_token: int
    context_tokens: int
    objective: str
    options: list[Option]
    rejected: list[Option]
    notes: list[str]
    assumptions: list[str]
    nearest_feasible: str | None = Field(
        default=None, description="When nothing meets the targets: what comes closest and why."
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="The memory calculator's warnings about the request (e.g. a context above "
        "the model's maximum).",
    )
