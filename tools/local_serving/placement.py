"""Where llama.cpp puts a model's bytes for `-ngl k`, and the largest k that fits.

Placement follows llama.cpp (src/llama-model.cpp load_tensors): the token embedding always
stays on the CPU; `-ngl k` puts the output layer and the last k − 1 transformer layers on the
GPU(s), each layer's KV cache with it (offload_kqv, the default). The GPU share of k is those
layers' weights + their KV cache + the output layer + the compute buffers and runtime; the
rest is in system RAM. Bytes throughout.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelBytes:
    """A model's bytes as llama.cpp places them, over all the GPUs it splits over."""

    fixed: int
    """Compute buffers and runtime, all GPUs: on the GPU whatever k is."""
    output: int
    """The output layer and the final norm (a tied model's output is a GPU copy of the token
    embedding: llama.cpp duplicates it)."""
    embedding: int
    """The token embedding: always in system RAM."""
    layers: tuple[int, ...]
    """Each transformer layer's weights, first to last."""
    num_layers: int
    """The architecture's transformer layers (the KV cache is split evenly over them)."""
    kv_total: int
    """The KV cache, every layer and slot."""
    read_share: float = 1.0
    """The share of the layer weights one decoded token reads (an MoE reads only the routed
    experts it uses); 1 for a dense model."""

    @property
    def kv_per_layer(self) -> float:
        """KV-cache bytes of one layer (all slots)."""
        return self.kv_total / self.num_layers

    def gpu_bytes(self, n_gpu_layers: int) -> int:
        """GPU memory used at `-ngl n_gpu_layers`: the fixed part, the output layer (k ≥ 1)
        and the last k − 1 layers with their KV cache."""
        on = max(n_gpu_layers - 1, 0)
        output = self.output if n_gpu_layers >= 1 else 0
        on_layers = self.layers[self.num_layers - on :]
        return self.fixed + output + sum(on_layers) + round(self.kv_per_layer * on)


@dataclass(frozen=True)
class Placement:
    """The split llama.cpp makes at `n_gpu_layers` (-ngl): what is on the GPU(s), what in RAM."""

    n_gpu_layers: int
    """-ngl / num_gpu: the output layer + `gpu_layers` transformer layers (0: all on the CPU)."""
    gpu_layers: int
    """Transformer layers on the GPU(s)."""
    gpu_bytes: int
    weights_gpu_bytes: int
    kv_gpu_bytes: int
    host_bytes: int
    """System RAM for the weights and KV cache the CPU holds."""
    fits_fully: bool
    """Every layer and the output layer on the GPU(s)."""

    @property
    def output_on_gpu(self) -> bool:
        """Whether the output layer is on the GPU (any -ngl above 0)."""
        return self.n_gpu_layers >= 1


def place_layers(model: ModelBytes, budget_bytes: int) -> Placement:
    """The largest -ngl whose GPU share fits `budget_bytes` (0 when even the output layer
    does not: llama.cpp runs on the CPU), and the bytes on each side at it."""
    n = model.num_layers
    best = next((k for k in range(n + 1, -1, -1) if model.gpu_bytes(k) <= budget_bytes), 0)
    on_gpu = max(best - 1, 0)
    output = model.output if best >= 1 else 0
    weights_gpu = output + sum(model.layers[n - on_gpu :])
    kv_gpu = round(model.kv_per_layer * on_gpu)
    host = model.embedding + sum(model.layers[: n - on_gpu]) + (model.kv_total - kv_gpu)
    if best == 0:
        host += model.output
    return Placement(
        n_gpu_layers=best,
        gpu_layers=on_gpu,
        gpu_bytes=model.gpu_bytes(best),
        weights_gpu_bytes=weights_gpu,
        kv_gpu_bytes=kv_gpu,
        host_bytes=host,
        fits_fully=best == n + 1,
    )


def bytes_read_per_token(model: ModelBytes, placement: Placement) -> tuple[float, float]:
    """(GPU bytes, RAM bytes) one decoded token reads: the weights on each side (the layers'
    at `read_share`, the output layer whole) and the KV cache each side holds."""
    output_gpu = model.output if placement.output_on_gpu else 0
    layers_gpu = placement.weights_gpu_bytes - output_gpu
    gpu_read = layers_gpu * model.read_share + output_gpu
    layers_ram = sum(model.layers[: model.num_layers - placement.gpu_layers])
    ram_read = layers_ram * model.read_share + (model.output if placement.n_gpu_layers == 0 else 0)
    return (
        gpu_read + placement.kv_gpu_bytes,
        ram_read + (model.kv_total - placement.kv_gpu_bytes),
    )
