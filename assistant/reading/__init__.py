"""The reading of a question: typed slots with provenance (`model`), built from the parser's
workload (`of_parsed`), and the coverage gate (`coverage`)."""
