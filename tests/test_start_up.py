"""Start-up with the collector paused (assistant/start_up.py): paused inside, everything left
frozen after, the collector always started again, and nothing done for a caller that is not the
program itself."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.start_up import imports_uncollected

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def collector() -> Iterator[None]:
    """The collector on and nothing frozen before; the same after the test."""
    was_enabled = gc.isenabled()
    gc.enable()
    gc.unfreeze()
    yield
    gc.unfreeze()
    if not was_enabled:
        gc.disable()


def test_paused_inside_then_what_was_built_is_frozen(collector: None) -> None:
    with imports_uncollected():
        assert not gc.isenabled()
        # 1,000 two-list cycles: 2,000 tracked objects that live on past the block.
        kept = []
        for _ in range(1000):
            a: list[object] = []
            b: list[object] = [a]
            a.append(b)
            kept.append(a)
    assert gc.isenabled()
    assert gc.get_freeze_count() >= 2000 + 1  # the cycles and the list holding them
    assert all(gc.is_tracked(a) for a in kept)


def test_an_error_inside_still_starts_the_collector_again(collector: None) -> None:
    with pytest.raises(SystemExit), imports_uncollected():
        raise SystemExit(2)  # argparse's exit for a bad flag, raised mid-import
    assert gc.isenabled()


def test_inactive_or_already_paused_changes_nothing(collector: None) -> None:
    with imports_uncollected(active=False):
        assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    gc.disable()
    with imports_uncollected():
        pass
    assert not gc.isenabled()  # someone else turned it off: left off
    assert gc.get_freeze_count() == 0
    gc.enable()


def test_a_caller_passing_argv_keeps_its_collector(
    collector: None, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["memory", "--help"])
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    assert "--model" in capsys.readouterr().out


def test_the_program_freezes_its_imports_and_answers_the_same(tmp_path: Path) -> None:
    # As the console script calls it: main() with no argv, in its own interpreter.
    probe = (
        "import gc, sys\n"
        "from assistant.cli import main\n"
        "sys.argv = ['gpu-sizer', 'memory', '--model', 'llama-3.1-8b', '--gpu', 'h100-sxm']\n"
        "code = main()\n"
        "print('FROZEN', gc.get_freeze_count(), gc.isenabled(), code)\n"
    )
    env = {
        "GPU_SIZER_DATA_DIR": str(tmp_path / "data"),
        "GPU_SIZER_CACHE_DIR": str(tmp_path / "cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "PYTHONPATH": str(REPO),
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    frozen, enabled, code = done.stdout.rsplit("FROZEN ", 1)[1].split()
    # The memory command's imports (pydantic, the tools it sizes with) are tens of
    # thousands of objects; a bare interpreter tracks a few thousand.
    assert int(frozen) > 10_000
    assert (enabled, code) == ("True", "0")
    assert "GiB" in done.stdout or "GB" in done.stdout
