"""The benchmarks page's checks of the cost model hold for the CPU data sets only, as it says:
with a made-up GPU data set added, on which the lookup is the slowest method of all, every block
that reads the recorded data still runs to the end."""

from __future__ import annotations

import contextlib
import copy
import io

import pytest

import snippets.benchmarks.lookup_vs_onehot as results
from scripts import ROOT
from tests.markdown_model import read_fences

PAGE = ROOT / "docs" / "benchmarks.md"


def data_blocks() -> list[str]:
    """The page's executed blocks that read the recorded data (``load_results``)."""
    return ["\n".join(f.body) for f in read_fences(PAGE)
            if f.executed_by_codeblocks and "load_results" in "\n".join(f.body)]


def slow_gpu(data: dict) -> dict:
    """A copy of the data set ``data`` as if measured on a GPU where the lookup is a thousand
    times slower, so every other method is faster than it."""
    fake = copy.deepcopy(data)
    fake["machine"].update(device="cuda", gpu="made-up GPU")
    fake["file"] = "cuda.json"
    for row in fake["rows"]:
        if row["method"] == "embedding":
            for key in ("median_s", "p25_s", "p75_s"):
                row[key] *= 1000
        else:
            row["ratio_to_embedding"] /= 1000
    return fake


def test_the_page_reads_at_least_four_blocks_of_data():
    assert len(data_blocks()) >= 4


@pytest.mark.parametrize("number", range(len(data_blocks())))
def test_a_gpu_data_set_does_not_meet_the_cpu_checks(number, monkeypatch):
    recorded = results.load_results()
    fake = slow_gpu(recorded[0])
    monkeypatch.setattr(results, "load_results", lambda *args, **kwargs: [*recorded, fake])
    block = data_blocks()[number]
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(block, f"{PAGE.name} data block {number}", "exec"), {"__name__": "__main__"})
