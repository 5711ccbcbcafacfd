"""`gpu-sizer … | head` must end quietly: no BrokenPipeError traceback when the reader leaves."""

from __future__ import annotations

import subprocess
import sys


def test_closed_stdout_ends_without_a_traceback() -> None:
    # The read end is closed before the child has even imported (start-up takes ~0.3 s), so its
    # first write meets a closed pipe: the situation `| head` creates after the first lines.
    proc = subprocess.Popen(
        [sys.executable, "-m", "assistant", "gpus"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141, stderr  # 128 + SIGPIPE, as a shell reports it
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr
