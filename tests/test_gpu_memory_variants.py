"""A card named without its memory is never silently one memory variant: 'RTX 4060 Ti' is sold
with 8 and 16 GB, 'RTX 3080' with 10 and 12 GB, 'A100 PCIe' with 40 and 80 GB, 'Tesla V100'
with 16 and 32 GB, an M3 Pro with 18 and 36 GB. The reading is stated (catalog default, the
others named) or, when the verdicts differ, asked; a reply naming the memory picks it."""

from __future__ import annotations

import pytest

from assistant.conversation import Conversation
from assistant.offline.engine import OfflineEngine
from assistant.offline.parser import parse_workload
from tests.offline_turns import answer, sizing
from tools.catalog import get_catalog

# Words without a memory size → the catalog cards they may mean (datasheets: NVIDIA sells the
# RTX 4060 Ti with 8 or 16 GB, the RTX 3080 with 10 or 12 GB, the A100 PCIe with 40 or 80 GB,
# the V100 SXM2 with 16 or 32 GB; Apple sells the M3 Pro with 18 or 36 GB).
UNSAID = [
    ("Llama 3.1 8B on an RTX 4060 Ti", {"rtx-4060-ti-8gb", "rtx-4060-ti-16gb"}),
    ("can my 4060 Ti run Qwen3 8B?", {"rtx-4060-ti-8gb", "rtx-4060-ti-16gb"}),
    ("Mistral 7B on a GeForce RTX 4060 Ti", {"rtx-4060-ti-8gb", "rtx-4060-ti-16gb"}),
    ("Qwen3 8B on my 3080", {"rtx-3080-10gb", "rtx-3080-12gb"}),
    ("Llama 3.1 8B on a GeForce RTX 3080", {"rtx-3080-10gb", "rtx-3080-12gb"}),
    ("Llama 3.1 70B on 2x A100 PCIe", {"a100-40gb-pcie", "a100-80gb-pcie"}),
    ("Llama 3.1 8B on a Tesla V100", {"v100-sxm2-16gb", "v100-sxm2-32gb"}),
    ("Llama 3.1 8B on my M3 Pro", {"apple-m3-pro", "apple-m3-pro-18gb"}),
]
# Words with the memory size → that card only.
SAID = [
    ("Llama 3.1 8B on an RTX 4060 Ti 8GB", "rtx-4060-ti-8gb"),
    ("Llama 3.1 8B on an RTX 4060 Ti 16GB", "rtx-4060-ti-16gb"),
    ("Qwen3 8B on an RTX 3080 12GB", "rtx-3080-12gb"),
    ("Llama 3.1 70B on 2x A100 40GB PCIe", "a100-40gb-pcie"),
    ("Llama 3.1 8B on my M3 Pro with 18 GB", "apple-m3-pro-18gb"),
]


@pytest.mark.parametrize(("question", "variants"), UNSAID)
def test_a_card_without_its_memory_carries_its_variants(question: str, variants: set[str]) -> None:
    (mention,) = parse_workload(question).gpus
    assert mention.gpu in variants
    assert set(mention.variants) == variants


@pytest.mark.parametrize(("question", "gpu"), SAID)
def test_a_card_with_its_memory_is_that_card(question: str, gpu: str) -> None:
    (mention,) = parse_workload(question).gpus
    assert (mention.gpu, mention.variants) == (gpu, [])


def test_the_8_gb_card_is_in_the_catalog_from_its_datasheet() -> None:
    # TechPowerUp c3890: 8 GB GDDR6 on 128 bits at 288 GB/s, PCIe 4.0 x8, 160 W.
    card = get_catalog().gpu("RTX 4060 Ti 8GB")
    assert (card.id, card.memory_bytes, card.memory_bandwidth_bytes_per_s) == (
        "rtx-4060-ti-8gb",
        8 * 10**9,
        288 * 10**9,
    )
    assert card.usable_memory_bytes == (8 * 1024 - 361) * 2**20  # 8 GiB less the driver's 361 MiB


@pytest.mark.parametrize("reply", ["the 8 GB one", "8GB", "8 GB card"])
async def test_differing_verdicts_ask_which_and_a_memory_reply_picks_it(reply: str) -> None:
    # Qwen3 4B in bf16: 4.02e9 parameters × 2 bytes = 8.04 GB = 7.49 GiB of weights alone, over
    # the 8 GB card's 7,831 MiB × 0.9 = 6.88 GiB budget, well within the 16 GB card's
    # 16,380 MiB × 0.9 = 14.40 GiB: the verdicts differ, so the answer asks.
    conversation = Conversation()
    engine = OfflineEngine()
    _ = [e async for e in engine.run_turn(conversation, "Qwen3 4B on my RTX 4060 Ti")]
    report = sizing(conversation)
    assert report.question is not None
    assert report.question.fits_on == ["GeForce RTX 4060 Ti 16 GB"]
    assert report.question.not_on == ["GeForce RTX 4060 Ti 8 GB"]
    _ = [e async for e in engine.run_turn(conversation, reply)]
    named = sizing(conversation).memory
    assert [c.gpu for c in named] == ["rtx-4060-ti-8gb"]
    assert named[0].estimate is not None and named[0].estimate.fits is False


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Llama 3.1 70B on an RTX 4060 Ti", "'RTX 4060 Ti' read as NVIDIA GeForce RTX 4060 Ti 16"),
        ("Llama 3.1 70B on my 3080", "'3080' read as NVIDIA GeForce RTX 3080 (10 GB)"),
        ("Llama 3.1 70B on a Tesla V100", "'Tesla V100' read as NVIDIA V100 SXM2 16GB"),
    ],
)
async def test_the_same_verdict_on_every_variant_states_the_reading(
    question: str, said: str
) -> None:
    # 70B in bf16 is 141 GB of weights: no variant of these cards holds it, so no question;
    # the card read is stated with the others it could be.
    text, conversation = await answer(question)
    assert sizing(conversation).question is None
    assert said in text and "catalog default; also:" in text
