"""The llama.cpp quantization types engineers name, read as the type the tools size: every type
`llama-quantize` writes that gpu-sizer sizes, in the spellings people use (case, '_' or '-',
none, a 'gguf' prefix), llama-quantize's aliases said, and a type it does not size asked about
(never read as another one). Names from llama.cpp's tools/quantize/quantize.cpp QUANT_OPTIONS.
"""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.reading.of_parsed import reading_of

TYPES = {
    # The types as llama-quantize names them → the weight format the tools size.
    "Q4_0": "q4_0",
    "Q4_1": "q4_1",
    "Q5_0": "q5_0",
    "Q5_1": "q5_1",
    "Q8_0": "q8_0",
    "Q2_K": "q2_k",
    "Q2_K_S": "q2_k_s",
    "Q3_K_S": "q3_k_s",
    "Q3_K_M": "q3_k_m",
    "Q3_K_L": "q3_k_l",
    "Q4_K_S": "q4_k_s",
    "Q4_K_M": "q4_k_m",
    "Q5_K_S": "q5_k_s",
    "Q5_K_M": "q5_k_m",
    "Q6_K": "q6_k",
    "IQ1_S": "iq1_s",
    "IQ1_M": "iq1_m",
    "IQ2_XXS": "iq2_xxs",
    "IQ2_XS": "iq2_xs",
    "IQ2_S": "iq2_s",
    "IQ2_M": "iq2_m",
    "IQ3_XXS": "iq3_xxs",
    "IQ3_XS": "iq3_xs",
    "IQ3_S": "iq3_s",
    "IQ3_M": "iq3_m",
    "IQ4_NL": "iq4_nl",
    "IQ4_XS": "iq4_xs",
    "TQ1_0": "tq1_0",
    "TQ2_0": "tq2_0",
}

PHRASINGS = (
    "can my RTX 3090 run Llama 3.1 8B {t}?",
    "Llama 3.1 8B in {t} on a 4090, how fast?",
    "llama 3.1 70b {t} gguf on 2x 3090",
    "what does Qwen2.5 7B at {t} need",
)


def _spellings(name: str) -> list[str]:
    return [name, name.lower(), name.replace("_", "-"), name.replace("_", "").lower()]


@pytest.mark.parametrize(("name", "fmt"), TYPES.items())
def test_every_type_llama_quantize_writes_is_read_as_itself(name: str, fmt: str) -> None:
    for phrasing in PHRASINGS:
        for said in _spellings(name):
            parsed = parse_workload(phrasing.format(t=said))
            assert parsed.weights == fmt, (phrasing, said)
            assert said not in parsed.unplaced and not any(said in n for n in parsed.notes)


def test_a_gguf_prefix_is_the_same_type() -> None:
    assert parse_workload("Llama 3.1 8B gguf q4_0 on a 3090").weights == "q4_0"
    assert parse_workload("Llama 3.1 8B GGUF:Q6_K").weights == "q6_k"


@pytest.mark.parametrize(
    ("alias", "fmt"), [("Q4_K", "q4_k_m"), ("q5_k", "q5_k_m"), ("Q3-K", "q3_k_m")]
)
def test_llama_quantizes_aliases_are_read_and_said(alias: str, fmt: str) -> None:
    # QUANT_OPTIONS: { "Q4_K", LLAMA_FTYPE_MOSTLY_Q4_K_M, "alias for Q4_K_M" }; Q5_K, Q3_K alike.
    parsed = parse_workload(f"Llama 3.1 8B {alias} on my 4090")
    assert parsed.weights == fmt
    assert any(alias in note and fmt.upper() in note for note in parsed.notes)


@pytest.mark.parametrize("name", ["Q7_K", "q9_0", "IQ5_XS", "Q4_K_XL"])
def test_a_type_the_tools_do_not_size_is_asked_never_read_as_another(name: str) -> None:
    parsed = parse_workload(f"Llama 3.1 8B {name} on a 3090")
    assert parsed.weights is None
    assert name in parsed.unplaced or not reading_of(parsed).verdict_stands()


def test_a_type_inside_a_file_name_is_left_to_the_file_reading() -> None:
    # 'llama-3.1-8b-q4_0.gguf' names a file: the type is not read from the middle of it.
    parsed = parse_workload("size the q4_0.gguf file of Llama 3.1 8B")
    assert parsed.weights is None


def test_a_bare_q4_is_still_read_as_q4_k_m_with_its_note() -> None:
    parsed = parse_workload("Llama 3.1 8B q4 on a 3090")
    assert parsed.weights == "q4_k_m" and any("Q4_K_M" in note for note in parsed.notes)
