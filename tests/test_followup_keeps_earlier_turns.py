"""A follow-up that changes a slot ('with one more card', 'double the cards', 'half the users')
changes this turn's reading only: the earlier turns' readings — which their answers, the
session file and a proposal keep — stay as they were read. The merge used to hand the earlier
turn's GPU mentions to the new reading, so 'with one more card' made the first turn's '2 L40S'
read 3."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload


@pytest.mark.parametrize(
    ("change", "count"),
    [
        ("and with one more card?", 3),  # 2 + 1
        ("double the cards", 4),  # 2 × 2
        ("what about 4 of them?", 4),
    ],
)
def test_a_count_change_leaves_the_earlier_turns_reading_alone(change: str, count: int) -> None:
    first = parse_workload("serve Llama 3.3 70B in 4-bit to 40 users on 2 L40S with 16k context")
    second = parse_workload("what about 8-bit?", first)
    third = parse_workload(change, second)
    assert [m.count for m in third.gpus] == [count], third.gpus
    assert [m.count for m in first.gpus] == [2]
    assert [m.count for m in second.gpus] == [2]
    assert (first.weights, second.weights, third.weights) == ("int4-awq", "int8", "int8")


def test_a_users_change_leaves_the_earlier_turn_alone() -> None:
    first = parse_workload("Llama 3.1 8B on one L4 for 20 users")
    second = parse_workload("half the users", first)
    assert (first.users, second.users) == (20, 10)
    assert first.gpus[0] is not second.gpus[0]
