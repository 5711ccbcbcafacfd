"""`gpu-sizer prices refresh` against recorded SkyPilot responses (tests/data/prices/README.md):
the rows it writes, what it skips, a file that validates and round-trips, and every bad
answer — empty, HTML, malformed rows, HTTP errors, no network — leaving the file in use intact.
"""

from __future__ import annotations

import json
import tomllib
from datetime import UTC, datetime
from pathlib import Path

import httpx2
import pytest
import respx

from assistant.cli import main
from assistant.prices import skypilot
from assistant.prices.refresh import RefreshError, refresh_prices
from assistant.prices.skypilot import SourceFormatError, parse_vms_csv
from assistant.prices.sources import SOURCES, source_named
from assistant.prices.store import latest_refreshed_file, refreshed_dir, refreshed_files
from tools.catalog import get_catalog
from tools.pricing import PriceEntry, load_price_book, load_refreshed_rows

DATA = Path(__file__).parent / "data" / "prices"
AWS = source_named("skypilot-aws")
LAMBDA = source_named("skypilot-lambda")
NOW = "2026-12-14T09:00:00Z"
AWS_AS_OF = "2026-12-14T05:31:07Z"  # tests/data/prices/github-commits-aws.json


def _fixture(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def _parse(name: str, source: object = AWS) -> skypilot.ParsedSource:
    assert source is not None
    return parse_vms_csv(_fixture(name), source, AWS_AS_OF, get_catalog().gpus, "test")  # type: ignore[arg-type]


def _row(rows: list[PriceEntry], row_id: str) -> PriceEntry:
    return next(r for r in rows if r.id == row_id)


def _mock_sources(aws_body: str | None = None, lambda_body: str | None = None) -> None:
    """Route both sources and their commit-date look-ups to the recorded responses."""
    assert AWS is not None and LAMBDA is not None
    bodies = (
        (AWS, aws_body if aws_body is not None else _fixture("skypilot-aws-vms.csv"), "aws"),
        (LAMBDA, lambda_body if lambda_body is not None else _fixture("skypilot-lambda-vms.csv"),
         "lambda"),
    )  # fmt: skip
    for source, body, name in bodies:
        respx.get(source.url).respond(200, text=body)
        respx.get(source.history_url).respond(200, text=_fixture(f"github-commits-{name}.json"))


def _refresh(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["prices", "refresh", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_SIZER_NOW", NOW)


@pytest.fixture(scope="module")
def refreshed_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One refresh's file, made once for the module (the recorded responses, NOW)."""
    with respx.mock:
        _mock_sources()
        with httpx2.Client() as client:
            report = refresh_prices(
                client, SOURCES, datetime(2026, 12, 14, 9, 0, tzinfo=UTC),
                tmp_path_factory.mktemp("refreshed"),
            )  # fmt: skip
    return report.path.read_text(encoding="utf-8")


def _install(text: str) -> Path:
    """Put a refreshed file in this test's data directory, as a refresh at NOW would."""
    target = refreshed_dir() / "refreshed-20261214T090000Z.toml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


# --- parsing the recorded catalogs --------------------------------------------------------


def test_aws_rows_priced_from_the_recorded_catalog() -> None:
    parsed = _parse("skypilot-aws-vms.csv")
    rows = parsed.rows
    # p5.48xlarge is 55.04 USD/h in us-east-1, us-east-2 and us-west-2 (one row listing all
    # three); 55.04 / 8 GPUs = 6.88 USD per GPU-hour, the AWS price-sheet figure the built-in
    # catalog carries (aws-p5-48xlarge-h100-sxm-on-demand).
    p5 = _row(rows, "skypilot-aws-p5.48xlarge-on-demand-us-east-1")
    assert (p5.gpu, p5.gpus_per_instance, p5.price_per_instance_hour) == ("h100-sxm", 8, 55.04)
    assert p5.price_per_gpu_hour == pytest.approx(6.88)
    assert (p5.region, p5.eu, p5.tier, p5.currency) == (
        "us-east-1, us-east-2, us-west-2",
        False,
        "on_demand",
        "USD",
    )
    assert p5.as_of == AWS_AS_OF and "skypilot-catalog" in p5.source
    # Stockholm is in the EU (58.8928, the catalog's eu-north-1 figure); London is not.
    assert _row(rows, "skypilot-aws-p5.48xlarge-on-demand-eu-north-1").eu is True
    london = _row(rows, "skypilot-aws-p5.48xlarge-on-demand-eu-west-2")
    assert (london.price_per_instance_hour, london.eu) == (71.552, False)
    # Spot: the lowest zone of us-east-1 (55.04, 47.2054, 14.582) → 14.582.
    spot = _row(rows, "skypilot-aws-p5.48xlarge-spot-us-east-1")
    assert (spot.tier, spot.price_per_instance_hour) == ("spot", 14.582)
    # p4d.24xlarge is AWS's 40 GB A100 (SXM4): 21.957642 USD/h in us-east-1.
    p4d = _row(rows, "skypilot-aws-p4d.24xlarge-on-demand-us-east-1")
    assert (p4d.gpu, p4d.price_per_instance_hour) == ("a100-40gb-sxm4", 21.957642)
    assert _row(rows, "skypilot-aws-p4de.24xlarge-on-demand-us-east-1").gpu == "a100-80gb-sxm4"
    # H200 and B200 at the price-sheet figures the catalog carries: p5en.48xlarge 63.296 and
    # p6-b200.48xlarge 113.9328 USD/h in us-east-1; Spain (eu-south-2) is in the EU.
    p5en = _row(rows, "skypilot-aws-p5en.48xlarge-on-demand-us-east-1")
    assert (p5en.gpu, p5en.price_per_instance_hour) == ("h200-sxm", 63.296)
    assert _row(rows, "skypilot-aws-p5en.48xlarge-on-demand-eu-south-2").eu is True
    b200 = _row(rows, "skypilot-aws-p6-b200.48xlarge-on-demand-us-east-1")
    assert (b200.gpu, b200.region, b200.price_per_gpu_hour) == (
        "b200-hgx",
        "us-east-1, us-east-2",
        pytest.approx(113.9328 / 8),
    )
    # p5e lists spot but no on-demand price: a spot row only; its zone with neither is skipped.
    assert {r.tier for r in rows if r.instance == "p5e.48xlarge"} == {"spot"}
    assert parsed.skipped[skypilot.NO_PRICE] == 1
    # p3dn.24xlarge: 8× V100 SXM2 32 GB (32,768 MiB stated), 31.212 USD/h in us-east-1.
    p3dn = _row(rows, "skypilot-aws-p3dn.24xlarge-on-demand-us-east-1")
    assert (p3dn.gpu, p3dn.price_per_instance_hour) == ("v100-sxm2-32gb", 31.212)
    # Skipped, never guessed: two CPU-only a1.large rows; every accelerator here is mapped.
    assert parsed.rows_read == 32
    assert parsed.skipped[skypilot.NO_ACCELERATOR] == 2
    assert parsed.unmapped == {}


def test_lambda_rows_name_their_form_factor_by_instance() -> None:
    parsed = _parse("skypilot-lambda-vms.csv", LAMBDA)
    by_instance = {r.instance: r for r in parsed.rows}
    # Lambda calls both H100 parts "H100": the instance name says which.
    assert by_instance["gpu_1x_h100_pcie"].gpu == "h100-pcie"
    assert by_instance["gpu_1x_h100_sxm5"].gpu == "h100-sxm"
    assert by_instance["gpu_1x_h100_pcie"].price_per_instance_hour == 2.49
    # 14.32 USD/h for 8 GPUs = 1.79 per GPU-hour.
    a100 = by_instance["gpu_8x_a100_80gb_sxm4"]
    assert (a100.gpu, a100.price_per_gpu_hour) == ("a100-80gb-sxm4", pytest.approx(1.79))
    # One price everywhere → one row listing the regions; no Lambda region is marked EU.
    assert by_instance["gpu_1x_a10"].region == "europe-central-1, us-east-1, us-west-1"
    assert not any(r.eu for r in parsed.rows)
    assert not any(r.tier == "spot" for r in parsed.rows)  # Lambda lists no spot price
    # 8× H100 SXM5 at 23.92 USD/h = 2.99 per GPU-hour; 8× B200 SXM6 at 39.92 = 4.99.
    assert by_instance["gpu_8x_h100_sxm5"].price_per_gpu_hour == pytest.approx(2.99)
    b200 = by_instance["gpu_8x_b200_sxm6"]
    assert (b200.gpu, b200.price_per_gpu_hour) == ("b200-hgx", pytest.approx(4.99))
    assert by_instance["gpu_1x_gh200"].gpu == "gh200-96gb"
    # gpu_8x_a100 and gpu_8x_v100 do not say SXM or PCIe: skipped (ambiguous / not mapped),
    # counted, never guessed.
    assert "gpu_8x_a100" not in by_instance and "gpu_8x_v100" not in by_instance
    assert parsed.unmapped == {"A100": 2, "V100": 2}


def test_malformed_rows_are_skipped_and_counted() -> None:
    parsed = _parse("malformed-rows.csv")
    # Only the intact p5.48xlarge row survives (one on-demand and one spot row from it).
    assert {(r.instance, r.tier) for r in parsed.rows} == {
        ("p5.48xlarge", "on_demand"),
        ("p5.48xlarge", "spot"),
    }
    assert all("\x1b" not in (r.instance or "") for r in parsed.rows)
    # count 'eight', an escape sequence in the name, a truncated row → unreadable (3);
    # price 'N/A', 1e308, -3 → no usable on-demand price: their (intact) spot prices are kept
    # as spot rows of those regions.
    assert parsed.skipped[skypilot.UNREADABLE] == 3
    assert {r.region for r in parsed.rows if r.tier == "on_demand"} == {"us-east-1"}


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("", "empty response"),
        ("   \n", "empty response"),
        (_fixture("malformed-html.txt"), "missing columns"),
        ("InstanceType,Region\np5.48xlarge,us-east-1\n", "missing columns: AcceleratorName"),
        ('InstanceType\n"' + "x" * 200_000 + '"\n', "not CSV"),  # over csv's field limit
    ],
)
def test_a_response_that_is_not_the_layout_is_refused(body: str, problem: str) -> None:
    assert AWS is not None
    with pytest.raises(SourceFormatError, match=problem):
        parse_vms_csv(body, AWS, AWS_AS_OF, get_catalog().gpus, "test")


# --- the refreshed file -------------------------------------------------------------------


@respx.mock
def test_refresh_writes_a_dated_file_that_validates_and_round_trips(tmp_path: Path) -> None:
    _mock_sources()
    now = datetime(2026, 12, 14, 9, 0, tzinfo=UTC)
    with httpx2.Client() as client:
        report = refresh_prices(client, SOURCES, now, tmp_path)
    assert report.path.name == "refreshed-20261214T090000Z.toml"
    written = load_refreshed_rows(report.path, set())
    parsed = _parse("skypilot-aws-vms.csv").rows + _parse("skypilot-lambda-vms.csv", LAMBDA).rows
    # Round trip: every row read back equals the row parsed (as_of aside: Lambda's is its own
    # file's commit date).
    assert [r.model_copy(update={"as_of": "x", "notes": None}) for r in written] == [
        r.model_copy(update={"as_of": "x", "notes": None}) for r in parsed
    ]
    header = tomllib.loads(report.path.read_text(encoding="utf-8"))["refresh"]
    assert header["fetched_at"] == NOW
    assert [s["as_of"] for s in header["source"]] == [AWS_AS_OF, "2026-12-13T21:04:52Z"]
    assert header["source"][1]["unmapped"] == {"A100": 2, "V100": 2}
    # The shipped catalog is untouched; only the data directory holds the new file.
    assert [p.name for p in tmp_path.iterdir()] == [report.path.name]


@respx.mock
def test_refresh_dates_rows_by_download_when_the_commit_date_cannot_be_read(
    tmp_path: Path,
) -> None:
    assert AWS is not None
    respx.get(AWS.url).respond(200, text=_fixture("skypilot-aws-vms.csv"))
    respx.get(AWS.history_url).respond(200, text="{not json")
    now = datetime(2026, 12, 14, 9, 0, tzinfo=UTC)
    with httpx2.Client() as client:
        report = refresh_prices(client, [AWS], now, tmp_path)
    rows = load_refreshed_rows(report.path, set())
    assert {r.as_of for r in rows} == {NOW}
    assert "download time" in report.sources[0].as_of_basis


def test_cli_refresh_then_cost_prefers_the_fresher_row_and_shows_its_age(
    capsys: pytest.CaptureFixture[str], pinned_clock: None
) -> None:
    with respx.mock:
        _mock_sources()
        code, out, _ = _refresh(capsys)
    assert code == 0 and "price rows" in out and "V100 ×2" in out
    assert latest_refreshed_file() is not None
    assert main(["cost", "--gpu", "h100-sxm", "--count", "8", "--tier", "on_demand", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    ids = [r["price_id"] for r in result["rows"]]
    assert "skypilot-aws-p5.48xlarge-on-demand-us-east-1" in ids
    # The catalog's p5.48xlarge us-east-1 row (2026-09-19) prices the same offer: superseded.
    excluded = {e["id"]: e["reason"] for e in result["excluded"]}
    assert "fresher price for the same offer" in excluded["aws-p5-48xlarge-h100-sxm-on-demand"]
    assert "aws-p5-48xlarge-h100-sxm-on-demand" not in ids
    fresh = next(r for r in result["rows"] if r["price_id"].startswith("skypilot-aws-p5.48"))
    # 05:31:07 → 09:00:00 is 3 h 28 min 53 s: shown as "3 h old".
    assert fresh["age"] == "3 h old"
    assert fresh["age_hours"] == pytest.approx(3 + 28 / 60 + 53 / 3600)
    assert fresh["as_of_time"] == "2026-12-14T05:31:07Z"
    assert any("refreshed prices from" in a for a in result["assumptions"])
    # The table shows every price's age; stale rows say so and the rule is stated.
    assert main(["cost", "--gpu", "h100-sxm", "--count", "8"]) == 0
    table = capsys.readouterr().out
    assert "3 h old" in table and "days old, stale" in table
    assert "older than 180 days on 2026-12-14 are marked stale" in table


def test_recommend_table_and_json_carry_the_price_age(
    capsys: pytest.CaptureFixture[str], pinned_clock: None
) -> None:
    argv = ["recommend", "--model", "llama-3.1-8b", "--only", "h100-sxm"]
    assert main([*argv, "--json"]) == 0
    option = json.loads(capsys.readouterr().out)["options"][0]
    # Without a refresh the catalog prices it: as_of 2026-09-19 is 86 days before 2026-12-14.
    assert option["price_age"].endswith("days old")
    assert option["price_as_of"]
    assert main(argv) == 0
    assert "days old" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"text": ""}, "empty response"),
        ({"text": _fixture("malformed-html.txt")}, "missing columns"),
        ({"text": "InstanceType,AcceleratorName,AcceleratorCount,Price,Region\n"}, "none of the"),
        ({"status_code": 503, "text": "unavailable"}, "HTTP 503"),
        ({"side_effect": httpx2.ConnectError("Name or service not known")}, "cannot reach"),
        ({"side_effect": httpx2.ReadTimeout("timed out")}, "timeout"),
    ],
)
def test_a_bad_answer_leaves_the_file_in_use_intact(
    capsys: pytest.CaptureFixture[str],
    pinned_clock: None,
    refreshed_text: str,
    answer: dict,  # type: ignore[type-arg]
    message: str,
) -> None:
    _install(refreshed_text)
    before = {p.name: p.read_bytes() for p in refreshed_dir().iterdir()}
    assert AWS is not None
    with respx.mock:
        _mock_sources()
        route = respx.get(AWS.url)
        if "side_effect" in answer:
            route.side_effect = answer["side_effect"]
        else:
            route.respond(answer.get("status_code", 200), text=answer["text"])
        code, out, err = _refresh(capsys)
    assert code == 1 and out == ""
    assert message in err and "skypilot-aws" in err and "nothing written" in err
    assert len(err.strip().splitlines()) == 1
    assert "stay in use" in err
    assert {p.name: p.read_bytes() for p in refreshed_dir().iterdir()} == before


def test_refreshing_one_source_keeps_the_others_rows(
    capsys: pytest.CaptureFixture[str],
    pinned_clock: None,
    monkeypatch: pytest.MonkeyPatch,
    refreshed_text: str,
) -> None:
    _install(refreshed_text)
    monkeypatch.setenv("GPU_SIZER_NOW", "2026-12-15T09:00:00Z")
    with respx.mock:
        _mock_sources()
        code, out, _ = _refresh(capsys, "--source", "skypilot-aws", "--json")
    report = json.loads(out)
    assert code == 0 and report["carried_over"] == {"skypilot-lambda": 7}
    assert [s["name"] for s in report["sources"]] == ["skypilot-aws"]
    assert report["fetched_at"] == "2026-12-15T09:00:00Z"
    assert len(refreshed_files()) == 2
    latest = latest_refreshed_file()
    assert latest is not None and latest.name == "refreshed-20261215T090000Z.toml"
    rows = load_refreshed_rows(latest, set())
    lambda_rows = [r for r in rows if r.provider == "Lambda"]
    assert len(lambda_rows) == 7 and {r.as_of for r in lambda_rows} == {"2026-12-13T21:04:52Z"}


def test_bad_input_at_the_entry_points_is_refused_clearly(
    capsys: pytest.CaptureFixture[str], pinned_clock: None, refreshed_text: str
) -> None:
    assert main(["prices", "refresh", "--source", "azure"]) == 2
    assert "--source: unknown source 'azure'" in capsys.readouterr().err
    assert main(["prices", "refresh", "--timeout", "-1"]) == 2
    assert "--timeout: '-1' rejected" in capsys.readouterr().err
    # A refreshed file broken on disk: cost and show name it and say how to recover.
    latest = _install(refreshed_text)
    latest.write_text(latest.read_text(encoding="utf-8").replace("eu = false", "eu = 3", 1))
    for argv in (["cost", "--gpu", "h100-sxm"], ["prices", "show"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "refreshed price file is invalid" in err and latest.name in err
        assert "prices refresh" in err
    # A refresh still works and replaces the broken file with a valid newer one.
    with respx.mock:
        _mock_sources()
        assert main(["prices", "refresh"]) == 0
    capsys.readouterr()
    assert main(["prices", "show"]) == 0
    assert "refreshed prices in use" in capsys.readouterr().out


def test_the_clock_setting_is_checked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_SIZER_NOW", "yesterday")
    assert main(["cost", "--gpu", "h100-sxm"]) == 2
    assert "GPU_SIZER_NOW: 'yesterday' is not a date" in capsys.readouterr().err


def test_show_before_any_refresh(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prices"]) == 0
    assert "no refreshed prices yet" in capsys.readouterr().out


def test_refresh_error_is_one_line() -> None:
    assert "\n" not in str(RefreshError("x: y"))


def test_a_refreshed_row_cannot_reuse_a_catalog_id(tmp_path: Path) -> None:
    path = tmp_path / "refreshed-20261214T090000Z.toml"
    path.write_text(
        '[[price]]\nid = "aws-p5-48xlarge-h100-sxm-on-demand"\nprovider = "AWS"\n'
        'gpu_label = "H100"\ngpu = "h100-sxm"\ntier = "on_demand"\npricing_type = "x"\n'
        'price_per_gpu_hour = 1.0\ncurrency = "USD"\neu = false\nas_of = "2026-12-14"\n'
        'source = "test"\n',
        encoding="utf-8",
    )
    from tools.catalog import CatalogError

    with pytest.raises(CatalogError, match="already used by the built-in catalog"):
        load_price_book(refreshed_file=path)


def test_an_unwritable_data_directory_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str],
    pinned_clock: None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the data directory should be", encoding="utf-8")
    monkeypatch.setenv("GPU_SIZER_DATA_DIR", str(blocker))
    with respx.mock:
        _mock_sources()
        code, out, err = _refresh(capsys)
    assert (code, out) == (1, "")
    assert "cannot write the price file" in err and len(err.strip().splitlines()) == 1
