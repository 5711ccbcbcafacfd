"""`python -m bench.reading [--dev | --dev-failures]`: slot accuracy, whole-reading accuracy and
'answered a different question' per split; with `--dev`, the dev split alone (the test
questions are not even read: what a tuning run uses, so the test totals stay out of sight while
rules are written); with `--dev-failures`, that and the dev split's misreadings (never the test
split's: tuning looks at dev only). `make bench` reports both splits."""

from __future__ import annotations

import json
import sys

from bench.reading.score import load, score, summary


def main(argv: list[str]) -> int:
    dev_only = "--dev" in argv or "--dev-failures" in argv
    splits = ("dev",) if dev_only else ("dev", "test")
    scored = [score(q) for q in load() if q.split in splits]
    for split in splits:
        rows = [s for s in scored if s.question.split == split]
        print(split, json.dumps(summary(rows), indent=1))
    if "--dev-failures" in argv:
        for s in scored:
            if s.question.split != "dev" or s.whole:
                continue
            flag = " DIFFERENT QUESTION" if s.different_question else ""
            print(f"\n{s.question.id}{flag}: {s.question.question[:300]}")
            gold = {k: s.question.gold.get(k) for k in (*s.wrong, *s.extra)}
            print("  gold:", json.dumps(gold, ensure_ascii=False))
            print("  read:", json.dumps({k: s.read.get(k) for k in (*s.wrong, *s.extra)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
