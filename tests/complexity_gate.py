"""The lint step's complexity gate: no function in tools/ or assistant/ above cyclomatic
complexity 25, counted by radon (`make lint` runs `python -m tests.complexity_gate`).

Radon, not ruff's C901: ruff's McCabe count leaves out boolean operators, conditional
expressions and comprehensions, so it scores `plan_local_serving` 25 where radon scores 60.

`NOT_YET_SPLIT` lists the functions that were above the limit when the gate came in and are
not split yet, each at the complexity it had: one of them growing, any other function passing
the limit, or a listed one that no longer needs its entry fails the gate, so the list only
shrinks.
"""

from __future__ import annotations

import sys
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

MAX_COMPLEXITY = 25
ROOTS = ("tools", "assistant")

NOT_YET_SPLIT: dict[str, int] = {
    "tools/local_serving/plan.py::plan_local_serving": 60,
}
"""Functions over the limit, not split yet, at their complexity when listed (radon's count);
from here each entry only goes down."""


def complexities(repo: Path) -> dict[str, int]:
    """Every function and method under `ROOTS`: 'path::Class.name' → radon's complexity."""
    out: dict[str, int] = {}
    for root in ROOTS:
        for path in sorted((repo / root).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(repo).as_posix()
            for block in cc_visit(path.read_text(encoding="utf-8")):
                if isinstance(block, Function):
                    name = f"{block.classname}.{block.name}" if block.classname else block.name
                    out[f"{rel}::{name}"] = max(block.complexity, out.get(f"{rel}::{name}", 0))
                else:  # a class: its methods
                    for method in block.methods:
                        key = f"{rel}::{block.name}.{method.name}"
                        out[key] = max(method.complexity, out.get(key, 0))
    return out


def problems(found: dict[str, int]) -> list[str]:
    """What breaks the gate (see the module docstring); empty when it passes."""
    out: list[str] = []
    for name, score in sorted(found.items(), key=lambda item: -item[1]):
        if score <= MAX_COMPLEXITY:
            continue
        listed = NOT_YET_SPLIT.get(name)
        if listed is None:
            out.append(
                f"{name}: complexity {score} > {MAX_COMPLEXITY} — split the arithmetic from "
                "the words that explain it"
            )
        elif score > listed:
            out.append(f"{name}: complexity {score}, more than the {listed} it was listed at")
    for name, listed in NOT_YET_SPLIT.items():
        score = found.get(name)
        if score is None or score <= MAX_COMPLEXITY:
            now = "gone" if score is None else f"now {score}"
            out.append(f"{name}: listed at {listed} but {now}; remove it from NOT_YET_SPLIT")
    return out


def main() -> int:
    repo = Path(__file__).resolve().parent.parent
    found = problems(complexities(repo))
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
