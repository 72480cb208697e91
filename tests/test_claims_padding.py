"""Property tests: what ``padding_idx`` does and does not do, for any row (negative ones
included), in ``nn.Embedding``, ``F.embedding`` and ``nn.EmbeddingBag``."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st
from torch import nn

from tests.claim_register import proves
from tests.strategies import id_lists, id_tensors, randn, seeds, tables

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
@given(V=sizes, D=dims, seed=seeds, functional=st.booleans(), data=st.data())
def test_positions_holding_p_send_no_gradient(V, D, seed, functional, data):
    """However many positions hold ``p`` (heavy repeats, any shape, int32 or int64 ids), row ``p``
    gets an exactly zero gradient and every other row gets exactly the gradient it gets without
    ``padding_idx``; ``F.embedding`` converts a negative ``p`` the same way."""
    p = data.draw(st.integers(-V, V - 1))
    idx = data.draw(id_tensors(V))
    W = randn((V, D), seed)
    up = randn((*idx.shape, D), seed + 1)
    with_pad, without = W.clone().requires_grad_(), W.clone().requires_grad_()
    if functional:
        F.embedding(idx, with_pad, padding_idx=p).backward(up)
        grad = with_pad.grad
    else:
        emb = nn.Embedding.from_pretrained(with_pad.detach(), freeze=False, padding_idx=p)
        emb(idx).backward(up)
        grad = emb.weight.grad
    F.embedding(idx, without).backward(up)
    assert not grad[p % V].any()
    rest = [v for v in range(V) if v != p % V]
    assert torch.equal(grad[rest], without.grad[rest])


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
@given(V=st.integers(2, 12), D=dims, mode=st.sampled_from(["sum", "mean", "max"]), data=st.data())
def test_bag_leaves_padding_out_of_the_reduction(V, D, mode, data):
    """``nn.EmbeddingBag(padding_idx=p)``, every mode: a bag reduces only its ids that are not
    ``p`` (a mean divides by their number), whatever row ``p`` holds; a bag of nothing but
    padding gives zeros; row ``p`` gets no gradient (float32 rounding for the values)."""
    W = data.draw(tables(V, D, special=False))
    p = data.draw(st.integers(-V, V - 1))
    ids, offsets, B = data.draw(padded_bags(V))
    bag = nn.EmbeddingBag.from_pretrained(W.clone(), freeze=False, mode=mode, padding_idx=p)
    out = bag(ids, offsets)
    assert out.shape == (B, D)
    reduce = {"sum": lambda r: r.sum(0), "mean": lambda r: r.mean(0),
              "max": lambda r: r.max(0).values}[mode]
    for b, members in enumerate(bag_members(ids, offsets)):
        kept = members[members != p % V]
        expected = reduce(W[kept]) if len(kept) else torch.zeros(D)
        torch.testing.assert_close(out[b], expected)
    out.backward(randn((B, D), 0))
    assert not bag.weight.grad[p % V].any()
