"""The per-rank programs of ``snippets/sharded_tables/`` run on real gloo processes.

Each program there that defines ``WORLD_SIZES`` is one rank of a ``torchrun`` job; it asserts
what it claims and rank 0 prints every rank's facts. This module runs them the way a reader
does, ``torchrun --standalone`` (no fixed port), with one launch per world size
(``tests/sharded_driver.py`` runs several programs in one launch, since starting the ranks is
what costs time): 2 ranks (training, DDP, cost, checkpoint saved), then 4 ranks (training, cost,
checkpoint loaded from the 2-rank save). What each program prints must equal its golden file,
``<name>.k<K>.txt`` beside it, which a page can include. After a deliberate change, rewrite the
golden files with::

    python -m tests.test_sharded_programs

A launch that does not end within ``LAUNCH_LIMIT_S`` seconds is stopped (``torchrun`` stops its
ranks on SIGTERM) and the test fails naming the programs; a rank that raises fails the test with
that rank's traceback. ``bench_*.py`` programs are run by hand, not here.
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from scripts import ROOT

FOLDER = ROOT / "snippets" / "sharded_tables"
DRIVER = ROOT / "tests" / "sharded_driver.py"
#: Seconds one launch may take before it is stopped (a few seconds is normal).
LAUNCH_LIMIT_S = 60


def world_sizes(path: Path) -> tuple[int, ...] | None:
    """The ``WORLD_SIZES`` tuple a program defines at module level, or ``None``."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
            "WORLD_SIZES"
        ]:
            return ast.literal_eval(node.value)
    return None


def launches(checkpoint: Path) -> dict[int, list[list[str]]]:
    """Programs (``[path, arg, ...]``, paths relative to the root) per world size, in order."""
    rel = "snippets/sharded_tables/"
    return {
        2: [
            [rel + "train_sharded.py"],
            [rel + "train_ddp.py"],
            [rel + "cost_collectives.py"],
            [rel + "checkpoint_reshard.py", "save", str(checkpoint)],
        ],
        4: [
            [rel + "train_sharded.py"],
            [rel + "cost_collectives.py"],
            [rel + "checkpoint_reshard.py", "load", str(checkpoint)],
        ],
    }


#: Run where torchrec is installed (tests below), on 2 ranks.
TORCHREC = ["snippets/sharded_tables/torchrec_rowwise.py"]


def torchrun(k: int, programs: list[list[str]], python: str = sys.executable) -> dict[str, str]:
    """Run ``programs`` in one ``k``-rank launch of ``python``; return each program's output
    (rank 0's), by program name."""
    names = ", ".join(Path(p[0]).name for p in programs)
    command = [
        *(python, "-m", "torch.distributed.run", "--standalone"),
        *(f"--nproc_per_node={k}", str(DRIVER), json.dumps(programs)),
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    with subprocess.Popen(
        command, cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        try:
            out, err = proc.communicate(timeout=LAUNCH_LIMIT_S)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGTERM)  # torchrun stops its ranks, then exits
            try:
                out, err = proc.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
            pytest.fail(f"{k}-rank launch of {names} still running after {LAUNCH_LIMIT_S} s")
    if proc.returncode != 0:
        ranks = [line for line in err.splitlines() if line.startswith("[rank")]
        pytest.fail(
            f"{k}-rank launch of {names} exited with {proc.returncode}:\n"
            + "\n".join(ranks[-60:] or err.splitlines()[-60:])
        )
    outputs: dict[str, str] = {}
    current = None
    for line in out.splitlines(keepends=True):
        if line.startswith("==> "):
            current = Path(line[4:].strip()).stem
            outputs[current] = ""
        elif current is not None:
            outputs[current] += line
    return outputs


def golden(name: str, k: int) -> Path:
    return FOLDER / f"{name}.k{k}.txt"


def run_all() -> dict[int, dict[str, str]]:
    """Both launches, the 4-rank one reading the checkpoint the 2-rank one wrote."""
    with tempfile.TemporaryDirectory(prefix="sharded-checkpoint-") as checkpoint:
        return {k: torchrun(k, p) for k, p in launches(Path(checkpoint)).items()}


@pytest.mark.timeout(2 * LAUNCH_LIMIT_S + 60)  # two launches, each stopped at its limit
def test_every_program_runs_on_its_world_sizes_and_prints_its_golden_output():
    """One test (one xdist worker), since the 4-rank launch loads the 2-rank launch's save."""
    stale = []
    for k, outputs in run_all().items():
        for name, out in outputs.items():
            path = golden(name, k)
            shown = path.read_text(encoding="utf-8") if path.exists() else ""
            if shown != out:
                diff = difflib.unified_diff(
                    shown.splitlines(), out.splitlines(), "golden", "printed", lineterm=""
                )
                stale.append(f"{path.relative_to(ROOT)}:\n" + "\n".join(diff))
    assert not stale, "output differs from the golden file:\n" + "\n".join(stale)


def test_torchrec_shards_row_wise_where_it_is_installed():
    """TorchRec is not pinned (see on_gpus.md); ``TORCHREC_PYTHON`` names a Python that has it."""
    python = os.environ.get("TORCHREC_PYTHON", sys.executable)
    probe = [python, "-c", "import importlib.util as u; exit(u.find_spec('torchrec') is None)"]
    if subprocess.run(probe, check=False).returncode != 0:
        pytest.skip(
            "torchrec is not installed (not pinned: snippets/sharded_tables/on_gpus.md says "
            "which versions run); TORCHREC_PYTHON=<a Python with torchrec> runs this test"
        )
    outputs = torchrun(2, [[TORCHREC[0]]], python)
    assert outputs["torchrec_rowwise"] == golden("torchrec_rowwise", 2).read_text("utf-8")


def test_this_module_runs_every_program_on_each_of_its_world_sizes():
    planned = {
        (Path(p[0]).name, k) for k, programs in launches(Path()).items() for p in programs
    } | {(Path(TORCHREC[0]).name, 2)}
    declared = {
        (path.name, k)
        for path in sorted(FOLDER.glob("*.py"))
        if not path.name.startswith("bench_")
        for k in world_sizes(path) or ()
    }
    assert declared, "no program declares WORLD_SIZES"
    assert planned == declared


if __name__ == "__main__":
    for k, outputs in run_all().items():
        for name, out in outputs.items():
            golden(name, k).write_text(out, encoding="utf-8")
            print(f"wrote {golden(name, k).relative_to(ROOT)}")
