"""Property tests for the general sentences of docs/sharded-tables.md.

The page runs its examples on real gloo ranks; these tests draw many cases (Hypothesis) of the
rank-local arithmetic those examples rely on, simulating the ranks in one process: the
all-reduce of the page is a sum over ranks here.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

from snippets.sharded_tables.by_hand import check_ids, masked_lookup, row_range
from tests.claim_register import proves


@st.composite
def sharded_lookups(draw):
    """A table size, a world size (ranks may hold no row), a dim, ids inside, and a seed."""
    rows = draw(st.integers(1, 40))
    world_size = draw(st.integers(1, 9))
    dim = draw(st.integers(1, 5))
    ids = draw(st.lists(st.integers(0, rows - 1), min_size=0, max_size=12))
    return rows, world_size, dim, torch.tensor(ids, dtype=torch.long), draw(st.integers(0, 99))


@proves("sharded-masked-sum")
@given(sharded_lookups())
def test_masked_lookups_add_up_to_the_lookup_and_its_gradient(case):
    """ "For any table size, number of ranks and ids inside the table, the masked lookups of all
    ranks add up to the one-process lookup, bit for bit, and each rank's gradient is its rows of
    the one-process gradient." """
    rows, world_size, dim, ids, seed = case
    table = torch.randn(rows, dim, generator=torch.Generator().manual_seed(seed))
    upstream = torch.randn(len(ids), dim, generator=torch.Generator().manual_seed(seed + 1))
    whole = table.clone().requires_grad_()
    expected = F.embedding(ids, whole)
    (expected * upstream).sum().backward()

    total = torch.zeros(len(ids), dim)
    covered = 0
    for rank in range(world_size):
        start, stop = row_range(rows, rank, world_size)
        assert start == covered  # the blocks tile the table in order
        covered = stop
        shard = table[start:stop].clone().requires_grad_()
        mine = masked_lookup(shard, ids, start) if stop > start else torch.zeros(len(ids), dim)
        total += mine.detach()
        if stop > start:
            (mine * upstream).sum().backward()
            assert torch.equal(shard.grad, whole.grad[start:stop])
    assert covered == rows
    assert torch.equal(total, expected.detach())


@proves("sharded-check-ids")
@given(
    rows=st.integers(1, 50),
    ids=st.lists(st.integers(-60, 60), min_size=0, max_size=10),
)
def test_check_ids_raises_for_any_id_outside_and_names_the_first(rows, ids):
    """ "`check_ids` raises `IndexError` for a tensor holding any id outside
    `[0, num_embeddings)`, naming the first such id, and returns for any tensor of ids inside." """
    outside = [i for i in ids if not 0 <= i < rows]
    if outside:
        with pytest.raises(IndexError, match=rf"^id {outside[0]} is outside .*\[0, {rows}\)$"):
            check_ids(torch.tensor(ids, dtype=torch.long), rows)
    else:
        check_ids(torch.tensor(ids, dtype=torch.long), rows)
