"""Property tests: the lookup's backward pass (scatter-add, dense and sparse gradients,
``scale_grad_by_freq``) and the in-place write of ``max_norm``, for generated cases."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import example, given
from hypothesis import strategies as st
from torch import nn

from tests.claim_register import proves
from tests.strategies import all_table_dtypes, id_tensors, randn, seeds, tables

sizes = st.integers(1, 12)
dims = st.integers(1, 5)


@proves("grad-scatter-add")
@given(V=sizes, D=dims, seed=seeds, data=st.data())
def test_weight_gradient_is_a_scatter_add_of_the_upstream_rows(V, D, seed, data):
    """For any ids (any shape, heavy repeats, int64 or int32): ``weight.grad`` is a dense
    ``[V, D]`` tensor equal to ``zeros.index_add_(0, ids, upstream)``, to float32 rounding (exactly
    when no id repeats); rows of ids not looked up are exactly zero."""
    idx = data.draw(id_tensors(V))
    emb = nn.Embedding.from_pretrained(randn((V, D), seed), freeze=False)
    up = randn((*idx.shape, D), seed + 1)
    emb(idx).backward(up)
    grad = emb.weight.grad
    assert grad.layout == torch.strided and grad.shape == (V, D)
    flat = idx.reshape(-1).long()
    by_hand = torch.zeros(V, D).index_add_(0, flat, up.reshape(-1, D))
    torch.testing.assert_close(grad, by_hand)
    if len(flat.unique()) == len(flat):
        assert torch.equal(grad, by_hand)
    unused = torch.ones(V, dtype=torch.bool)
    unused[flat] = False
    assert torch.equal(grad[unused], torch.zeros(int(unused.sum()), D))


@st.composite
def padded_lookups(draw) -> tuple[int, int | None, torch.Tensor]:
    """``(V, padding_idx, ids)``: ``padding_idx`` ``None`` or in ``[-V, V)``, ids of any shape."""
    V = draw(sizes)
    p = draw(st.none() | st.integers(-V, V - 1))
    return V, p, draw(id_tensors(V))


@proves("sparse-grad-per-lookup")
@example(case=(3, 1, torch.tensor(1)), D=2, seed=0)  # a 0-d index with padding_idx
@given(case=padded_lookups(), D=dims, seed=seeds)
def test_sparse_gradient_holds_one_entry_per_lookup(case, D, seed):
    """With ``sparse=True`` the gradient is an uncoalesced COO tensor: one index and the upstream
    row, as is, per lookup, in input order, lookups of ``padding_idx`` left out; coalesced and
    densified it equals the dense gradient (to float32 rounding; exactly when no id repeats)."""
    V, p, idx = case
    W = randn((V, D), seed)
    dense = nn.Embedding.from_pretrained(W.clone(), freeze=False, padding_idx=p)
    sparse = nn.Embedding.from_pretrained(W.clone(), freeze=False, padding_idx=p, sparse=True)
    up = randn((*idx.shape, D), seed + 1)
    dense(idx).backward(up)
    if p is not None and idx.dim() == 0:
        # A PyTorch bug (measured on torch 2.15.0): the sparse backward with padding_idx fails
        # on a 0-d index. docs/sparsity.md states it; this fails when a release fixes it.
        with pytest.raises(IndexError, match="too many indices"):
            sparse(idx).backward(up)
        return
    sparse(idx).backward(up)
    grad = sparse.weight.grad
    assert grad.layout == torch.sparse_coo and grad.shape == (V, D)
    flat = idx.reshape(-1).long()
    keep = flat != (p % V) if p is not None else torch.ones_like(flat, dtype=torch.bool)
    assert torch.equal(grad._indices()[0], flat[keep])
    assert torch.equal(grad._values(), up.reshape(-1, D)[keep])
    torch.testing.assert_close(grad.coalesce().to_dense(), dense.weight.grad)
    if len(flat[keep].unique()) == int(keep.sum()):
        assert torch.equal(grad.coalesce().to_dense(), dense.weight.grad)


@proves("repeated-id-grad")
@example(case=(4, None, torch.tensor([[2, 2, 1], [2, 0, 1]])), scale=True, D=2, seed=0)
@example(case=(4, 2, torch.tensor([[2, 2, 1], [2, 0, 1]])), scale=False, D=2, seed=0)
@given(case=padded_lookups(), scale=st.booleans(), D=dims, seed=seeds)
def test_a_repeated_id_gets_the_sum_the_mean_or_nothing(case, scale, D, seed):
    """For any ids: each id's gradient row is the sum of the upstream rows at its positions by
    default, their mean with ``scale_grad_by_freq=True`` (the count over the whole call), and
    exactly zero for ``padding_idx``, however often it occurs (float32 rounding; the rows of
    unused ids and the padding row exactly zero)."""
    V, p, idx = case
    W = randn((V, D), seed).requires_grad_()
    up = randn((*idx.shape, D), seed + 1)
    F.embedding(idx, W, padding_idx=p, scale_grad_by_freq=scale).backward(up)
    flat, rows = idx.reshape(-1).long(), up.reshape(-1, D)
    counts = torch.bincount(flat, minlength=V)
    for v in range(V):
        mine = rows[flat == v]
        if p is not None and v == p % V or not len(mine):
            assert torch.equal(W.grad[v], torch.zeros(D))
        else:
            expected = mine.mean(0) if scale else mine.sum(0)
            assert int(counts[v]) == len(mine)
            torch.testing.assert_close(W.grad[v], expected)


@pytest.mark.cuda
@proves("cuda-deterministic-grad")
@given(V=sizes, D=dims, seed=seeds, data=st.data())
def test_deterministic_mode_repeats_the_cuda_gradient_bit_for_bit(V, D, seed, data):
    """On a CUDA device, under ``torch.use_deterministic_algorithms(True)``, the weight gradient
    of a lookup is the same, bit for bit, on three runs with the same ids (heavy repeats included)
    and the same upstream gradient, and equals the float64 scatter-add to float32 rounding. (By
    default it need not repeat: the pages measure that, and assert nothing about it.)"""
    idx = data.draw(id_tensors(V)).long().cuda()
    W = randn((V, D), seed).cuda().requires_grad_()
    up = randn((*idx.shape, D), seed + 1).cuda()
    exact = torch.zeros(V, D, dtype=torch.float64).index_add_(
        0, idx.reshape(-1).cpu(), up.reshape(-1, D).cpu().double()
    )
    grads = []
    torch.use_deterministic_algorithms(True)
    try:
        for _ in range(3):
            W.grad = None
            F.embedding(idx, W).backward(up)
            grads.append(W.grad.clone())
    finally:
        torch.use_deterministic_algorithms(False)
    assert all(torch.equal(g, grads[0]) for g in grads)
    torch.testing.assert_close(grads[0].cpu().double(), exact, rtol=1e-5, atol=1e-6)


@proves("scale-grad-by-freq")
@given(V=sizes, D=dims, seed=seeds, data=st.data())
def test_scale_grad_by_freq_divides_by_the_count_in_the_whole_batch(V, D, seed, data):
    """``nn.Embedding(scale_grad_by_freq=True)``: each lookup's upstream row is divided by how
    often its id occurs in the whole index tensor of the call, then scatter-added (float32
    rounding)."""
    idx = data.draw(id_tensors(V))
    W = randn((V, D), seed).requires_grad_()
    up = randn((*idx.shape, D), seed + 1)
    F.embedding(idx, W, scale_grad_by_freq=True).backward(up)
    flat = idx.reshape(-1).long()
    counts = torch.bincount(flat, minlength=V).float()
    by_hand = torch.zeros(V, D).index_add_(0, flat, up.reshape(-1, D) / counts[flat, None])
    torch.testing.assert_close(W.grad, by_hand)


@proves("max-norm-in-place")
@given(
    V=sizes,
    D=dims,
    max_norm=st.floats(0.05, 4.0),
    norm_type=st.sampled_from([1.0, 2.0, 3.0]),
    dtype=all_table_dtypes,
    small=st.booleans(),
    frozen=st.booleans(),
    train=st.booleans(),
    bag=st.booleans(),
    grad_mode=st.booleans(),
    data=st.data(),
)
def test_max_norm_rescales_the_looked_up_rows_in_the_table(
    V, D, max_norm, norm_type, dtype, small, frozen, train, bag, grad_mode, data
):
    """With ``max_norm``, a forward pass rescales in place each looked-up row whose
    ``norm_type``-norm, computed in the table's dtype, exceeds ``max_norm``, to
    ``row · max_norm / (norm + 1e-7)``: the new norm is ``max_norm · norm / (norm + 1e-7)`` to
    the rounding of the table's dtype (within ``4 · eps · max_norm``, ``eps`` of
    ``torch.finfo``), for float32, float64, bfloat16 and float16 tables, and for small rows
    (``small``: table and ``max_norm`` scaled by 1e-3, where the 1e-7 guard shows; not for float16,
    whose subnormal spacing is coarser than its rounding there). This happens in ``train()`` or
    ``eval()``, with gradients enabled or under ``torch.no_grad()``, frozen or not; rows not looked
    up, and rows within the bound, are untouched (exactly). ``torch.embedding_renorm_`` is given
    ``weight.detach()`` (the table's memory and version counter, not tracked by autograd) and runs
    in the caller's gradient mode. ``nn.EmbeddingBag`` does the same to the rows of its bags."""
    scale = 1e-3 if small and dtype != torch.float16 else 1.0
    W = (data.draw(tables(V, D, special=False)).double() * scale).to(dtype)
    max_norm *= scale
    idx = data.draw(id_tensors(V))
    calls = []
    renorm = torch.embedding_renorm_

    def spy(weight, *args):
        calls.append(
            (weight.requires_grad, weight.data_ptr(), weight._version, torch.is_grad_enabled())
        )
        return renorm(weight, *args)

    torch.embedding_renorm_ = spy
    try:
        if bag:
            idx = idx.reshape(-1)
            layer = nn.EmbeddingBag.from_pretrained(
                W.clone(), freeze=frozen, max_norm=max_norm, norm_type=norm_type, mode="sum"
            )
            layer.train(train)
            with torch.set_grad_enabled(grad_mode):
                layer(idx, torch.zeros(1, dtype=torch.long))
        emb = (
            layer
            if bag
            else nn.Embedding.from_pretrained(
                W.clone(), freeze=frozen, max_norm=max_norm, norm_type=norm_type
            )
        )
        emb.train(train)
        with torch.set_grad_enabled(grad_mode):
            out = F.embedding(idx, emb.weight) if bag else emb(idx)
    finally:
        torch.embedding_renorm_ = renorm
    if not bag:
        assert calls == [(False, emb.weight.data_ptr(), emb.weight._version - 1, grad_mode)]
    else:
        assert [call[3] for call in calls] == [grad_mode]
        assert calls[0][:2] == (False, emb.weight.data_ptr())
    after = emb.weight.detach()
    norms = torch.stack([row.norm(p=norm_type) for row in W]).double()  # as the kernel: per row
    looked_up = torch.zeros(V, dtype=torch.bool)
    looked_up[idx.reshape(-1).long()] = True
    rescaled = looked_up & (norms > max_norm)
    factor = max_norm / (norms[rescaled] + 1e-7)
    expected = (W[rescaled].double() * factor[:, None]).to(dtype)
    torch.testing.assert_close(after[rescaled], expected)
    bound = 4 * torch.finfo(dtype).eps * max_norm
    new_norms = after[rescaled].double().norm(p=norm_type, dim=1)
    assert ((new_norms - norms[rescaled] * factor).abs() <= bound).all()  # max_norm·n/(n+1e-7)
    assert torch.equal(after[~rescaled], W[~rescaled])
    assert (out.double().norm(p=norm_type, dim=-1) <= max_norm + bound).all()
    assert torch.equal(out, after[idx])
