"""Bytes each collective moves per step, row-wise and column-wise, by formula and counted.

One rank of a ``k``-process job (gloo, CPU). A ``[N, D]`` float32 table (``N`` = 1,000
``num_embeddings``, ``D`` = 64 ``embedding_dim``) is sharded row-wise (``RowwiseParallel``) and
column-wise (``ColwiseParallel``); every rank looks up the same ``B`` = 32 ids (int64) and
backpropagates a sum. ``CommDebugMode`` (``torch.distributed.tensor.debug``, public) counts the
collectives DTensor issues; the subclass below also adds up the bytes of the tensor each rank
hands to each collective (its *payload*). The program asserts:

* row-wise: one ``all_reduce`` per forward, payload ``B * D * 4`` bytes per rank (every rank
  holds a ``[B, D]`` partial sum: its own rows, zeros elsewhere), and no collective in the
  backward;
* column-wise: one ``all_gather_into_tensor`` per forward, payload ``B * (D / k) * 4`` bytes per
  rank (its ``D / k`` columns of every looked-up row), and no collective in the backward;
* both lookups equal the one-process lookup, bit for bit.

Bytes on the wire depend on the algorithm the backend picks. Under the ring model (the one
NCCL's performance notes use, https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md)
each rank sends ``2 (k - 1) / k`` times the payload in an all-reduce and ``(k - 1) / k`` times
the gathered result in an all-gather: ``2 (k - 1) / k * B * D * 4`` against
``(k - 1) / k * B * D * 4``. Column-wise sends half of row-wise per lookup, at any ``N``; both are
independent of ``N``, unlike data parallelism, whose dense gradient all-reduce carries all
``N * D`` numbers every step (see ``train_ddp.py``).

Run it (no fixed port)::

    torchrun --standalone --nproc_per_node 2 snippets/sharded_tables/cost_collectives.py

Rank 0 prints; ``cost_collectives.k2.txt`` and ``.k4.txt`` hold the output on 2 and 4 ranks.
"""

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate
from torch.distributed.tensor.debug import CommDebugMode
from torch.distributed.tensor.parallel import (
    ColwiseParallel,
    RowwiseParallel,
    parallelize_module,
)

from snippets.sharded_tables.launch import under_torchrun

#: World sizes tests/test_sharded_programs.py runs this program on (not a plain script).
WORLD_SIZES = (2, 4)
N, D, B = 1000, 64, 32


# --8<-- [start:counter]
class CommBytes(CommDebugMode):
    """CommDebugMode that also records (collective, payload bytes) per call."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        before = dict(self.get_comm_counts())
        out = super().__torch_dispatch__(func, types, args, kwargs)
        for op, count in self.get_comm_counts().items():
            if count > before.get(op, 0):  # this call was a collective
                name = str(op).split(".")[-1]
                payload = args[0].numel() * args[0].element_size()
                self.calls.append((name, payload))
        return out
# --8<-- [end:counter]


def ring_bytes(name: str, payload: int, k: int) -> int:
    """Bytes one rank sends in a ring all-reduce or all-gather of ``payload`` bytes per rank."""
    if name == "all_reduce":
        return 2 * (k - 1) * payload // k
    assert name == "all_gather_into_tensor", name
    return (k - 1) * payload  # (k - 1) / k of the k * payload gathered bytes


def run() -> None:
    k = dist.get_world_size()
    mesh = init_device_mesh("cpu", (k,))
    torch.manual_seed(0)
    one = nn.Embedding(N, D)
    ids = torch.randint(0, N, (B,), generator=torch.Generator().manual_seed(1))
    expected = {
        "row-wise": ("all_reduce", B * D * 4),
        "column-wise": ("all_gather_into_tensor", B * (D // k) * 4),
    }
    plans = {"row-wise": RowwiseParallel, "column-wise": ColwiseParallel}
    lines = [f"N {N}, D {D}, B {B} ids on every rank, float32, world size {k}"]
    sent = {}
    for scheme, style in plans.items():
        table = nn.Embedding(N, D)
        table.load_state_dict(one.state_dict())
        plan = style(input_layouts=Replicate(), output_layouts=Replicate())
        table = parallelize_module(table, mesh, plan)
        # --8<-- [start:count]
        with CommBytes() as forward:
            out = table(ids)
        with CommBytes() as backward:
            out.sum().backward()
        # --8<-- [end:count]
        assert forward.calls == [expected[scheme]], forward.calls
        assert backward.calls == [], backward.calls
        assert torch.equal(out, one(ids))
        name, payload = forward.calls[0]
        sent[scheme] = ring_bytes(name, payload, k)
        lines += [
            f"{scheme}: forward {name} x1, payload {payload} B per rank; backward: none",
            f"  ring model: {sent[scheme]} B sent per rank per lookup",
        ]
    assert 2 * sent["column-wise"] == sent["row-wise"]
    ddp = ring_bytes("all_reduce", N * D * 4, k)
    lines.append(f"data parallel (formula): all_reduce of N*D*4 B, ring: {ddp} B sent per rank")
    if dist.get_rank() == 0:
        print("\n".join(lines))


if __name__ == "__main__":
    under_torchrun(run)
