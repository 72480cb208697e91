"""TorchRec shards an ``EmbeddingBagCollection`` row-wise; its pooled sums equal
``nn.EmbeddingBag``'s.

One rank of a ``k``-process job (gloo, CPU). Needs ``torchrec`` and the CPU build of FBGEMM,
which the project does not pin: torch 2.15.0 ran it with torchrec 1.9.2 and
``fbgemm-gpu-nightly-cpu`` 2026.10.16 (the release ``fbgemm-gpu-cpu`` 1.9.0 fails to load against
torch 2.15.0: ``undefined symbol: _ZN3c1015report_overflowEPKc``). See ``on_gpus.md``.

One table, ``[11, 4]`` float32 (``num_embeddings`` 11, ``embedding_dim`` 4), sum pooling, one
feature ``f``. ``construct_module_sharding_plan(..., row_wise())`` places rows 0-5 on rank 0 and
6-10 on rank 1 (2 ranks); ``shard_modules`` swaps the module for a
``ShardedEmbeddingBagCollection`` whose weight is a ``ShardedTensor`` (one local shard per rank).
The program copies the one-process table into the shards, looks up three bags of ids (given as
a ``KeyedJaggedTensor``: values and lengths, the same data as ``EmbeddingBag``'s ids and
``offsets``) and asserts:

* each rank's local shard has the planned rows;
* the pooled sums equal ``nn.EmbeddingBag(mode="sum")``'s within 1e-6 (each rank sums the rows
  it holds and the partial sums are added across ranks, so the order of additions may differ
  from one process); the program prints whether they are equal bit for bit.

Run it (no fixed port)::

    torchrun --standalone --nproc_per_node 2 snippets/sharded_tables/torchrec_rowwise.py

Sources: https://docs.pytorch.org/torchrec/ (sharding types, ``ShardingType.ROW_WISE``);
``torchrec/distributed/sharding_plan.py`` (``construct_module_sharding_plan``, ``row_wise``).
"""

import torch
import torch.distributed as dist
from torch import nn
from torchrec import (
    EmbeddingBagCollection,
    EmbeddingBagConfig,
    KeyedJaggedTensor,
    PoolingType,
)
from torchrec.distributed.shard import shard_modules
from torchrec.distributed.sharding_plan import construct_module_sharding_plan, row_wise
from torchrec.distributed.types import ShardingEnv, ShardingPlan

from snippets.sharded_tables.launch import under_torchrun

#: World sizes this program runs on; tests/test_sharded_programs.py runs it where torchrec is
#: installed and skips it, saying so, where it is not.
WORLD_SIZES = (2,)
N, D = 11, 4


def gathered(obj):
    """Every rank's ``obj`` (any picklable value), in rank order, on every rank."""
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, obj)
    return out


def run() -> None:
    k = dist.get_world_size()
    cpu = torch.device("cpu")
    torch.manual_seed(0)
    one = nn.EmbeddingBag(N, D, mode="sum")  # the one-process table
    # --8<-- [start:shard]
    config = EmbeddingBagConfig(
        name="t", num_embeddings=N, embedding_dim=D,
        feature_names=["f"], pooling=PoolingType.SUM,
    )
    ebc = EmbeddingBagCollection(tables=[config], device=cpu)
    plan = construct_module_sharding_plan(
        ebc, per_param_sharding={"t": row_wise()}, world_size=k, device_type="cpu"
    )
    env = ShardingEnv.from_process_group(dist.group.WORLD)
    sharded = shard_modules(ebc, env=env, plan=ShardingPlan({"": plan}), device=cpu)
    # --8<-- [end:shard]
    weight = sharded.state_dict()["embedding_bags.t.weight"]  # a ShardedTensor
    (shard,) = weight.local_shards()
    first = shard.metadata.shard_offsets[0]
    rows = shard.tensor.shape[0]
    with torch.no_grad():
        shard.tensor.copy_(one.weight[first : first + rows])
    # --8<-- [start:lookup]
    values = torch.tensor([0, 5, 6, 10, 3, 9])  # bags [0, 5], [6, 10, 3], [9]
    lengths = torch.tensor([2, 3, 1])
    kjt = KeyedJaggedTensor(keys=["f"], values=values, lengths=lengths)
    pooled = sharded(kjt)
    pooled = pooled.wait() if hasattr(pooled, "wait") else pooled
    sums = pooled.to_dict()["f"]
    expected = one(values, torch.tensor([0, 2, 5]))
    assert (sums - expected).abs().max() <= 1e-6
    # --8<-- [end:lookup]
    chunks = [len(c) for c in torch.arange(N).chunk(k)]
    facts = gathered((first, rows))
    assert [r for _, r in facts] == chunks, facts
    bitwise = all(gathered(torch.equal(sums, expected)))
    if dist.get_rank() == 0:
        shards = ", ".join(f"rank {i}: rows {f}-{f + r - 1}" for i, (f, r) in enumerate(facts))
        print(f"TorchRec row-wise, world size {k}: {shards}")
        print(f"pooled sums of 3 bags = nn.EmbeddingBag's within 1e-6; bit for bit: {bitwise}")


if __name__ == "__main__":
    under_torchrun(run)
