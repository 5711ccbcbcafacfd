"""Hardware the user owns (issue 29): the words that make a question one about a machine the
asker runs themselves — 'my 3090', 'our box', 'I have a 4090', a laptop, a Mac, LM Studio,
MLX (Ollama and llama.cpp are read as the launcher by `models.py`) — and, for the reverse
question ('what can I run on my 24 GB GPU?'), what to rank the models by. Searched, not
consumed: the same words may name the GPU read later; 'LM Studio' and 'MLX' are consumed
(nothing else reads them). Whether the answer leads with the local plan is decided in
`tools.sizing.headline.owned_hardware`, not here.
"""

from __future__ import annotations

import re

from assistant.offline.parser.text import Text
from assistant.reading.parsed import ParsedWorkload
from assistant.regex_cache import compiled
from tools.fits import RankBy

_OWNED = compiled(
    r"\b(?:my|our|mine)\b|\bi\s*(?:'ve|\s+have)?\s+(?:got|own)\b|\b(?:i|we)\s+have\b"
    r"|\bat\s+home\b|\bhome\s*lab\b|\blaptop\b|\bmacbook\b|\bmac\s*(?:mini|studio|pro)?\b"
    r"|\bgguf\b",
    re.I,
)
_LM_STUDIO = r"\blm\s*studio\b"
_MLX = r"\bmlx(?:[_\-]lm)?\b"
_RANKS: tuple[tuple[RankBy, str], ...] = (
    ("fastest", r"\bfastest\b|\bquickest\b|\bmost\s+tokens\s*/\s*s\b"),
    ("context", r"\blongest\s+context\b|\bmost\s+context\b|\blong(?:est)?[\s-]+context\b"),
    ("coding", r"\bcod(?:e|ing|er)\b|\bprogramming\b"),
    ("reasoning", r"\breason(?:ing)?\b|\bthinking\b"),
    ("largest", r"\b(?:largest|biggest|best)\b"),
)


_WHAT_RUNS = compiled(
    r"\bwhat\s+(?:models?\s+|llms?\s+)?(?:can|could|will|would)\s+(?:my|our|a|an|the|this)\b"
    r"[^?.]{0,40}?\b(?:run|handle|fit)\b|\bwhat\s+(?:fits|runs)\s+(?:on|in)\b",
    re.I,
)


def extract_owned(t: Text, p: ParsedWorkload) -> None:
    """`owned`, `local_app`, a which-models question in the owner's words ('what can my 3090
    run?') and what it ranks by (`fits_rank`)."""
    if p.asked is None and _WHAT_RUNS.search(t.original):
        p.asked = "which_models"
    if _OWNED.search(t.original):
        p.owned = True
    if t.each(_LM_STUDIO):  # consumed as read
        p.local_app, p.owned = "lm-studio", True
    if t.each(_MLX):
        p.local_app, p.owned = "mlx", True
    if p.launcher is not None:
        p.owned = True
    for rank, pattern in _RANKS:
        if compiled(pattern, re.I).search(t.original):
            p.fits_rank = rank
            break
