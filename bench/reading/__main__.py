"""`python -m bench.reading [--dev-failures]`: slot accuracy, whole-reading accuracy and
'answered a different question' per split; with `--dev-failures`, the dev split's misreadings
(never the test split's: tuning looks at dev only)."""

from __future__ import annotations

import json
import sys

from bench.reading.score import load, score, summary


def main(argv: list[str]) -> int:
    scored = [score(q) for q in load()]
    for split in ("dev", "test"):
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
