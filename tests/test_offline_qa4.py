"""Offline answers for QA round 4 (findings 1, 2, 3, 4, 6, 7, 10, 11). Expected figures are hand
arithmetic over published configs, written in each test."""

from __future__ import annotations

import asyncio

import pytest

from assistant.conversation import Conversation
from assistant.offline.engine import OfflineEngine
from assistant.render.verdict import about_headline
from tests.offline_turns import after_reading, answer, sizing
from tools.notes import Note
from tools.recommend import Option, recommend
from tools.workload import Workload


def _ask(text: str) -> tuple[str, Conversation]:
    return asyncio.run(answer(text))


# --- 4: a note about one GPU says which GPU by its typed subject, never by its text ----------


def _option(gpu: str, count: int = 1) -> Option:
    rec = recommend(Workload(model="llama-3.1-8b", constraints={"only_gpus": [gpu]}))
    option = next(o for o in [*rec.options, *rec.rejected] if o.count == count)
    return option


def test_4_a_note_about_the_l40s_is_not_read_as_one_about_the_l4() -> None:
    # tools/advice.py writes "Fits on 1× <catalog name> with …" for its first single-GPU option
    # and gives the note that GPU as its subject: "NVIDIA L4" being a prefix of "NVIDIA L40S"
    # (and "NVIDIA A10" of "NVIDIA A100 80GB PCIe") cannot mislabel it.
    text = "Fits on 1× NVIDIA L40S with 22.6 GiB left for KV cache: stop there."
    note = Note(code="single_gpu_enough", text=text, gpu="l40s", count=1)
    assert about_headline(note, _option("l40s")) == text
    text = "Fits on 1× NVIDIA A100 80GB PCIe with 54.7 GiB left for KV cache: stop there."
    note = Note(code="single_gpu_enough", text=text, gpu="a100-80gb-pcie", count=1)
    assert about_headline(note, _option("a100-80gb-pcie")) == text


def test_4_a_note_about_another_gpu_still_says_which() -> None:
    text = "Fits on 1× NVIDIA L4 with 4.0 GiB left for KV cache: stop there."
    note = Note(code="single_gpu_enough", text=text, gpu="l4", count=1)
    shown = about_headline(note, _option("l40s"))
    assert shown == f"About 1× L4, not the 1× L40S recommended above: {text}"
    note = Note(code="single_gpu_enough", text="Fits on 1× NVIDIA A10. Stop there.", gpu="a10")
    shown = about_headline(note, _option("a100-80gb-pcie"))
    assert after_reading(shown).startswith("About 1× A10,")
    general = Note(code="moe", text="MoE: memory holds all parameters.")
    assert about_headline(general, _option("l40s")) == general.text


def test_4_advice_notes_name_their_subject() -> None:
    rec = recommend(Workload(model="llama-3.1-8b", constraints={"only_gpus": ["l40s", "l4"]}))
    single = next(n for n in rec.notes if n.code == "single_gpu_enough")
    assert (single.gpu, single.count) == (rec.options[0].gpu, 1)
    assert single.text.startswith(f"Fits on 1× {rec.options[0].gpu_name} with")


def test_4_the_qa_question_has_no_wrong_about_label() -> None:
    reply, _ = _ask("serve Qwen2.5 7B to 20 users at 8k context in the EU, cheapest")
    assert "About 1× L4" not in reply
    assert "Fits on 1× NVIDIA L40S with" in reply


# --- 1: a named GPU count for a serving question is the hardware the user has ---------------

# Llama 3.1 405B (meta-llama/llama-models sku_list: 126 layers, 8 KV heads × 128 dims) keeps
# 2 × 126 × 8 × 128 × 2 B = 516,096 B of bf16 KV per token; one 32k sequence holds
# 32,768 × 516,096 B = 15.75 GiB.
LLAMA_405B_KV_PER_TOKEN = 2 * 126 * 8 * 128 * 2


def test_1_how_many_users_on_8_h200_answers_for_the_8() -> None:
    reply, conversation = _ask("Llama 3.1 405B fp8 on 8×H200: how many users at 32k?")
    # QA4 hand arithmetic per GPU at TP 8: 126.4 GiB budget − 47.74 weights − 0.81
    # activations − 1.84 runtime = 76.0 GiB, less vLLM's sampler reserve for max_num_seqs =
    # 1,024 requests (1,024 × 128,256 × 16 B = 1.96 GiB) = 74.05 GiB free × 8 GPUs = 592 GiB;
    # 592 / 15.75 ≈ 37 users.
    assert LLAMA_405B_KV_PER_TOKEN == 516_096
    per_sequence_gib = 32_768 * LLAMA_405B_KV_PER_TOKEN / 2**30
    assert round(per_sequence_gib, 2) == 15.75
    free = 76.0 - 1024 * 128_256 * 16 / 2**30
    users = int(free * 8 / per_sequence_gib)
    assert users == 37
    lead = sizing(conversation).headline
    assert lead is not None and (lead.option.gpu, lead.option.count) == ("h200-sxm", 8)
    assert lead.option.max_concurrent_sequences == users
    first = after_reading(reply).splitlines()[0]
    assert first.startswith(f"**{users} concurrent sequences of 32,768 tokens fit on 8× H200 SXM**")
    assert "on 4× H200" not in reply

    from assistant.proposal import render_proposal

    first = render_proposal(conversation, "md").split("\n---\n")[0]
    layout = "1 replica of the model, split over 8 GPUs (TP 8)"
    assert f"**8× NVIDIA H200 SXM** in 1 server: {layout}" in first


def test_1_a_training_count_still_only_bounds_the_search() -> None:
    # QA3 C: "on 32 H100s" for a training job is max_gpus, the objective stays the tools'.
    from assistant.offline.parser import parse_workload
    from assistant.offline.planner import sizing_arguments
    from tools.sizing import SizingRequest
    from tools.sizing.plan import resolved_configurations, search_workload

    def search(text: str) -> Workload:
        request = SizingRequest.model_validate(sizing_arguments(parse_workload(text)))
        return search_workload(request, resolved_configurations(request), None)

    training = search("full fine-tune of Llama 3.1 8B on 32 H100s, 2B tokens, deadline 24 hours")
    assert training.constraints.max_gpus == 32 and training.objective == "cheapest"
    serving = search("serve Llama 3.1 8B on 4× H100 to 20 users")
    assert serving.constraints.max_gpus == 4 and serving.objective == "fastest"


# --- 2: the named GPUs do not hold the users: what they hold, what does, lower precision -----

# Llama 3.1 70B (config.json: 80 layers, 8 KV heads × 128 dims): 2 × 80 × 8 × 128 × 2 B =
# 327,680 B of bf16 KV per token; one 4,096-token sequence (the tools' default shape) holds
# 4,096 × 327,680 B = 1.25 GiB.
LLAMA_70B_KV_PER_TOKEN = 2 * 80 * 8 * 128 * 2


def test_2_four_a100_40gb_for_10_users_says_what_holds_them() -> None:
    reply, conversation = _ask("can we serve Llama 3.1 70B on 4 A100 40GB for 10 users?")
    verdict = after_reading(reply).split("\n\n")[0]
    assert "40×" not in reply and "Needs 40" not in reply
    assert "**Does not fit on 4× A100 40GB SXM4**" in verdict
    # What the 4 GPUs hold: TP 4 leaves room for one 4,096-token sequence (QA: 5,310 tokens).
    report = sizing(conversation)
    scale = report.scale_out
    assert scale is not None and scale.within is not None and scale.holds is not None
    assert scale.within.tp * scale.within.pp == 4 and scale.within.max_concurrent_sequences == 1
    # The 4 named GPUs are one TP 4 replica: the option says 4, not the 40 (10 replicas of
    # one sequence each) the search planned for 10 users (`ask --json` carries its count).
    assert (scale.within.count, scale.within.dp) == (4, 1)
    assert "**4× A100 40GB SXM4 hold 1 concurrent sequence of 4,096 tokens**" in verdict
    assert "not the 10 users asked" in verdict
    # QA4 hand arithmetic on 8× TP 8: 35.68 GiB budget − 16.43 weights − 1.84 runtime − 0.59
    # activations (vLLM on an A100 profiles 2,048 batched tokens, 0.10 GiB at TP 8, and a
    # sampler for 256 requests, 256 × 128,256 × 16 B = 0.49 GiB) = 16.82 GiB free × 8 GPUs =
    # 134.6 GiB / 1.25 GiB ≈ 107.
    per_sequence_gib = 4096 * LLAMA_70B_KV_PER_TOKEN / 2**30
    per_replica = int(16.82 * 8 / per_sequence_gib)
    assert per_sequence_gib == 1.25 and per_replica == 107
    assert (scale.holds.count, scale.holds.tp) == (8, 8)
    assert scale.holds.max_concurrent_sequences == per_replica
    assert "**What holds this load: 8× A100 40GB SXM4**" in verdict
    assert f"{per_replica} concurrent sequences per replica" in verdict
    # Lower precision on the 4 GPUs: 70.55B weights at 1 B (int8; the A100 has no fp8 units)
    # ≈ 70.6 GB / 4 = 16.4 GiB per GPU and at ~0.5 B (AWQ) ≈ 8.2 GiB: both well under the
    # 35.7 GiB budget with 10 × 1.25 GiB / 4 = 3.1 GiB of KV per GPU.
    assert "int8 fits" in verdict and "int4-awq fits" in verdict
    assert "10 users need at least 40" not in reply
    # The search within the 4 named, and again without that limit: the count that holds it.
    assert report.scale_out is not None and report.scale_out.recommendation is not None
    assert report.scale_out.holds is not None and report.scale_out.holds.count == 8
    assert report.headline is not None and report.headline.rule == "scale_out"


# --- 7: a follow-up that changes the KV dtype re-derives the notes about it -------------------


async def _two_turns(first: str, second: str) -> tuple[str, Conversation]:
    from assistant.events import Done
    from assistant.offline.engine import OfflineEngine

    conversation = Conversation()
    engine = OfflineEngine()
    _ = [e async for e in engine.run_turn(conversation, first)]
    events = [e async for e in engine.run_turn(conversation, second)]
    return next(e for e in events if isinstance(e, Done)).text, conversation


def test_7_fp8_kv_follow_up_drops_the_bf16_kv_note() -> None:
    from assistant.offline.parser import parse_workload

    first = parse_workload("Llama 3.1 405B fp8 on 8×H200: how many users at 32k?")
    assert any("KV cache stays bf16" in n for n in first.notes)
    second = parse_workload("and with fp8 KV cache?", first)
    assert second.kv_dtype == "fp8" and second.weights == "fp8"
    assert not any("KV cache stays bf16" in n for n in second.notes)
    reply, conversation = asyncio.run(
        _two_turns("Llama 3.1 405B fp8 on 8×H200: how many users at 32k?", "and with fp8 KV cache?")
    )
    assert "KV cache stays bf16" not in reply
    # fp8 KV halves 516,096 B per token to 258,048 B: the 8 GPUs' 592 GiB of free memory (QA4
    # #1's hand figure less the sampler reserve) hold 592 / (32,768 × 258,048 B = 7.875 GiB)
    # ≈ 75 sequences.
    users = int(592 / (32_768 * 258_048 / 2**30))
    assert users == 75
    lead = sizing(conversation).headline
    assert lead is not None and sizing(conversation).request.workload.kv_dtype == "fp8"
    assert lead.option.max_concurrent_sequences == users
    assert after_reading(reply).startswith(
        f"**{users} concurrent sequences of 32,768 tokens fit on 8× H200 SXM**"
    )


# --- 3: "X instead of Y" sizes X; two engines named say which one was sized -------------------


def test_3_the_chosen_option_wins_over_the_rejected_one() -> None:
    from assistant.offline.parser import parse_workload

    # Each sentence names the chosen option second or first; the tools' names for them:
    # GPTQ → int4-gptq, llama.cpp → the generic engine, vLLM → vllm.
    assert parse_workload("switch from AWQ to GPTQ for Llama 3.1 70B").weights == "int4-gptq"
    assert parse_workload("Llama 3.1 8B with vLLM instead of llama.cpp").engine == "vllm"
    assert parse_workload("replace llama.cpp with vLLM for Llama 3.1 8B").engine == "vllm"
    assert parse_workload("use vLLM rather than llama.cpp for Llama 3.1 8B").engine == "vllm"
    gpus = parse_workload("Llama 3.1 70B on H200 instead of H100").named_gpu_ids
    assert gpus == ["h200-sxm"]
    previous = parse_workload("serve Llama 3.1 70B in AWQ to 20 users at 8k on L40S")
    assert previous.weights == "int4-awq"
    follow = parse_workload("what changes if I use GPTQ instead of AWQ?", previous)
    assert follow.weights == "int4-gptq" and follow.unplaced == []
    assert any("AWQ set aside" in n for n in follow.notes)


def test_3_compare_two_engines_says_which_was_sized() -> None:
    reply, _ = _ask("compare vLLM and llama.cpp memory for 8B")
    assert "sized for 'llama.cpp' only" in reply and "'vLLM' alone" in reply


async def test_a_variant_reply_answers_the_which_gpu_question_and_keeps_the_count() -> None:
    # QA round 4, #6: after "Which 'H100' do you mean?", the reply "SXM" was read as the NVLink
    # interconnect and the same question came back; "H100 SXM5" then dropped the 8-GPU node.
    # DeepSeek-V3 fp8 on 8× H100 SXM5 (TP 8): 671.03B parameters ≈ 1 B each → ~79 GiB of
    # weights per GPU alone, over the 0.9 × 79.65 GiB = 71.7 GiB budget: does not fit.
    conversation = Conversation()
    engine = OfflineEngine()
    first = [
        e async for e in engine.run_turn(conversation, "can I run DeepSeek-V3 on one 8×H100 node?")
    ]
    assert "Which 'H100' do you mean?" in first[-1].text
    reply = [e async for e in engine.run_turn(conversation, "SXM")]
    text = reply[-1].text
    assert "Which 'H100'" not in text
    # 'can I run…?' asked yes or no: the reply to the variant question keeps that.
    assert after_reading(text).startswith("**No.** **Does not fit on 8× H100 SXM5**")


async def test_max_context_options_are_sized_at_the_context_found() -> None:
    # QA round 4, #10: the answer led with "992 tokens fit 2× RTX 4090" while its options table
    # was sized at the default 4,096 and said "fits: no". Both must be at the context found.
    text, conversation = await answer("what's the max context for 70B AWQ on 2x4090?")
    report = sizing(conversation)
    (fit,) = report.longest_context
    found = fit.context_tokens
    assert f"**Longest context that fits 2× GeForce RTX 4090: {found:,} tokens**" in text
    assert report.recommendation is not None and report.recommendation.context_tokens == found
    row = next(line for line in text.splitlines() if line.startswith("| GeForce RTX 4090 | 2 |"))
    assert "| yes | yes |" in row


async def test_options_over_the_named_gpu_count_are_not_offered() -> None:
    # QA round 5: under a correct headline ("4× A100 40GB hold 1 sequence … 8× holds 108"),
    # the table still offered "40 | 4×1×10 | meets targets: no" — ten times the 4 GPUs named.
    text, _ = await answer("can we serve Llama 3.1 70B on 4 A100 40GB for 10 users?")
    rows = [line for line in text.splitlines() if line.startswith("| A100 40GB")]
    assert all(int(row.split("|")[2]) <= 4 for row in rows)
    assert "4×1×10" not in text  # the over-limit layout the table used to offer
    assert "**What holds this load: 8× A100 40GB SXM4**" in text


@pytest.mark.parametrize(
    "question",
    [
        "Llama 3.1 70B for 200 users on 4x L40S",
        "Qwen2.5 32B for 300 users with 8k context on 8 A100 80GB",
        "serve Llama 3.1 70B to 64 users on 2 H100s",
        "Mixtral 8x7B for 500 concurrent users on 4 L40S, 8k context",
    ],
)
def test_what_the_named_gpus_hold_is_within_their_count(question: str) -> None:
    """The layout a scale-out says the named GPUs hold is within them: its GPU count is TP ×
    PP × replicas and at most the GPUs named, however many replicas the users would need."""
    _, conversation = _ask(question)
    scale = sizing(conversation).scale_out
    assert scale is not None and scale.within is not None
    within = scale.within
    assert within.count == within.tp * within.pp * within.dp <= scale.count
    assert within.dp == scale.count // (within.tp * within.pp)
