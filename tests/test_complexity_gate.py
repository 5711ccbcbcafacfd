"""The complexity gate of the lint step counts as radon does and lets no function pass 25."""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit

from tests.complexity_gate import MAX_COMPLEXITY, complexities, problems

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


def test_a_function_over_the_limit_fails_and_one_at_it_passes() -> None:
    assert MAX_COMPLEXITY == 25
    assert problems({"tools/new.py::f": 25, "tools/old.py::g": 3}) == []
    assert problems({"tools/new.py::f": 26, "tools/old.py::g": 30}) == [
        "tools/old.py::g: complexity 30 > 25 — split the arithmetic from the words that explain it",
        "tools/new.py::f: complexity 26 > 25 — split the arithmetic from the words that explain it",
    ]


def test_methods_are_counted_under_their_class(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "assistant").mkdir()
    (tmp_path / "tools" / "m.py").write_text(
        "class C:\n    def g(self, a):\n        return 1 if a else 2\n", encoding="utf-8"
    )
    (tmp_path / "assistant" / "n.py").write_text(SOURCE, encoding="utf-8")
    assert complexities(tmp_path) == {"tools/m.py::C.g": 2, "assistant/n.py::f": 6}
