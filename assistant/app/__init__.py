"""The Textual chat app (`gpu-sizer` with no arguments). Imported only by the CLI's no-argument
path and by tests, so `tools/` and the engines never load Textual."""
