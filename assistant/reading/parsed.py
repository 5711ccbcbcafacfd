"""`ParsedWorkload`: what the parser (`assistant.offline.parser`) understood from plain language.

A reading-layer type, not the offline engine's: the parser writes it, and the reading
(`of_parsed`), the presentation layer (`assistant.render`), the LLM engine's verdict, the
proposal and the app's chat log read it, none of them importing the offline engine.

Every field is optional: None (or empty) means the text did not say. The planner turns this into
tool arguments, and the renderer states each default the tools filled in (`render.
defaults_filled_in`); nothing here is a default. `notes` record how
an ambiguous phrase was read, `questions` are facts the verdict depends on that are missing, and
`unplaced` keeps the fragments the parser could not place, so nothing the user wrote is dropped
silently.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from assistant.conversation import WORKLOAD_KEY, Conversation
from assistant.reading.model import AskBack, AskedSlot, AskedWhy, SlotSource, Span
from tools.field_factories import empty_list
from tools.fits import RankBy
from tools.hardware import GpuLimitRule
from tools.sizing.claims import Claim

Task = Literal["inference", "full", "lora", "qlora"]
Use = Literal["serve", "chat", "rag", "batch", "fine-tune", "pre-train"]
Interconnect = Literal["pcie", "nvlink"]
BudgetPeriod = Literal["hour", "day", "month", "year", "total"]
Asked = Literal[
    "memory",
    "kv_cache",
    "cost",
    "speed",
    "ttft",
    "fits",
    "gpu_count",
    "throughput",
    "which_models",
    "hardware",
]


ChangedSlot = Literal["gpus", "users", "context"]


class Change(BaseModel):
    """A change of the previous question's figure said relative to it: `slot` times `by`
    ('double the cards': gpus × 2) or plus `by` ('one more': gpus + 1; 'one fewer': − 1)."""

    model_config = ConfigDict(extra="forbid")

    slot: ChangedSlot
    op: Literal["times", "plus"]
    by: float
    words: str


class GpuMention(BaseModel):
    """A GPU named in the text: catalog id (None for a family with no default), how many, and
    the other catalog GPUs the same words could mean (e.g. 'A100' → 40 GB and 80 GB parts)."""

    model_config = ConfigDict(extra="forbid")

    gpu: str | None = Field(description="Catalog GPU id, or None when the name is ambiguous.")
    text: str = Field(description="The words used, as written.")
    count: int | None = Field(default=None, description="GPUs of this kind, count.")
    variants: list[str] = Field(
        default_factory=empty_list, description="Catalog ids the words could also mean."
    )
    memory_bytes: int | None = Field(
        default=None,
        description="Memory the user gave for a GPU the catalog lacks ('M2 Ultra 192GB'), "
        "bytes (GB = 1e9); such a GPU is sized against it, never replaced.",
    )
    unified_memory: GpuLimitRule | None = Field(
        default=None,
        description="memory_bytes is the RAM of a unified-memory machine the catalog lacks "
        "('MacBook Air M3 with 24 GB': macos-working-set); the GPU gets that rule's share.",
    )


class ParsedWorkload(BaseModel):
    """A sizing request as understood from text. Units are in the field names or descriptions."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(default="", description="The text this was parsed from (this turn).")
    model: str | None = Field(default=None, description="Catalog model id.")
    model_text: str | None = Field(default=None, description="The words naming the model.")
    stand_in_for: str | None = Field(
        default=None,
        description=(
            "The words of a model version the catalog lacks ('Llama 3 8B', 'Qwen2 7B') that "
            "`model`, the catalog's model of that family and size, is sized in place of."
        ),
    )
    params: float | None = Field(default=None, description="Bare parameter count ('a 13B').")
    model_file: str | None = Field(
        default=None, description="A local model path named in the text (a .gguf file)."
    )
    launcher: Literal["llama-server", "ollama"] | None = Field(
        default=None, description="Local serving said: llama.cpp / llama-server or Ollama."
    )
    # --- Owned hardware (issue 29; parser/owned.py) ---
    owned: bool = Field(
        default=False,
        description="The words say the hardware is the user's own (my, our, I have, a laptop, "
        "a Mac, Ollama, llama.cpp, LM Studio, MLX).",
    )
    local_app: Literal["lm-studio", "mlx"] | None = Field(
        default=None, description="LM Studio or MLX said."
    )
    fits_rank: RankBy | None = Field(
        default=None, description="What a which-models question ranks by (largest, fastest…)."
    )
    # --- end owned hardware ---
    weights: str | None = Field(
        default=None, description="Weight format, names as tools.workload.Workload.weights."
    )
    alternative_weights: str | None = Field(
        default=None,
        description="Another reading of the words for the weight format ('full precision': "
        "fp32 beside the bf16 read), sized beside the main one.",
    )
    kv_dtype: str | None = Field(default=None, description="KV-cache dtype (fp8, bf16, fp16).")
    task: Task | None = None
    use: Use | None = Field(default=None, description="What the task is for, as said.")
    context: int | None = Field(default=None, description="Tokens per sequence (KV length).")
    long_context: bool = Field(default=False, description="'long-context' said without a size.")
    prompt_tokens: int | None = Field(default=None, description="Input tokens per request.")
    output_tokens: int | None = Field(default=None, description="Output tokens per request.")
    users: int | None = Field(default=None, description="Concurrent users / requests, count.")
    batch: int | None = Field(default=None, description="Batch size, sequences.")
    ttft_s: float | None = Field(default=None, description="Time-to-first-token target, seconds.")
    tokens_per_s_per_user: float | None = Field(
        default=None, description="Decode speed target per user, tokens per second."
    )
    tokens_per_s: float | None = Field(
        default=None, description="Aggregate output throughput target, tokens per second."
    )
    output_tokens_per_day: float | None = Field(
        default=None,
        description="Output tokens a day from a volume said ('50M tokens a day': input and "
        "output together unless 'output' is said), tokens; the load, and the volume at which "
        "self-hosting is compared with a hosted API.",
    )
    api_comparison: bool = Field(
        default=False, description="Self-hosting compared with a hosted API ('vs an API')."
    )
    api_providers: list[str] = Field(
        default_factory=empty_list, description="Hosted API providers named ('the Groq API')."
    )
    api_models: list[str] = Field(
        default_factory=empty_list,
        description="Hosted API models named to compare with ('or use GPT-4o mini'), as said.",
    )
    gpus: list[GpuMention] = Field(default_factory=empty_list, description="GPUs named, in order.")
    compare: bool = Field(default=False, description="The text compares options ('vs').")
    gpu_count: int | None = Field(default=None, description="GPUs said without a name, count.")
    gpu_memory_bytes: int | None = Field(
        default=None, description="Memory of an unnamed GPU ('a 48 GB GPU'), bytes (GB = 1e9)."
    )
    system_ram_bytes: int | None = Field(
        default=None, description="System RAM said ('64 GB RAM'), bytes (GB = 1e9)."
    )
    consumer_gpu: bool = Field(
        default=False,
        description="'consumer', 'gaming' or 'desktop' card said: consumer GPUs only.",
    )
    multi_gpu: bool = Field(default=False, description="'multi-GPU' said without a count.")
    interconnects: list[Interconnect] = Field(default_factory=empty_list)
    budget_amount: float | None = Field(default=None, description="Budget in `budget_currency`.")
    budget_currency: str | None = Field(default=None, description="USD, EUR or GBP as written.")
    budget_period: BudgetPeriod | None = None
    region: str | None = Field(default=None, description="'eu' or 'us'.")
    train_tokens: float | None = Field(default=None, description="Training tokens in total.")
    train_examples: int | None = Field(default=None, description="Training examples, count.")
    tokens_per_example: int | None = Field(default=None, description="Tokens per example.")
    epochs: float | None = None
    deadline_hours: float | None = Field(default=None, description="Wall-clock limit, hours.")
    optimizer: str | None = Field(default=None, description="adamw, adamw-8bit, sgd, adafactor.")
    zero: Literal[0, 1, 2, 3] | None = Field(
        default=None, description="ZeRO stage said ('ZeRO-3'; 'FSDP' full shard is stage 3)."
    )
    lora_rank: int | None = None
    checkpointing: bool | None = None
    engine: str | None = Field(default=None, description="vllm, transformers or generic.")
    engine_named: str | None = Field(
        default=None,
        description="The serving engine as the question named it (tgi, sglang, tensorrt-llm, "
        "vllm, transformers, llama.cpp, ollama, lm-studio), whatever rule `engine` sizes it by.",
    )
    engine_version: str | None = Field(
        default=None,
        description="The llama.cpp build said: b<number> ('build 2797') or its date (2024-05).",
    )
    objective: str | None = Field(
        default=None, description="cheapest, cheapest_per_token, fastest, fewest_gpus."
    )
    capacity: bool = Field(
        default=False,
        description="'How many (8k chats / users / sequences) fit' asked: the answer is a count.",
    )
    max_context: bool = Field(
        default=False,
        description="'Max context' / 'longest context' asked: the answer is a length.",
    )
    price_period: Literal["hour", "month"] | None = Field(
        default=None, description="The period a cost is asked in ('per month', 'hourly')."
    )
    asked: Asked | None = Field(
        default=None,
        description="The number asked for: 'memory' ('how much VRAM…'), 'cost' ('how much "
        "would it cost'), 'speed' ('how many tokens/s…'), 'ttft' ('what is the time to first "
        "token'); the answer opens with it.",
    )
    how_long: bool = Field(
        default=False, description="'How long will it take' asked: a training job's duration."
    )
    alternatives: bool = Field(
        default=False,
        description="'Alternatives' / 'other options' asked: a named GPU count is not a limit.",
    )
    pasted: bool = Field(
        default=False,
        description="Code or a spec sheet pasted ('model = AutoModel.from_pretrained(…)', "
        "'GPU: … / RAM: …'): with nothing asked in words, what to answer is asked.",
    )
    changes: list[Change] = Field(
        default_factory=empty_list,
        description="Figures of the previous question changed relative to it ('double the "
        "cards'), applied by the follow-up merge.",
    )
    answered_gpu: str | None = Field(
        default=None, description="The GPU the answer to this reading led with (catalog id)."
    )
    answered_count: int | None = Field(
        default=None, description="How many of it the answer led with ('double the cards')."
    )
    assumed: list[str] = Field(
        default_factory=empty_list,
        description="Fields whose value is a stated default reading of vague words ('fine-tune' "
        "with no method: full), not something the question said.",
    )
    out_of_scope: list[str] = Field(
        default_factory=empty_list,
        description="Topics asked that gpu-sizer cannot answer ('live availability of GPUs', "
        "'model quality …'), said in one sentence each (`parser.scope`).",
    )
    claims: list[Claim] = Field(
        default_factory=empty_list,
        description="Rules of thumb the user stated ('18 bytes per parameter', '4× the model', "
        "'so 64 GB'), checked by tools.sizing rather than taken as inputs.",
    )
    # issue 30 items 5-7
    serve_engine: Literal["vllm", "sglang", "tensorrt-llm"] | None = Field(
        default=None,
        description="Serving engine whose own KV-pool rule and launch line the answer gives.",
    )
    launch_asked: bool = Field(
        default=False, description="The command line that starts the server was asked for."
    )
    buy_asked: bool = Field(
        default=False, description="Buying the GPUs against renting them (or power) was asked."
    )
    usd_per_kwh: float | None = Field(default=None, description="Electricity price said, USD/kWh.")
    pue: float | None = Field(default=None, description="Power usage effectiveness said.")
    purchase_usd_per_gpu: float | None = Field(
        default=None, description="Price of one card said ('at $30k a card'), USD."
    )
    speculative: bool = Field(default=False, description="Speculative decoding asked about.")
    draft_model: str | None = Field(default=None, description="The draft model named (catalog id).")
    draft_params: float | None = Field(
        default=None, description="A draft model named by its size alone ('an 8B draft'), count."
    )
    acceptance_rate: float | None = Field(default=None, description="Acceptance rate α said.")
    draft_tokens: int | None = Field(default=None, description="Draft tokens per step γ said.")
    cached_prefix_fraction: float | None = Field(
        default=None, description="Share of each prompt in the prefix cache said."
    )
    prefix_caching: bool = Field(default=False, description="Prefix caching asked about.")
    disaggregated: bool = Field(default=False, description="A prefill/decode split asked about.")
    # issue 30 items 1-4: workloads beyond plain serving (`parser/workloads.py`).
    lora_adapters: int | None = Field(
        default=None, description="LoRA adapters served on the model (multi-LoRA serving)."
    )
    embedding_model: str | None = Field(
        default=None, description="Embedding / reranker model (tools.workloads catalog id)."
    )
    documents: int | None = Field(default=None, description="Texts to embed or rerank, count.")
    tokens_per_document: int | None = Field(default=None, description="Tokens per text.")
    corpus_tokens: float | None = Field(default=None, description="The corpus, tokens.")
    batch_input_tokens: float | None = Field(default=None, description="A job's input, total.")
    batch_output_tokens: float | None = Field(
        default=None, description="A job's output tokens, total."
    )
    batch_requests: int | None = Field(
        default=None, description="A job's requests (documents), count; lengths per request."
    )
    requests_per_s: float | None = Field(default=None, description="Arrivals, requests/s.")
    peak_factor: float | None = Field(default=None, description="Peak ÷ average arrivals.")
    latency_percentile: Literal[50, 90, 95, 99] | None = Field(
        default=None, description="The percentile a latency target is at ('p99')."
    )
    inter_token_target_s: float | None = Field(
        default=None, description="Inter-token time target, seconds."
    )
    notes: list[str] = Field(
        default_factory=empty_list, description="How ambiguous words were read."
    )
    questions: list[AskBack] = Field(
        default_factory=empty_list, description="Missing facts that change the verdict, asked back."
    )
    unplaced: list[str] = Field(default_factory=empty_list, description="Fragments not understood.")
    unread: list[Span] = Field(
        default_factory=empty_list, description="Where the unplaced fragments are in the question."
    )
    sources: dict[str, SlotSource] = Field(
        default_factory=dict,
        description="Where each field that was read came from (field name → provenance).",
    )

    @field_validator("questions", mode="before")
    @classmethod
    def _stored_questions(cls, value: object) -> object:
        """Sessions saved before questions were typed hold them as text: kept as asked-back
        facts of no known slot ('meaning'), so a reply still refines that turn's workload."""
        if isinstance(value, list):
            return [
                {"slot": "meaning", "why": "missing", "text": q} if isinstance(q, str) else q
                for q in value
            ]
        return value

    def ask(
        self,
        slot: AskedSlot,
        why: AskedWhy,
        text: str,
        words: str | None = None,
        *,
        first: bool = False,
    ) -> None:
        """Ask `text` back about `slot` (first in line with `first`)."""
        question = AskBack(slot=slot, why=why, text=text, words=words)
        self.questions.insert(0 if first else len(self.questions), question)

    def asks(self, slot: AskedSlot, *why: AskedWhy) -> bool:
        """Whether a question about `slot` (for one of the reasons `why`, any when none) is
        pending."""
        return any(q.slot == slot and (not why or q.why in why) for q in self.questions)

    @property
    def has_model(self) -> bool:
        """True when a model (catalog or cached id, a bare count or a model file) was given."""
        return self.model is not None or self.params is not None or self.model_file is not None

    @property
    def named_gpu_ids(self) -> list[str]:
        """Catalog ids of the GPUs named (resolved ones only), in order, without repeats."""
        out: list[str] = []
        for mention in self.gpus:
            if mention.gpu is not None and mention.gpu not in out:
                out.append(mention.gpu)
        return out


def previous_workload(conversation: Conversation) -> ParsedWorkload | None:
    """The workload of the latest turn that had one, rebuilt from the conversation (stored
    under `WORKLOAD_KEY` by the engine that planned it)."""
    for message in reversed(conversation.messages):
        data = message.get(WORKLOAD_KEY)
        if isinstance(data, dict):
            try:
                return ParsedWorkload.model_validate(data)
            except ValueError:
                return None
    return None
