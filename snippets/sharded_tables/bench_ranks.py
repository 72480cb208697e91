"""Time one training step of a sharded table on 1, 2 and 4 gloo processes of this CPU.

Run by hand, from the repository root (a minute or two; not part of the test suite)::

    python snippets/sharded_tables/bench_ranks.py            # writes bench_ranks.json beside it
    python snippets/sharded_tables/bench_ranks.py --quick    # tiny sizes, writes to a temp file

The parent process starts ``torchrun --standalone --nproc_per_node K`` on this file for
``K`` = 1, 2, 4; each rank builds the same ``[N, D]`` float32 table (``N`` = 200,000
``num_embeddings``, ``D`` = 64 ``embedding_dim``: 51.2 MB), shards it (``RowwiseParallel``, as
DTensor leaves its gradient (``Replicate()``: the whole ``[N, D]`` gradient on every rank) and
with the hook of ``train_sharded.py`` that makes the gradient ``Shard(0)``; ``ColwiseParallel``;
on 1 rank also a plain ``nn.Embedding``), and times ``STEPS`` training steps
on the same ``B`` = 8,192 ids (int64): lookup, mean squared error, ``backward()``,
``SGD.step()``. Every step starts after a barrier; its time is the slowest rank's wall-clock time
(``time.perf_counter``, seconds), so it counts waiting for the others. Wall-clock time also
counts waiting for a core: on a machine shared with other jobs the numbers move with the load,
which the record stores (``os.getloadavg()`` before and after each launch).

What it writes: ``bench_ranks.json``, with the machine (CPU model from ``/proc/cpuinfo``, logical
CPUs), the torch release, the sizes, and per scheme and world size the median and interquartile
range of the step time and the ratio of the median to the same scheme's 1-rank median.
``cost_figure.py`` draws it. Exit status 0; an ``AssertionError`` if a sharded lookup differs
from the one-process lookup.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn

#: World sizes the benchmark times (run by hand, not by tests/test_sharded_programs.py).
WORLD_SIZES = (1, 2, 4)
SIZES = {"N": 200_000, "D": 64, "B": 8_192, "STEPS": 20, "WARMUP": 3}
QUICK = {"N": 1_000, "D": 16, "B": 64, "STEPS": 5, "WARMUP": 1}
RECORD = Path(__file__).with_name("bench_ranks.json")


def cpu_model() -> str:
    """The CPU's model name from ``/proc/cpuinfo`` (``platform.processor()`` elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def step_times(model: nn.Module, sizes: dict) -> list[float]:
    """Seconds per training step (the slowest rank's), ``STEPS`` of them after ``WARMUP``."""
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, sizes["N"], (sizes["B"],), generator=g)
    target = torch.randn(sizes["B"], sizes["D"], generator=g)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    times = []
    for step in range(sizes["WARMUP"] + sizes["STEPS"]):
        dist.barrier()
        start = time.perf_counter()
        opt.zero_grad()
        (model(ids) - target).pow(2).mean().backward()
        opt.step()
        elapsed = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
        if step >= sizes["WARMUP"]:
            times.append(elapsed.item())
    return times


def worker(sizes: dict) -> None:
    """One rank: time each scheme; rank 0 prints one JSON line per scheme."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate, Shard
    from torch.distributed.tensor.parallel import (
        ColwiseParallel,
        RowwiseParallel,
        parallelize_module,
    )

    dist.init_process_group("gloo")
    k = dist.get_world_size()
    mesh = init_device_mesh("cpu", (k,))
    torch.manual_seed(0)
    one = nn.Embedding(sizes["N"], sizes["D"])
    ids = torch.arange(0, sizes["N"], max(1, sizes["N"] // 97))
    schemes = {
        "row-wise": RowwiseParallel,
        "row-wise, Shard(0) grad": RowwiseParallel,
        "column-wise": ColwiseParallel,
    }
    if k == 1:
        schemes = {"plain nn.Embedding": None, **schemes}
    for scheme, style in schemes.items():
        model = nn.Embedding(sizes["N"], sizes["D"])
        model.load_state_dict(one.state_dict())
        if style is not None:
            plan = style(input_layouts=Replicate(), output_layouts=Replicate())
            model = parallelize_module(model, mesh, plan)
        if scheme == "row-wise, Shard(0) grad":  # the hook of train_sharded.py
            model.weight.register_hook(lambda g: g.redistribute(placements=[Shard(0)]))
        with torch.no_grad():
            assert torch.equal(model(ids), one(ids))
        times = step_times(model, sizes)
        if dist.get_rank() == 0:
            print(json.dumps({"scheme": scheme, "world_size": k, "times_s": times}), flush=True)
    dist.destroy_process_group()


def quartiles(xs: list[float]) -> tuple[float, float, float]:
    q1, median, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    return q1, median, q3


def launch(k: int, quick: bool) -> tuple[list[dict], list[float], list[float]]:
    """Run the workers on ``k`` ranks; return their results and the load before and after."""
    before = list(os.getloadavg())
    command = [
        *(sys.executable, "-m", "torch.distributed.run", "--standalone"),
        *(f"--nproc_per_node={k}", __file__, "--worker"),
        *(["--quick"] if quick else []),
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True, timeout=600)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    return rows, before, list(os.getloadavg())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, temporary output")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--output", type=Path, help="where to write the record")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else SIZES
    if args.worker:
        worker(sizes)
        return
    output = args.output or (
        Path(tempfile.mkdtemp()) / "bench_ranks.json" if args.quick else RECORD
    )
    rows, loads = [], []
    for k in WORLD_SIZES:
        results, before, after = launch(k, args.quick)
        rows += results
        loads.append({"world_size": k, "before": before, "after": after})
    base = {r["scheme"]: quartiles(r["times_s"])[1] for r in rows if r["world_size"] == 1}
    summary = []
    for r in rows:
        q1, median, q3 = quartiles(r["times_s"])
        summary.append({
            "scheme": r["scheme"], "world_size": r["world_size"], "median_s": median,
            "iqr_s": q3 - q1, "ratio_to_1_rank": median / base[r["scheme"]],
            "times_s": r["times_s"],
        })
    record = {
        "command": "python snippets/sharded_tables/bench_ranks.py" + (" --quick" * args.quick),
        "date": dt.date.today().isoformat(),
        "machine": {
            "cpu_model": cpu_model(),
            "logical_cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "torch_threads_per_rank": 1,
        },
        "load_average_1_5_15_min": loads,
        "sizes": sizes,
        "clock": "wall (time.perf_counter), slowest rank per step",
        "rows": summary,
    }
    output.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    for s in summary:
        print(
            f"{s['scheme']:>18} k={s['world_size']}: median {s['median_s'] * 1e3:8.2f} ms, "
            f"IQR {s['iqr_s'] * 1e3:6.2f} ms, x{s['ratio_to_1_rank']:.2f} of 1 rank"
        )
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
