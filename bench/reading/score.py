"""The reader against the hand-written gold readings of the corpus (README.md in this folder).

`read(question)` runs the built-in reader and returns what it read in the gold's terms; `score`
compares one question slot by slot. Three figures per split:

- **slot accuracy**: of the gold's scored slots, the share read with the gold's value, and of
  the slots the reader set that the gold leaves out (a value read where none was said);
- **whole reading**: every scored slot right and nothing read that was not said;
- **answered a different question**: the reader would state a verdict (the engine sizes it: no
  question asked back, nothing unread that matters, not out of scope) while a verdict-changing
  slot is read differently from the gold — the failure the coverage gate exists to prevent.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls, scope_only
from assistant.reading.of_parsed import reading_of
from assistant.reading.parsed import ParsedWorkload
from tools.catalog import get_catalog
from tools.units import GB

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
SPLITS = HERE / "splits.toml"

SCORED = (
    "asked", "model", "params_b", "weights", "task", "gpus", "users", "tokens_per_s",
    "tokens_per_s_per_user", "ttft_s", "context", "prompt_tokens", "output_tokens", "budget",
    "engine", "system_ram_gb", "region", "train_tokens", "requests_per_s",
)  # fmt: skip
"""Gold slots the benchmark scores (`owned`, `model_words`, `unanswerable`, `train_examples`
and `epochs` are kept in the corpus for later readers, not scored here)."""

VERDICT_CHANGING = (
    "asked", "model", "params_b", "weights", "task", "gpus", "users", "tokens_per_s",
    "context", "prompt_tokens", "output_tokens", "budget", "train_tokens", "requests_per_s",
)  # fmt: skip
"""Slots whose misreading changes the verdict (or what the answer leads with)."""

_FOUR_BIT = {"int4-awq", "int4-gptq", "nf4", "nf4-dq", "mxfp4", "4bit"}
_EIGHT_BIT = {"int8", "fp8", "q8_0", "8bit"}
_ENGINES = {"ollama": "ollama", "llama-server": "llama.cpp"}


@dataclass
class Question:
    """One corpus question and its gold reading."""

    id: str
    source: str
    url: str
    question: str
    gold: dict[str, Any]
    split: str = ""


@dataclass
class Scored:
    """One question scored: slots right / wrong / read but not said, and the verdict check."""

    question: Question
    right: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    verdict_stated: bool = False
    read: dict[str, Any] = field(default_factory=dict)

    @property
    def whole(self) -> bool:
        return not self.wrong and not self.extra

    @property
    def different_question(self) -> bool:
        """A verdict stated while a verdict-changing slot is misread or read unsaid."""
        missed = [s for s in (*self.wrong, *self.extra) if s in VERDICT_CHANGING]
        return self.verdict_stated and bool(missed)


def load(corpus: Path = CORPUS, splits: Path = SPLITS) -> list[Question]:
    """Every corpus question with its split (a source not in splits.toml is an error)."""
    assigned = tomllib.loads(splits.read_text(encoding="utf-8"))["sources"]
    out: list[Question] = []
    for path in sorted(corpus.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            split = assigned.get(row["source"])
            if split not in ("dev", "test"):
                raise ValueError(f"{row['id']}: source {row['source']!r} has no split")
            out.append(
                Question(row["id"], row["source"], row["url"], row["question"], row["gold"], split)
            )
    return out


def _gpus(p: ParsedWorkload) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    catalog = get_catalog()
    for m in p.gpus:
        memory = None if m.memory_bytes is None else m.memory_bytes / GB
        if memory is None and len(m.variants) > 1:
            # A family read ('A100'): the memory its variants share, if they all have one.
            sizes = {catalog.gpus[v].memory_bytes for v in m.variants if v in catalog.gpus}
            memory = sizes.pop() / GB if len(sizes) == 1 else None
        out.append({"gpu": m.gpu, "count": m.count, "memory_gb": memory, "variants": m.variants})
    # A GPU name the catalog lacks, said without its memory ('an Nvidia tesla P40'): read as a
    # GPU, not sized, and asked about (which catalog GPU to size on) — the gold's null GPU.
    out += [
        {"gpu": None, "count": None, "memory_gb": None, "variants": []}
        for q in p.questions
        if q.slot == "gpu" and q.why == "unknown"
    ]
    if not out and (p.gpu_count is not None or p.gpu_memory_bytes is not None):
        memory = None if p.gpu_memory_bytes is None else p.gpu_memory_bytes / GB
        out.append({"gpu": None, "count": p.gpu_count, "memory_gb": memory, "variants": []})
    return out


def read(question: str) -> tuple[dict[str, Any], bool]:
    """What the reader read, in the gold's terms, and whether the engine would state a
    verdict for it."""
    p = parse_workload(question)
    reading = reading_of(p)
    asked = "memory" if reading.asked == "kv_cache" else reading.asked  # the gold's 'memory'
    out: dict[str, Any] = {"asked": "out_of_scope" if scope_only(p) else asked}
    if p.stand_in_for is not None:
        # A version the catalog lacks, sized in place by its sibling: the model named is not
        # a catalog model (the gold's null), its size is the one said.
        size = re.search(r"(\d+(?:\.\d+)?)\s?b\b", p.stand_in_for, re.I)
        if size is not None:
            out["params_b"] = float(size.group(1))
    elif p.model is not None and "/" not in p.model:
        out["model"] = p.model
    if p.params is not None:
        out["params_b"] = p.params / 1e9
    if p.weights is not None and "weights" not in p.assumed:  # an assumed default is not read
        out["weights"] = p.weights
    task = "pretrain" if p.use == "pre-train" else p.task
    if task is not None and "task" not in p.assumed:  # an assumed default is not read
        out["task"] = task
    gpus = _gpus(p)
    if gpus:
        out["gpus"] = gpus
    for name in ("users", "tokens_per_s", "tokens_per_s_per_user", "ttft_s", "context"):
        if getattr(p, name) is not None:
            out[name] = getattr(p, name)
    if p.batch is not None and "users" not in out and task in (None, "inference"):
        # A batch served is the gold's `users`; a training batch has no gold slot (README).
        out["users"] = p.batch
    for name in ("prompt_tokens", "output_tokens", "region", "train_tokens", "requests_per_s"):
        if getattr(p, name) is not None:
            out[name] = getattr(p, name)
    if p.budget_amount is not None:
        out["budget"] = {
            "amount": p.budget_amount,
            "currency": p.budget_currency,
            "period": p.budget_period or "total",
        }
    # The engine named (SGLang, TensorRT-LLM) before the sizing rule it is sized by (vLLM's).
    engine = (
        _ENGINES.get(p.launcher or "")
        or p.serve_engine
        or p.engine_named
        or p.local_app  # 'mlx', 'LM Studio': the Mac's or the desktop's app, read as such
        or (p.engine if p.engine != "generic" else None)
    )
    if engine is not None:
        out["engine"] = engine
    if p.system_ram_bytes is not None:
        out["system_ram_gb"] = p.system_ram_bytes / GB
    stated = bool(plan_tool_calls(p)) and reading.verdict_stands and not scope_only(p)
    return out, stated


def _close(a: float, b: float, rel: float = 0.03) -> bool:
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=1e-9)


def _bits(fmt: str) -> int | None:
    """A format's bit width per weight as its name says it (GGUF types by their digit)."""
    if fmt in _FOUR_BIT:
        return 4
    if fmt in _EIGHT_BIT:
        return 8
    if fmt in ("bf16", "fp16"):
        return 16
    if fmt == "fp32":
        return 32
    # An EXL2 rate of whole bits ('5.0bit exl2'), whatever its head bits ('-h8').
    exl2 = re.fullmatch(r"exl2-(\d)\.0bpw(?:-h\d)?", fmt)
    if exl2:
        return int(exl2.group(1))
    gguf = re.match(r"i?q(\d)", fmt)
    return int(gguf.group(1)) if gguf else None


def _same_weights(gold: str, read: str) -> bool:
    if gold == read:
        return True
    width = re.fullmatch(r"(\d+)bit", gold)
    # Only the bit width said ('4bit', '3bit', '16bit'): any format of that width matches.
    return width is not None and _bits(read) == int(width.group(1))


def _same_gpus(gold: list[dict[str, Any]], read: list[dict[str, Any]]) -> bool:
    if len(gold) != len(read):
        return False
    for g, r in zip(gold, read, strict=True):
        if g.get("gpu") is not None and g["gpu"] != r["gpu"] and g["gpu"] not in r["variants"]:
            return False
        # A family named without its variant ('my A100'): the gold has no catalog id, and a
        # reader that read the family (every variant, none chosen) read what was said.
        family = len(r["variants"]) > 1
        if g.get("gpu") is None and r["gpu"] is not None and not family:
            return False
        # A card named without a count is sized as one: the gold's 1 and no count read agree.
        if g.get("count") != r["count"] and {g.get("count"), r["count"]} != {1, None}:
            return False
        memory = g.get("memory_gb")
        stated = g.get("gpu") is None and memory is not None
        if stated and (r["memory_gb"] is None or not _close(memory, r["memory_gb"], 0.08)):
            return False
    return True


def same(slot: str, gold: Any, read: Any) -> bool:
    """Whether the reader's value of `slot` is the gold's."""
    if slot == "weights":
        return _same_weights(str(gold), str(read))
    if slot == "gpus":
        return _same_gpus(list(gold), list(read))
    if slot == "task" and gold == "inference":
        return read in ("inference", None)
    if slot == "budget":
        return (
            _close(gold["amount"], read["amount"])
            and gold.get("currency", "USD") == read["currency"]
            and gold.get("period", "total") == read["period"]
        )
    if isinstance(gold, int | float) and isinstance(read, int | float):
        return _close(gold, read)
    return bool(gold == read)


def score(question: Question) -> Scored:
    """One question scored against its gold reading."""
    read_, stated = read(question.question)
    result = Scored(question, verdict_stated=stated, read=read_)
    gold = {k: v for k, v in question.gold.items() if k in SCORED and v not in (None, [], {})}
    gold.setdefault("asked", "hardware")
    # A task not read is inference, the tools' default: the same sizing as 'inference' said.
    read_.setdefault("task", "inference")
    for slot, value in gold.items():
        ok = slot in read_ and same(slot, value, read_[slot])
        (result.right if ok else result.wrong).append(slot)
    for slot, value in read_.items():
        if slot not in gold and slot in SCORED and not (slot == "task" and value == "inference"):
            result.extra.append(slot)
    return result


def summary(scored: Iterable[Scored]) -> dict[str, Any]:
    """Slot accuracy, whole-reading accuracy and different-question count of `scored`."""
    rows = list(scored)
    slots = sum(len(r.right) + len(r.wrong) for r in rows)
    right = sum(len(r.right) for r in rows)
    extra = sum(len(r.extra) for r in rows)
    per_slot: dict[str, list[int]] = {}
    for r in rows:
        for s in r.right:
            per_slot.setdefault(s, [0, 0])[0] += 1
        for s in (*r.right, *r.wrong):
            per_slot.setdefault(s, [0, 0])[1] += 1
    return {
        "questions": len(rows),
        "sources": len({r.question.source for r in rows}),
        "slot_accuracy": right / slots if slots else 0.0,
        "slots_scored": slots,
        "read_but_not_said": extra,
        "whole_reading": sum(r.whole for r in rows) / len(rows) if rows else 0.0,
        "verdicts_stated": sum(r.verdict_stated for r in rows),
        "different_question": sum(r.different_question for r in rows),
        "per_slot": {s: round(a / n, 3) for s, (a, n) in sorted(per_slot.items())},
    }
