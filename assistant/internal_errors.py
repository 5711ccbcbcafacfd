"""Internal errors: logged with the request that caused them, said to the user, never hidden.

A bug in gpu-sizer's own code on a path that has a way round it (the question reader failing
in LLM mode, where the model can still call the tools itself) must not become a silent
downgrade: `log_internal_error` writes the traceback and the request — passed through
`assistant.redact.redact_secrets` first — to `<data dir>/logs/internal-errors.log`, and
returns the line to show the user. Paths with no way round raise as before (the CLI prints the
traceback, the app says so and saves the session).
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterable
from pathlib import Path

from assistant.redact import redact_secrets

LOGGER_NAME = "gpu_sizer.internal"
LOG_NAME = "internal-errors.log"


def log_path() -> Path:
    """Where internal errors are written (the data directory's `logs/`, not created here)."""
    from assistant.sessions import data_dir

    return data_dir() / "logs" / LOG_NAME


def _logger(path: Path) -> logging.Logger:
    logger = logging.getLogger(LOGGER_NAME)
    logger.propagate = False  # never onto the terminal the chat app draws on
    target = str(path.resolve())
    if not any(getattr(h, "baseFilename", None) == target for h in logger.handlers):
        for handler in list(logger.handlers):  # the data directory moved (tests, a new env)
            logger.removeHandler(handler)
            handler.close()
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, encoding="utf-8", delay=True)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.ERROR)
    return logger


def log_internal_error(
    where: str, request: str, exc: BaseException, secrets: Iterable[str] = ()
) -> str:
    """Log `exc` raised in `where` while handling `request` (secrets masked); returns the
    sentence telling the user, naming the log file. Never raises: a log that cannot be written
    is said in that sentence instead."""
    secrets = tuple(secrets)
    trace = "".join(traceback.format_exception(exc))
    record = f"{where}: {type(exc).__name__}: {exc}\nrequest: {request!r}\n{trace}"
    path = log_path()
    try:
        _logger(path).error(redact_secrets(record, secrets))
        for handler in logging.getLogger(LOGGER_NAME).handlers:
            handler.flush()
        logged = f"logged in {path}"
    except OSError as error:
        logged = f"not logged: {error.strerror or error}"
    what = redact_secrets(f"{type(exc).__name__}: {exc}", secrets)[:200]
    return f"Internal error in {where} ({what}); {logged}."
