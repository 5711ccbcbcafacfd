"""Workloads beyond plain serving (issue 30 items 1-4), read before the words they share are
read as something else: LoRA adapters *served* ('Llama 3.1 8B with 20 LoRA adapters for 50
users' is multi-LoRA serving, not LoRA training)."""

from __future__ import annotations

import re

from assistant.offline.parsed import ParsedWorkload
from assistant.offline.parser.text import QW, Text, positive_int

# A fine-tune asked for: the verb or the noun, never the participle of a model already tuned
# ('a fine-tuned model', 'trained adapters' are served).
_TRAINING = re.compile(
    r"\b(?:train|training|fine[\s-]?tun(?:e|ing)|finetun(?:e|ing)|pre-?train(?:ing)?)\b", re.I
)
_SERVING = re.compile(
    r"\b(?:serv(?:e|es|ed|ing)|inference|deploy\w*|host\w*|users?|requests?|req/s|qps|"
    r"multi[\s-]?lora|hot[\s-]?swap\w*)\b",
    re.I,
)
# '20 LoRA adapters', '20 LoRAs', 'twenty PEFT adapters', '20 adapters', '20 LoRA fine-tunes'.
_ADAPTERS = (
    rf"{QW}\s*(?:different\s+|distinct\s+)?(?:(?:lora|peft)\s*"
    r"(?:adapters?|fine[\s-]?tunes|models|variants)|loras|adapters)\b"
)


def extract_lora_serving(t: Text, p: ParsedWorkload) -> None:
    """A count of LoRA adapters in a serving question (no fine-tune asked for): multi-LoRA
    serving, the task inference. A fine-tune with adapters is left to the training reading."""
    if _TRAINING.search(t.work) or not _SERVING.search(t.work):
        return
    for m in t.each(_ADAPTERS):
        count = positive_int(m.group(1))
        if count is not None:
            p.lora_adapters = count
            p.task = p.task or "inference"
