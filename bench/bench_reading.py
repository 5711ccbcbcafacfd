"""The reader against the reading corpus (bench/reading): per split, slot accuracy, whole-reading
accuracy and how many answers stated a verdict for a question read differently."""

from __future__ import annotations

from typing import Any

from bench.reading.score import load, score, summary


def run() -> dict[str, Any]:
    scored = [score(q) for q in load()]
    splits = {
        split: summary(s for s in scored if s.question.split == split) for split in ("dev", "test")
    }
    measurements: dict[str, Any] = {}
    for split, figures in splits.items():
        measurements[f"reading {split}: questions (sources)"] = (
            f"{figures['questions']} ({figures['sources']})"
        )
        measurements[f"reading {split}: slot accuracy %"] = round(100 * figures["slot_accuracy"], 1)
        measurements[f"reading {split}: whole reading %"] = round(100 * figures["whole_reading"], 1)
        measurements[f"reading {split}: verdicts stated"] = figures["verdicts_stated"]
        measurements[f"reading {split}: answered a different question"] = figures[
            "different_question"
        ]
    return {"measurements": measurements, "reading": splits}
