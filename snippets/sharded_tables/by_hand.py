"""Row-wise sharding by hand: which rows a rank holds, its masked lookup, and the id check.

The same computation as Megatron-LM's ``VocabParallelEmbedding.forward``
(``megatron/core/tensor_parallel/layers.py``) and as DTensor's row-wise embedding strategy
(``_MaskPartial._mask_tensor`` in ``torch/distributed/tensor/placement_types.py``): ids outside
the rank's rows are masked to local row 0, looked up, and their rows set to zero; summing the
ranks' results (an all-reduce) gives every row from the rank that owns it.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["check_ids", "masked_lookup", "row_range"]


# --8<-- [start:row_range]
def row_range(num_embeddings: int, rank: int, world_size: int) -> tuple[int, int]:
    """Rows ``[start, stop)`` of a table cut row-wise on ``world_size`` ranks that ``rank`` holds.

    DTensor's ``Shard(0)`` split, which is ``torch.chunk``'s: blocks of
    ``ceil(num_embeddings / world_size)`` rows, the last ones shorter or empty (11 rows on 2 ranks:
    6 and 5; 10 rows on 4: 3, 3, 3, 1). ``start == stop`` for a rank that holds no row.
    """
    block = -(-num_embeddings // world_size)  # ceil
    start = min(rank * block, num_embeddings)
    return start, min(start + block, num_embeddings)
# --8<-- [end:row_range]


# --8<-- [start:masked_lookup]
def masked_lookup(shard: torch.Tensor, ids: torch.Tensor, start: int) -> torch.Tensor:
    """This rank's part of ``F.embedding(ids, table)``: its own rows, zeros for everyone else's.

    ``shard``: ``[rows, D]``, the table's rows ``start`` to ``start + rows``; ``ids``: int64 of
    any shape, global row numbers. Returns ``(*ids.shape, D)`` in ``shard``'s dtype; differentiable
    in ``shard`` (masked ids send it no gradient). Ids no rank holds (negative, too large) give
    zeros on every rank, so the sum over ranks is a zero row: no error is raised.
    """
    mine = (ids >= start) & (ids < start + shard.shape[0])
    local = torch.where(mine, ids - start, 0)          # masked ids read row 0...
    rows = F.embedding(local, shard)
    return rows * mine.unsqueeze(-1).to(rows.dtype)   # ...and are zeroed here
# --8<-- [end:masked_lookup]


# --8<-- [start:check_ids]
def check_ids(ids: torch.Tensor, num_embeddings: int) -> None:
    """Raise ``IndexError`` naming the first id outside ``[0, num_embeddings)``; else return.

    ``ids``: an integer tensor of any shape. Call it once, before a sharded lookup: the lookup
    itself turns such an id into a zero row on every rank without an error.
    """
    bad = (ids < 0) | (ids >= num_embeddings)
    if bad.any():
        first = int(ids[bad][0])
        raise IndexError(
            f"id {first} is outside the table's rows [0, {num_embeddings})")
# --8<-- [end:check_ids]


def main() -> None:
    """Eleven rows on 2 ranks, looked up by hand in one process: the ranks' sum is the lookup."""
    torch.manual_seed(0)
    table = torch.randn(11, 4)
    ids = torch.tensor([0, 5, 6, 10, 3, 3])
    total = torch.zeros(len(ids), 4)
    for rank in range(2):
        start, stop = row_range(11, rank, 2)
        total += masked_lookup(table[start:stop], ids, start)
        print(f"rank {rank}: rows {start}-{stop - 1}")
    assert torch.equal(total, table[ids])
    check_ids(ids, 11)
    try:
        check_ids(torch.tensor([3, 14]), 11)
    except IndexError as error:
        print(error)


if __name__ == "__main__":
    main()
