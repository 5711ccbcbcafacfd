"""The lint step's complexity gate: no function in tools/ or assistant/ above cyclomatic
complexity 25, counted by radon (`make lint` runs `python -m tests.complexity_gate`).

Radon, not ruff's C901: ruff's McCabe count leaves out boolean operators, conditional
expressions and comprehensions, so it scored `plan_local_serving` 25 where radon scored 60.

There are no exceptions: the functions that were above the limit when the gate came in
(issue #32 point 7) are split into the arithmetic, the decision and the words that explain
it. A function that passes the limit fails the gate; split it along the same seams.
"""

from __future__ import annotations

import sys
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

MAX_COMPLEXITY = 25
ROOTS = ("tools", "assistant")


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
    """Each function of `found` over `MAX_COMPLEXITY`, most complex first; empty when the gate
    passes."""
    return [
        f"{name}: complexity {score} > {MAX_COMPLEXITY} — split the arithmetic from the words "
        "that explain it"
        for name, score in sorted(found.items(), key=lambda item: -item[1])
        if score > MAX_COMPLEXITY
    ]


def main() -> int:
    repo = Path(__file__).resolve().parent.parent
    found = problems(complexities(repo))
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
