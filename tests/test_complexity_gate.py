"""The complexity gate of the lint step counts as radon does and only lets its list shrink."""

from __future__ import annotations

from radon.complexity import cc_visit

from tests.complexity_gate import MAX_COMPLEXITY, NOT_YET_SPLIT, problems

# By hand: 1 for the function, +1 for each `if`, `elif`, `for`, boolean operator and
# conditional expression (radon's rules; ruff's C901 leaves the last two out): 1 + 5 = 6.
SOURCE = """
def f(a, b, xs):
    if a and b:
        return 1
    elif a:
        return 2
    for x in xs:
        a = x if x else a
    return a
"""


def test_the_count_is_radons() -> None:
    (block,) = cc_visit(SOURCE)
    assert block.complexity == 6


def test_a_new_function_over_the_limit_fails() -> None:
    assert problems({"tools/new.py::f": MAX_COMPLEXITY}) == [
        f"{name}: listed at {score} but gone; remove it from NOT_YET_SPLIT"
        for name, score in NOT_YET_SPLIT.items()
    ]
    found = dict(NOT_YET_SPLIT)
    assert problems(found) == []
    assert problems({**found, "tools/new.py::f": MAX_COMPLEXITY + 1})[0].startswith(
        "tools/new.py::f: complexity 26 > 25"
    )


def test_a_listed_function_may_only_shrink() -> None:
    found = dict(NOT_YET_SPLIT)
    name, score = next(iter(found.items()))
    assert problems({**found, name: score + 1}) == [
        f"{name}: complexity {score + 1}, more than the {score} it was listed at"
    ]
    assert problems({**found, name: MAX_COMPLEXITY}) == [
        f"{name}: listed at {score} but now {MAX_COMPLEXITY}; remove it from NOT_YET_SPLIT"
    ]
