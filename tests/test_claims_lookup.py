"""Property tests: the forward lookup and its one-hot equivalence, for generated cases.

Each test names the claim ids it proves (see ``tests/claim_register.py``); "exactly" on a page is
``torch.equal`` here, and a tolerance is named wherever the page says "to rounding".
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
import torch
import torch.nn.functional as F
from hypothesis import example, given
from hypothesis import strategies as st
from torch import nn

from tests.claim_register import proves
from tests.strategies import (
    id_tensors,
    randn,
    seeds,
    shapes,
    table_dtypes,
    tables,
)

sizes = st.integers(1, 12)
dims = st.integers(1, 5)


@proves("lookup-shape", "lookup-spellings")
@given(V=sizes, D=dims, dtype=table_dtypes, data=st.data())
def test_lookup_returns_rows_in_the_index_shape(V, D, dtype, data):
    """For any index shape (0-d and empty included), int64 or int32 ids and any table dtype:
    ``emb(idx)`` has shape ``(*idx.shape, D)`` and the table's dtype, and equals, exactly,
    ``F.embedding``, ``weight[idx]`` and ``index_select`` on the flattened ids."""
    W = data.draw(tables(V, D, dtype))
    idx = data.draw(id_tensors(V))
    emb = nn.Embedding.from_pretrained(W)
    out = emb(idx)
    assert out.shape == (*idx.shape, D) and out.dtype == dtype
    assert torch.equal(out, F.embedding(idx, W))
    assert torch.equal(out, W[idx])
    assert torch.equal(out, W.index_select(0, idx.reshape(-1)).reshape(*idx.shape, D))


ALL_DTYPES = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool,
              torch.float16, torch.bfloat16, torch.float32, torch.float64]


@proves("index-dtypes")
@given(dtype=st.sampled_from(ALL_DTYPES), shape=shapes(min_dims=1))
def test_only_int64_and_int32_ids_are_accepted(dtype, shape):
    """Ids of dtype int64 or int32 are looked up; every other dtype raises RuntimeError."""
    emb = nn.Embedding(3, 2)
    idx = torch.zeros(shape, dtype=dtype)
    if dtype in (torch.int64, torch.int32):
        assert emb(idx).shape == (*shape, 2)
    else:
        with pytest.raises(RuntimeError, match="Long, Int"):
            emb(idx)


@proves("ids-in-range")
@given(V=sizes, bad=st.one_of(st.integers(-1000, -1), st.integers(0, 1000)), data=st.data())
def test_ids_outside_the_table_raise(V, bad, data):
    """An id below 0 or at or beyond ``num_embeddings`` raises IndexError: a negative id is not
    counted from the end, whatever other ids the batch holds."""
    bad = bad if bad < 0 else V + bad
    idx = data.draw(id_tensors(V, shape=(data.draw(st.integers(0, 5)),)))
    where = data.draw(st.integers(0, len(idx)))
    idx = torch.cat([idx[:where], torch.tensor([bad], dtype=idx.dtype), idx[where:]])
    with pytest.raises(IndexError, match="index out of range"):
        nn.Embedding(V, 2)(idx)


def onehot_linear(W: torch.Tensor) -> nn.Linear:
    """A bias-free ``nn.Linear(V, D)`` holding the ``[V, D]`` table ``W`` transposed."""
    lin = nn.Linear(W.shape[0], W.shape[1], bias=False, dtype=W.dtype)
    with torch.no_grad():
        lin.weight.copy_(W.T)
    return lin


def bits(t: torch.Tensor) -> torch.Tensor:
    """The bit patterns of a float32, float64 or bfloat16 tensor, as integers of the same width."""
    return t.view({torch.float32: torch.int32, torch.float64: torch.int64,
                   torch.bfloat16: torch.int16}[t.dtype])


@st.composite
def tables_and_ids(draw) -> tuple[torch.Tensor, torch.Tensor]:
    """``(W, idx)``: a finite table of any dtype the pages discuss and int64 ids of any shape."""
    V, D, dtype = draw(sizes), draw(dims), draw(table_dtypes)
    return draw(tables(V, D, dtype)), draw(id_tensors(V, dtype=torch.int64))


@proves("onehot-forward-exact")
@example(case=(torch.tensor([[-0.0, 1.5], [2.0, -3.0]]), torch.tensor([0, 1])))  # a signed zero
@given(case=tables_and_ids())
def test_onehot_product_equals_lookup_exactly(case):
    """For a finite table (subnormals, signed zeros and values near the dtype's max included) and
    any ids: ``one_hot(idx, V) @ W`` and the one-hot ``nn.Linear`` equal the lookup exactly (the
    same bits, except that a ``-0.0`` may become ``+0.0``), and so do ``torch.sparse.mm`` with a
    COO one-hot and SciPy's CSR one-hot product (float32 and float64, 1-D ids)."""
    W, idx = case
    V, dtype = W.shape[0], W.dtype
    onehot = F.one_hot(idx, V).to(dtype)
    ref = F.embedding(idx, W)
    product = onehot @ W
    assert torch.equal(product, ref)
    assert torch.equal(onehot_linear(W)(onehot), ref)
    nonzero = ref != 0  # bit for bit, except that a -0.0 of the table may come out as +0.0
    assert torch.equal(bits(product)[nonzero], bits(ref)[nonzero])
    if idx.dim() == 1 and dtype != torch.bfloat16:  # the sparse spellings of docs/api-map.md
        N = len(idx)
        coo = torch.sparse_coo_tensor(torch.stack([torch.arange(N), idx]),
                                      torch.ones(N, dtype=dtype), (N, V), check_invariants=True)
        assert torch.equal(torch.sparse.mm(coo, W), ref)
        csr = scipy.sparse.csr_matrix((np.ones(N), idx.numpy(), np.arange(N + 1)), shape=(N, V))
        assert torch.equal(torch.from_numpy(csr.astype(W.numpy().dtype) @ W.numpy()), ref)


@proves("onehot-grad")
@example(V=6, D=4, n=200, seed=0, pool=[0, 1, 2, 3, 4, 5])  # the page's example: 200 ids from 6
@given(V=sizes, D=dims, n=st.integers(0, 64), seed=seeds, pool=st.none())
def test_onehot_weight_gradients_agree(V, D, n, seed, pool):
    """Weight gradients of the lookup and of the one-hot Linear (transposed) agree: exactly when
    no id repeats; to float32 rounding otherwise, within ``n · eps · sum |upstream|`` per entry
    (the additions of a repeated id's contributions happen in another order)."""
    gen = torch.Generator().manual_seed(seed)
    if pool is None:
        idx = torch.randint(V, (n,), generator=gen)
    else:
        idx = torch.tensor(pool)[torch.randint(len(pool), (n,), generator=gen)]
    W = randn((V, D), seed)
    up = randn((n, D), seed + 1)
    emb = nn.Embedding.from_pretrained(W.clone(), freeze=False)
    lin = onehot_linear(W)
    emb(idx).backward(up)
    lin(F.one_hot(idx, V).float()).backward(up)
    if len(idx.unique()) == len(idx):
        assert torch.equal(emb.weight.grad, lin.weight.grad.T)
    bound = n * torch.finfo(torch.float32).eps * up.abs().sum(0).max().item()
    torch.testing.assert_close(emb.weight.grad, lin.weight.grad.T, rtol=0, atol=bound)


@proves("onehot-nonfinite")
@given(V=st.integers(2, 12), D=dims, bad=st.sampled_from([float("inf"), float("-inf"),
                                                           float("nan")]), data=st.data())
def test_a_nonfinite_entry_poisons_its_column_of_the_product(V, D, bad, data):
    """An inf or nan at column ``d`` of a row that no id selects makes column ``d`` of every
    output of the one-hot product nan; the other columns equal the lookup, which stays finite."""
    W = data.draw(tables(V, D, special=False))
    row, col = data.draw(st.integers(0, V - 1)), data.draw(st.integers(0, D - 1))
    W[row, col] = bad
    others = [v for v in range(V) if v != row]
    idx = torch.tensor(data.draw(st.lists(st.sampled_from(others), min_size=1, max_size=20)))
    lookup = F.embedding(idx, W)
    product = F.one_hot(idx, V).float() @ W
    assert torch.isfinite(lookup).all()
    assert torch.isnan(product[:, col]).all()
    keep = [d for d in range(D) if d != col]
    assert torch.equal(product[:, keep], lookup[:, keep])


@proves("onehot-autocast")
@given(V=sizes, D=dims, data=st.data())
def test_autocast_runs_the_onehot_linear_in_bfloat16_but_not_the_lookup(V, D, data):
    """Under CPU autocast to bfloat16 the lookup still returns the float32 table's rows, exactly,
    while the one-hot Linear returns bfloat16: the lookup's rows rounded to bfloat16."""
    W = data.draw(tables(V, D, special=False))
    idx = data.draw(id_tensors(V))
    emb, lin = nn.Embedding.from_pretrained(W), onehot_linear(W)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        looked_up = emb(idx)
        product = lin(F.one_hot(idx.long(), V).float())
    assert looked_up.dtype == torch.float32 and torch.equal(looked_up, W[idx])
    assert product.dtype == torch.bfloat16
    assert torch.equal(product, looked_up.bfloat16())


@proves("static-per-id")
@given(V=sizes, D=dims, data=st.data())
def test_each_output_row_depends_on_its_own_id_only(V, D, data):
    """The row at any position is the table row of the id there, whatever surrounds it, so
    permuting the ids permutes the output rows the same way (for the lookup and the one-hot
    Linear alike)."""
    W = data.draw(tables(V, D, special=False))
    idx = data.draw(id_tensors(V, shape=(data.draw(st.integers(1, 10)),)))
    perm = torch.tensor(data.draw(st.permutations(range(len(idx)))), dtype=torch.long)
    emb, lin = nn.Embedding.from_pretrained(W), onehot_linear(W)
    out = emb(idx)
    for pos in range(len(idx)):
        assert torch.equal(out[pos], emb(idx[pos]))
    assert torch.equal(emb(idx[perm]), out[perm])
    onehot = F.one_hot(idx.long(), V).float()
    assert torch.equal(lin(onehot[perm]), lin(onehot)[perm])


@proves("weight-layouts")
@given(V=st.integers(1, 64), D=st.integers(1, 64))
def test_weight_layouts_and_tying_without_transpose(V, D):
    """``nn.Embedding(V, D)`` stores ``[V, D]``; ``nn.Linear(V, D)`` stores ``[D, V]``; so the
    output projection ``nn.Linear(D, V)`` has the embedding's layout and ties by assignment."""
    emb, lin_in, lm_head = nn.Embedding(V, D), nn.Linear(V, D), nn.Linear(D, V, bias=False)
    assert emb.weight.shape == (V, D) and lin_in.weight.shape == (D, V)
    assert lm_head.weight.shape == emb.weight.shape
    lm_head.weight = emb.weight
    assert len(list(nn.ModuleList([emb, lm_head]).parameters())) == 1


@proves("bias-absorbed")
@given(V=sizes, D=dims, seed=seeds, data=st.data())
def test_a_bias_after_the_lookup_is_a_shifted_table(V, D, seed, data):
    """A bias added after the lookup equals a lookup in the table with the bias added to every
    row, and the one-hot Linear with that bias, for any ids (float32 rounding: the additions
    are the same, in another order for the Linear)."""
    W, b = randn((V, D), seed), randn((D,), seed + 1)
    idx = data.draw(id_tensors(V))
    shifted = nn.Embedding.from_pretrained(W + b)
    assert torch.equal(F.embedding(idx, W) + b, shifted(idx))  # the same two-term additions
    lin = onehot_linear(W)
    lin.bias = nn.Parameter(b)
    torch.testing.assert_close(lin(F.one_hot(idx.long(), V).float()), shifted(idx))
