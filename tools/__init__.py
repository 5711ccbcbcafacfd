"""gpu-sizer's deterministic calculators.

Pure functions over pydantic models; no I/O except reading the catalog. This package must
import without textual or openai (tests/test_layers.py checks it).
"""
