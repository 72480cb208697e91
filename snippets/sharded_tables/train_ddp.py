"""Data parallelism: a replicated table under ``DistributedDataParallel`` on gloo, dense and with
``sparse=True``, and what DDP does with each gradient.

One rank of a ``k``-process job (gloo, CPU). Each rank holds the whole ``[11, 4]`` float32 table
(``num_embeddings`` 11, ``embedding_dim`` 4) and its own batch of 6 ids (int64). The program
observes and asserts:

* ``DistributedDataParallel(table)`` copies rank 0's weights to every rank when it is built
  (each rank starts from a different seed here);
* a communication hook (``register_comm_hook``, public) sees each gradient bucket DDP reduces:
  dense, one bucket of all ``11 * 4`` numbers, every step, whichever rows the ids touched;
  ``sparse=True``, one sparse COO gradient holding only this rank's rows (one per id, repeats
  included);
* after ``backward()``, every rank's gradient is the mean of the ranks' own gradients (dense:
  bit for bit; sparse: a sparse, coalesced tensor whose dense form is that mean, bit for bit),
  and within ``1e-6`` of one process's gradient of the mean loss over all ranks' ids;
* after three SGD steps the replicas are still equal, bit for bit;
* a ``sparse=True`` table that the forward does not use, under
  ``find_unused_parameters=True``: pytorch#80496 reports ``RuntimeError: Expected sparse
  gradient to be defined``; the program observes whether this release raises it.

pytorch#17356 was the first report of ``sparse=True`` failing under DDP; pytorch#22037 added
sparse gradients to DDP's reducer, one bucket per sparse parameter. Run it (no fixed port)::

    torchrun --standalone --nproc_per_node 2 snippets/sharded_tables/train_ddp.py

Rank 0 prints; ``train_ddp.k2.txt`` holds the output (``tests/test_sharded_programs.py``).
"""

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
from torch.nn.parallel import DistributedDataParallel as DDP

from snippets.sharded_tables.launch import under_torchrun

#: World sizes tests/test_sharded_programs.py runs this program on (not a plain script).
WORLD_SIZES = (2,)
N, D, STEPS = 11, 4, 3


def gathered(obj):
    """Every rank's ``obj`` (any picklable value), in rank order, on every rank."""
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, obj)
    return out


def ids_of(rank: int, step: int) -> torch.Tensor:
    """Rank ``rank``'s 6 ids (int64) at step ``step``; any rank can compute any rank's."""
    g = torch.Generator().manual_seed(100 * step + rank)
    return torch.randint(0, N, (6,), generator=g)


def loss_of(out: torch.Tensor) -> torch.Tensor:
    return (out - 1.0).pow(2).mean()


def observe(sparse: bool) -> list[str]:
    """Train a DDP-wrapped table three steps; assert what DDP does; return lines to print."""
    rank, k = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(rank)  # a different table on every rank ...
    table = nn.Embedding(N, D, sparse=sparse)
    own = gathered(table.weight.detach().clone())
    # --8<-- [start:ddp]
    model = DDP(table)  # ... until DDP copies rank 0's
    buckets = []

    def hook(state, bucket):
        grad = bucket.buffer()
        buckets.append((grad.is_sparse, grad.numel() if not grad.is_sparse else grad._nnz()))
        return allreduce_hook(state, bucket)

    model.register_comm_hook(None, hook)
    # --8<-- [end:ddp]
    assert not torch.equal(own[0], own[1])
    assert all(torch.equal(w, own[0]) for w in gathered(table.weight.detach()))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for step in range(STEPS):
        ids = ids_of(rank, step)
        # this rank's own gradient, from a plain copy of the table
        alone = nn.Embedding(N, D, _weight=table.weight.detach().clone())
        loss_of(alone(ids)).backward()
        mean = sum(gathered(alone.weight.grad)) / k
        # one process, every rank's ids, the mean loss
        one = nn.Embedding(N, D, _weight=table.weight.detach().clone())
        loss_of(one(torch.cat([ids_of(r, step) for r in range(k)]))).backward()
        opt.zero_grad()
        buckets.clear()
        loss_of(model(ids)).backward()
        grad = table.weight.grad
        assert grad.is_sparse == sparse
        dense = grad.to_dense() if sparse else grad
        assert torch.equal(dense, mean)
        assert (dense - one.weight.grad).abs().max() <= 1e-6
        if sparse:
            assert grad.is_coalesced()
            assert buckets == [(True, len(ids))], buckets
        else:
            assert buckets == [(False, N * D)], buckets
        opt.step()
    weights = gathered(table.weight.detach())
    assert all(torch.equal(w, weights[0]) for w in weights)
    kind = "sparse=True" if sparse else "dense"
    reduced = "a sparse COO gradient, 6 entries (one per id)" if sparse else f"{N * D} numbers"
    return [
        f"{kind}: rank 0's table copied to every rank by DDP(...)",
        f"  each step, one bucket per rank: {reduced}",
        "  after backward: grad = mean of the ranks' gradients, bit for bit"
        + (" (sparse, coalesced)" if sparse else ""),
        "  one process on all ranks' ids: the same gradient within 1e-6",
        f"  after {STEPS} SGD steps: the replicas equal, bit for bit",
    ]


class TwoTables(nn.Module):
    """Two ``sparse=True`` tables; the forward uses only the first (pytorch#80496)."""

    def __init__(self):
        super().__init__()
        self.used = nn.Embedding(N, D, sparse=True)
        self.unused = nn.Embedding(N, D, sparse=True)

    def forward(self, ids):
        return self.used(ids)


def unused_sparse_table() -> str:
    """Backward through DDP(find_unused_parameters=True) with an unused sparse table."""
    torch.manual_seed(0)
    model = DDP(TwoTables(), find_unused_parameters=True)
    try:
        loss_of(model(ids_of(dist.get_rank(), 0))).backward()
    except RuntimeError as error:
        assert "Expected sparse gradient to be defined" in str(error), error
        outcome = "RuntimeError: Expected sparse gradient to be defined"
    else:
        assert model.module.unused.weight.grad is None
        outcome = "no error; the unused table has no gradient"
    (first, *others) = gathered(outcome)
    assert all(o == first for o in others)
    return f"unused sparse table, find_unused_parameters=True: {first}"


def run() -> None:
    lines = [f"world size {dist.get_world_size()}, table {N} x {D} float32, 6 ids per rank"]
    lines += observe(sparse=False)
    lines += observe(sparse=True)
    lines.append(unused_sparse_table())
    if dist.get_rank() == 0:
        print("\n".join(lines))


if __name__ == "__main__":
    under_torchrun(run)
