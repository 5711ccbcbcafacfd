"""The reading benchmark's corpus and scorer (bench/reading): every question has its link and a
gold reading in the README's schema, every source is in one split, and the scorer compares the
way the README says (hand cases)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from bench.reading.score import CORPUS, SPLITS, Question, load, read, same, score
from tools.catalog import get_catalog

GOLD_KEYS = {
    "asked", "model", "model_words", "params_b", "weights", "task", "gpus", "users",
    "requests_per_s", "tokens_per_s", "tokens_per_s_per_user", "ttft_s", "context",
    "prompt_tokens", "output_tokens", "budget", "engine", "system_ram_gb", "region",
    "train_tokens", "train_examples", "epochs", "unanswerable",
}  # fmt: skip
ASKED = {
    "fits", "hardware", "gpu_count", "memory", "speed", "ttft", "cost", "max_context",
    "capacity", "compare", "which_models", "training_time", "out_of_scope", "throughput",
}  # fmt: skip


def _rows() -> list[dict[str, object]]:
    return [
        json.loads(line)
        for path in sorted(CORPUS.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def test_the_corpus_is_at_least_300_linked_questions_with_gold_readings() -> None:
    rows = _rows()
    assert len(rows) >= 300
    assert len({r["id"] for r in rows}) == len(rows)
    catalog = get_catalog()
    for row in rows:
        assert str(row["url"]).startswith("https://"), row["id"]
        assert row["question"] and row["source"], row["id"]
        gold = row["gold"]
        assert isinstance(gold, dict) and set(gold) <= GOLD_KEYS, row["id"]
        assert gold.get("asked", "hardware") in ASKED, row["id"]
        if gold.get("model") is not None:
            assert gold["model"] in catalog.models, row["id"]
        for gpu in gold.get("gpus") or []:
            assert gpu.get("gpu") is None or gpu["gpu"] in catalog.gpus, row["id"]


def test_every_source_is_in_one_split_and_both_splits_are_large() -> None:
    splits = tomllib.loads(Path(SPLITS).read_text(encoding="utf-8"))["sources"]
    sources = {str(r["source"]) for r in _rows()}
    assert sources <= set(splits) and set(splits.values()) <= {"dev", "test"}
    questions = load()
    for split in ("dev", "test"):
        assert sum(q.split == split for q in questions) >= 100, split
    # Split by source: no source has questions in both.
    assert all(q.split == splits[q.source] for q in questions)


def _shingles(text: str, n: int = 5) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def test_no_question_is_cross_posted_between_the_splits() -> None:
    # The same question posted to two sources (a user asking in two repositories) in both
    # splits: the test copy is no fresh question, its twin tuned on. Ten shared runs of five
    # words is far above the generic overlaps real questions share ('to run llama 2 70b on').
    # Only ids are reported, never a test question's text.
    questions = load()
    dev = [(q.id, _shingles(q.question)) for q in questions if q.split == "dev"]
    test = [(q.id, _shingles(q.question)) for q in questions if q.split == "test"]
    twins = [(t, d) for t, mine in test for d, shingles in dev if len(mine & shingles) >= 10]
    assert twins == []


@pytest.mark.parametrize(
    ("slot", "gold", "read", "equal"),
    [
        ("weights", "4bit", "int4-awq", True),  # a bit width said matches any format of it
        ("weights", "4bit", "q4_k_m", True),
        ("weights", "8bit", "fp8", True),
        ("weights", "4bit", "int8", False),
        ("weights", "3bit", "q3_k_m", True),  # any width said: a GGUF type of that width
        ("weights", "16bit", "bf16", True),
        ("weights", "3bit", "q4_k_m", False),
        ("context", 131_072, 128_000, True),  # within 3 %: '128k' either way
        ("context", 131_072, 32_768, False),
        ("users", 40, 40, True),
        ("budget", {"amount": 3000, "currency": "EUR", "period": "month"},
         {"amount": 3000.0, "currency": "EUR", "period": "month"}, True),
        ("budget", {"amount": 3000, "currency": "EUR", "period": "month"},
         {"amount": 3000.0, "currency": "USD", "period": "month"}, False),
        ("gpus", [{"gpu": "rtx-3090", "count": 2}],
         [{"gpu": "rtx-3090", "count": 2, "memory_gb": None, "variants": []}], True),
        ("gpus", [{"gpu": "rtx-3090", "count": 1}],
         [{"gpu": "rtx-3090", "count": None, "memory_gb": None, "variants": []}], True),
        ("gpus", [{"gpu": "rtx-3090", "count": 2}],
         [{"gpu": "rtx-3090", "count": None, "memory_gb": None, "variants": []}], False),
        ("gpus", [{"gpu": None, "count": 4, "memory_gb": 32}],
         [{"gpu": None, "count": 4, "memory_gb": 32.0, "variants": []}], True),
        # 'my A100': the family read (two variants kept) agrees with the gold's null ...
        ("gpus", [{"gpu": None, "count": 1}],
         [{"gpu": "a100-80gb-sxm4", "count": 1, "memory_gb": None,
           "variants": ["a100-40gb-sxm4", "a100-80gb-sxm4"]}], True),
        # ... one variant sized as if named does not.
        ("gpus", [{"gpu": None, "count": 1}],
         [{"gpu": "a100-80gb-sxm4", "count": 1, "memory_gb": None, "variants": []}], False),
        # '4 * A100 80GB': the family's variants share the 80 GB the gold states.
        ("gpus", [{"gpu": None, "count": 4, "memory_gb": 80}],
         [{"gpu": "a100-80gb-sxm4", "count": 4, "memory_gb": 80.0,
           "variants": ["a100-80gb-pcie", "a100-80gb-sxm4"]}], True),
    ],
)  # fmt: skip
def test_the_scorer_compares_as_the_readme_says(
    slot: str, gold: object, read: object, equal: bool
) -> None:
    assert same(slot, gold, read) is equal


def test_a_verdict_on_a_misread_question_counts_as_a_different_question() -> None:
    # 'How many A10G …' asks a count: read right, the verdict answers it.
    asked = "how many A10Gs for 3000 tokens/s in total with Mistral 7B?"
    right = score(
        Question("x", "s", "https://x", asked,
                 {"asked": "gpu_count", "model": "mistral-7b-v0.3", "tokens_per_s": 3000,
                  "gpus": [{"gpu": "a10g", "count": None}]})
    )  # fmt: skip
    assert right.whole and right.verdict_stated and not right.different_question
    # The same words with a gold that says 300 tokens/s: stated, and misread.
    wrong = score(
        Question("y", "s", "https://x", asked,
                 {"asked": "gpu_count", "model": "mistral-7b-v0.3", "tokens_per_s": 300,
                  "gpus": [{"gpu": "a10g", "count": None}]})
    )  # fmt: skip
    assert wrong.wrong == ["tokens_per_s"] and wrong.different_question


def test_a_training_batch_is_not_read_as_users_a_served_batch_is() -> None:
    # README: `users` is concurrent users or a batch of sequences being served; a training
    # batch has no gold slot, so reading it as users would be a slot the question never said.
    trained, _ = read("Can I fine-tune Llama 2 7B with LoRA on a 4090 with batch size 4?")
    assert "users" not in trained and trained["task"] == "lora"
    served, _ = read("Serve Llama 3.1 8B with a batch size of 32 on an L4")
    assert served["users"] == 32


def test_the_engine_named_is_read_before_the_rule_it_is_sized_by() -> None:
    # SGLang is sized by vLLM's memory rule (assistant/offline/parser/deployment.py), but the
    # question named SGLang: the gold's engine is the one named.
    named, _ = read("Using 2 H100*8 machines to deploy deepseek-R1 with sglang")
    assert named["engine"] == "sglang"


def test_a_tuning_run_reads_the_dev_split_alone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `--dev` (and `--dev-failures`) score no test question at all: the reader never sees one.
    from bench.reading import __main__ as cli
    from bench.reading import score as scoring

    seen: list[str] = []

    def spy(question: scoring.Question) -> scoring.Scored:
        # Which questions are scored is the point, not their scores: no reader run needed.
        seen.append(question.split)
        return scoring.Scored(question=question, right=["asked"])

    monkeypatch.setattr(cli, "score", spy)
    assert cli.main(["--dev"]) == 0
    out = capsys.readouterr().out
    assert seen and set(seen) == {"dev"}
    assert out.startswith("dev ") and "\ntest " not in out
