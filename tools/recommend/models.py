"""What the recommender returns: `Option` (one configuration of one GPU type: layout, memory,
KV capacity, speed, price, reasons) and `Recommendation` (options ranked, rejected layouts,
notes, assumptions, warnings); `_gib`, the unit the option reasons write bytes in.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from tools.field_factories import empty_list
from tools.notes import Note
from tools.performance.basis import SpeedBasis


class LatencyPoint(BaseModel):
    """TTFT and decode speed at one concurrency on one replica (a point of a latency curve)."""

    concurrency: int = Field(description="Concurrent users on one replica.")
    ttft_s: float = Field(description="Time to first token: queue + prefill, seconds.")
    queue_s: float = Field(description="Of which waiting (other prefills, a free slot), s.")
    inter_token_s: float = Field(description="Time between two tokens of one user, seconds.")
    tokens_per_s_per_user: float = Field(description="Decode speed each user sees, tok/s.")
    output_tokens_per_s: float = Field(description="Replica output tokens/s at this load.")


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
    modelled_tokens_per_s_per_seq: float | None = Field(
        default=None,
        description="When the decode speed is a published measurement of this setup: the "
        "performance model's own figure for it, tok/s (the two side by side).",
    )
    aggregate_tokens_per_s: float | None = Field(
        default=None, description="Output tokens/s over all replicas at that concurrency."
    )
    prefill_tokens_per_s: float | None = Field(
        default=None, description="Prompt tokens/s of one prompt prefilled alone."
    )
    prefill_s: float | None = Field(
        default=None, description="Prefill of one prompt with nothing else running, seconds."
    )
    ttft_s: float | None = Field(
        default=None,
        description="Time to first token at the planned load (sequences_per_replica users per "
        "replica): queue + prefill, seconds (ranked options, and every layout when a TTFT "
        "target is set).",
    )
    batch_cap: int = Field(
        default=0,
        description="Sequences one replica runs at most: its KV capacity, capped by the "
        "engine's max_num_seqs.",
    )
    engine_max_num_seqs: int | None = Field(
        default=None, description="The engine's default max_num_seqs (None: no engine cap)."
    )
    speed_basis: SpeedBasis | None = Field(
        default=None,
        description="How the decode speed (serving) or training time was obtained: measured "
        "(a published measurement of this setup), calibrated (model fitted to measurements "
        "of this engine and GPU class) or estimated (default efficiencies).",
    )
    throughput_basis: SpeedBasis | None = Field(
        default=None,
        description="The same for the aggregate and full-load throughput (and $/M tokens).",
    )
    ttft_basis: SpeedBasis | None = Field(default=None, description="The same for TTFT.")
    speed_source: str | None = Field(
        default=None,
        description="What the speed rests on: the measurement's source, or the calibrated "
        "constants (and how many published rows they were fitted on).",
    )
    latency_curve: list[LatencyPoint] = Field(
        default_factory=empty_list,
        description="TTFT and decode speed as concurrency grows on one replica (ranked "
        "options only).",
    )
    training_step_s: float | None = None
    training_hours: float | None = None
    gpu_hours: float | None = None
    usd_per_hour: float | None = Field(
        default=None,
        description="On-demand USD/hour of the whole configuration at the price it is quoted "
        "at (tools.pricing.quote_order: fresh, confirmed, then cheapest): whole instances "
        "billed, each tensor-parallel group in one machine.",
    )
    price_id: str | None = Field(default=None, description="Catalog price row used, if any.")
    price_stale: bool = Field(
        default=False,
        description="Only a stale (undated or too old) price hosts this configuration; "
        "ranked after freshly priced ones when ranking by price.",
    )
    price_low_confidence: bool = Field(
        default=False,
        description="The price is a low-confidence (unconfirmed) rate: no confirmed row as "
        "fresh hosts this configuration.",
    )
    billed_gpus: int | None = Field(
        default=None, description="GPUs billed at that price (whole instances), count."
    )
    price_as_of: str | None = Field(default=None, description="`as_of` of that price row.")
    price_age: str | None = Field(
        default=None, description="How old that price is on the ranking's clock ('74 days old')."
    )
    reasons: list[str] = Field(default_factory=empty_list)
    notes: list[str] = Field(default_factory=empty_list)
    gpu_as_of: str = ""

    @property
    def basis_label(self) -> str | None:
        """How far the speed figures can be trusted, in one short phrase: the one word when
        decode speed, throughput and TTFT share it ("calibrated"), else each named ("decode
        measured; throughput, TTFT calibrated"); for training, the training time's basis.
        None when the option has no speed."""
        if self.speed_basis is None:
            return None
        named = {
            "decode": self.speed_basis,
            "throughput": self.throughput_basis,
            "TTFT": self.ttft_basis,
        }
        present = {k: v for k, v in named.items() if v is not None}
        if len(set(present.values())) == 1:
            return self.speed_basis
        groups: dict[str, list[str]] = {}
        for what, basis in present.items():
            groups.setdefault(basis, []).append(what)
        return "; ".join(f"{', '.join(whats)} {basis}" for basis, whats in groups.items())

    def same_layout(self, other: Option) -> bool:
        """Whether `other` is this configuration: the same GPU, count and TP × PP × DP layout
        (the one layout identity every surface compares options by)."""
        return (self.gpu, self.count, self.tp, self.pp, self.dp) == (
            other.gpu,
            other.count,
            other.tp,
            other.pp,
            other.dp,
        )

    # The steady-state model of a serving layout (tools.recommend.speed.ServingSpeed), kept so
    # the ranked options' latency curves need no second memory estimate; never serialised.
    _serving: Any = PrivateAttr(default=None)


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
    notes: list[Note] = Field(description="Notes the figures call for, each with its subject.")
    assumptions: list[str]
    nearest_feasible: str | None = Field(
        default=None, description="When nothing meets the targets: what comes closest and why."
    )
    warnings: list[Note] = Field(
        default_factory=empty_list,
        description="The memory calculator's warnings about the request (e.g. a context above "
        "the model's maximum).",
    )

    def evaluated(self) -> list[Option]:
        """Every option evaluated: the best per GPU type (ranked), then the set-aside layouts."""
        return [*self.options, *self.rejected]

    def fitting_at(self, gpu: str | None, count: int) -> Option | None:
        """The option of `gpu` at exactly `count` GPUs that fits: the recommender's own for
        that GPU when it is that count, else the first set-aside layout that fits (the one
        "option of this GPU at this count" selector; None for no GPU or none fitting)."""
        if gpu is None:
            return None
        return next(
            (o for o in self.evaluated() if o.gpu == gpu and o.count == count and o.fits), None
        )

    def fitting_on(
        self, gpu: str | None, above: int = 0, at_most: int | None = None
    ) -> Option | None:
        """The recommender's own fitting option of `gpu` (its best for that GPU) when it has
        more than `above` and at most `at_most` GPUs; None otherwise."""
        if gpu is None:
            return None
        return next(
            (
                o
                for o in self.options
                if o.gpu == gpu
                and o.fits
                and o.count > above
                and (at_most is None or o.count <= at_most)
            ),
            None,
        )
