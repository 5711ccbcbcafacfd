"""The open price catalogs `gpu-sizer prices refresh` reads, and where.

SkyPilot (skypilot-org/skypilot-catalog) publishes one `vms.csv` per cloud, regenerated from
the providers' pricing APIs by scheduled GitHub workflows (hourly to daily); SkyPilot itself
reads them from `HOSTED_CATALOG_DIR_URL` = raw.githubusercontent.com/…/master/catalogs, schema
version directory `v8` (columns InstanceType, AcceleratorName, AcceleratorCount, vCPUs,
MemoryGiB, GpuInfo, Price, SpotPrice, Region, AvailabilityZone, Arch; Lambda's file orders
them differently and has no AvailabilityZone, so columns are read by name).

The date the data is from is the file's last commit (GitHub's commits API for that path);
when it cannot be read the download time is used and the rows say so.

`eu_regions` lists only regions inside the European Union, each checked against the
provider's region page (AWS: eu-central-1 Frankfurt, eu-west-1 Ireland, eu-west-3 Paris,
eu-north-1 Stockholm, eu-south-1 Milan, eu-south-2 Spain; not eu-west-2 London or
eu-central-2 Zurich). Lambda's region list names no cities, so none of its regions is marked
EU (the catalog's rule: unknown → not EU).
"""

from __future__ import annotations

from dataclasses import dataclass

SKYPILOT_CATALOG = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master"
SKYPILOT_SCHEMA = "v8"
SKYPILOT_COMMITS_API = "https://api.github.com/repos/skypilot-org/skypilot-catalog/commits"


@dataclass(frozen=True)
class PriceSource:
    """One downloadable price catalog for one cloud."""

    name: str
    """Short id used in row ids, `source_type` and `--source` ('skypilot-aws')."""
    cloud: str
    """The cloud as the mapping table names it ('aws')."""
    provider: str
    """The provider as the built-in catalog names it ('AWS'), so refreshed rows can supersede
    older rows of the same offer."""
    path: str
    """Path inside the catalog repository ('catalogs/v8/aws/vms.csv')."""
    eu_regions: frozenset[str] = frozenset()

    @property
    def url(self) -> str:
        """Where the CSV is downloaded from."""
        return f"{SKYPILOT_CATALOG}/{self.path}"

    @property
    def history_url(self) -> str:
        """GitHub's commits API for the file: its newest commit is the data's date."""
        return f"{SKYPILOT_COMMITS_API}?path={self.path}&per_page=1"


AWS_EU_REGIONS = frozenset(
    {"eu-central-1", "eu-west-1", "eu-west-3", "eu-north-1", "eu-south-1", "eu-south-2"}
)

SOURCES: tuple[PriceSource, ...] = (
    PriceSource(
        "skypilot-aws", "aws", "AWS", f"catalogs/{SKYPILOT_SCHEMA}/aws/vms.csv", AWS_EU_REGIONS
    ),
    PriceSource(
        "skypilot-lambda", "lambda", "Lambda", f"catalogs/{SKYPILOT_SCHEMA}/lambda/vms.csv"
    ),
)


def source_named(name: str) -> PriceSource | None:
    """The source called `name`, or None."""
    return next((s for s in SOURCES if s.name == name), None)
