"""argparse value types shared by the subcommands.

Token counts accept what engineers type: `16384`, `1e8`, `16k`, `128K`, `2B`, `1.5M`. The rule
is the offline parser's (one rule everywhere): 'Nk' is N×1024 when N is a power of two (model
cards name context windows that way: Llama 3.1's "128K" is 131,072), else N×1000.
"""

from __future__ import annotations

import argparse
import math


def token_count(text: str) -> int:
    """A positive token count from `16384`, `1e8`, `16k`, `128K`, `1M`, `2B` (argparse type)."""
    from assistant.offline.quantities import context_tokens_from  # lazy: parser vocabulary

    try:
        value = float(text)  # plain and scientific notation: 16384, 1e8
    except ValueError:
        try:
            value, _ = context_tokens_from(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a token count (examples: 16384, 1e8, 16k, 128k, 2B)"
            ) from None
    if not math.isfinite(value) or value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a token count must be a positive number")
    return round(value)
