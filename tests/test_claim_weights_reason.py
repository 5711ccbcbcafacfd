"""'4-bit is 0.5 B/param, right?': the answer names why real 4-bit weights take more — the
group scales and zeros of the quantized layers and the 16-bit embedding and output layer —
with the figures of tools/memory/formats.py, checked here by hand."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import sizing_arguments
from tools.sizing import SizingRequest, size

# AWQ int4 (AutoAWQ WQLinear_GEMM, group 128): 4 bits + an fp16 scale and a 4-bit zero per 128
# weights = 4 + 16/128 + 4/128 = 4.15625 bits = 0.51953 B per weight.
AWQ_BYTES = (4 + 16 / 128 + 4 / 128) / 8
# Llama 3.1 config.json: vocab 128,256, hidden 8,192 (70B) / 4,096 (8B), untied embeddings:
# embedding + lm_head = 2 × vocab × hidden parameters, kept in bf16. Totals: meta-device counts.
LLAMA = {
    "llama-3.1-70b": (2 * 128_256 * 8_192, 70_553_706_496),
    "llama-3.1-8b": (2 * 128_256 * 4_096, 8_030_261_248),
}

QUESTIONS = [
    ("Llama 3.1 70B in 4-bit is 0.5 bytes per parameter, right?", "llama-3.1-70b"),
    ("is Llama 3.1 8B in 4-bit AWQ 0.5 B/param?", "llama-3.1-8b"),
    ("Llama 3.1 70B at 4 bit: 0.5 bytes per param, correct?", "llama-3.1-70b"),
]


def _check(question: str):  # type: ignore[no-untyped-def]
    report = size(SizingRequest.model_validate(sizing_arguments(parse_workload(question))))
    (check,) = report.claim_checks
    return report, check


@pytest.mark.parametrize(("question", "model"), QUESTIONS)
def test_the_reason_carries_the_constants_and_the_16_bit_tensors(question: str, model: str) -> None:
    report, check = _check(question)
    assert report.model_id == model and check.verdict == "no"
    w = check.weights_per_param
    assert w is not None and w.weights_format == "int4-awq"
    kept, total = LLAMA[model]
    assert w.nominal_bytes_per_param == 0.5
    assert w.kept_16bit_params == kept and w.kept_16bit_bytes == 2 * kept
    # The norms (16-bit, a few hundred thousand parameters) ride with the quantized layers.
    assert w.quantized_bytes_per_param == pytest.approx(AWQ_BYTES, abs=1e-4)
    expected = (2 * kept + (total - kept) * AWQ_BYTES) / total
    assert w.bytes_per_param == pytest.approx(expected, rel=1e-3)


@pytest.mark.parametrize(("question", "model"), QUESTIONS)
def test_the_answer_says_the_reason_with_its_figures(question: str, model: str) -> None:
    from assistant.render.claims import claim_lines

    report, _ = _check(question)
    text = "\n".join(claim_lines(report))
    kept, total = LLAMA[model]
    expected = (2 * kept + (total - kept) * AWQ_BYTES) / total
    assert "4-bit weights take more than 0.5 B/param" in text
    assert f"the quantized layers {AWQ_BYTES:.3f} B/param" in text
    assert "fp16 scales" in text and "zeros" in text and "g = 128" in text
    assert f"{kept / 1e9:.2f}B parameters kept in 16-bit" in text
    assert f"so {expected:.3f} B/param over all the weights" in text


def test_an_8_bit_rule_gets_the_16_bit_tensors_as_its_reason() -> None:
    # fp8 (vLLM per-tensor scale): 1 B per block weight; embedding and lm_head stay bf16.
    _, check = _check("Llama 3.1 8B in fp8 is 1 byte per parameter, right?")
    w = check.weights_per_param
    assert w is not None and w.nominal_bytes_per_param == 1.0
    kept, total = LLAMA["llama-3.1-8b"]
    assert w.bytes_per_param == pytest.approx((2 * kept + (total - kept) * 1.0) / total, rel=1e-3)


def test_a_16_bit_rule_has_no_quantization_reason() -> None:
    _, check = _check("Llama 3.1 8B in bf16 is 2 bytes per parameter, right?")
    assert check.weights_per_param is None
