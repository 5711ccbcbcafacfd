"""A GGUF file named in a question ('llama-server -m Qwen3-30B-A3B-Q4_K_M.gguf …'): sized from
its header when it is a file on this machine, else read from its name — the model the name
says and its GGUF type — with that said. The names follow the uploaders' conventions
(`{model}-{TYPE}.gguf`, TheBloke's `{model}.{TYPE}.gguf`, split files
`-00001-of-00003.gguf`); the phrasings are written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.offline.parser import parse_workload
from tools.model_sources.tags import parse_gguf_name

NAMES = [
    ("Qwen3-30B-A3B-Q4_K_M.gguf", "Qwen3-30B-A3B", "q4_k_m"),
    ("models/llama-3.1-8b-instruct-q4_k_m.gguf", "llama-3.1-8b-instruct", "q4_k_m"),
    ("mistral-7b-instruct-v0.2.Q4_K_M.gguf", "mistral-7b-instruct-v0.2", "q4_k_m"),
    ("gpt-oss-120b-mxfp4-00001-of-00003.gguf", "gpt-oss-120b", "mxfp4"),
    ("C:\\models\\Llama-3.3-70B-Instruct-IQ4_XS.gguf", "Llama-3.3-70B-Instruct", "iq4_xs"),
    ("phi-4-F16.gguf", "phi-4", "fp16"),
]


@pytest.mark.parametrize(("path", "name", "weights"), NAMES)
def test_a_file_name_says_its_model_and_type(path: str, name: str, weights: str) -> None:
    said = parse_gguf_name(path)
    assert said is not None
    assert (said.name, said.weights) == (name, weights)


@pytest.mark.parametrize("path", ["Q4_K_M.gguf", "model.safetensors", "123.gguf"])
def test_a_name_that_says_no_model_is_none(path: str) -> None:
    assert parse_gguf_name(path) is None


QUESTIONS = [
    ("llama-server -m Qwen3-30B-A3B-Q4_K_M.gguf -c 65536 on a 4090, does it fit?", "qwen3-30b-a3b"),
    ("./llama-cli -m ~/m/Meta-Llama-3.1-8B-Instruct-Q8_0.gguf on my 3060 12GB?", "llama-3.1-8b"),
    ("can my 3090 load gemma-3-27b-it-Q4_K_M.gguf with 16k context?", "gemma-3-27b"),
]


@pytest.mark.parametrize(("question", "model"), QUESTIONS)
def test_a_file_not_on_this_machine_is_read_from_its_name(question: str, model: str) -> None:
    p = parse_workload(question)
    assert p.model == model
    assert p.model_file is None
    assert p.weights in ("q4_k_m", "q8_0")
    assert any("is not a file here, so it is read from its name" in n for n in p.notes)


def test_a_name_outside_the_catalog_is_sized_by_the_size_it_says() -> None:
    p = parse_workload("wizardcoder-python-34b-v1.0.Q4_K_M.gguf on a 4090 24GB, fits?")
    assert p.model is None
    assert p.params == 34e9
    assert p.weights == "q4_k_m"
    assert any("generic 34B dense model" in n for n in p.notes)


def test_a_mix_that_is_no_one_gguf_type_is_asked_about() -> None:
    p = parse_workload("gemma-3-27b-it-UD-Q4_K_XL.gguf on my 3090?")
    assert p.model == "gemma-3-27b"
    assert p.weights is None
    assert p.asks("weights", "unknown")


def test_a_file_on_this_machine_is_sized_from_the_file(tmp_path: Path) -> None:
    local = tmp_path / "Qwen3-30B-A3B-Q4_K_M.gguf"
    local.write_bytes(b"GGUF")
    p = parse_workload(f"llama-server -m {local} on a 4090, does it fit?")
    assert p.model_file == str(local)
    assert p.model is None


# --- A llama.cpp command line's other words ------------------------------------------------------

COMMANDS = [
    "./llama-server -m Qwen3-30B-A3B-Q4_K_M.gguf -c 32768 -ngl 99 -fa on --port 8080 on a 4090?",
    "llama-cli -m gemma-3-27b-it-Q4_K_M.gguf --n-gpu-layers 999 --mlock -t 8 -c 16384, my 3090?",
    "build/bin/llama-server --model Llama-3.3-70B-Instruct-Q4_K_M.gguf -ngl all --flash-attn "
    "-c 8192 --host 0.0.0.0 on two 3090s: does it fit?",
]


@pytest.mark.parametrize("question", COMMANDS)
def test_flags_that_change_no_figure_are_read(question: str) -> None:
    p = parse_workload(question)
    assert p.model is not None and p.context is not None
    assert not p.asks("meaning"), [q.text for q in p.questions]


@pytest.mark.parametrize("flag", ["-ngl 40", "--n-gpu-layers 20", "-ub 4096"])
def test_flags_that_change_the_placement_or_buffers_are_not_passed_over(flag: str) -> None:
    p = parse_workload(f"llama-server -m Llama-3.3-70B-Instruct-Q4_K_M.gguf {flag} on my 3090?")
    assert p.asks("meaning")
