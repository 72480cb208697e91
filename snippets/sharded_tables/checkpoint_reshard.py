"""Save a row-wise table on 2 ranks with ``torch.distributed.checkpoint``; load it on 4 ranks,
column-wise, and into a plain ``nn.Embedding``.

One rank of a ``k``-process job (gloo, CPU). Two phases, two jobs::

    torchrun --standalone --nproc_per_node 2 snippets/sharded_tables/checkpoint_reshard.py save DIR
    torchrun --standalone --nproc_per_node 4 snippets/sharded_tables/checkpoint_reshard.py load DIR

``save`` shards an ``[11, 4]`` float32 table (``num_embeddings`` 11, ``embedding_dim`` 4, seed 0)
row-wise (``RowwiseParallel``) and writes it with ``dcp.save``: one file per rank plus
``.metadata``, no rank gathering the whole table. ``load`` asserts, on any number of ranks:

* into a column-wise table (``ColwiseParallel``, each rank ``[11, 4 / k]``, first filled with
  other numbers): ``dcp.load`` fills it in place; the rows equal the saved table's, bit for bit,
  and so does the lookup;
* into a row-wise table on this job's ``k`` ranks: the same;
* into a plain ``nn.Embedding(11, 4)`` in one process (rank 0, ``no_dist=True``: no collective):
  the same;
* into a table of another shape (``[12, 4]``): ``dcp.load`` raises ``CheckpointException``
  naming the size mismatch (``Size mismatch between saved torch.Size([11, 4]) and current:
  torch.Size([12, 4]) for table.weight``) on every rank, and the table keeps its numbers.
  ``CheckpointException`` derives from ``BaseException`` in torch 2.15, so ``except Exception``
  does not catch it; the program observes which base it has.

Rank 0 prints; ``checkpoint_reshard.k2.txt`` (save) and ``checkpoint_reshard.k4.txt`` (load) hold
the output. Source: https://docs.pytorch.org/docs/2.15/distributed.checkpoint.html.
"""

import sys
import warnings
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate
from torch.distributed.tensor.parallel import (
    ColwiseParallel,
    RowwiseParallel,
    parallelize_module,
)

#: World sizes tests/test_sharded_programs.py runs this program on (save on 2, load on 4).
WORLD_SIZES = (2, 4)
N, D = 11, 4


def gathered(obj):
    """Every rank's ``obj`` (any picklable value), in rank order, on every rank."""
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, obj)
    return out


def saved_table() -> nn.Embedding:
    """The table the ``save`` phase writes: ``[11, 4]`` float32, seed 0 (any process)."""
    torch.manual_seed(0)
    return nn.Embedding(N, D)


def sharded(style, num_embeddings: int = N, seed: int = 1) -> nn.Module:
    """A table sharded by ``style`` (a ParallelStyle class), filled from ``seed``."""
    torch.manual_seed(seed)
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    plan = style(input_layouts=Replicate(), output_layouts=Replicate())
    return parallelize_module(nn.Embedding(num_embeddings, D), mesh, plan)


def save(directory: Path) -> list[str]:
    # --8<-- [start:save]
    table = sharded(RowwiseParallel, seed=0)
    dcp.save({"table": table.state_dict()}, checkpoint_id=directory)
    # --8<-- [end:save]
    shapes = gathered(tuple(table.weight.to_local().shape))
    dist.barrier()
    files = sorted(p.name for p in directory.iterdir())
    return [
        f"saved on {dist.get_world_size()} ranks, row-wise; local shapes {shapes}",
        f"files: {', '.join(files)}",
    ]


def load(directory: Path) -> list[str]:
    reference = saved_table()
    ids = torch.tensor([[0, 5, 6, 10]])
    lines = [f"loaded on {dist.get_world_size()} ranks"]
    for label, style in (("column-wise", ColwiseParallel), ("row-wise", RowwiseParallel)):
        table = sharded(style)
        assert not torch.equal(table.weight.full_tensor(), reference.weight)
        # --8<-- [start:load]
        state = {"table": table.state_dict()}
        dcp.load(state, checkpoint_id=directory)
        # --8<-- [end:load]
        assert torch.equal(table.weight.full_tensor(), reference.weight)
        assert torch.equal(table(ids), reference(ids))
        shapes = gathered(tuple(table.weight.to_local().shape))
        lines.append(f"{label}: local shapes {shapes}; rows and lookup equal, bit for bit")
    if dist.get_rank() == 0:
        # --8<-- [start:plain]
        plain = nn.Embedding(N, D)
        state = {"table": plain.state_dict()}
        with warnings.catch_warnings():  # "assuming the intent is to load in a single process"
            warnings.simplefilter("ignore", UserWarning)
            dcp.load(state, checkpoint_id=directory, no_dist=True)
        # --8<-- [end:plain]
        assert torch.equal(plain.weight, reference.weight)
        lines.append("plain nn.Embedding, one process: rows equal, bit for bit")
    # --8<-- [start:wrong]
    wrong = sharded(ColwiseParallel, num_embeddings=N + 1)
    before = wrong.weight.to_local().clone()
    try:
        dcp.load({"table": wrong.state_dict()}, checkpoint_id=directory)
    except dcp.CheckpointException as error:
        message = str(error)
    else:
        raise AssertionError("a [12, 4] table loaded an [11, 4] checkpoint")
    assert torch.equal(wrong.weight.to_local(), before)  # kept its numbers
    # --8<-- [end:wrong]
    expected = "Size mismatch between saved torch.Size([11, 4]) and current: torch.Size([12, 4])"
    assert expected in message, message
    base = "Exception" if issubclass(dcp.CheckpointException, Exception) else "BaseException"
    lines += [
        f"[12, 4] table: CheckpointException ({base} subclass) on every rank:",
        f"  {expected} for table.weight",
        "  the table kept its numbers",
    ]
    return lines


def run(phase: str, directory: Path) -> None:
    lines = save(directory) if phase == "save" else load(directory)
    if dist.get_rank() == 0:
        print("\n".join(lines))


def main(argv: list[str] | None = None) -> None:
    """One rank's work: ``argv`` is ``["save" | "load", DIR]`` (default: ``sys.argv[1:]``)."""
    phase, directory = argv if argv is not None else sys.argv[1:]
    assert phase in ("save", "load"), f"phase {phase!r}: expected save or load"
    own_group = not dist.is_initialized()
    if own_group:
        dist.init_process_group("gloo")
    try:
        run(phase, Path(directory))
    finally:
        if own_group:
            dist.destroy_process_group()


if __name__ == "__main__":
    main()
