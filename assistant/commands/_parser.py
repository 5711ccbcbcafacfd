"""`OneLineParser`: the argparse parser of every command, whose errors are one line.

Kept apart from the flag machinery (`_flags`, which reads pydantic models) so that `--help`
and `--version` build the top-level parser without importing pydantic or any tool.
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Sequence
from typing import Any, NoReturn

# Any '-' followed by a digit is a value, never a flag (no flag starts with a digit), so
# `--params -7B` and `--context -1` reach validation instead of argparse's "expected one
# argument". Python 3.14's argparse widened its default pattern to this same prefix rule.
_NEGATIVE_VALUE = re.compile(r"^-\.?\d")


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose every error is one line on stderr and exit 2 (issue 21: "every
    CLI failure exits 2 with one line"); `--help` still prints the full usage.

    Abbreviations are off (`allow_abbrev=False`, for this parser and every subcommand's, which
    argparse builds with the same class): a prefix must never silently become another flag
    (`recommend --gpu t4` was read as `--gpu-memory-utilization t4`). An unknown option gets
    the options it is a prefix of, or the closest ones, named in its error."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_VALUE

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """As argparse's, but unknown arguments are reported by the subcommand that got them
        (its prog, its options in the hint)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self._owner(parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _owner(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
                if isinstance(chosen, OneLineParser):
                    return chosen._owner(parsed)
        return self

    def error(self, message: str) -> NoReturn:
        text = " ".join(message.split())
        text = re.sub(r"^argument (\S+): ", r"\1: ", text)  # "--users: …", as model errors
        if text.startswith("unrecognized arguments:"):
            text += self._did_you_mean(text.removeprefix("unrecognized arguments:").split())
        self.exit(2, f"{self.prog}: error: {text}\n")

    def _did_you_mean(self, unknown: list[str]) -> str:
        """' (did you mean --x?)' for the first unknown option: the options it begins, else the
        closest names; '' when nothing is near."""
        option = next((u.split("=", 1)[0] for u in unknown if u.startswith("--")), None)
        if option is None:
            return ""
        known = sorted(o for o in self._option_string_actions if o.startswith("--"))
        near = [o for o in known if o.startswith(option)]
        if not near:
            near = difflib.get_close_matches(option, known, n=3, cutoff=0.75)
        if not near:
            return ""
        return f" (did you mean {' or '.join(near[:4])}? an option is never read from a prefix)"
