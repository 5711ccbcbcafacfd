"""`tools.local_serving.placement`: llama.cpp's -ngl placement on a toy model whose bytes are
small enough to place by hand (src/llama-model.cpp load_tensors: the token embedding on the
CPU, -ngl k = the output layer + the last k − 1 layers, each with its KV cache)."""

from __future__ import annotations

import pytest

from tools.local_serving.placement import ModelBytes, bytes_read_per_token, place_layers

# 4 layers of 10 B, a 50 B output layer and embedding, 100 B of compute buffers and runtime,
# a 40 B KV cache (10 B a layer); a token reads half of each layer's weights (an MoE).
TOY = ModelBytes(
    fixed=100, output=50, embedding=50, layers=(10, 10, 10, 10), num_layers=4, kv_total=40,
    read_share=0.5,
)  # fmt: skip


def test_the_gpu_share_of_each_ngl() -> None:
    # k = 0: the fixed part only; k = 1: + the output layer; each further k: + 10 B of weights
    # and 10 B of KV cache.
    assert [TOY.gpu_bytes(k) for k in range(6)] == [100, 150, 170, 190, 210, 230]


def test_the_largest_ngl_that_fits_and_what_stays_in_ram() -> None:
    part = place_layers(TOY, 200)  # 190 B at -ngl 3 fits, 210 B at 4 does not
    assert (part.n_gpu_layers, part.gpu_layers, part.gpu_bytes) == (3, 2, 190)
    assert (part.weights_gpu_bytes, part.kv_gpu_bytes) == (50 + 20, 20)
    # RAM: the embedding, the first 2 layers and their 20 B of KV cache.
    assert part.host_bytes == 50 + 20 + 20 and not part.fits_fully
    # Per token: on the GPU half of 20 B of layers + the 50 B output layer + 20 B of KV; in RAM
    # half of 20 B of layers + 20 B of KV.
    assert bytes_read_per_token(TOY, part) == pytest.approx((10 + 50 + 20, 10 + 20))


def test_everything_fits_at_n_plus_one() -> None:
    part = place_layers(TOY, 230)
    assert part.n_gpu_layers == 5 and part.gpu_layers == 4 and part.fits_fully
    assert part.host_bytes == 50  # the token embedding alone


def test_below_the_fixed_part_nothing_is_offloaded() -> None:
    part = place_layers(TOY, 99)
    assert (part.n_gpu_layers, part.gpu_layers, part.output_on_gpu) == (0, 0, False)
    assert part.weights_gpu_bytes == 0 and part.kv_gpu_bytes == 0
    # The output layer stays in RAM too: embedding 50 + layers 40 + KV 40 + output 50.
    assert part.host_bytes == 180
    assert bytes_read_per_token(TOY, part) == pytest.approx((0, 20 + 50 + 40))
