"""Property tests: which rows of a table each optimizer the pages discuss moves, and which
optimizers accept a sparse gradient, over generated sequences of mini-batches."""

from __future__ import annotations

import warnings

import torch
from hypothesis import given
from hypothesis import strategies as st
from torch import nn

from tests.claim_register import proves
from tests.strategies import id_lists, randn, seeds

#: name -> (factory, sparse gradient?, which rows a step moves). "batch": exactly the rows looked
#: up in this step; "seen": every row looked up in this step or an earlier one (momentum);
#: "all": every row of the table (weight decay).
OPTIMIZERS = {
    "SGD": (lambda p: torch.optim.SGD(p, lr=0.1), False, "batch"),
    "SGD, sparse": (lambda p: torch.optim.SGD(p, lr=0.1), True, "batch"),
    "Adagrad": (lambda p: torch.optim.Adagrad(p, lr=0.1), False, "batch"),
    "Adagrad, sparse": (lambda p: torch.optim.Adagrad(p, lr=0.1), True, "batch"),
    "SparseAdam": (lambda p: torch.optim.SparseAdam(list(p), lr=0.1), True, "batch"),
    "SGD(momentum)": (lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), False, "seen"),
    "SGD(momentum), sparse": (lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), True, "seen"),
    "Adam": (lambda p: torch.optim.Adam(p, lr=0.1), False, "seen"),
    "SGD(weight_decay)": (lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=0.1), False, "all"),
    "Adam(weight_decay)": (lambda p: torch.optim.Adam(p, lr=0.1, weight_decay=0.1), False, "all"),
    "AdamW": (lambda p: torch.optim.AdamW(p, lr=0.1), False, "all"),
}


@proves("rows-moved")
@given(name=st.sampled_from(sorted(OPTIMIZERS)), V=st.integers(2, 8), seed=seeds, data=st.data())
def test_which_rows_each_optimizer_moves(name, V, seed, data):
    """Over 1 to 4 mini-batches of any ids (repeats included): plain SGD, Adagrad and, with
    ``sparse=True``, SparseAdam, SGD and Adagrad move exactly the rows looked up in the step;
    momentum (SGD's, dense or sparse, and Adam's) also moves every row looked up in an earlier
    step; weight decay (SGD's, Adam's, AdamW's) moves every row of the table."""
    make, sparse, rule = OPTIMIZERS[name]
    emb = nn.Embedding.from_pretrained(randn((V, 3), seed), freeze=False, sparse=sparse)
    opt = make(emb.parameters())
    seen: set[int] = set()
    for _ in range(data.draw(st.integers(1, 4))):
        batch = data.draw(id_lists(V, data.draw(st.integers(1, 5))))
        seen |= set(batch)
        before = emb.weight.detach().clone()
        opt.zero_grad()
        emb(torch.tensor(batch)).sum().backward()  # every looked-up row: a non-zero gradient
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # Adagrad: sparse invariant checks off
            opt.step()
        moved = set((emb.weight != before).any(dim=1).nonzero().flatten().tolist())
        expected = {"batch": set(batch), "seen": seen, "all": set(range(V))}[rule]
        assert moved == expected, (name, batch)


#: name -> (factory, accepts a sparse gradient).
SPARSE_CANDIDATES = {
    "SGD": (lambda p: torch.optim.SGD(p, lr=0.1), True),
    "SGD(momentum)": (lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), True),
    "SGD(weight_decay)": (lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=0.01), False),
    "SparseAdam": (lambda p: torch.optim.SparseAdam(list(p), lr=0.1), True),
    "Adagrad": (lambda p: torch.optim.Adagrad(p, lr=0.1), True),
    "Adagrad(weight_decay)": (lambda p: torch.optim.Adagrad(p, lr=0.1, weight_decay=0.01), False),
    "LBFGS": (lambda p: torch.optim.LBFGS(p, lr=0.1), True),
    "Adam": (lambda p: torch.optim.Adam(p, lr=0.1), False),
    "AdamW": (lambda p: torch.optim.AdamW(p, lr=0.1), False),
    "RMSprop": (lambda p: torch.optim.RMSprop(p, lr=0.1), False),
    "Adamax": (lambda p: torch.optim.Adamax(p, lr=0.1), False),
    "NAdam": (lambda p: torch.optim.NAdam(p, lr=0.1), False),
}


@proves("sparse-optimizers")
@given(
    name=st.sampled_from(sorted(SPARSE_CANDIDATES)), V=st.integers(1, 8), seed=seeds, data=st.data()
)
def test_which_optimizers_accept_a_sparse_gradient(name, V, seed, data):
    """Whatever the ids: SGD (with or without momentum, without weight decay), SparseAdam, Adagrad
    (without weight decay) and LBFGS step on a sparse gradient; the others raise RuntimeError."""
    make, accepts = SPARSE_CANDIDATES[name]
    emb = nn.Embedding.from_pretrained(randn((V, 3), seed), freeze=False, sparse=True)
    opt = make(emb.parameters())
    batch = torch.tensor(data.draw(id_lists(V, data.draw(st.integers(1, 6)))))

    def closure():
        opt.zero_grad()
        loss = emb(batch).sum()
        loss.backward()
        return loss

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            opt.step(closure)
        accepted = True
    except RuntimeError as err:
        assert "sparse" in str(err).lower() or "add(sparse, dense)" in str(err)
        accepted = False
    assert accepted == accepts
    assert emb.weight.grad.layout == torch.sparse_coo


@proves("adamw-decays-unseen-rows")
@given(
    V=st.integers(2, 8), lr=st.floats(1e-4, 1.0), wd=st.floats(0.0, 0.5), seed=seeds, data=st.data()
)
def test_adamw_multiplies_rows_without_gradient_by_the_decay_exactly(V, lr, wd, seed, data):
    """A row that has never had a gradient is, after an AdamW step, exactly itself times
    ``1 - lr · weight_decay``: the Adam part of its update is zero."""
    emb = nn.Embedding.from_pretrained(randn((V, 3), seed), freeze=False)
    opt = torch.optim.AdamW(emb.parameters(), lr=lr, weight_decay=wd)
    batch = data.draw(id_lists(V, data.draw(st.integers(1, 4))))
    unseen = [v for v in range(V) if v not in batch]
    before = emb.weight.detach().clone()
    emb(torch.tensor(batch)).pow(2).sum().backward()
    opt.step()
    assert torch.equal(emb.weight[unseen], before[unseen] * (1 - lr * wd))
