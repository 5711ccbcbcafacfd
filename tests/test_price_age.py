"""Price ages on an injected clock, the fresher-row rule, and the accelerator-name table."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from assistant.prices.gpu_names import (
    AMBIGUOUS,
    MEMORY_MISMATCH,
    NOT_IN_CATALOG,
    RULES,
    UNKNOWN,
    map_accelerator,
)
from tools.catalog import get_catalog
from tools.cost import PriceFilter, ServingCostInput, compare_costs
from tools.pricing import (
    PriceEntry,
    as_of_instant,
    builtin_price_book,
    format_age,
    price_age,
    region_codes,
    same_offer,
    supersede_older,
)

CLOCK = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)


def _catalog_row(row_id: str) -> PriceEntry:
    return next(p for p in builtin_price_book().prices if p.id == row_id)


@pytest.mark.parametrize(
    ("as_of", "expected"),
    [
        # 2026-09-19 00:00 UTC → 2026-12-02 10:00 UTC: 11 + 31 + 30 + 2 = 74 days and 10 h.
        ("2026-09-19", "74 days old"),
        ("2026-12-02T07:00:00Z", "3 h old"),
        ("2026-12-02T09:30:00Z", "under 1 h old"),
        ("2026-11-30T10:01:00Z", "47 h old"),  # 47 h 59 min: whole units, rounded down
        ("2026-11-30T10:00:00Z", "2 days old"),
        ("2026-12-02T12:00:00+02:00", "under 1 h old"),  # 10:00 UTC: the offset is applied
        ("2026-12-02T04:00:00-03:00", "3 h old"),  # 07:00 UTC
        ("2026-07 (third-party snapshot)", "154 days old"),  # a month reads as its 1st
        ("undated copy", "undated"),
        ("2026-12-03T00:00:00Z", "under 1 h old"),  # stamped after the clock: never negative
    ],
)
def test_ages_as_people_read_them(as_of: str, expected: str) -> None:
    assert format_age(price_age(as_of, CLOCK)) == expected


def test_a_date_clock_is_its_midnight_and_instants_are_utc() -> None:
    assert price_age("2026-12-01", date(2026, 12, 2)) == timedelta(days=1)
    assert as_of_instant("2026-12-14T05:31:07Z") == datetime(2026, 12, 14, 5, 31, 7, tzinfo=UTC)
    assert as_of_instant("2026-09-19") == datetime(2026, 9, 19, tzinfo=UTC)
    assert as_of_instant("undated") is None


def test_every_cost_row_carries_its_age_on_the_callers_clock() -> None:
    option = [ServingCostInput(gpu="h100-sxm", count=8)]
    result = compare_costs(option, builtin_price_book(), PriceFilter(), freshness=(CLOCK, 180))
    p5 = next(r for r in result.rows if r.price_id == "aws-p5-48xlarge-h100-sxm-on-demand")
    # Counted by hand from the row's own date (a re-dated catalog row keeps this true): a date
    # alone is 00:00 UTC, the clock is 10:00 UTC, so whole days plus 10 hours.
    dated = date.fromisoformat(p5.as_of[:10])
    days = (CLOCK.date() - dated).days
    assert (p5.age, p5.stale) == (f"{days} days old", days > 180)
    assert p5.age_hours == pytest.approx(days * 24 + 10)
    assert p5.as_of_time == datetime(dated.year, dated.month, dated.day, tzinfo=UTC)
    # The same rows without a clock carry no age (nothing to count it to).
    bare = compare_costs(option, builtin_price_book(), PriceFilter())
    assert all(r.age is None and r.age_hours is None for r in bare.rows)
    # Every row has an age, undated ones say so.
    assert all(r.age for r in result.rows)


def test_region_codes_read_the_catalogs_wording() -> None:
    assert region_codes("us-east-1 (identical in us-east-2/us-west-2 per source)") == {
        "us-east-1",
        "us-east-2",
        "us-west-2",
    }
    assert region_codes("eu-west-3 Paris") == {"eu-west-3"}
    assert region_codes(None) == frozenset()


def test_a_fresher_row_of_the_same_offer_supersedes_the_older_one() -> None:
    old = _catalog_row("aws-p5-48xlarge-h100-sxm-on-demand")  # us-east-1, -east-2, -west-2
    newer = old.model_copy(
        update={
            "id": "refreshed-p5",
            "region": "us-east-1, us-east-2, us-west-2, ca-central-1",
            "as_of": "2026-12-14T05:31:07Z",
            "price_per_instance_hour": 60.0,
            "price_per_gpu_hour": 7.5,
        }
    )
    assert same_offer(newer, old)
    (marked,) = supersede_older([newer], [old])
    assert marked.superseded and "refreshed-p5" in marked.superseded
    # Not the same offer: another tier, another instance, a region the newer row lacks.
    assert not same_offer(newer.model_copy(update={"tier": "spot"}), old)
    assert not same_offer(newer.model_copy(update={"instance": "p5e.48xlarge"}), old)
    assert not same_offer(newer.model_copy(update={"region": "us-east-1"}), old)
    # An older refreshed row supersedes nothing; an undated row is older than any dated one.
    stale = newer.model_copy(update={"as_of": "2026-01-01"})
    assert supersede_older([stale], [old]) == [old]
    undated = old.model_copy(update={"as_of": "undated"})
    assert supersede_older([stale], [undated])[0].superseded


# --- provider accelerator names ----------------------------------------------------------


def test_every_rule_maps_to_a_catalog_gpu_and_no_two_rules_overlap() -> None:
    gpus = get_catalog().gpus
    assert all(rule.gpu in gpus for rule in RULES)
    seen: dict[tuple[str, str, str], str] = {}
    for rule in RULES:
        for instance in rule.instances or ("*",):
            key = (rule.cloud, rule.accelerator, instance)
            assert key not in seen, f"{key} maps twice"
            seen[key] = rule.gpu
    # A name with an instance-wide rule cannot also have instance-specific ones.
    for cloud, accelerator, instance in seen:
        if instance == "*":
            assert not any(k[:2] == (cloud, accelerator) and k[2] != "*" for k in seen)


@pytest.mark.parametrize(
    ("cloud", "accelerator", "instance", "memory_mib", "gpu", "why"),
    [
        ("aws", "A100", "p4d.24xlarge", 40960, "a100-40gb-sxm4", None),
        ("aws", "A100-80GB", "p4de.24xlarge", 81920, "a100-80gb-sxm4", None),
        ("aws", "H100", "p5.48xlarge", 81920, "h100-sxm", None),
        ("lambda", "H100", "gpu_1x_h100_pcie", 81920, "h100-pcie", None),
        ("lambda", "H100", "gpu_8x_h100_sxm5", 81920, "h100-sxm", None),
        ("lambda", "A100", "gpu_8x_a100", 40960, None, AMBIGUOUS),
        ("lambda", "H100", "gpu_1x_h100_nvl", 95830, None, AMBIGUOUS),
        ("aws", "T4", "g4dn.xlarge", 15360, "t4", None),
        ("aws", "T4g", "g5g.xlarge", 15360, None, UNKNOWN),
        ("azure", "H100", "Standard_ND96isr_H100_v5", 81920, None, UNKNOWN),
        # AWS's "A100" with 80 GB stated would be a wrong rule: refused, not guessed.
        ("aws", "A100", "p4de.24xlarge", 81920, None, MEMORY_MISMATCH),
        ("aws", "A100", "p4d.24xlarge", None, "a100-40gb-sxm4", None),  # no memory stated
    ],
)
def test_accelerator_names_map_only_by_the_table(
    cloud: str,
    accelerator: str,
    instance: str,
    memory_mib: int | None,
    gpu: str | None,
    why: str | None,
) -> None:
    mapped = map_accelerator(cloud, accelerator, instance, get_catalog().gpus, memory_mib)
    assert mapped.gpu == gpu
    if why is not None:
        assert mapped.why == why


def test_a_rule_whose_gpu_left_the_catalog_maps_nothing() -> None:
    gpus = {k: v for k, v in get_catalog().gpus.items() if k != "h100-sxm"}
    assert map_accelerator("aws", "H100", "p5.48xlarge", gpus).why == NOT_IN_CATALOG


async def test_answers_and_proposals_show_each_prices_age(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from assistant.proposal import render_proposal
    from tests.offline_turns import answer, costs, sizing

    monkeypatch.setenv("GPU_SIZER_NOW", "2026-12-02T10:00:00Z")
    text, conversation = await answer("serve Llama 3.1 8B to 20 users on H100, what does it cost?")
    cost = costs(conversation)
    # Each row's age counted by hand from its own date to 2026-12-02 (the pinned clock).
    dated = [r for r in cost.rows if len(r.as_of) == 10 and r.as_of.count("-") == 2]
    assert dated
    for row in dated:
        days = (date(2026, 12, 2) - date.fromisoformat(row.as_of)).days
        if days >= 2:
            assert row.age == f"{days} days old"
    assert any("older than 180 days on 2026-12-02" in a for a in cost.assumptions)
    # The sizing report's quoted prices carry the same ages, and the answer shows them.
    assert all(p.age and p.age.endswith("old") for p in sizing(conversation).priced)
    assert "days old" in text
    proposal = render_proposal(conversation, "md")
    assert "days old when priced" in proposal
