"""Property tests for docs/in-practice.md: a gradient mask against weight decay, a frozen table
beside a trainable one, and a weighted mean from ``nn.EmbeddingBag``'s ``per_sample_weights``,
over generated tables, ids, bags and optimizer settings."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch import nn

from tests.claim_register import proves
from tests.strategies import id_lists, randn, seeds, shapes

#: name -> factory(params, lr, weight_decay); every one that ignores weight_decay is given none.
MASK_OPTIMIZERS = {
    "SGD": lambda p, lr, wd: torch.optim.SGD(p, lr=lr),
    "SGD(momentum)": lambda p, lr, wd: torch.optim.SGD(p, lr=lr, momentum=0.9),
    "Adam": lambda p, lr, wd: torch.optim.Adam(p, lr=lr),
    "AdamW": lambda p, lr, wd: torch.optim.AdamW(p, lr=lr, weight_decay=wd),
}


@proves("masked-rows-decay")
@given(
    name=st.sampled_from(sorted(MASK_OPTIMIZERS)),
    V=st.integers(2, 8),
    seed=seeds,
    lr=st.sampled_from([0.001, 0.01, 0.1, 1.0]),
    wd=st.sampled_from([0.0, 0.01, 0.1, 0.5]),
    data=st.data(),
)
def test_a_gradient_mask_against_each_optimizer(name, V, seed, lr, wd, data):
    """Rows whose gradient a hook zeroes from the first step: SGD (with or without momentum) and
    Adam without weight decay leave them bit for bit; AdamW multiplies them by
    ``1 - lr·weight_decay`` at every step (exactly, in float32), and by nothing else."""
    frozen = sorted(set(data.draw(st.lists(st.integers(0, V - 1), min_size=1, max_size=V - 1))))
    emb = nn.Embedding.from_pretrained(randn((V, 3), seed), freeze=False)
    start = emb.weight.detach().clone()
    mask = torch.ones(V, 1)
    mask[frozen] = 0.0
    emb.weight.register_hook(lambda grad: grad * mask)
    opt = MASK_OPTIMIZERS[name](emb.parameters(), lr, wd)
    steps = data.draw(st.integers(1, 4))
    for _ in range(steps):
        batch = data.draw(id_lists(V, data.draw(st.integers(1, 6))))
        opt.zero_grad()
        emb(torch.tensor(batch)).pow(2).sum().backward()
        assert not emb.weight.grad[frozen].any()
        opt.step()
    expected = start[frozen].clone()
    if name == "AdamW":
        for _ in range(steps):
            expected.mul_(1 - lr * wd)
    assert torch.equal(emb.weight.detach()[frozen], expected), (name, frozen)


class ExtendedEmbedding(nn.Module):
    """The page's class: a frozen table for ids below ``V_old``, a trainable one above."""

    def __init__(self, pretrained: torch.Tensor, n_new: int) -> None:
        super().__init__()
        self.old = nn.Embedding.from_pretrained(pretrained, freeze=True)
        self.new = nn.Embedding(n_new, pretrained.shape[1])

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        n_old = self.old.num_embeddings
        is_new = (ids >= n_old).unsqueeze(-1)
        from_old = self.old(ids.clamp(max=n_old - 1))
        from_new = self.new((ids - n_old).clamp(min=0))
        return torch.where(is_new, from_new, from_old)


@proves("two-tables")
@given(
    V_old=st.integers(1, 6),
    V_new=st.integers(1, 4),
    seed=seeds,
    shape=shapes(max_dims=2),
    opt_name=st.sampled_from(["SGD(momentum)", "Adam", "AdamW"]),
    data=st.data(),
)
def test_a_frozen_table_beside_a_trainable_one(V_old, V_new, seed, shape, opt_name, data):
    """For ids of any shape in ``[0, V_old + V_new)``: the two tables give exactly the rows of
    their concatenation, and after optimizer steps (weight decay included) the frozen rows are
    bit for bit as loaded, with no gradient."""
    torch.manual_seed(seed % 2**31)
    pretrained = randn((V_old, 3), seed)
    emb = ExtendedEmbedding(pretrained.clone(), V_new)
    flat = data.draw(id_lists(V_old + V_new, int(np.prod(shape))))
    ids = torch.tensor(flat, dtype=torch.long).reshape(shape)
    whole = torch.cat([emb.old.weight, emb.new.weight])
    assert torch.equal(emb(ids), whole[ids])

    make = {
        "SGD(momentum)": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.1),
        "Adam": lambda p: torch.optim.Adam(p, lr=0.1, weight_decay=0.1),
        "AdamW": lambda p: torch.optim.AdamW(p, lr=0.1, weight_decay=0.1),
    }[opt_name]
    opt = make(emb.parameters())
    for _ in range(3):
        opt.zero_grad()
        (emb(ids).pow(2).sum() + emb.new.weight.sum()).backward()  # the new table always trains
        opt.step()
    assert emb.old.weight.grad is None
    assert torch.equal(emb.old.weight, pretrained)


def weighted_mean_bag(
    bag: nn.EmbeddingBag, ids: torch.Tensor, offsets: torch.Tensor, weights: torch.Tensor
) -> torch.Tensor:
    """The page's function: each bag's weights divided by their total, then a weighted sum."""
    lengths = torch.diff(offsets, append=torch.tensor([len(ids)]))
    bag_of = torch.repeat_interleave(torch.arange(len(offsets)), lengths)
    totals = torch.zeros(len(offsets), dtype=weights.dtype).index_add_(0, bag_of, weights)
    return bag(ids, offsets, per_sample_weights=weights / totals[bag_of])


@proves("weighted-mean-bag")
@given(
    V=st.integers(1, 8),
    seed=seeds,
    lengths=st.lists(st.integers(0, 5), min_size=1, max_size=6),
    data=st.data(),
)
def test_normalised_weights_give_each_bags_weighted_mean(V, seed, lengths, data):
    """For any bags (empty ones included, repeated ids included) and positive weights:
    ``mode="sum"`` with each bag's weights divided by their total equals the weighted mean
    ``Σ w_i·W[id_i] / Σ w_i`` written by hand, and an empty bag gives zeros."""
    table = randn((V, 3), seed, torch.float64)
    bag = nn.EmbeddingBag.from_pretrained(table, mode="sum")
    flat = data.draw(id_lists(V, sum(lengths)))
    weights = data.draw(st.lists(st.floats(0.01, 100.0), min_size=len(flat), max_size=len(flat)))
    starts = np.cumsum([0, *lengths]).tolist()
    ids = torch.tensor(flat, dtype=torch.long)
    w = torch.tensor(weights, dtype=torch.float64)
    out = weighted_mean_bag(bag, ids, torch.tensor(starts[:-1]), w)

    expected = []
    for s, e in zip(starts, starts[1:], strict=False):
        if s == e:
            expected.append(torch.zeros(3, dtype=torch.float64))
        else:
            rows = table[ids[s:e]] * w[s:e, None]
            expected.append(rows.sum(0) / w[s:e].sum())
    torch.testing.assert_close(out, torch.stack(expected))
    for b, (s, e) in enumerate(zip(starts, starts[1:], strict=False)):
        if s == e:
            assert not out[b].any()
