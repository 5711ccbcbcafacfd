"""Plain language → `ParsedWorkload`: the offline parser, one module per kind of fact.

`pipeline` runs the extractors in a fixed order over `text.Text` (each blanks out what it read);
extractors moved so far live by subject in `models`, `gpus`, `lengths`, `load`, `training`
and `task`; the rest are still in `pipeline`.
"""

from assistant.offline.parser.pipeline import parse_workload

__all__ = ["parse_workload"]
