"""Which model: catalog names and Hugging Face ids, misspelt catalog names, bare sizes
('70B'), and families said without a size ('Llama 3.1')."""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher
from functools import cache
from pathlib import Path

from assistant.offline import vocab
from assistant.offline.names import (
    NameParts,
    corrected_family,
    model_families,
    model_index,
    model_name_parts,
    names_a_gpu,
)
from assistant.offline.parser.text import Text
from assistant.reading.parsed import ParsedWorkload
from assistant.reading.quantities import NUMBER
from assistant.regex_cache import compiled
from tools.architecture import count_parameters
from tools.catalog import get_catalog, normalize_name
from tools.errors import ToolInputError, closest_names
from tools.model_sources.hf_cache import snapshot_file
from tools.model_sources.tags import (
    OLLAMA_LIBRARY,
    ollama_default_weights,
    parse_gguf_name,
    parse_tag,
)

# A local GGUF path ("~/models/qwen3-32b-q4_k_m.gguf", "./x.gguf", "/data/m.gguf").
_GGUF_PATH = r"(?<![\w])(?:~|\.{1,2})?/?[\w.\-~/]*[\w\-]\.gguf\b"
# An Ollama reference: "qwen3:32b", "llama3.3:70b-instruct-q4_K_M", "hf.co/org/repo:Q4_K_M".
_OLLAMA_TAG = r"(?<![\w/:.])(?:hf\.co/)?[a-z][\w.\-]*(?:/[\w.\-]+)?:[a-z0-9][\w.\-]*"
# A size inside a model name: "Foo-32B", "org/Bar-7b-instruct", "baz-0.5B".
_SIZE_IN_NAME = compiled(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*([bm])(?![a-z0-9])", re.I)


def extract_model_files_and_tags(t: Text, p: ParsedWorkload) -> None:
    """A local .gguf path (sized from its header) and Ollama tags naming a catalog model
    ('qwen3:32b' → the model in Ollama's default Q4_K_M; a quantization in the tag is kept)."""
    if compiled(r"\bollama\b", re.I).search(t.original):
        p.launcher = "ollama"
    elif compiled(r"\bllama[.\-]?cpp\b|\bllama-(?:server|cli)\b", re.I).search(t.original):
        p.launcher = "llama-server"
    for m in t.each(_GGUF_PATH):
        if p.model_file is None and p.model is None:
            p.engine = p.engine or "generic"
            if not _on_this_machine(m.group(0)) and _read_gguf_name(m.group(0), p):
                continue
            p.model_file, p.model_text = m.group(0), m.group(0)
    catalog = get_catalog()
    for m in compiled(_OLLAMA_TAG, re.I).finditer(t.work):
        tag = parse_tag(t.original[m.start() : m.end()])
        if tag is None:
            continue
        entry = None
        for name in tag.names:
            try:
                entry = catalog.model(name)
                break
            except ToolInputError:
                continue
        if entry is None:
            continue
        t.consume(m.start(), m.end())
        if p.model is not None or p.model_file is not None:
            continue
        p.model, p.model_text = entry.id, tag.text
        weights = tag.weights or ollama_default_weights(entry.checkpoint_format)
        p.weights = p.weights or weights
        p.launcher = "ollama"
        p.engine = "generic"
        how = "the tag's quantization" if tag.weights else "Ollama's default build of the tag"
        p.notes.append(f"'{tag.text}' read as {entry.name} in {weights} ({how})")


def _on_this_machine(path: str) -> bool:
    """Whether `path` is a file here: its header then sizes it exactly."""
    try:
        return Path(path).expanduser().is_file()
    except (OSError, ValueError):
        return False


def _read_gguf_name(path: str, p: ParsedWorkload) -> bool:
    """A GGUF file that is not on this machine, read from its name: the catalog model it
    names (else the size in it, as a generic model) and its GGUF type. False when the name
    says neither, so the file itself is asked for."""
    said = parse_gguf_name(path)
    if said is None:
        return False
    where = f"'{path}' is not a file here, so it is read from its name"
    try:
        entry = get_catalog().model(said.name)
        p.model, what = entry.id, entry.name
    except ToolInputError:
        size = _SIZE_IN_NAME.search(said.name)
        if size is None:
            return False
        p.params = float(size.group(1)) * (1e9 if size.group(2).lower() == "b" else 1e6)
        what = f"a generic {size.group(1)}{size.group(2).upper()} dense model (not in the catalog)"
    p.model_text = path
    if said.weights is not None:
        p.weights = p.weights or said.weights
        what += f" in {said.weights}"
    elif said.quant is not None:
        p.ask(
            "weights",
            "unknown",
            f"'{said.quant}' in '{path}' is not one GGUF type gpu-sizer sizes (Q4_K_M, Q8_0, "
            "IQ4_XS …): which type is it closest to?",
            said.quant,
        )
    p.notes.append(f"{where}: {what}")
    return True


@cache
def _library_names() -> tuple[tuple[str, str, str], ...]:
    """The library's `name:size` tags said in words ('deepseek-r1 14b', 'DeepSeek R1 14B')
    where the name alone is another catalog model (DeepSeek-R1, 671B): the name's letters and
    numbers with any separators, then the size. (pattern, catalog id, tag) each."""
    out: list[tuple[str, str, str]] = []
    catalog = get_catalog()
    for key, model_id in OLLAMA_LIBRARY.items():
        name, size = key.split(":")
        try:
            alone = catalog.model(name).id
        except ToolInputError:
            continue  # the name alone names no model: the catalog's names read it with its size
        if alone == model_id or model_id not in catalog.models:
            continue
        words = compiled(r"[a-z]+|\d+(?:\.\d+)?").findall(name)
        said = r"[\s\-_.]*".join(map(re.escape, words))
        size_said = re.escape(size[:-1]) + r"\s*b\b" if size.endswith("b") else re.escape(size)
        # Not when more of a name follows ('deepseek-r1-14b-qwen-distill' names itself).
        out.append((rf"(?<![\w.]){said}[\s\-_:]+{size_said}(?![\w.]|-\w)", model_id, key))
    return tuple(out)


def extract_library_names(t: Text, p: ParsedWorkload) -> None:
    """A library model said with a size that names another model than the name alone: 'deepseek
    r1 14b' is the 14B Qwen distill (Ollama's deepseek-r1:14b), not DeepSeek-R1 (671B) and a
    second model of 14B."""
    if p.model is not None or p.model_file is not None:
        return
    for pattern, model_id, tag in _library_names():
        said = t.each(pattern)
        if not said:
            continue
        p.model, p.model_text = model_id, said[0].group(0)
        name = get_catalog().models[model_id].name
        p.notes.append(
            f"'{p.model_text}' read as {name}: the size names that build (Ollama's library tag "
            f"{tag})"
        )
        return


def _same_architecture(a: str | None, b: str | None) -> bool:
    """Two catalog models with one architecture have the same figures (Llama 3.1 and 3.3 70B)."""
    models = get_catalog().models
    if a not in models or b not in models:
        return False
    return models[a].architecture == models[b].architecture


# What a name joined to a catalog name goes on with, up to a size of its own: '-nemotron-super-
# 49b' after 'llama-3.3'. An active-parameter count ('-A3B') is not a size of its own.
_JOINED_SIZE = compiled(r"[-_][\w.\-]*?(?<![a-z])(\d+(?:\.\d+)?)([bm])(?![a-z0-9])", re.I)


def _derivative_of(text: str, model_id: str | None, end: int) -> bool:
    """Whether the catalog name ending at `end` is only the start of another model's name,
    one of another size ('llama-3.3-nemotron-super-49b-v1' is a 49B model, not Llama 3.3
    70B): that name is read whole, as a generic model of its size."""
    joined = _JOINED_SIZE.match(text, end)
    if model_id is None or joined is None or compiled(r"\s").search(joined.group(0)):
        return False
    scale = 1e9 if joined.group(2).lower() == "b" else 1e6
    return not _sizes_of(model_id, float(joined.group(1)) * scale)


# Words that go on a model's name after a catalog name, up to a size: ' distill 32B' after
# 'DeepSeek R1'. At most three words, none a sentence's ('on', 'with', 'or' …).
_NAME_GOES_ON = compiled(
    r"((?:[\s\-_]+[a-z][\w.]*){1,3}?)[\s\-_]+(\d+(?:\.\d+)?)\s?b(?![\w.])", re.I
)


def _tokens(name: str) -> set[str]:
    return set(compiled(r"[a-z]+\d*|\d+(?:\.\d+)?").findall(name.lower()))


def _longer_name(text: str, start: int, end: int) -> tuple[str, int] | None:
    """The catalog model a catalog name goes on to name with more words and a size of its
    own ('DeepSeek R1 distill 32B' → DeepSeek-R1-Distill-Qwen 32B), when exactly one catalog
    model holds every word said and that size; with the end of the words it took."""
    goes_on = _NAME_GOES_ON.match(text, end)
    if goes_on is None:
        return None
    words = goes_on.group(1).lower().replace("-", " ").replace("_", " ").split()
    if any(w in _NOT_NAME_WORDS for w in words):
        return None
    said = _tokens(text[start:end]) | set(words)
    size = float(goes_on.group(2)) * 1e9
    found = [
        model_id
        for model_id, forms in _catalog_name_tokens()
        if any(said <= form for form in forms) and _sizes_of(model_id, size)
    ]
    return (found[0], goes_on.end()) if len(found) == 1 else None


_NOT_NAME_WORDS = vocab.FILLER | {"serve", "serving"}
"""Words of a sentence, never of a model's name ('DeepSeek R1 and Llama 3.1 8B')."""


@cache
def _catalog_name_tokens() -> tuple[tuple[str, tuple[frozenset[str], ...]], ...]:
    """Each catalog model's id with the words of its id, name and aliases (built once)."""
    return tuple(
        (e.id, tuple(frozenset(_tokens(f)) for f in (e.id, e.name, *e.aliases)))
        for e in get_catalog().models.values()
    )


def extract_hf_and_catalog_models(t: Text, p: ParsedWorkload) -> None:
    """Catalog models by name, alias or Hugging Face id (the first named is sized, others
    noted); an org/name id the catalog lacks becomes a question instead of a guessed size."""
    for match in model_index().find(t.work):
        if _derivative_of(t.original, match.id, match.end):
            continue  # 'llama-3.3-nemotron-super-49b-v1': read as the model of its own size
        longer = _longer_name(t.original, match.start, match.end)
        if longer is not None:
            # 'DeepSeek R1 distill 32B': the one catalog model those words and that size name.
            model_id, end = longer
            said = t.original[match.start : end]
            if p.model is None and p.model_file is None:
                p.model, p.model_text = model_id, said
                name = get_catalog().models[model_id].name
                p.notes.append(f"'{said}' read as {name}, the catalog model those words name")
            t.consume(match.start, end)
            continue
        if p.model is None and p.model_file is None:
            p.model, p.model_text = match.id, t.original[match.start : match.end]
        elif match.id != p.model and not _same_architecture(p.model, match.id):
            # Two models with different figures: sizing one would answer for the other too.
            said = t.original[match.start : match.end]
            if not p.asks("model", "ambiguous"):
                p.ask(
                    "model",
                    "ambiguous",
                    f"Several models are named ({p.model_text!r} and {said!r}): which one should "
                    "I size? (One model per answer; ask again for the other.)",
                    said,
                )
        t.consume(match.start, match.end)
    # An org/name id that is not in the catalog: the local Hugging Face cache, else the size
    # in its name (a generic model, said so), else a question rather than a guessed size.
    # A repo name holds a letter and a digit or a dash: 'acme/foo-instruct', not 'tokens/s'
    # or the '2k in/500 out' of a length pair; nothing is consumed once a model is known.
    repo_id = r"(?<![\w/-])[a-z][\w.\-]*/(?=[\w.\-]*[a-z])(?=[\w.]*[\d\-])[\w.\-]+"
    for m in list(re.finditer(repo_id, t.work, re.I)):
        if p.has_model:
            break
        if all(names_a_gpu(part) for part in m.group(0).split("/")):
            continue  # 'A100/A800', 'H100/H200': GPUs offered as either, not a repo id
        t.consume(m.start(), m.end())
        # The whole name as written, past what another reader took from inside it (an EXL2
        # repo's '-4.65bpw-h6' rate), so the cache is asked for the repo itself.
        repo = t.original[m.start() : _name_end(t.original, m.end())]
        if snapshot_file(repo, "config.json") is not None:
            p.model, p.model_text = repo, repo
            p.notes.append(f"'{repo}' read from the local Hugging Face cache (its config.json)")
            continue
        size = _SIZE_IN_NAME.search(repo.rsplit("/", 1)[-1])
        if size is not None:
            p.params = float(size.group(1)) * (1e9 if size.group(2).lower() == "b" else 1e6)
            p.model_text = repo
            p.notes.append(
                f"'{repo}' is neither in the catalog nor in the local Hugging Face cache: sized "
                f"as a generic {size.group(1)}{size.group(2).upper()} dense model (give its "
                "config.json or a GGUF file for exact figures)"
            )
            continue
        p.ask(
            "model",
            "unknown",
            f"{repo!r} is not in the catalog: how many parameters does it have "
            "(e.g. '13B'), or where is its config.json?",
            repo,
        )
        p.unplaced.append(repo)


def _name_end(text: str, end: int) -> int:
    """Where the repo name running through `end` of `text` ends (name characters only)."""
    while end < len(text) and (text[end].isalnum() or text[end] in "._-"):
        end += 1
    return end


# A model said as family word, version and size: "lamma 3.1 70b", "llama3 70b", "mixtrall 8x7b".
_FAMILY_VERSION_SIZE = compiled(
    r"(?<![\w.])([a-z]+)[\s\-_]*(?:v(?=\d))?(\d+(?:\.\d+)?)?[\s\-_]*"
    r"((?:\d+x)?\d+(?:\.\d+)?)\s?([bm])(?![\w.])",
    re.I,
)


def _version_matches(said: str | None, version: str | None) -> bool:
    """'3.1' matches 3.1; a major version alone ('3') matches every 3.x; no version said
    matches only a name without one ('mixtrall 8x7b' → Mixtral 8x7B)."""
    if said is None or version is None:
        return said == version
    return version == said or ("." not in said and version.startswith(said + "."))


def extract_misspelt_models(t: Text, p: ParsedWorkload) -> None:
    """A catalog model written with a misspelt family word or a shorter version, its size
    explicit ('lamma 3.1 70b', 'llama3 70b', 'mixtrall 8x7b'): read as the catalog model whose
    family, version and size those are, the reading noted. Catalog models of one architecture
    (the same figures) count as one; several architectures become a question naming them."""
    if p.has_model:
        return
    catalog = get_catalog()
    for m in _FAMILY_VERSION_SIZE.finditer(t.work):
        word, said_version = m.group(1).lower(), m.group(2)
        size = f"{m.group(3)}{m.group(4)}".lower()
        family = word if word in model_families() else corrected_family(word)
        if family is None or (family == word and said_version is None):
            continue  # spelt right without a version: a bare size or a family question
        candidates: list[NameParts] = []
        for parts in model_name_parts():
            if (parts.family, parts.size) != (family, size):
                continue
            if _version_matches(said_version, parts.version) and parts.id not in {
                c.id for c in candidates
            }:
                candidates.append(parts)
        if not candidates:
            continue
        said = t.original[m.start() : m.end()]
        entries = [catalog.models[c.id] for c in candidates]
        first = entries[0]
        if any(e.architecture != first.architecture for e in entries[1:]):
            names = " or ".join(e.name for e in entries)
            text = f"Which model is '{said}': {names}? They differ in size."
            p.ask("model", "ambiguous", text, said, first=True)
            return
        t.consume(m.start(), m.end())
        p.model, p.model_text = first.id, said
        if family == word and said_version != candidates[0].version:
            # Spelt right, another version ('Llama 3 8B', 'Qwen2 7B'): a model the catalog
            # lacks, sized as its catalog sibling of that size — shown in the reading.
            p.stand_in_for = said
        how = (
            f"the closest catalog name to '{word}'"
            if family != word
            else f"the catalog has no {family.capitalize()} {said_version} {size.upper()}; its "
            f"{family.capitalize()} {said_version}.x {size.upper()}"
        )
        same = [e.name for e in entries[1:]]
        also = f"; {', '.join(same)} has the same architecture, so the same figures" if same else ""
        p.notes.append(f"'{said}' read as {first.name} ({how}{also}); say so if you meant another")
        return


# A catalog name this close (difflib ratio, 0–1) to a fragment is what the user meant to write:
# 'lama 3.1 70b' → 0.96 to llama-3.1-70b, 'llama3.1-70' → 0.96. A name said with its own size
# ('Falcon 40B', close to Falcon3 10B) never gets here: it is a generic model of that size.
_NEAR_MISS_RATIO = 0.8


def _closest_ratio(key: str, known: Iterable[str]) -> float:
    """The highest `SequenceMatcher(None, key, k).ratio()` over `known` where it reaches
    `_NEAR_MISS_RATIO` (below it, some lower ratio: the caller ignores those). A name whose
    upper bounds (`real_quick_ratio`, from the lengths; `quick_ratio`) cannot beat the best so
    far, or the threshold, is not compared in full: most catalog names differ in length."""
    best = 0.0
    matcher = SequenceMatcher(None, key, "")
    for name in known:
        floor = max(best, _NEAR_MISS_RATIO)
        bound = 2.0 * min(len(key), len(name)) / (len(key) + len(name) or 1)
        if bound < floor or (best and bound <= best):
            continue
        matcher.set_seq2(name)
        quick = matcher.quick_ratio()
        if quick < floor or (best and quick <= best):
            continue
        best = max(best, matcher.ratio())
    return best


def near_miss_models(t: Text, p: ParsedWorkload) -> None:
    """A misspelled catalog model ('lama 3.1 70b', 'llama3.1-70') becomes a question with the
    closest catalog names, not a silent generic model of the size it happens to contain. A
    name said with its size ('Falcon 40B', 'Foo-32B') is not a misspelling: it was read as a
    generic model of that size (extract_named_sizes, extract_bare_size), never as another."""
    if p.model is not None or p.asks("model", "unknown", "ambiguous"):
        return
    if p.params is not None and compiled(r"[a-z]", re.I).search(p.model_text or ""):
        return
    catalog = get_catalog()
    keys = {
        normalize_name(form): entry.id
        for entry in catalog.models.values()
        for form in (entry.id, entry.name, *entry.aliases)
    }
    tokens = [w.strip(".,;:!?()[]{}\"'`") for w in t.original.split()]
    best: tuple[float, str] | None = None
    for i, first in enumerate(tokens):
        if not compiled(r"[a-z]", re.I).match(first) or first.lower() in vocab.FILLER:
            continue
        for size in (1, 2, 3):
            window = tokens[i : i + size]
            if len(window) < size or any(w.lower() in vocab.FILLER for w in window):
                break
            text = " ".join(window)
            key = normalize_name(text)
            if not compiled(r"\d").search(key) or not compiled(r"[a-z]{3}").search(key):
                continue
            ratio = _closest_ratio(key, keys)
            if ratio >= _NEAR_MISS_RATIO and (best is None or ratio > best[0]):
                best = (ratio, text)
    if best is None:
        return
    near = [catalog.models[i].name for i in closest_names(normalize_name(best[1]), catalog.models)]
    p.ask(
        "model",
        "unknown",
        f"'{best[1]}' is not a catalog model name. Did you mean {' or '.join(near)}? Give the "
        "catalog name (gpu-sizer models lists them), or a bare size such as '70B' for a "
        "generic model.",
        best[1],
        first=True,
    )


# A model name with its size joined to it: 'Foo-32B', 'acme_bar-7b-instruct', 'MyModel13B',
# 'Foo-30B-A3B'. Not 'mixtral-8x7b' (a mixture, asked about below) nor a bare '7b-param'.
_NAMED_SIZE = (
    r"(?<![\w/.\-])([a-z][a-z0-9.]*?(?:[-_][a-z0-9.]+?)*?)[-_]?(?<!\dx)(\d+(?:\.\d+)?)([bm])"
    r"((?:[-_][a-z0-9.]+)*)(?![\w.\-])"
)


def generic_name_note(name: str, size: str) -> str:
    """The reading of a named model the catalog lacks, sized by the size in its name."""
    return (
        f"'{name}' is not in the catalog: sized as a generic {size} dense model (a Llama "
        "3.x-shaped guess; give its config.json, a GGUF file or its Hugging Face id for exact "
        "figures)"
    )


_EXPERT_SHAPES = {"8x7b": "mixtral-8x7b", "8x22b": "mixtral-8x22b"}
"""A mixture's shape said alone: the one catalog model of that shape (Mixtral's)."""


def extract_expert_shape(t: Text, p: ParsedWorkload) -> None:
    """'8x22b tokens-per-second slower than expected': a bare '8x7b' / '8x22b' names Mixtral (no
    other catalog model has that shape), read before the token volumes ('22b' is no token count)."""
    if p.has_model:
        return
    for m in t.each(r"(?<![\w.-])(8x(?:7|22)b)(?![\w-])"):
        model = _EXPERT_SHAPES[m.group(1).lower()]
        p.model, p.model_text = model, m.group(1)
        p.notes.append(f"'{m.group(1)}' read as {model} (the catalog's one model of that shape)")
        return


def extract_named_sizes(t: Text, p: ParsedWorkload) -> None:
    """A model name the catalog lacks with its size in it ('Foo-32B'): a generic model of that
    size, the reading noted, the whole name consumed (not 'Foo-' left unplaced)."""
    if p.has_model:
        return
    for m in t.each(_NAMED_SIZE):
        if p.has_model or not compiled(r"[a-z]", re.I).search(m.group(1)):
            continue
        scale = 1e9 if m.group(3).lower() == "b" else 1e6
        p.params = float(m.group(2)) * scale
        p.model_text = t.original[m.start() : m.end()]
        p.notes.append(generic_name_note(p.model_text, f"{m.group(2)}{m.group(3).upper()}"))


def extract_bare_size(t: Text, p: ParsedWorkload) -> None:
    """A bare size ('70B', '350M parameters') as a parameter count when no catalog model was
    named; a family word before it that names no catalog model ('Falcon 40B') is a generic
    model of that size, noted; 'NxMB' (a mixture of experts not in the catalog) is asked
    about."""
    family = "|".join(sorted(vocab.FAMILY_WORDS, key=len, reverse=True))
    fam = rf"(?:\b({family})[\s\-]*(?:v?\d(?:\.\d)?)?[\s\-]*)?"
    unit = r"(b|bn|billion|m|million)"
    params = r"(?P<params>[\s-]*param(?:eter)?s?|(?=[\s-]*(?:llms?|models?)\b))?"
    for m in t.each(rf"{fam}\b({NUMBER})\s*-?\s*{unit}(?![a-z]){params}"):
        # 'billion' / 'million' in words is a size only said as one ('a 7 billion parameter
        # model', 'Falcon 40 billion'): '10 million documents', '2 billion input tokens' are not.
        worded = len(m.group(3)) > 2
        if worded and not (m.group(1) or m.group("params") is not None):
            t.work = t.work[: m.start()] + t.original[m.start() : m.end()] + t.work[m.end() :]
            continue
        scale = 1e9 if m.group(3).lower().startswith("b") else 1e6
        value = float(m.group(2).replace(",", "")) * scale
        other_size = p.params is not None and abs(p.params - value) > 0.01 * value
        if value > 0 and (
            (p.model is not None and not _sizes_of(p.model, value))
            or (p.model is None and other_size)
        ):
            # 'Llama 3.1 8B … a 70B', '7B, 13B or 70B': sizing one would answer for another.
            if not p.asks("model", "ambiguous"):
                said = m.group(0).strip()
                p.ask(
                    "model",
                    "ambiguous",
                    f"Several models are named ({p.model_text!r} and {said!r}): which one "
                    "should I size? (One model per answer; ask again for the other.)",
                    said,
                )
            continue
        if p.model is not None or p.model_file is not None or value <= 0:
            continue
        if p.params is None:
            p.params = value
            p.model_text = m.group(0).strip()
            if m.group(1):
                size = f"{m.group(2)}{'B' if scale == 1e9 else 'M'}"
                p.notes.append(generic_name_note(p.model_text, size))
    for m in t.each(r"\b(\d+)x(\d+(?:\.\d+)?)b\b"):
        p.unplaced.append(m.group(0))
        if not p.has_model:
            p.ask(
                "model",
                "unknown",
                f"'{m.group(0)}' looks like a mixture-of-experts model that is not in the "
                "catalog: which model is it (name or Hugging Face id)?",
                m.group(0),
            )


def _sizes_of(model_id: str, params: float) -> bool:
    """Whether `params` is the catalog model's size as its name says it ('70B' of Llama 3.1
    70B, '8x7B'/'47B' of Mixtral), within the rounding people write sizes with."""
    entry = get_catalog().models.get(model_id)
    if entry is None:
        return True
    sizes = {n.size for n in model_name_parts() if n.id == model_id}
    said = f"{params / 1e9:g}b" if params >= 1e9 else f"{params / 1e6:g}m"
    if said in sizes or any(s.endswith("x" + said) or s.endswith(said) for s in sizes):
        return True
    total = count_parameters(entry.architecture).total
    return abs(total - params) / params < 0.15


# A size said before its family ('70b llama2', 'the 120b model of gpt-oss', '7b*8 mixtral'):
# the catalog model of that family, version and size.
_SIZE_FAMILY = compiled(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s?([bm])\s+(?:(?:param(?:eter)?s?\s+)?(?:model|version|"
    r"variant)\s+)?(?:of\s+|from\s+)?(?:the\s+)?([a-z][a-z]*(?:-[a-z]+)*)[\s\-_]*(v?\d+(?:\.\d+)?)?"
    r"(?![\w.])",
    re.I,
)


def extract_size_then_family(t: Text, p: ParsedWorkload) -> None:
    """A model said size first ('70b llama2', 'the 120b model of gpt-oss'): read as the
    catalog model the same words in the usual order name, when exactly one does."""
    if p.has_model:
        return
    for m in _SIZE_FAMILY.finditer(t.work):
        family = m.group(3).lower()
        word = family.split("-")[0]
        if word not in model_families() and corrected_family(word) is None:
            continue
        version = (m.group(4) or "").lstrip("v")
        candidate = f"{family} {version} {m.group(1)}{m.group(2)}".replace("  ", " ")
        found = {f.id for f in model_index().find(candidate) if f.id is not None}
        if len(found) != 1:
            continue
        (model_id,) = found
        t.consume(m.start(), m.end())
        p.model, p.model_text = model_id, t.original[m.start() : m.end()].strip()
        p.notes.append(
            f"'{p.model_text}' read as {get_catalog().models[model_id].name}; say so if you "
            "meant another"
        )
        return


def family_questions(t: Text, p: ParsedWorkload) -> None:
    """'Llama 3.1' or 'Mixtral' with no size: ask which one, listing the catalog's — unless
    the name was already asked about as one the catalog lacks, with its closest names ('Phi-3
    medium', 'llama3.1-70'): one question about the model, not two."""
    if p.has_model or p.asks("model", "unknown"):
        return
    families = model_families()
    catalog = get_catalog()
    for word in compiled(r"[a-z]+").findall(t.work.lower()):
        family = word if word in families else corrected_family(word)
        if family is not None:
            names = ", ".join(catalog.models[i].name for i in families[family])
            spelt = "" if family == word else f" ('{word}' read as {family.capitalize()})"
            # Kept, so a reply that gives only the size ('8x7b') names the model with it.
            p.model_text = p.model_text or family
            p.ask(
                "model",
                "ambiguous",
                f"Which {family.capitalize()} model{spelt}? The catalog has: {names}.",
                family,
            )
            t.work = re.sub(
                rf"\b{word}\b[\s\-]*(?:\d(?:\.\d)?)?",
                lambda m: " " * len(m.group(0)),
                t.work,
                flags=re.I,
            )
            return
