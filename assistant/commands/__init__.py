"""One module per `gpu-sizer` subcommand: `add_parser(subparsers, help)` and `run(args) -> int`."""
