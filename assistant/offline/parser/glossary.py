"""Chinese sizing words in the English the extractors read (issue 27: questions are asked in
Chinese in the threads of Chinese projects — ktransformers, ms-swift, Qwen, ChatGLM).

The reader's patterns are English. Rather than a second set of patterns, the words a sizing
question in Chinese is made of are rewritten before parsing into the English words they mean
('24G显存' → '24G VRAM', '内存64G' → 'RAM 64G', '全量微调' → 'full fine-tune'), so every
extractor reads them as it reads the English. Only words whose meaning in a sizing question is
fixed are listed (显存 is video memory, never system memory; 内存 is system memory). Any other
Chinese word stays as written: the coverage gate lists it as not read and holds the verdict,
so an unlisted word never changes an answer silently.
"""

from __future__ import annotations

import re

from assistant.regex_cache import compiled

GLOSSARY: tuple[tuple[str, str], ...] = (
    # What is asked (longer phrases first).
    ("才可以支持", " "),  # '(needed) to support it': what the figure before it is for
    ("才能支持", " "),
    ("需要多少显存", " how much VRAM is needed "),
    ("需要多大显存", " how much VRAM is needed "),
    ("显存要多大", " how much VRAM is needed "),
    ("要多大显存", " how much VRAM is needed "),
    ("多大的GPU显存", " how much GPU VRAM "),
    ("多大GPU显存", " how much GPU VRAM "),
    ("多大的GPU内存", " how much GPU memory "),  # GPU内存: the GPU's memory, not the system's
    ("多大GPU内存", " how much GPU memory "),
    ("多大的显存", " how much VRAM "),
    ("多大显存", " how much VRAM "),
    ("多少GPU", " how many GPUs "),
    ("多少个GPU", " how many GPUs "),
    ("需要多少内存", " how much RAM is needed "),
    ("需要多大内存", " how much RAM is needed "),
    ("多大内存", " how much RAM "),
    ("最小显存要求是多少", " how much VRAM is needed "),
    ("显存要求", " VRAM requirements "),
    ("显存占用是多少", " how much VRAM is used "),
    ("显存占用多少", " how much VRAM is used "),
    ("占用多少显存", " how much VRAM is used "),
    ("显存占用", " VRAM usage "),
    ("多少显存", " how much VRAM "),
    ("能跑多少B的模型", " which models can I run "),
    ("能跑什么模型", " which models can I run "),
    ("可以跑什么模型", " which models can I run "),
    ("哪些模型", " which models "),
    ("每秒大概能生成多少", " how many tokens per second "),
    ("每秒能生成多少", " how many tokens per second "),
    ("能到什么速度", " what speed can I expect "),
    ("什么速度", " what speed "),
    ("速度", " speed "),
    ("是否可以跑", " whether it can run "),
    ("是否能跑", " whether it can run "),
    ("上跑吗", " run on it? "),  # 在…上跑吗: 'will it run on …?'
    ("跑吗", " run? "),
    ("跑不起来", " cannot run "),
    ("跑不动", " cannot run "),
    ("跑起来", " run "),
    ("能跑动", " can run "),
    ("跑得动", " can run "),
    ("能跑", " can run "),
    ("可以跑", " can run "),
    ("能运行", " can run "),
    ("能推理", " can run inference "),
    ("可以推理", " can run inference "),
    ("可以运行", " can run "),
    ("能否支持", " can "),
    ("是否可以", " whether it can "),
    ("能否", " can "),
    ("可以", " can "),
    ("为什么", " why "),
    ("又", " also "),
    ("请问", " "),
    ("够不够", " is it enough? "),
    ("够不", " is it enough? "),
    ("够吗", " is it enough? "),
    ("够用", " enough "),
    ("不够", " not enough "),
    ("我的", " my "),
    ("我们", " we "),
    ("我有", " I have "),
    ("我", " I "),
    ("吗", "? "),
    ("呢", "? "),
    # Lengths.
    ("上下文长度", " context length "),
    ("上下文", " context "),
    ("输入", " input "),
    ("输出", " output "),
    # Memory and hardware.
    ("显存", " VRAM "),
    ("内存", " RAM "),
    ("笔记本显卡", " laptop GPU "),
    ("显卡", " GPU "),
    ("笔记本", " laptop "),
    ("单机", " one server with "),
    ("单卡", " a single GPU with "),
    ("双卡", " two GPUs "),
    ("的卡", " GPU "),
    ("卡", " card "),  # after the counted cards ('8卡', '8张卡') and 显卡 / 的卡
    # Tasks.
    ("全量微调", " full fine-tune "),
    ("全参数微调", " full fine-tune "),
    ("全参数训练", " full fine-tune "),
    ("全量训练", " full fine-tune "),
    ("微调", " fine-tune "),
    ("训练", " training "),
    ("推理", " inference "),
    ("部署", " deploy "),
    ("加载", " load "),
    ("本地", " locally "),
    # Plain words of the sentence.
    ("这个模型", " this model "),
    ("这个", " this "),
    ("一个", " a "),
    ("实际", " "),  # actual(ly): no figure
    ("只有", " only "),
    ("大概", " about "),
    ("至少", " at least "),
    ("最少", " at least "),
    ("最低配置要求", " minimum hardware requirements "),
    ("配置要求", " hardware requirements "),
    ("情况下", " "),  # 'in the case of': no figure
    ("如果是", " if "),
    ("可行", " feasible "),
    ("好像", " seems "),
    ("手里的", " my "),  # 'in my hand': the asker's own
    ("进行", " "),  # 'carry out' (进行训练, do the training): no figure
    ("需要", " need "),
    ("运行", " run "),
    ("大模型", " model "),
    ("模型", " model "),
    ("使用", " with "),
    ("用", " with "),
    ("的", " "),
)
"""(Chinese, English) pairs, longest first where one contains another."""

_FULL_WIDTH = str.maketrans({"（": "(", "）": ")"})
_COUNTED_CARDS = compiled(r"(?<![\d.])(\d{1,3})\s*(?:张|块)?\s*卡")
"""'8卡', '8张卡': that many GPUs (卡, card; 张 / 块, the counting words for cards) — not the
last digits of a card's name ('4090卡' is a 4090, not 90 cards)."""


def in_english(text: str) -> str:
    """`text` with the glossary's Chinese words in English (unchanged when it has none)."""
    # Full-width brackets ('A100（40GB）'), as CJK keyboards type them: the ASCII ones the
    # patterns read (one character for one: every span keeps its place).
    text = text.translate(_FULL_WIDTH)
    if not compiled(r"[\u4e00-\u9fff]").search(text):
        return text
    text = _COUNTED_CARDS.sub(r" \1 GPUs ", text)
    text = compiled(r"(x\s*\d{1,3})\s*[张块]").sub(r"\1 ", text)  # '24Gx2张': two cards
    # '4张4090', '两块A100': that many of the card named next (两, two).
    text = compiled(r"(\d{1,3}|两)\s*[张块]\s*(?=[A-Za-z]{0,4}\s*\d{2,4})").sub(
        lambda m: f" {2 if m.group(1) == '两' else m.group(1)}x ", text
    )
    # 多少张 'how many (cards)': of the card named next, else of GPUs (张, the counting word).
    text = compiled(r"(?:需要)?多少[张块](?=\s*[A-Za-z])").sub(" how many ", text)
    text = compiled(r"(?:需要)?多少[张块]").sub(" how many GPUs ", text)
    for chinese, english in GLOSSARY:
        text = text.replace(chinese, english)
    return re.sub(r"[ \t]{2,}", " ", text)
