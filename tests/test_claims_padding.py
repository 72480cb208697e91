"""Property tests: what ``padding_idx`` does and does not do, for any row (negative ones
included), in ``nn.Embedding``, ``F.embedding`` and ``nn.EmbeddingBag``."""

from __future__ import annotations

import inspect

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st
from torch import nn

from tests.claim_register import proves
from tests.strategies import (
    all_table_dtypes,
    id_lists,
    id_tensors,
    randn,
    seeds,
    table_rows,
    tables,
)

sizes = st.integers(1, 12)
dims = st.integers(1, 5)


@proves("padding-zero-init")
@given(V=sizes, D=dims, offset=st.integers(-50, 50), data=st.data())
def test_the_constructor_zeroes_row_p_and_converts_a_negative_p(V, D, offset, data):
    """For ``padding_idx`` in ``[-V, V)`` the constructor stores ``padding_idx % V`` and its row
    is all zeros (again after ``reset_parameters()``); any other value raises AssertionError."""
    p = data.draw(st.integers(-V, V - 1))
    emb = nn.Embedding(V, D, padding_idx=p)
    assert emb.padding_idx == p % V
    assert not emb.weight[p % V].any()
    emb.reset_parameters()
    assert not emb.weight[p % V].any()
    bad = V + abs(offset) if offset >= 0 else -V - abs(offset)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(V, D, padding_idx=bad)


@proves("padding-no-grad")
@given(
    V=table_rows,
    D=dims,
    dtype=all_table_dtypes,
    seed=seeds,
    functional=st.booleans(),
    option=st.sampled_from(["dense", "sparse", "scale_grad_by_freq"]),
    data=st.data(),
)
def test_positions_holding_p_send_no_gradient(V, D, dtype, seed, functional, option, data):
    """However many positions hold ``p`` (heavy repeats, any shape, int32 or int64 ids), row ``p``
    gets an exactly zero gradient and every other row gets exactly the gradient it gets without
    ``padding_idx``: any float dtype, a dense or a sparse gradient, with or without
    ``scale_grad_by_freq``, and tables of more than 1000 rows (the CPU backward splits those
    between threads); ``F.embedding`` converts a negative ``p`` the same way. The one corner: a
    sparse gradient for a 0-d index raises IndexError in the backward (PyTorch 2.15)."""
    p = data.draw(st.integers(-V, V - 1))
    idx = data.draw(id_tensors(V))
    W = randn((V, D), seed, dtype)
    up = randn((*idx.shape, D), seed + 1, dtype)
    options = {"sparse": option == "sparse", "scale_grad_by_freq": option == "scale_grad_by_freq"}
    with_pad, without = W.clone().requires_grad_(), W.clone().requires_grad_()
    if functional:
        out = F.embedding(idx, with_pad, padding_idx=p, **options)
    else:
        emb = nn.Embedding.from_pretrained(
            with_pad.detach(), freeze=False, padding_idx=p, **options
        )
        out = emb(idx)
    if options["sparse"] and idx.dim() == 0:  # the corner docs/padding-idx.md states
        with pytest.raises(IndexError, match="too many indices for tensor of dimension 0"):
            out.backward(up)
        return
    out.backward(up)
    grad = with_pad.grad if functional else emb.weight.grad
    F.embedding(idx, without, **options).backward(up)
    ref = without.grad
    if options["sparse"]:
        assert grad.layout == torch.sparse_coo
        assert not (grad.coalesce().indices() == p % V).any()  # not even a zero entry for p
        grad, ref = grad.to_dense(), ref.to_dense()
    assert grad.dtype == dtype
    assert not grad[p % V].any()
    rest = [v for v in range(V) if v != p % V]
    assert torch.equal(grad[rest], ref[rest])


@proves("padding-not-mask")
@given(V=sizes, D=dims, data=st.data())
def test_pad_positions_output_whatever_row_p_holds(V, D, data):
    """The forward pass ignores ``padding_idx``: a position holding ``p`` outputs row ``p`` as it is
    (a pretrained table keeps it; ``from_pretrained`` never zeroes it)."""
    W = data.draw(tables(V, D))
    p = data.draw(st.integers(-V, V - 1))
    idx = data.draw(id_tensors(V))
    emb = nn.Embedding.from_pretrained(W.clone(), padding_idx=p)
    assert torch.equal(emb.weight, W)
    out = emb(idx)
    assert torch.equal(out, W[idx])
    assert torch.equal(out[idx == p % V], W[p % V].expand(int((idx == p % V).sum()), D))


@st.composite
def padded_bags(draw, V: int) -> tuple[torch.Tensor, torch.Tensor | None, int]:
    """``(ids, offsets, B)``: 2-D ``[B, L]`` bags (offsets ``None``), or 1-D ids with offsets
    (empty bags allowed)."""
    if draw(st.booleans()):
        B, L = draw(st.integers(1, 4)), draw(st.integers(1, 5))
        ids = torch.tensor(draw(id_lists(V, B * L))).reshape(B, L)
        return ids, None, B
    sizes_ = draw(st.lists(st.integers(0, 5), min_size=1, max_size=4))
    ids = torch.tensor(draw(id_lists(V, sum(sizes_))), dtype=torch.long)
    offsets = torch.tensor([0, *sizes_[:-1]]).cumsum(0)
    return ids, offsets, len(sizes_)


def bag_members(ids: torch.Tensor, offsets: torch.Tensor | None) -> list[torch.Tensor]:
    """The ids of each bag, as a list of 1-D tensors (2-D input: one bag per row)."""
    if offsets is None:
        return list(ids)
    ends = [*offsets[1:].tolist(), len(ids)]
    return [ids[s:e] for s, e in zip(offsets.tolist(), ends, strict=True)]


@proves("bag-padding-excluded")
@given(
    V=st.integers(2, 12),
    D=dims,
    mode=st.sampled_from(["sum", "mean", "max"]),
    dtype=st.sampled_from([torch.float32, torch.float64]),
    pad_row=st.sampled_from([None, 0.0, float("inf"), float("-inf"), float("nan")]),
    data=st.data(),
)
def test_bag_leaves_padding_out_of_the_reduction(V, D, mode, dtype, pad_row, data):
    """``nn.EmbeddingBag(padding_idx=p)``, every mode: a bag reduces only its ids that are not
    ``p`` (a mean divides by their number), whatever row ``p`` holds (zeros, random values,
    ``inf`` or ``nan``); a bag of nothing but padding gives zeros; row ``p`` gets no gradient
    (float32 or float64 rounding for the values)."""
    W = data.draw(tables(V, D, dtype, special=False))
    p = data.draw(st.integers(-V, V - 1))
    if pad_row is not None:
        W[p % V] = pad_row
    ids, offsets, B = data.draw(padded_bags(V))
    bag = nn.EmbeddingBag.from_pretrained(W.clone(), freeze=False, mode=mode, padding_idx=p)
    out = bag(ids, offsets)
    assert out.shape == (B, D)
    reduce = {
        "sum": lambda r: r.sum(0),
        "mean": lambda r: r.mean(0),
        "max": lambda r: r.max(0).values,
    }[mode]
    for b, members in enumerate(bag_members(ids, offsets)):
        kept = members[members != p % V]
        expected = reduce(W[kept]) if len(kept) else torch.zeros(D, dtype=dtype)
        torch.testing.assert_close(out[b], expected)
    out.backward(randn((B, D), 0, dtype))
    assert not bag.weight.grad[p % V].any()


#: Every optimizer of ``torch.optim`` that takes ``weight_decay`` (those this release has).
DECAY_OPTIMIZERS = [
    name
    for name in (
        "SGD",
        "ASGD",
        "Adadelta",
        "Adafactor",
        "Adagrad",
        "Adam",
        "AdamW",
        "Adamax",
        "Muon",
        "NAdam",
        "RAdam",
        "RMSprop",
    )
    if hasattr(torch.optim, name)
]


#: The optimizers whose weight decay multiplies the weights by ``1 - lr * weight_decay`` (and SGD
#: without momentum, whose added ``weight_decay * w`` has the same effect), with their options.
SCALING_DECAY = [
    (name, options)
    for name, options in (
        ("AdamW", {}),
        ("SGD", {}),
        ("Adafactor", {}),
        ("Muon", {}),
        ("Adam", {"decoupled_weight_decay": True}),
        ("NAdam", {"decoupled_weight_decay": True}),
        ("RAdam", {"decoupled_weight_decay": True}),
    )
    if hasattr(torch.optim, name)
]


def train_pad_row(
    table: torch.Tensor, p: int, make_opt, batches: list[list[int]], seed: int
) -> torch.Tensor:
    """Row ``p`` of ``table`` (float32 ``[V, D]``) after one optimizer step per batch of ids,
    with ``padding_idx=p`` and a squared-error loss towards random targets."""
    emb = nn.Embedding.from_pretrained(table.clone(), freeze=False, padding_idx=p)
    opt = make_opt(emb.parameters())
    for step, ids in enumerate(batches):
        opt.zero_grad()
        target = randn((len(ids), table.shape[1]), seed + step)
        (emb(torch.tensor(ids)) - target).pow(2).sum().backward()
        assert not emb.weight.grad[p % len(table)].any()
        opt.step()
    return emb.weight.detach()[p % len(table)]


@proves("padding-zero-row-under-decay")
@given(
    name=st.sampled_from(DECAY_OPTIMIZERS),
    momentum=st.booleans(),
    decoupled=st.booleans(),
    lr=st.floats(1e-3, 1.0),
    wd=st.floats(0.0, 1.0),
    V=st.integers(2, 12),
    D=dims,
    seed=seeds,
    data=st.data(),
)
def test_weight_decay_moves_a_pad_row_only_if_it_is_not_zero(
    name, momentum, decoupled, lr, wd, V, D, seed, data
):
    """Every ``torch.optim`` optimizer that takes ``weight_decay`` (SGD, RMSprop and Muon with
    momentum too; Adam, NAdam and RAdam with ``decoupled_weight_decay=True`` too), any ``lr`` and
    ``weight_decay``, batches that hold the pad id: a pad row of zeros stays exactly zero. A
    non-zero pad row moves under weight decay: the optimizers that multiply the weights (AdamW,
    Adafactor, Muon, the decoupled variants), and SGD without momentum, scale it by
    ``1 - lr * weight_decay`` per step (float32 rounding)."""
    p = data.draw(st.integers(-V, V - 1))
    batches = [
        [p % V, *data.draw(id_lists(V, data.draw(st.integers(0, 5))))]
        for _ in range(data.draw(st.integers(1, 4)))
    ]
    cls = getattr(torch.optim, name)
    takes_momentum = "momentum" in inspect.signature(cls).parameters
    extra = {"momentum": 0.9} if momentum and takes_momentum else {}
    if decoupled and "decoupled_weight_decay" in inspect.signature(cls).parameters:
        extra["decoupled_weight_decay"] = True

    def make_opt(params):
        return cls(params, lr=lr, weight_decay=wd, **extra)

    table = randn((V, D), seed)
    zeroed = table.clone()
    zeroed[p % V] = 0.0
    assert not train_pad_row(zeroed, p, make_opt, batches, seed).any()

    for scaling, options in SCALING_DECAY:
        row = train_pad_row(
            table,
            p,
            lambda ps, c=scaling, o=options: getattr(torch.optim, c)(
                ps, lr=lr, weight_decay=wd, **o
            ),
            batches,
            seed,
        )
        torch.testing.assert_close(row, table[p % V] * (1 - lr * wd) ** len(batches))
