"""Price catalog: built-in data against the published figures, user overrides, staleness."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from tools.catalog import CatalogError, get_catalog
from tools.pricing import (
    PriceEntry,
    builtin_price_book,
    load_price_book,
    parse_as_of,
    price_age_days,
    staleness_warning,
)

VALID_USER_ENTRY = """
[[price]]
id = "acme-h100-negotiated"
provider = "Acme GPU"
gpu = "h100-sxm"
gpu_label = "H100 SXM"
gpus_per_instance = 8
tier = "reserved"
pricing_type = "negotiated 1-year contract"
price_per_instance_hour = 16.0
price_per_gpu_hour = 2.0
currency = "USD"
region = "eu-central-1"
eu = true
as_of = "2026-09-01"
source = "our contract with Acme, signed 2026-09-01"
"""


def _by_id(entry_id: str) -> PriceEntry:
    return next(p for p in builtin_price_book().prices if p.id == entry_id)


def test_aws_p5_matches_the_published_price_sheet() -> None:
    # AWS p5.48xlarge on-demand, us-east-1: $55.04 per instance-hour for 8× H100 = $6.88/GPU-h
    # (AWS price-sheet API via the research doc dated 2026-09-19; price cut of June 2025).
    p5 = _by_id("aws-p5-48xlarge-h100-sxm-on-demand")
    assert (p5.price_per_instance_hour, p5.gpus_per_instance, p5.price_per_gpu_hour) == (
        55.04,
        8,
        6.88,
    )
    assert (p5.gpu, p5.tier, p5.currency, p5.eu, p5.as_of) == (
        "h100-sxm",
        "on_demand",
        "USD",
        False,
        "2026-09-19",
    )


def test_lyceum_rates_cite_lyceums_article() -> None:
    # Lyceum's article "The Structural Divide: Why Training and Inference Demand Different
    # Hardware" states H100 $2.79 and B200 $6.59 per GPU-hour (shared/research/README.md).
    rows = {p.gpu: p for p in builtin_price_book().prices if p.provider == "Lyceum"}
    assert rows["h100-sxm"].price_per_gpu_hour == 2.79
    assert rows["b200-hgx"].price_per_gpu_hour == 6.59
    assert all("The Structural Divide" in p.source for p in rows.values())


def test_eur_prices_stay_eur() -> None:
    # Scaleway publishes EUR excl. VAT: H100-SXM-8-80G EUR 25.3308/h (fr-par-2, 2026-09-26).
    row = _by_id("scaleway-h100-sxm-8-80g-on-demand")
    assert (row.currency, row.price_per_instance_hour, row.eu) == ("EUR", 25.3308, True)


def test_every_price_is_sourced_mapped_or_explained() -> None:
    catalog = get_catalog()
    book = builtin_price_book()
    for p in book.prices:
        assert p.source and p.as_of
        assert p.gpu in catalog.gpus or (p.gpu is None and p.gpu_mapping), p.id
    assert {"on_demand", "spot", "reserved", "commitment", "serverless", "marketplace"} == {
        p.tier for p in book.prices
    }


def test_api_prices_map_to_catalog_models() -> None:
    # Together AI Llama-3.1-70B-Instruct-Turbo: $0.88 / $0.88 per million tokens
    # (pydantic/genai-prices together.yml, checked 2025-07-03).
    book = builtin_price_book()
    together = next(
        a for a in book.api_prices if a.id.startswith("together-ai") and "3-1-70b" in a.id
    )
    assert (together.model_id, together.input_per_mtok, together.output_per_mtok) == (
        "llama-3.1-70b",
        0.88,
        0.88,
    )
    # Llama 3.3 70B is a catalog model of its own (the 2026-12 pass): its hosted rows are that
    # model, and comparable to our llama-3.1-70b (same architecture), never the same as it.
    llama33 = [a for a in book.api_prices if a.model_family == "Llama-3.3-70B"]
    assert llama33 and all(
        a.model_id == "llama-3.3-70b" and a.comparable_model_id == "llama-3.1-70b" for a in llama33
    )


def test_user_file_overrides_and_adds(tmp_path: Path) -> None:
    user = tmp_path / "prices.toml"
    override = VALID_USER_ENTRY.replace(
        "acme-h100-negotiated", "aws-p5-48xlarge-h100-sxm-on-demand"
    )
    user.write_text(VALID_USER_ENTRY + override, encoding="utf-8")
    book = load_price_book(user)
    ids = [p.id for p in book.prices]
    assert "acme-h100-negotiated" in ids
    assert ids.count("aws-p5-48xlarge-h100-sxm-on-demand") == 1
    replaced = next(p for p in book.prices if p.id == "aws-p5-48xlarge-h100-sxm-on-demand")
    assert replaced.price_per_gpu_hour == 2.0
    assert book.user_file == str(user)
    assert len(book.prices) == len(builtin_price_book().prices) + 1


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (("price_per_gpu_hour = 2.0\n", ""), "price_per_gpu_hour"),  # missing
        (('tier = "reserved"', 'tier = "cheap"'), "tier"),  # not an allowed tier
        (('currency = "USD"', 'currency = "GBP"'), "currency"),
        (('gpu = "h100-sxm"', 'gpu = "h100-sxn"'), "gpu"),  # not in the GPU catalog
        (("price_per_gpu_hour = 2.0", "price_per_gpu_hour = 3.0"), "__root__"),  # 16/8 != 3
    ],
)
def test_invalid_user_file_names_file_entry_field(
    tmp_path: Path, edit: tuple[str, str], field: str
) -> None:
    user = tmp_path / "prices.toml"
    user.write_text(VALID_USER_ENTRY.replace(*edit), encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        load_price_book(user)
    assert err.value.file == user
    assert err.value.entry == "acme-h100-negotiated"
    if field != "__root__":
        assert err.value.field == field
    assert str(user) in str(err.value)
    # The built-in catalog keeps working.
    assert load_price_book().prices == builtin_price_book().prices
    assert len(load_price_book().prices) > 300


def test_user_file_bad_toml_and_missing(tmp_path: Path) -> None:
    bad = tmp_path / "prices.toml"
    bad.write_text("[[price]\nid = ", encoding="utf-8")
    with pytest.raises(CatalogError, match="invalid TOML"):
        load_price_book(bad)
    with pytest.raises(CatalogError, match="not found"):
        load_price_book(tmp_path / "absent.toml")


def test_as_of_parsing_and_staleness() -> None:
    assert parse_as_of("2026-09-19") == date(2026, 9, 19)
    assert parse_as_of("2026-07 (third-party snapshot)") == date(2026, 7, 1)
    assert parse_as_of("undated copy") is None
    # 2026-09-19 → 2027-06-01: 11 (to Sep 30) + Oct 31 + Nov 30 + Dec 31 + Jan 31 + Feb 28
    # + Mar 31 + Apr 30 + May 31 + 1 (to Jun 1) = 255 days.
    assert price_age_days("2026-09-19", date(2027, 6, 1)) == 255
    p5 = _by_id("aws-p5-48xlarge-h100-sxm-on-demand")
    assert staleness_warning(p5, date(2026, 10, 1)) is None
    warning = staleness_warning(p5, date(2027, 6, 1))
    assert warning is not None and "255 days" in warning
    assert staleness_warning(p5, date(2027, 6, 1), max_age_days=300) is None
    undated = next(p for p in builtin_price_book().prices if p.as_of == "undated copy")
    assert "undated" in (staleness_warning(undated, date(2026, 10, 1)) or "")


def test_freshness_uses_the_staleness_limit_and_reads_undated_as_stale() -> None:
    from tools.pricing import hosts_group, is_fresh

    rows = {p.id: p for p in builtin_price_book().prices}
    # RunPod Secure Cloud L40S, as_of 2026-09-13: 180 days later is 2027-03-12 (fresh), 181
    # days later 2027-03-13 is past the 180-day limit.
    runpod = rows["runpod-secure-cloud-pod-l40s-on-demand"]
    assert runpod.as_of == "2026-09-13"
    assert is_fresh(runpod, date(2027, 3, 12)) and not is_fresh(runpod, date(2027, 3, 13))
    # AWS g5.12xlarge is 'undated' in the catalog: never fresh.
    g5 = rows["aws-g5-12xlarge-a10g-on-demand"]
    assert g5.as_of == "undated" and not is_fresh(g5, date(2026, 10, 1))
    # g5.12xlarge holds 4 A10G: a TP-4 group fits, a TP-8 group does not.
    assert g5.gpus_per_instance == 4
    assert hosts_group(g5, 4) and not hosts_group(g5, 8)


def test_every_price_source_is_readable() -> None:
    # A source is what a reader follows to check a price: no empty "()" where an address was
    # lost (the research pass lost some; the catalog says so in words instead).
    book = builtin_price_book()
    assert all(p.source and "()" not in p.source for p in book.prices)
    assert all(a.source and "()" not in a.source for a in book.api_prices)


def test_a_user_price_file_over_the_cap_is_refused_not_read(tmp_path: Path) -> None:
    from tools.pricing import MAX_PRICE_FILE_BYTES, load_price_book

    # 16 MiB + 1 byte (sparse: nothing is written): refused with the file named, and the
    # read stops at the cap instead of loading all of it.
    big = tmp_path / "prices.toml"
    with big.open("wb") as handle:
        handle.truncate(16 * 2**20 + 1)
    assert MAX_PRICE_FILE_BYTES == 16 * 2**20
    with pytest.raises(CatalogError) as info:
        load_price_book(big)
    assert str(big) in str(info.value) and "larger than 16,777,216 bytes" in str(info.value)
    # A file under the cap is read (no tables here: the built-in rows stay).
    with big.open("wb") as handle:
        handle.write(b"# my prices\n")
    assert load_price_book(big).prices
