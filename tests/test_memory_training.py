"""Training memory: model state (ZeRO paper, HF docs), activations (Korthikanti et al.), LoRA."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import references
from tools.architecture import count_parameters
from tools.catalog import get_catalog
from tools.memory import MemoryRequest, estimate_memory
from tools.memory.activations import training_activation_bytes
from tools.memory.model import resolve_model
from tools.memory.sharding import zero3_gathered_bytes
from tools.memory.training import lora_params
from tools.memory.weights import weight_bytes

GB = 1e9


def model_state(est) -> int:  # type: ignore[no-untyped-def]
    b = est.breakdown
    return int(b["weights"] + b["gradients"] + b["optimizer"])


@pytest.mark.parametrize(("zero", "expected_gb"), [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_paper_worked_example(zero: int, expected_gb: float) -> None:
    # ZeRO (arXiv 1910.02054) Figure 1 / §5: Ψ = 7.5B, Nd = 64, K = 12:
    # 16Ψ = 120 GB; Pos 4Ψ + 12Ψ/Nd = 31.4 GB; Pos+g 2Ψ + 14Ψ/Nd = 16.6 GB; Pos+g+p 16Ψ/Nd = 1.9 GB.
    est = estimate_memory(
        MemoryRequest(params="7.5e9", task="full", precision="mixed-zero", gpus=64, zero=zero)
    )
    assert est.dp == 64
    state = model_state(est)
    if zero == 3:
        # The paper's figure is the sharded model state alone; ZeRO-3 also gathers a working
        # set (checked by hand in test_zero3_gathered_working_set_llama_70b_on_16_gpus).
        resolved = resolve_model(None, "7.5e9", None)
        wb = weight_bytes(resolved.architecture, "bf16", total_params=resolved.stated_params)
        gathered = zero3_gathered_bytes(wb)
        assert gathered.params > 0 and gathered.gradients > 0
        state -= gathered.params + gathered.gradients
    assert round(state / GB, 1) == expected_gb


def test_zero3_gathered_working_set_llama_70b_on_16_gpus() -> None:
    # QA round 2, finding 4. Llama 3.1 70B config.json: hidden 8192, 80 layers, 64 heads
    # of 128 with 8 KV heads, FFN 28,672, vocab 128,256, untied embeddings.
    layer = 8192 * (8192 + 1024 + 1024 + 8192) + 3 * 8192 * 28672 + 2 * 8192  # 855,654,400
    embedding = 128_256 * 8192  # 1,050,673,152; the output layer is the same shape
    psi = embedding * 2 + 80 * layer + 8192
    assert psi == 70_553_706_496  # Meta's 70.6B
    # FSDP BACKWARD_PRE peak: the unit being computed (params + full gradients) and the
    # prefetched next one, all bf16. Candidates (bytes): a middle layer 3 × 1.711 GB = 5.13;
    # layer 0 with the embedding prefetched 2 × 1.711 + 2.101 = 5.52; the output layer
    # (with the final norm) and the last layer prefetched 2 × 2.101 + 1.711 = 5.91 → peak.
    head = (embedding + 8192) * 2
    gathered_params, gathered_grads = head + layer * 2, head
    assert gathered_params + gathered_grads == 5_914_034_176
    est = estimate_memory(MemoryRequest(model="llama-3.1-70b", task="full", zero=3, gpus=16))
    assert est.dp == 16
    # With a ZeRO stage the default is the paper's accounting (16-bit weights 2, 16-bit
    # gradients 2, K = 12 with the fp32 master copy), every part over the 16 ranks.
    assert est.breakdown["weights"] == round(psi * 2 / 16) + gathered_params
    assert est.breakdown["gradients"] == round(psi * 2 / 16) + gathered_grads
    assert est.breakdown["optimizer"] == round(psi * 12 / 16)
    assert any("prefetched next one" in a for a in est.assumptions)
    # HF mixed-precision accounting, named (weights 6, gradients 4, AdamW 8 bytes/param) over 16.
    hf = estimate_memory(
        MemoryRequest(model="llama-3.1-70b", task="full", zero=3, gpus=16, precision="mixed-hf")
    )
    assert hf.breakdown["weights"] == round(psi * 2 / 16 + psi * 4 / 16) + gathered_params
    assert hf.breakdown["gradients"] == round(psi * 4 / 16) + gathered_grads
    assert hf.breakdown["optimizer"] == round(psi * 8 / 16)
    # One data-parallel rank shards nothing, so nothing is gathered.
    one = estimate_memory(MemoryRequest(model="llama-3.1-70b", task="full", zero=3, gpus=1))
    assert one.breakdown["weights"] == psi * 2


def test_zero3_lora_gathers_the_frozen_base_without_gradients() -> None:
    # Llama 3.1 8B bf16 base (config.json: hidden 4096, 32 layers, 32/8 heads of 128, FFN
    # 14,336, vocab 128,256): the output layer (+ final norm) and the last layer prefetched,
    # 16-bit, no base gradients.
    layer = 4096 * (4096 + 1024 + 1024 + 4096) + 3 * 4096 * 14336 + 2 * 4096
    head = 128_256 * 4096 + 4096
    plain = estimate_memory(MemoryRequest(model="llama-3.1-8b", task="lora", gpus=8))
    sharded = estimate_memory(MemoryRequest(model="llama-3.1-8b", task="lora", zero=3, gpus=8))
    base = plain.components[0]
    assert base.name == "weights"
    # LoRA adapters, r·(in + out) per matrix (arXiv 2106.09685) at the default rank 8 (PEFT
    # LoraConfig r=8) on q, k, v, o, gate, up, down: 4096+4096, 4096+1024, 4096+1024,
    # 4096+4096, 2 × (4096+14336), 14336+4096 = 81,920 per rank per layer → 8 × 81,920 × 32
    # layers = 20,971,520 parameters, bf16: 41,943,040 B.
    adapters = 8 * 81_920 * 32 * 2
    assert base.bytes_per_gpu == 16_060_522_496 + adapters  # Llama 3.1 8B: 8,030,261,248 × 2 B
    assert sharded.breakdown["weights"] == (
        -(-16_060_522_496 // 8) + (head + layer) * 2 + round(adapters / 8)
    )


def test_hf_training_anatomy_18_bytes_per_param() -> None:
    # HF Transformers docs, "Model training anatomy": mixed-precision AdamW = weights 6
    # (fp32 + fp16) + gradients 4 + optimizer 8 = 18 bytes per parameter.
    est = estimate_memory(MemoryRequest(params="7B", task="full"))
    assert est.breakdown["weights"] == 6 * 7e9
    assert est.breakdown["gradients"] == 4 * 7e9
    assert est.breakdown["optimizer"] == 8 * 7e9
    # Seed-article rule of thumb: 7B full fine-tune ≈ 126 GB at 18 B/param.
    assert model_state(est) == 126e9


def test_hf_optimizer_variants() -> None:
    # HF docs: 8-bit AdamW states 2 bytes/param; SGD with momentum 4 bytes/param.
    for optimizer, per_param in (("adamw-8bit", 2), ("sgd", 4)):
        est = estimate_memory(MemoryRequest(params="7B", task="full", optimizer=optimizer))
        assert est.breakdown["optimizer"] == per_param * 7e9


def test_exact_llama_2_7b_full_fine_tune_differs_from_nominal() -> None:
    # Llama-2-7B has 6,738,415,616 parameters (params.json): 18 × that = 121.29 GB, not 126.
    est = estimate_memory(MemoryRequest(model="llama-2-7b", task="full"))
    assert model_state(est) == 18 * 6_738_415_616


def test_adafactor_is_factored() -> None:
    # Adafactor keeps rows + columns per matrix, far below AdamW's 2 values per parameter.
    adam = estimate_memory(MemoryRequest(model="llama-2-7b", task="full"))
    ada = estimate_memory(MemoryRequest(model="llama-2-7b", task="full", optimizer="adafactor"))
    # mixed-hf keeps no master copy in the optimizer; Adafactor's factors for Llama-2-7B:
    # per layer q,k,v,o 4·(4096+4096) + gate,up 2·(11008+4096) + down (4096+11008) = 78,080,
    # × 32 = 2,498,560; + 2 norms × 4096 × 32 + final 4096 = 266,240; embedding and
    # lm_head 2 × (32000 + 4096) = 72,192 → 2,836,992 values × 4 bytes.
    assert ada.breakdown["optimizer"] == pytest.approx(2_836_992 * 4, abs=1)
    assert adam.breakdown["optimizer"] == 8 * 6_738_415_616


def test_optimizer_offload_moves_state_to_host() -> None:
    est = estimate_memory(
        MemoryRequest(params="7B", task="full", precision="mixed-zero", offload_optimizer=True)
    )
    assert est.breakdown["optimizer"] == 0
    assert est.host_ram_bytes == 12 * 7e9  # fp32 master + two Adam moments


def test_korthikanti_activation_formula_by_hand() -> None:
    # arXiv 2205.05198 Table 2: per layer sbh(34 + 5as/h) bytes; s=2048, b=1, h=4096, a=32.
    a = get_catalog().models["llama-2-7b"].architecture  # 32 layers, h 4096, 32 heads, V 32000
    s, b, h, heads, layers, vocab = 2048, 1, 4096, 32, 32, 32000
    per_layer = s * b * h * 34 + 5 * heads * s * s * b
    logits = s * b * vocab * 10
    kw = {"sequence_tokens": s, "micro_batch": b, "style": "paper"}
    eager = training_activation_bytes(a, flash_attention=False, **kw)  # type: ignore[arg-type]
    assert eager.total == layers * per_layer + logits
    flash = training_activation_bytes(a, **kw)  # type: ignore[arg-type]
    assert flash.total == layers * s * b * h * 34 + logits
    # Full recomputation: 2sbh per layer stored + one layer rebuilt in the backward pass
    ckpt = training_activation_bytes(a, checkpointing=True, **kw)  # type: ignore[arg-type]
    assert ckpt.total == layers * 2 * s * b * h + s * b * h * 34 + logits
    # Tensor parallel t=8: sbh(10 + 24/8)
    tp8 = training_activation_bytes(a, tp=8, **kw)  # type: ignore[arg-type]
    assert tp8.layers == layers * s * b * h * (10 + 3)


def test_gated_ffn_activation_accounting_by_hand() -> None:
    # The paper's accounting applied to Llama-3.1-8B (SwiGLU width 14,336, 8 KV heads × 128,
    # no dropout), per layer: norms and projection inputs 8sbh; Q and attention output 4sbh;
    # K and V 4·s·b·1024; gate, up, act(gate), product 8·s·b·14,336 (all 2-byte values).
    a = get_catalog().models["llama-3.1-8b"].architecture
    s, b, h = 1024, 2, 4096
    per_layer = 8 * s * b * h + 4 * s * b * h + 4 * s * b * 1024 + 8 * s * b * 14336
    logits = s * b * 128256 * 10
    act = training_activation_bytes(a, sequence_tokens=s, micro_batch=b)
    assert act.total == 32 * per_layer + logits
    # 41 sbh per layer: more than the paper's 34 for a GPT layer (wider gated FFN)
    assert per_layer == 41 * s * b * h


def test_lora_parameter_count_by_hand() -> None:
    # LoRA (arXiv 2106.09685): r·(in + out) per adapted matrix. Llama-2-7B, r = 64, all linear:
    # q,k,v,o 4 × 64 × (4096 + 4096) = 2,097,152; gate, up 2 × 64 × (4096 + 11008) = 1,933,312;
    # down 64 × (11008 + 4096) = 966,656 → 4,997,120 per layer × 32 = 159,907,840.
    a = get_catalog().models["llama-2-7b"].architecture
    assert lora_params(a, 64, ("q", "k", "v", "o", "gate", "up", "down")) == 159_907_840
    # q and v only, r = 8: 2 × 8 × 8192 × 32 = 4,194,304
    assert lora_params(a, 8, ("q", "v")) == 4_194_304


def _llama_65b_config(tmp_path: Path) -> str:
    # LLaMA paper (arXiv 2302.13971) Table 2: 65.2B, dimension 8192, 64 heads, 80 layers;
    # Hugging Face config of huggyllama/llama-65b: intermediate_size 22016, vocab 32000.
    path = tmp_path / "config.json"
    path.write_text(json.dumps(references.LLAMA_65B_CONFIG))
    return str(path)


def test_qlora_65b_fits_48gb_and_full_16bit_needs_over_780gb(tmp_path: Path) -> None:
    # QLoRA (arXiv 2305.14314) abstract: finetuning a 65B model on a single 48 GB GPU; §1:
    # regular 16-bit finetuning of LLaMA 65B requires more than 780 GB of GPU memory.
    config = _llama_65b_config(tmp_path)
    qlora = estimate_memory(
        MemoryRequest(config_path=config, task="qlora", batch=1, context=512, checkpointing=True)
    )
    assert qlora.total_params == pytest.approx(65.2e9, rel=0.005)
    assert qlora.per_gpu_bytes < 48e9
    full = estimate_memory(MemoryRequest(config_path=config, task="full"))
    assert model_state(full) > 780e9
    # The paper's 780 GB is 12 B/param (16-bit weights and grads + fp32 Adam states); even the
    # leanest mixed accounting (ZeRO's 16 B/param) exceeds it.
    zero = estimate_memory(MemoryRequest(config_path=config, task="full", precision="mixed-zero"))
    assert model_state(zero) == 16 * qlora.total_params


def test_catalog_llama_65b_is_the_published_config() -> None:
    # The catalog entry must be the published shape (huggyllama/llama-65b config.json, LLaMA
    # paper Table 2: 65.2B), not a lookalike: the QLoRA claim above is about this model.
    from tools.hf_config import architecture_from_config

    entry = get_catalog().model("LLaMA 65B")
    assert entry.id == "llama-65b"
    assert entry.architecture == architecture_from_config(references.LLAMA_65B_CONFIG)
    assert count_parameters(entry.architecture).total == pytest.approx(65.2e9, rel=0.005)


def test_qlora_65b_on_one_48gb_card_says_which_sequences_fit() -> None:
    # QLoRA (arXiv 2305.14314) fine-tuned LLaMA-65B on one 48 GB GPU with short sequences; at
    # the model's full 2,048 tokens the activations no longer fit an L40S (48 GB, 44.99 GiB
    # usable). The recommender must say how long a sequence does fit, and that length must be
    # the longest the memory calculator accepts (to its 256-token step).
    from tools.recommend import SEQUENCE_STEP, recommend
    from tools.workload import validate_workload

    rec = recommend(
        validate_workload(
            {
                "model": "llama-65b",
                "task": "qlora",
                "constraints": {"only_gpus": ["l40s"], "max_gpus": 1},
            }
        )
    )
    assert not rec.options[0].fits
    note = next(n.text for n in rec.notes if n.code == "shorter_training_sequences")
    longest = int(note.split("up to ")[1].split(" tokens")[0].replace(",", ""))
    assert longest >= 512  # the QLoRA paper's setting fits

    def fits(tokens: int) -> bool:
        return bool(
            estimate_memory(
                MemoryRequest(model="llama-65b", task="qlora", gpu="l40s", context=tokens)
            ).fits
        )

    assert fits(longest) and not fits(longest + SEQUENCE_STEP)


def test_lora_keeps_frozen_base_without_state() -> None:
    est = estimate_memory(MemoryRequest(model="llama-2-7b", task="lora", lora_rank=64))
    assert est.trainable_params == 159_907_840
    assert est.breakdown["weights"] == 6_738_415_616 * 2 + 159_907_840 * 2
    assert est.breakdown["gradients"] == 159_907_840 * 2
    assert est.breakdown["optimizer"] == 159_907_840 * 8
