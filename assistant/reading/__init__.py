"""The reading of a question: typed slots with provenance (`model`), built from the parser's
typed workload (`parsed`: `ParsedWorkload`, with the number words of `quantities`) by
`of_parsed`, and the coverage gate (`coverage`)."""
