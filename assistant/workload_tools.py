"""The workload tools beyond `size` (issue 30): `embed_corpus` — `tools.workloads.embedding`
priced by the user's price book on the run's clock, as `size` is."""

from __future__ import annotations

from datetime import date

from assistant.clock import now
from assistant.cost_tool import price_book
from tools.pricing import PriceBook
from tools.workloads.embedding import EmbeddingRequest, EmbeddingResult, embed_corpus


def run_embed(
    request: EmbeddingRequest, book: PriceBook | None = None, today: date | None = None
) -> EmbeddingResult:
    """`embed_corpus(request)` with the user's prices, ages counted to the one clock."""
    return embed_corpus(request, book or price_book(), today or now())
