"""Words naming a figure or a kind of question ('memory', 'latency', 'cost', 'supports',
'cheaper') are not filler: left unplaced by every extractor, the question may be about a
figure the reader missed, so the verdict is held and the word said (issue 27, the coverage
gate). Placed with their figure or their question, they change nothing. Phrasings written for
this file."""

from __future__ import annotations

import pytest

from assistant.offline.parser import parse_workload
from assistant.offline.planner import scope_only
from assistant.reading.coverage import unread_kind
from assistant.reading.of_parsed import reading_of


@pytest.mark.parametrize(
    ("question", "word"),
    [
        # An engine's support for a format asked, not a fit (the format itself not said).
        ("Mistral 7B on one T4 — does TGI supports quantized weights there?", "supports"),
        ("my L4 and Qwen2.5 14B: any engine that supports this?", "supports"),
        # A latency asked in words no extractor reads as a speed question.
        ("Llama 3.1 8B on one A10G, our latency budget is tight", "latency"),
        # Whose memory: the figure is read, the word that says what it is of is not.
        ("Phi-3 mini with 8 GB, but the memory is shared with the desktop", "memory"),
        # A comparison whose sides were not read.
        ("Gemma 2 9B on a 4090, is that worth it against renting?", "worth"),
        ("Qwen2.5 7B on a 3060: realistic?", "realistic"),
    ],
)
def test_an_unplaced_figure_or_question_word_holds_the_verdict(question: str, word: str) -> None:
    reading = reading_of(parse_workload(question))
    assert not reading.verdict_stands, question
    held = " ".join(u.span.text for u in reading.unread_that_matters).lower()
    assert word in held, (question, held)


@pytest.mark.parametrize(
    "question",
    [
        # The product's own examples: every such word is read with its figure or question.
        "serve Llama 3.3 70B in 4-bit to 40 users with 16k context",
        "can my 3090 run Qwen3 32B?",
        "How much memory does Llama 3.1 8B need at 32k context?",
        "How fast would Llama 3.1 8B run on a 4090?",
        "What would it cost to serve Llama 3.1 70B to 100 users on H100s?",
        "Llama 3.1 8B on an L4 for 20 users, monthly cost?",
        "llama 3.1 70b, 3 grand total",
    ],
)
def test_the_words_read_with_their_figure_do_not_hold_it(question: str) -> None:
    reading = reading_of(parse_workload(question))
    assert reading.unread_that_matters == [], question


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("memory", "term"),
        ("latency", "term"),
        ("monthly price", "term"),
        ("quantized", "term"),
        ("supports", "asked"),
        ("cheaper", "asked"),
        ("correct", "asked"),
    ],
)
def test_each_word_is_said_with_what_it_looks_like(text: str, kind: str) -> None:
    assert unread_kind(text) == (kind, True)


def test_a_plain_word_still_changes_nothing() -> None:
    # 'please', 'thanks', 'hello': no figure, no question kind.
    assert unread_kind("please")[1] is False


@pytest.mark.parametrize(
    ("question", "gpu", "count"),
    [
        ("How many GPUs would I need to serve Qwen2.5 32B? Could 2 L4s do it?", "l4", 2),
        ("How many cards does a 13B fine-tune take? Can 4 A10Gs handle it?", "a10g", 4),
    ],
)
def test_a_count_asked_then_a_yes_no_about_a_count_said_is_answered_yes_or_no(
    question: str, gpu: str, count: int
) -> None:
    # Two questions: how many, then whether the count said is enough. The narrower one leads:
    # yes or no for that count (the fit then says how many it takes when they are too few).
    parsed = parse_workload(question)
    assert parsed.asked == "fits"
    assert [(m.gpu, m.count) for m in parsed.gpus] == [(gpu, count)]


def test_a_count_asked_with_no_count_said_stays_a_count() -> None:
    assert parse_workload("How many A10Gs would Llama 3.1 70B take? Can it run?").asked == (
        "gpu_count"
    )


@pytest.mark.parametrize(
    "question",
    [
        "I have 2 3090s, how many more would I need for Llama 3.1 70B in fp16?",
        "we own 4 L4s; how many more do we need for Qwen2.5 72B?",
    ],
)
def test_how_many_more_asks_the_count(question: str) -> None:
    assert parse_workload(question).asked == "gpu_count"


@pytest.mark.parametrize(
    "question",
    [
        "Which GPUs did you use to train the 7B checkpoint?",
        "Are you serving Llama 3.1 70B in fp8 or in bf16 behind your API?",
        "Nice work! What was the exact setup for the 13B run — did they use H100s or A100s?",
        "Thanks for the repo — what cards did you guys use for the 34B?",
    ],
)
def test_the_hardware_someone_else_used_is_said_out_of_scope(question: str) -> None:
    # Only whoever ran it knows what they ran: gpu-sizer says so and what it can size instead,
    # never a sizing of the asker's question in its place.
    parsed = parse_workload(question)
    assert any("someone else used" in topic for topic in parsed.out_of_scope), question
    assert scope_only(parsed), question


@pytest.mark.parametrize(
    "question",
    [
        "What is the exact hardware requirement to run Llama 3.1 8B locally?",
        "Can you tell me how much VRAM Llama 3.1 8B needs at 8k context?",
        "Do you think Qwen2.5 7B fits on a 3060?",
    ],
)
def test_a_question_put_to_you_about_my_workload_is_sized(question: str) -> None:
    # 'Can you tell me …', 'Do you think …': a question put to gpu-sizer, about the asker's own
    # workload.
    parsed = parse_workload(question)
    assert not any("someone else used" in topic for topic in parsed.out_of_scope), question


@pytest.mark.parametrize(
    "question",
    [
        "vLLM 0.6.2 broke tensor parallel for Qwen2.5 72B on 4x A100 80GB",
        "regression: SGLang nightly with Llama 3.1 70B fp8 on 8xH200",
        "what are the best settings for llama.cpp with Mixtral 8x7B Q4_K_M on 2x 3090",
    ],
)
def test_a_bug_report_or_a_tuning_question_with_its_setup_is_not_sized(question: str) -> None:
    # The setup said is the one that broke (or is being tuned), not a sizing asked: one
    # sentence says what gpu-sizer cannot answer, and nothing else is sized in its place.
    parsed = parse_workload(question)
    assert parsed.out_of_scope, question
    assert scope_only(parsed), question


def test_beside_a_bug_report_a_sizing_asked_is_still_sized() -> None:
    parsed = parse_workload(
        "vLLM 0.6.2 broke tensor parallel for me; how much VRAM does Qwen2.5 72B need on 4x A100?"
    )
    assert parsed.out_of_scope and parsed.asked == "memory"
    assert not scope_only(parsed)


@pytest.mark.parametrize(
    "question",
    [
        "fine-tune Llama 3.1 8B with LoRA, these are my cards: 2x RTX 3090",
        "our server has 4x L40S. serving Qwen2.5 32B to 20 users",
        "I own an RTX 4080 16GB; Mistral 7B at Q8_0",
    ],
)
def test_a_workload_beside_hardware_owned_asks_whether_it_fits(question: str) -> None:
    # Nothing asked in words: with cards owned, the question is whether it runs on them.
    assert reading_of(parse_workload(question)).asked == "fits", question


def test_a_workload_with_nothing_owned_asks_the_hardware() -> None:
    assert reading_of(parse_workload("serve Qwen2.5 32B to 20 users")).asked == "hardware"


@pytest.mark.parametrize(
    "question",
    [
        "The model card says 4x A100 80GB are needed for bf16. Will Qwen2.5 72B fit on 2x H100?",
        "Someone got 60 tokens/s with Llama 3.1 8B on a 4090; what would an L4 do?",
        "According to the blog, 2-bit quants of a 70B fit in 24GB. Can Mixtral 8x7B run on a 3090?",
        "Seeing that a 34B runs on one 3090 at Q4, could Llama 3.1 70B run on two?",
    ],
)
def test_figures_reported_from_elsewhere_are_not_taken_for_the_workload(question: str) -> None:
    # Another run's figures beside the question: which are the workload is asked, so no
    # verdict is stated for a mix of the two setups.
    reading = reading_of(parse_workload(question))
    assert any(q.slot == "meaning" and q.why == "ambiguous" for q in reading.questions)
    assert "elsewhere" in " ".join(q.text for q in reading.questions)
    assert not reading.verdict_stands


@pytest.mark.parametrize(
    "question",
    [
        "Will Qwen2.5 72B fit on 2x H100?",
        # No figure of theirs.
        "they say it needs a lot of memory; can Llama 3.1 8B run on my 3060?",
    ],
)
def test_a_question_with_no_figures_reported_is_not_asked_about_them(question: str) -> None:
    reading = reading_of(parse_workload(question))
    assert not any("elsewhere" in q.text for q in reading.questions), question


def test_the_same_mac_said_in_the_title_and_the_body_is_one_machine() -> None:
    parsed = parse_workload("Qwen3 8B on a 24GB Mac. Can Qwen3 8B run on a 24GB Mac?")
    assert [(g.text, g.memory_bytes) for g in parsed.gpus] == [("Mac", 24_000_000_000)]


@pytest.mark.parametrize(
    "question",
    [
        "Feature request: let me load Qwen3 32B on a 24GB Mac",
        "I would like to have an option to offload Llama 3.1 70B to my 64GB RAM",
    ],
)
def test_a_feature_asked_of_the_app_is_out_of_scope(question: str) -> None:
    parsed = parse_workload(question)
    assert parsed.out_of_scope and scope_only(parsed), question
