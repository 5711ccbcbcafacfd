"""Plain language → `ParsedWorkload`: the offline parser, one module per kind of fact.

`pipeline` runs the extractors in a fixed order over `text.Text` (each blanks out what it read);
the extractors live by subject: `models`, `gpus`, `lengths`, `load`, `training`, `task`,
`options`, and `leftovers` (negative numbers, unplaced fragments).
"""

from assistant.offline.parser.pipeline import parse_workload

__all__ = ["parse_workload"]
