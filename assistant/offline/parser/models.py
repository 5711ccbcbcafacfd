"""Which model: catalog names and Hugging Face ids, misspelt catalog names, bare sizes
('70B'), and families said without a size ('Llama 3.1')."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from assistant.offline import vocab
from assistant.offline.names import model_families, model_index
from assistant.offline.parsed import ParsedWorkload
from assistant.offline.parser.text import Text
from assistant.offline.quantities import NUMBER
from tools.catalog import get_catalog, normalize_name
from tools.errors import closest_names


def extract_hf_and_catalog_models(t: Text, p: ParsedWorkload) -> None:
    """Catalog models by name, alias or Hugging Face id (the first named is sized, others
    noted); an org/name id the catalog lacks becomes a question instead of a guessed size."""
    for match in model_index().find(t.work):
        if p.model is None:
            p.model, p.model_text = match.id, t.original[match.start : match.end]
        elif match.id != p.model:
            p.notes.append(
                f"several models named; sized {p.model_text!r}, not "
                f"{t.original[match.start : match.end]!r}"
            )
        t.consume(match.start, match.end)
    # An org/name id that is not in the catalog: say so rather than guess a size.
    for m in t.each(r"(?<![\w/])[a-z][\w.\-]*/[\w.\-]*\d[\w.\-]*"):
        if p.model is None:
            p.questions.append(
                f"{m.group(0)!r} is not in the catalog: how many parameters does it have "
                "(e.g. '13B'), or where is its config.json?"
            )
            p.unplaced.append(m.group(0))


# A catalog name this close (difflib ratio, 0–1) to a fragment is what the user meant to write:
# 'lama 3.1 70b' → 0.96 to llama-3.1-70b, 'llama3.1-70' → 0.96; unrelated names ('falcon 40b')
# score under 0.5 against every catalog entry.
_NEAR_MISS_RATIO = 0.8


def near_miss_models(t: Text, p: ParsedWorkload) -> None:
    """A misspelled catalog model ('lama 3.1 70b', 'llama3.1-70') becomes a question with the
    closest catalog names, not a silent generic model of the size it happens to contain."""
    if p.model is not None or any("catalog" in q for q in p.questions):
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
        if not re.match(r"[a-z]", first, re.I) or first.lower() in vocab.FILLER:
            continue
        for size in (1, 2, 3):
            window = tokens[i : i + size]
            if len(window) < size or any(w.lower() in vocab.FILLER for w in window):
                break
            text = " ".join(window)
            key = normalize_name(text)
            if not re.search(r"\d", key) or not re.search(r"[a-z]{3}", key):
                continue
            ratio = max(SequenceMatcher(None, key, known).ratio() for known in keys)
            if ratio >= _NEAR_MISS_RATIO and (best is None or ratio > best[0]):
                best = (ratio, text)
    if best is None:
        return
    near = [catalog.models[i].name for i in closest_names(normalize_name(best[1]), catalog.models)]
    p.questions.insert(
        0,
        f"'{best[1]}' is not a catalog model name. Did you mean {' or '.join(near)}? Give the "
        "catalog name (gpu-sizer models lists them), or a bare size such as '70B' for a "
        "generic model.",
    )


def extract_bare_size(t: Text, p: ParsedWorkload) -> None:
    """A bare size ('70B', 'Llama 8B', '350M parameters') as a parameter count when no
    catalog model was named; 'NxMB' (a mixture of experts not in the catalog) is asked about."""
    family = "|".join(sorted(vocab.FAMILY_WORDS, key=len, reverse=True))
    fam = rf"(?:\b({family})[\s\-]*(?:v?\d(?:\.\d)?)?[\s\-]*)?"
    unit = r"(b|bn|billion|m|million)"
    for m in t.each(rf"{fam}\b({NUMBER})\s*-?\s*{unit}(?![a-z])(?:[\s-]*param(?:eter)?s?)?"):
        scale = 1e9 if m.group(3).lower().startswith("b") else 1e6
        value = float(m.group(2).replace(",", "")) * scale
        if p.model is not None or value <= 0:
            continue
        if p.params is None:
            p.params = value
            p.model_text = m.group(0).strip()
    for m in t.each(r"\b(\d+)x(\d+(?:\.\d+)?)b\b"):
        p.unplaced.append(m.group(0))
        if not p.has_model:
            p.questions.append(
                f"'{m.group(0)}' looks like a mixture-of-experts model that is not in the "
                "catalog: which model is it (name or Hugging Face id)?"
            )


def family_questions(t: Text, p: ParsedWorkload) -> None:
    """'Llama 3.1' or 'Mixtral' with no size: ask which one, listing the catalog's."""
    if p.has_model:
        return
    families = model_families()
    catalog = get_catalog()
    for word in re.findall(r"[a-z]+", t.work.lower()):
        if word in families:
            names = ", ".join(catalog.models[i].name for i in families[word])
            p.questions.append(f"Which {word.capitalize()} model? The catalog has: {names}.")
            t.work = re.sub(rf"\b{word}\b[\s\-]*(?:\d(?:\.\d)?)?", " ", t.work, flags=re.I)
            return
