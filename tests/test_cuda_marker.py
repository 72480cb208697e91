"""The ``cuda`` marker's reasons (``tests/cuda_marker.py``): no GPU, too few GPUs, enough; and
the sharded-tables page's two-GPU block, skipped with the reason that fits this machine."""

from __future__ import annotations

import subprocess
import sys

import pytest

from scripts import ROOT
from tests.cuda_marker import CUDA_SKIP_REASON, skip_reason


@pytest.mark.parametrize(
    ("marker", "available", "count", "reason"),
    [
        (pytest.mark.cuda.mark, False, 0, CUDA_SKIP_REASON),
        (pytest.mark.cuda(devices=2).mark, False, 0, CUDA_SKIP_REASON),
        (pytest.mark.cuda.mark, True, 1, None),
        (
            pytest.mark.cuda(devices=2).mark,
            True,
            1,
            "needs 2 CUDA GPUs (one per rank): torch.cuda.device_count() is 1 on this machine",
        ),
        (pytest.mark.cuda(devices=2).mark, True, 2, None),
        (pytest.mark.cuda(devices=2).mark, True, 8, None),
    ],
)
def test_the_reason_fits_the_machine(marker, available, count, reason):
    assert skip_reason(marker, available, count) == reason


@pytest.mark.parametrize("devices", [0, -1, 1.5, True, "2"])
def test_a_device_count_that_is_not_a_whole_number_is_refused(devices):
    with pytest.raises(ValueError, match="whole number >= 1"):
        skip_reason(pytest.mark.cuda(devices=devices).mark, True, 4)


def test_the_two_gpu_block_is_skipped_with_its_reason_here():
    """The page's ``cuda(devices=2)`` block, run by pytest as the suite runs it: skipped, with the
    reason for this machine's GPUs (none or one here; on two or more it runs and must pass)."""
    import torch

    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    text = (ROOT / "docs" / "sharded-tables.md").read_text(encoding="utf-8")
    line = text[: text.index("<!--pytest.mark.cuda(devices=2)-->")].count("\n") + 3  # its fence
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "0",
            "-p",
            "no:cacheprovider",
            "-rs",
            "-q",
            f"docs/sharded-tables.md::line {line}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = done.stdout + done.stderr
    if count >= 2:
        assert done.returncode == 0 and "1 passed" in out, out[-3000:]
    else:
        expected = skip_reason(pytest.mark.cuda(devices=2).mark, count > 0, count)
        assert done.returncode == 0 and "1 skipped" in out and expected in out, out[-3000:]
