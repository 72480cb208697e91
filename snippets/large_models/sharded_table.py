"""Tables too big for one device: the hashing trick and row-wise sharding, at small scale on a CPU.

*Hashing trick*: ids from an open-ended space (user ids, product ids) are mapped into a fixed
number of rows with a hash, ``row = h(id) mod M``; distinct ids may then share a row (a
collision). The script measures the share of ids that share their row and compares it with the
birthday-problem formula. Published in 2009 by Weinberger et al., "Feature Hashing for Large
Scale Multitask Learning" (ICML 2009, https://arxiv.org/abs/0902.2206), and by Shi et al.,
"Hash Kernels for Structured Data" (JMLR 10, 2009, https://jmlr.org/papers/v10/shi09a.html).

*Row-wise sharding*: a ``[V, D]`` table is cut into ``k`` blocks of consecutive rows, one per
device; each id is routed to the shard that owns its row, looked up there, and the rows are put
back in the original order. Here the "devices" are list entries in one process; TorchRec does the
same across GPUs with collective communication (``ShardingType.ROW_WISE``,
https://docs.pytorch.org/torchrec/concepts.html).

Run it: ``python snippets/large_models/sharded_table.py`` (under a second).
``sharded_table.out`` is what it prints.
"""

import torch
import torch.nn.functional as F
from torch import nn

P = 2**31 - 1  # a Mersenne prime: the modulus of the hash


# --8<-- [start:hashing]
def hashed_rows(ids: torch.Tensor, num_rows: int, seed: int = 0) -> torch.Tensor:
    """Row of each id: ``((a * id + b) mod P) mod num_rows`` with ``P = 2**31 - 1``.

    ``ids``: any shape, int64, values in ``[0, P)``; returns the same shape, int64, values in
    ``[0, num_rows)``. ``a`` and ``b`` are drawn from ``seed`` (a universal hash family: Carter
    and Wegman, 1979). Every product stays below ``2**62``, so int64 never overflows.
    Raises ``ValueError`` for an id outside ``[0, P)``.
    """
    if ids.numel() and (ids.min() < 0 or ids.max() >= P):
        raise ValueError(f"ids must lie in [0, {P})")
    g = torch.Generator().manual_seed(seed)
    a, b = (int(x) for x in torch.randint(1, P, (2,), generator=g))
    return (ids * a + b) % P % num_rows
# --8<-- [end:hashing]


# --8<-- [start:sharding]
class RowWiseShardedEmbedding(nn.Module):
    """A ``[num_embeddings, embedding_dim]`` table split into blocks of consecutive rows.

    Shard ``s`` holds rows ``s * rows_per_shard`` up to (not including)
    ``(s + 1) * rows_per_shard``, with ``rows_per_shard = ceil(num_embeddings / num_shards)``;
    the last shard may be shorter, and there are ``ceil(num_embeddings / rows_per_shard)``
    shards, which can be fewer than ``num_shards`` (10 rows asked in 6 shards: 5 shards of 2).
    ``forward(ids)`` takes int64 ids of any shape and returns ``(*ids.shape, embedding_dim)`` in
    the table's dtype, the rows the unsharded table would return. In a real system each shard
    sits on its own device and the routing is an all-to-all exchange.
    """

    def __init__(self, table: torch.Tensor, num_shards: int) -> None:
        super().__init__()
        V, self.embedding_dim = table.shape
        self.rows_per_shard = -(-V // num_shards)  # ceil
        self.shards = nn.ModuleList(
            nn.Embedding.from_pretrained(block.clone(), freeze=False)
            for block in table.split(self.rows_per_shard)
        )

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        flat = ids.reshape(-1)
        owner = flat // self.rows_per_shard  # which shard holds each id's row
        local = flat % self.rows_per_shard  # the row's index inside its shard
        out = torch.empty(len(flat), self.embedding_dim, dtype=self.shards[0].weight.dtype)
        for s, shard in enumerate(self.shards):
            mine = (owner == s).nonzero().flatten()  # positions routed to shard s
            if len(mine):
                out = out.index_put((mine,), shard(local[mine]))  # back in place
        return out.reshape(*ids.shape, self.embedding_dim)
# --8<-- [end:sharding]


def main() -> None:
    # --8<-- [start:collisions]
    torch.manual_seed(0)
    n_ids, M = 20_000, 100_000  # distinct ids seen, rows in the hashed table
    ids = torch.randint(0, P, (n_ids,)).unique()  # distinct ids from a 2-billion space
    rows = hashed_rows(ids, M)
    assert rows.min() >= 0 and rows.max() < M
    _, inverse, counts = rows.unique(return_inverse=True, return_counts=True)
    shared = (counts[inverse] > 1).float().mean().item()  # ids whose row holds another id
    expected = 1 - (1 - 1 / M) ** (len(ids) - 1)  # chance that any other id lands on my row
    assert abs(shared - expected) < 0.01
    print(f"{len(ids)} ids hashed into {M} rows: {shared:.1%} share a row"
          f" (birthday formula: {expected:.1%})")
    # --8<-- [end:collisions]

    # --8<-- [start:shard_lookup]
    torch.manual_seed(0)
    V, D, k = 10, 4, 3
    full = nn.Embedding(V, D)
    sharded = RowWiseShardedEmbedding(full.weight.detach(), num_shards=k)
    print("\nrows per shard:", [s.num_embeddings for s in sharded.shards])
    assert [s.num_embeddings for s in sharded.shards] == [4, 4, 2]

    ids = torch.tensor([[9, 0, 4], [3, 3, 7]])
    assert torch.equal(sharded(ids), full(ids))  # bit for bit: the same rows
    print("ids", ids.tolist(), "-> shards", (ids // sharded.rows_per_shard).tolist())
    # --8<-- [end:shard_lookup]

    # --8<-- [start:shard_grad]
    sharded(ids).sum().backward()
    full(ids).sum().backward()
    grads = torch.cat([s.weight.grad for s in sharded.shards])
    assert torch.equal(grads, full.weight.grad)  # each shard got the gradients of its own rows
    touched = [s.weight.grad.abs().sum(dim=1).nonzero().flatten().tolist()
               for s in sharded.shards]
    print("rows with a gradient, per shard (local index):", touched)
    # --8<-- [end:shard_grad]

    # --8<-- [start:pooled]
    bags = torch.tensor([[9, 0, 4, 3]])  # one bag that spans all three shards
    owner = bags // sharded.rows_per_shard
    partial = [  # each shard sums the rows it holds: what it would send back
        (sharded(bags) * (owner == s).unsqueeze(-1)).sum(dim=1) for s in range(k)
    ]
    pooled = F.embedding_bag(bags, full.weight, mode="sum")
    torch.testing.assert_close(sum(partial), pooled)  # partial sums add up to the bag's sum
    # --8<-- [end:pooled]


if __name__ == "__main__":
    main()
