"""Domain bounds on every number a tool accepts: what no real workload, model or price exceeds.

Bounds exist so that nothing a model, a file or a flag sends can reach the calculators as an
absurd value (a 10^12-layer model allocates until memory runs out; a 1e308 exchange rate turns a
price into `inf`; 5e-324 tokens/s divides by zero). Each one is several times the largest real
figure, named below with its source, so no genuine request is refused; the same constant bounds a
concept everywhere (the memory tool's `batch` and the recommender's `users` share
`MAX_SEQUENCES`), so the CLI flags built from those fields agree on what is allowed.

Floats are also finite everywhere: input models set `allow_inf_nan=False` (`FINITE`).
"""

from __future__ import annotations

from pydantic import ConfigDict

FINITE = ConfigDict(allow_inf_nan=False)
"""Merged into every input model's config: NaN and ±inf are refused ("a finite number")."""

# --- tokens -----------------------------------------------------------------------------------

MAX_CONTEXT_TOKENS = 2**24
"""16,777,216 tokens per sequence: above Llama 4 Scout's 10,485,760-token window (config.json
max_position_embeddings), the longest published. Bounds context, prompt, output, sequence length
and prefill chunk."""
MAX_TRAIN_TOKENS = 10**15
"""Tokens in one training job: ~30× the largest published pre-training run (Qwen3, 36T tokens)."""

# --- load -------------------------------------------------------------------------------------

MAX_SEQUENCES = 10**7
"""Concurrent users / sequences: 10 million at once is beyond any single deployment we size."""
MAX_BATCH_SEQUENCES = 10**7
"""Training global batch, sequences (Llama 3 405B: 16M tokens = 2,048 × 8,192-token sequences)."""
MAX_TOKENS_PER_S = 10**9
"""Aggregate output tokens/s: a billion per second, above the largest API providers' total."""
MAX_TOKENS_PER_S_PER_USER = 10**6
"""Decode tokens/s one user sees: ~1,000× the fastest published single-stream decode."""
MIN_RATE = 1e-3
"""Smallest rate, duration or utilisation accepted (tokens/s, seconds, hours, a 0.1% load):
anything below is 0 in practice and only makes the divisions behind replicas and $/token
overflow."""
MAX_SECONDS = 86_400.0
"""Latency targets (time to first token): one day."""
MAX_HOURS = 1_000_000.0
"""Wall-clock hours of a job or deadline: ~114 years."""

# --- hardware and layout ----------------------------------------------------------------------

MAX_GPUS = 100_000
"""GPUs in one configuration: the largest announced clusters are ~100,000-200,000 GPUs across
many jobs; one sized workload stays under this."""
MAX_PARALLEL_DEGREE = 1024
"""Tensor- or pipeline-parallel degree: above any attention-head count (DeepSeek-V3: 128) and
any published pipeline depth."""
MAX_MEMORY_GB = 100_000.0
"""A GPU's memory, GB: ~350× the largest device in the catalog."""
MAX_LORA_RANK = 65_536
"""LoRA adapter rank: a rank above the hidden size adds nothing; published ranks are 8-256."""
MAX_LORA_ADAPTERS = 100_000
"""LoRA adapters one deployment registers or holds in GPU slots, at most (S-LoRA serves 2,000
on one A100; a bound, not a limit any engine states)."""
MAX_MEMORY_BYTES = 10**14
"""A GPU's memory, bytes (100 TB; MAX_MEMORY_GB in bytes)."""
MAX_BANDWIDTH_BYTES_PER_S = 1e15
"""Memory or link bandwidth, bytes/s: 1 PB/s, ~125× the fastest HBM (B200: 8 TB/s)."""
MAX_TFLOPS = 1e6
"""Peak dense throughput of one device, TFLOPS or TOPS: ~100× the fastest published."""
MAX_WATTS = 1e5
"""Board power, W: ~40× the largest superchip module."""
MAX_GPUS_PER_NODE = 1024
"""GPUs in one node or NVLink domain: the largest published is 72 (GB200 NVL72)."""
MAX_GPU_CORES = 10_000
"""GPU cores of a unified-memory SoC (Apple M3 Ultra: 80; ~125× headroom)."""
MAX_DEVICES_PER_PACKAGE = 8
"""GPUs software sees per board (MI250X: 2 GCDs)."""
MAX_PCIE_GEN = 16
"""PCIe generation (7 is the newest specification)."""
MAX_OVERHEAD_BYTES = 64 * 2**30
"""Per-GPU runtime overrides (CUDA context, CUDA graphs): 64 GiB, more than most GPUs hold."""

# --- money ------------------------------------------------------------------------------------

MAX_USD_PER_HOUR = 10_000_000.0
"""Budget or price cap for one configuration: 10 M USD an hour (100,000 H100s at ~10 USD/h is
1 M USD/h)."""
MAX_PRICE_PER_GPU_HOUR = 1_000_000.0
"""A price file's per-GPU-hour rate in its published currency (JPY and KRW included)."""
MAX_PRICE_PER_MTOK = 1_000_000.0
"""An API price per million tokens, in its published currency."""
MIN_EXCHANGE_RATE = 1e-3
MAX_EXCHANGE_RATE = 1_000.0
"""US dollars per euro: the rate has stayed between 0.8 and 1.6 since the euro's launch; the
bounds only refuse values that are not a rate."""
MAX_TOKEN_RATIO = 1_000_000.0
"""Input tokens per output token: long-document RAG sends ~100:1."""

# --- architecture (config.json fields) ---------------------------------------------------------

MAX_LAYERS = 1_000
"""Transformer layers: the deepest published LLM has 126 (Llama 3.1 405B)."""
MAX_HIDDEN_SIZE = 2**17
"""Hidden size and MLA ranks: 131,072, 8× the widest published (16,384, Llama 3.1 405B)."""
MAX_FFN_WIDTH = 2**20
"""Dense FFN and expert width: 1,048,576, above the widest published FFN (PaLM: 73,728)."""
MAX_HEADS = 4096
"""Attention or KV heads, and head_dim: published models use at most 128 heads of 256."""
MAX_VOCAB = 2**22
"""Vocabulary: 4,194,304, 16× the largest published (Gemma 3, 262,208)."""
MAX_EXPERTS = 2**16
"""Routed experts per MoE layer: 65,536, above Kimi K2's 384."""
MAX_NORMS_PER_LAYER = 16
"""Norm weights per layer (Gemma 2 has 4)."""
MAX_IMAGE_SIDE = 2**14
"""A vision tower's input image side and patch size, pixels: 16,384, ~10× the largest published
(Pixtral, 1,540)."""
MAX_SPATIAL_MERGE = 16
"""Patches merged per side into one token by a vision projector (Pixtral: 2)."""

# --- names and lists --------------------------------------------------------------------------

MAX_NAME_CHARS = 256
"""A model, GPU, provider or format name: Hugging Face ids are at most 96 characters per part;
longer text is not a name (and would make the close-match search slow)."""
MAX_PATH_CHARS = 4096
"""A local path: Linux PATH_MAX."""
MAX_LIST_ITEMS = 256
"""GPU, provider or tier lists: more than every catalog entry."""
