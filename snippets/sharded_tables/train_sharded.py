"""Train a row-wise sharded table with SGD and with Adam; each rank ends bit for bit on the
one-process table.

One rank of a ``k``-process job (gloo, CPU). Every rank builds the same ``[11, 4]`` float32
table (``num_embeddings`` 11, ``embedding_dim`` 4, seed 0), shards it row-wise with DTensor
(``parallelize_module(..., RowwiseParallel(...))``: rank ``r`` keeps a block of consecutive
rows, ``torch.chunk`` sizes, so 6 + 5 rows on 2 ranks, 3 + 3 + 3 + 2 on 4) and trains it five
steps on the same ids (int64, ``[3, 5]``) with a mean squared error. Beside it, each rank trains
the unsharded table in its own process, as one process would. The program asserts, for each
optimizer:

* after every step, each rank's rows equal the one-process table's rows, bit for bit;
* the weight's gradient is a DTensor equal, bit for bit, to the one-process gradient; its
  placement is one of two outcomes, observed and printed: ``Shard(0)`` (each rank holds the
  gradient of its own rows) or ``Replicate()`` (each rank holds the whole ``[11, 4]`` gradient;
  what torch 2.15 does with replicated ids: DTensor computes the lookup's backward on every rank
  without a collective, and the optimizer step uses the owner's rows of it);
* the optimizer state is sharded like the rows: SGD's ``momentum_buffer`` and Adam's
  ``exp_avg`` and ``exp_avg_sq`` are DTensors placed ``Shard(0)`` with the rank's local shape.

It prints the bytes each rank holds: rows, gradient, each state tensor (float32: 4 bytes a
number). Run it on 2 or 4 processes (no fixed port)::

    torchrun --standalone --nproc_per_node 2 snippets/sharded_tables/train_sharded.py

Rank 0 prints every rank's facts, gathered with ``all_gather_object``; the other ranks print
nothing. ``train_sharded.k2.txt`` and ``train_sharded.k4.txt`` hold the output on 2 and 4 ranks
(``tests/test_sharded_programs.py`` checks both). Sources: ``RowwiseParallel``,
https://docs.pytorch.org/docs/2.15/distributed.tensor.parallel.html; the same row split in
Megatron-LM's ``VocabParallelEmbedding`` (``megatron/core/tensor_parallel/layers.py``).
"""

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Replicate, Shard
from torch.distributed.tensor.parallel import RowwiseParallel, parallelize_module

from snippets.sharded_tables.launch import under_torchrun

#: World sizes tests/test_sharded_programs.py runs this program on (not a plain script).
WORLD_SIZES = (2, 4)
N, D, STEPS = 11, 4, 5


def gathered(obj):
    """Every rank's ``obj`` (any picklable value), in rank order, on every rank."""
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, obj)
    return out


def batches():
    """The same ``STEPS`` batches on every rank: ids (int64, [3, 5]), targets (float32)."""
    g = torch.Generator().manual_seed(1)
    for _ in range(STEPS):
        yield torch.randint(0, N, (3, 5), generator=g), torch.randn(3, 5, D, generator=g)


def nbytes(t: torch.Tensor) -> int:
    """Bytes of ``t``'s elements on this rank (a DTensor: its local part)."""
    t = t.to_local() if isinstance(t, DTensor) else t
    return t.numel() * t.element_size()


def train(make_optimizer, mesh, shard_grad: bool) -> dict:
    """Train the sharded and the one-process table side by side; return this rank's facts.

    ``shard_grad``: a hook on the weight turns its gradient into ``Shard(0)`` (a local slice of
    a replicated gradient, no collective) before the optimizer sees it."""
    torch.manual_seed(0)
    one = nn.Embedding(N, D)  # the one-process table
    # --8<-- [start:shard]
    table = nn.Embedding(N, D)
    table.load_state_dict(one.state_dict())
    plan = RowwiseParallel(
        input_layouts=Replicate(), output_layouts=Replicate()
    )
    table = parallelize_module(table, mesh, plan)
    # --8<-- [end:shard]
    if shard_grad:
        # --8<-- [start:hook]
        table.weight.register_hook(
            lambda g: g.redistribute(placements=[Shard(0)])
        )
        # --8<-- [end:hook]
    opt = make_optimizer(table.parameters())
    opt_one = make_optimizer(one.parameters())
    rows = table.weight.to_local().shape[0]
    first = sum(gathered(rows)[: dist.get_rank()])
    mine = slice(first, first + rows)
    for ids, target in batches():
        for model, o in ((table, opt), (one, opt_one)):
            o.zero_grad()
            (model(ids) - target).pow(2).mean().backward()
        # --8<-- [start:step]
        grad = table.weight.grad
        assert grad.placements in ((Shard(0),), (Replicate(),))
        assert torch.equal(grad.full_tensor(), one.weight.grad)
        opt.step()
        opt_one.step()
        local = table.weight.to_local()
        assert torch.equal(local, one.weight.detach()[mine])
        # --8<-- [end:step]
    if shard_grad:
        assert grad.placements == (Shard(0),) and grad.to_local().shape == (rows, D)
    placed = {"grad": grad.placements[0]}
    held = {"rows": nbytes(local), "grad": nbytes(grad)}
    for name, value in opt.state[table.weight].items():
        if isinstance(value, DTensor):
            # each state tensor is placed as the weight is, or as the gradient it copies
            assert value.placements in (table.weight.placements, grad.placements)
            placed[name] = value.placements[0]
        held[name] = nbytes(value)
    return {"placed": placed, "held": held}


def run() -> None:
    k = dist.get_world_size()
    mesh = init_device_mesh("cpu", (k,))
    optimizers = {
        "SGD (lr 0.1, momentum 0.9)": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
        "Adam (lr 0.1)": lambda p: torch.optim.Adam(p, lr=0.1),
    }
    rows = [len(c) for c in torch.arange(N).chunk(k)]
    lines = [
        f"world size {k}, table {N} x {D} float32, {STEPS} steps on ids [3, 5]",
        f"rows per rank: {', '.join(map(str, rows))}",
        "every run: each rank's rows and the gradient = one process's, bit for bit",
    ]
    for label, make in optimizers.items():
        for shard_grad in (False, True):
            facts = gathered(train(make, mesh, shard_grad))
            how = "hook makes it Shard(0)" if shard_grad else "as DTensor leaves it"
            lines.append(f"{label}, gradient {how}:")
            placed = ", ".join(f"{n} {p!r}" for n, p in facts[0]["placed"].items())
            lines.append(f"  placed: {placed}")
            sizes = [
                f"{name} {'/'.join(str(f['held'][name]) for f in facts)}"
                for name in facts[0]["held"]
            ]
            lines.append(f"  bytes per rank: {', '.join(sizes)}")
    if dist.get_rank() == 0:
        print("\n".join(lines))


if __name__ == "__main__":
    under_torchrun(run)
