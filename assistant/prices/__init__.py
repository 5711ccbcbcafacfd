"""Refreshed cloud GPU prices: `gpu-sizer prices refresh` pulls open price catalogs (SkyPilot's
per-cloud `vms.csv`) into a dated price file in the user data directory, mapped to catalog GPU
ids; `gpu-sizer cost` and `recommend` (and the chat, and the MCP server) add its rows to the
built-in catalog, where a fresher row supersedes an older row of the same offer.

One job a module: `gpu_names` (provider accelerator names → catalog GPU ids: an explicit
table, never a guess), `skypilot` (parse one SkyPilot `vms.csv` into price rows), `sources`
(which catalogs, at which addresses), `fetch` (the only network code: download a source and
read the date its data is from), `store` (where refreshed files live, which one is in use,
writing one atomically), `refresh` (fetch → parse → validate → write, all or nothing).
"""
