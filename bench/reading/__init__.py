"""The reading benchmark: the built-in reader against hand-written gold readings of questions
real engineers asked in public (README.md; `python -m bench.reading`)."""
