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
    any_floats,
    float_table_dtypes,
    id_tensors,
    randn,
    seeds,
    shapes,
    tables,
    wide_lookups,
)

sizes = st.integers(1, 12)
dims = st.integers(1, 5)


@proves("lookup-shape", "lookup-spellings")
@given(V=sizes, D=dims, dtype=float_table_dtypes, finite=st.booleans(), data=st.data())
def test_lookup_returns_rows_in_the_index_shape(V, D, dtype, finite, data):
    """For any index shape (0-d, empty and up to five dimensions), int64 or int32 ids and any
    float table (float16, bfloat16, float32, float64; subnormals, signed zeros, inf and nan
    included): ``emb(idx)`` has shape ``(*idx.shape, D)`` and the table's dtype, and holds the
    same bits as ``F.embedding``, ``weight[idx]`` and ``index_select`` on the flattened ids
    (``torch.equal`` too, for a table without nan: nan is not equal to itself)."""
    W = data.draw(tables(V, D, dtype, special=False))
    for _ in range(data.draw(st.integers(0, 4))):
        W[data.draw(st.integers(0, V - 1)), data.draw(st.integers(0, D - 1))] = data.draw(
            any_floats(dtype, finite))
    idx = data.draw(id_tensors(V, shape=data.draw(shapes(max_dims=5, max_side=3))))
    emb = nn.Embedding.from_pretrained(W)
    out = emb(idx)
    assert out.shape == (*idx.shape, D) and out.dtype == dtype
    spellings = (F.embedding(idx, W), W[idx],
                 W.index_select(0, idx.reshape(-1)).reshape(*idx.shape, D))
    for other in spellings:
        assert torch.equal(bits(out), bits(other))
        assert torch.equal(out, other) == (not out.isnan().any())


ALL_DTYPES = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.uint16,
              torch.uint32, torch.uint64, torch.bool, torch.float16, torch.bfloat16,
              torch.float32, torch.float64, torch.complex64, torch.float8_e4m3fn]


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
    """The bit patterns of a float16, bfloat16, float32 or float64 tensor, as integers of the
    same width."""
    return t.view({torch.float32: torch.int32, torch.float64: torch.int64,
                   torch.bfloat16: torch.int16, torch.float16: torch.int16}[t.dtype])


#: More multiply-adds than this and PyTorch may hand a bfloat16 or float16 matrix product on the
#: CPU to oneDNN (``mkldnn_gemm`` and ``checksize`` in aten/src/ATen/native/mkldnn/Matmul.cpp).
ONEDNN_MIN_SIZE = 16 * 16 * 16


def onednn_computes(dtype: torch.dtype, multiply_adds: int) -> bool:
    """Whether PyTorch hands a CPU matrix product of ``dtype`` and of ``multiply_adds``
    multiply-adds (``N·V·D``) to oneDNN here: bfloat16 or float16, above
    :data:`ONEDNN_MIN_SIZE`, oneDNN enabled, and a CPU with oneDNN's support for the dtype."""
    if multiply_adds <= ONEDNN_MIN_SIZE or not (torch.backends.mkldnn.is_available()
                                                and torch.backends.mkldnn.enabled):
        return False
    if dtype == torch.bfloat16:
        return torch.ops.mkldnn._is_mkldnn_bf16_supported()
    if dtype == torch.float16:
        return torch.ops.mkldnn._is_mkldnn_fp16_supported()
    return False


def subnormals_flushed(t: torch.Tensor) -> torch.Tensor:
    """``t`` with every subnormal number replaced by a zero of the same sign."""
    return torch.where(t.abs() < torch.finfo(t.dtype).tiny, t * 0, t)


def assert_same_bits_but_signed_zeros(a: torch.Tensor, b: torch.Tensor) -> None:
    """``torch.equal(a, b)``, and the same bits wherever ``b`` is not zero."""
    assert torch.equal(a, b)
    nonzero = b != 0
    assert torch.equal(bits(a)[nonzero], bits(b)[nonzero])


#: The page's bfloat16 corner: 8 lookups of row 0 in a [64, 16] table, 8192 multiply-adds.
BF16_CORNER = torch.zeros(64, 16, dtype=torch.bfloat16)
BF16_CORNER[0, 0] = torch.finfo(torch.bfloat16).tiny / 4  # a subnormal number


#: A large float32 case, past the blocked paths of the matrix product: 257 ids, a [3000, 65]
#: table with a subnormal number, a negative zero and float32's largest number in looked-up rows.
LARGE_IDS = torch.randint(3000, (257,), generator=torch.Generator().manual_seed(0))
LARGE_TABLE = randn((3000, 65), 0)
LARGE_TABLE[LARGE_IDS[:3], 7] = torch.tensor([torch.finfo(torch.float32).tiny / 4, -0.0,
                                              torch.finfo(torch.float32).max])


@proves("onehot-forward-exact")
@example(case=(torch.tensor([[-0.0, 1.5], [2.0, -3.0]]), torch.tensor([0, 1])))  # a signed zero
@example(case=(BF16_CORNER, torch.zeros(8, dtype=torch.long)))  # bfloat16 subnormal, oneDNN size
@example(case=(BF16_CORNER[:16], torch.zeros(16, dtype=torch.long)))  # 4096: PyTorch's kernel
@example(case=(BF16_CORNER.half(), torch.zeros(8, dtype=torch.long)))  # float16, same size
@example(case=(LARGE_TABLE, LARGE_IDS))  # 257 · 3000 · 65 multiply-adds in float32
@example(case=(LARGE_TABLE.double(), LARGE_IDS))  # and in float64
@given(case=wide_lookups())
def test_onehot_product_equals_lookup_exactly(case):
    """On the CPU, for a finite table (subnormals, signed zeros and values near the dtype's max
    included, tables up to 300 x 70) and any ids: ``one_hot(idx, V) @ W`` and the one-hot
    ``nn.Linear`` equal the lookup exactly (the same bits, except that a ``-0.0`` may become
    ``+0.0``) for float32 and float64 at every size, and for bfloat16 and float16 while PyTorch
    computes the product itself. When oneDNN computes a bfloat16 product (more than 16·16·16
    multiply-adds, on a CPU oneDNN supports bfloat16 on), the product equals the lookup with its
    subnormal numbers flushed to zero; with oneDNN disabled, it is exact again. Where oneDNN
    computes a float16 product, the page makes no claim and neither does this test. And
    ``torch.sparse.mm`` with a COO one-hot and SciPy's CSR one-hot product equal it too (float32
    and float64, 1-D ids)."""
    W, idx = case
    V, D, dtype = W.shape[0], W.shape[1], W.dtype
    onehot = F.one_hot(idx, V).to(dtype)
    ref = F.embedding(idx, W)
    product, linear = onehot @ W, onehot_linear(W)(onehot)
    if onednn_computes(dtype, idx.numel() * V * D):
        if dtype == torch.float16:
            return
        assert_same_bits_but_signed_zeros(product, subnormals_flushed(ref))
        assert_same_bits_but_signed_zeros(linear, subnormals_flushed(ref))
        torch.backends.mkldnn.enabled = False
        try:
            product, linear = onehot @ W, onehot_linear(W)(onehot)
        finally:
            torch.backends.mkldnn.enabled = True
    assert_same_bits_but_signed_zeros(product, ref)
    assert_same_bits_but_signed_zeros(linear, ref)
    if idx.dim() == 1 and dtype in (torch.float32, torch.float64):  # the spellings of api-map.md
        N = len(idx)
        coo = torch.sparse_coo_tensor(torch.stack([torch.arange(N), idx]),
                                      torch.ones(N, dtype=dtype), (N, V), check_invariants=True)
        assert torch.equal(torch.sparse.mm(coo, W), ref)
        csr = scipy.sparse.csr_matrix((np.ones(N), idx.numpy(), np.arange(N + 1)), shape=(N, V))
        assert torch.equal(torch.from_numpy(csr.astype(W.numpy().dtype) @ W.numpy()), ref)


@proves("onehot-grad")
@example(V=6, D=4, n=200, seed=0, pool=[0, 1, 2, 3, 4, 5], dtype=torch.float32)  # the page's
@example(V=64, D=16, n=8, seed=1, pool=None, dtype=torch.bfloat16)  # 8192, no repeats
@given(V=st.integers(1, 12) | st.integers(13, 300), D=st.integers(1, 5) | st.integers(6, 70),
       n=st.integers(0, 64), seed=seeds, pool=st.none(), dtype=float_table_dtypes)
def test_onehot_weight_gradients_agree(V, D, n, seed, pool, dtype):
    """Weight gradients of the lookup and of the one-hot Linear (transposed) agree: exactly when
    no id repeats; to rounding otherwise, within ``n · eps · sum |upstream|`` per entry (the
    additions of a repeated id's contributions happen in another order). Float32 and float64
    at every size; bfloat16 and float16 where PyTorch computes the Linear's gradient product
    itself. Where oneDNN computes a bfloat16 one (the corner of the forward pass), a subnormal
    upstream number can reach the Linear's gradient as zero; with oneDNN disabled it is exact."""
    gen = torch.Generator().manual_seed(seed)
    if pool is None:
        idx = torch.randperm(V, generator=gen)[:n] if seed % 2 else torch.randint(
            V, (n,), generator=gen)  # half the cases without repeats
    else:
        idx = torch.tensor(pool)[torch.randint(len(pool), (n,), generator=gen)]
    n = len(idx)
    W = randn((V, D), seed, dtype)
    up = randn((n, D), seed + 1, dtype)
    if n:
        up[0, 0] = torch.finfo(dtype).tiny / 4  # a subnormal number
    emb = nn.Embedding.from_pretrained(W.clone(), freeze=False)
    emb(idx).backward(up)
    onehot = F.one_hot(idx, V).to(dtype)

    def linear_grad() -> torch.Tensor:
        lin = onehot_linear(W)
        lin(onehot).backward(up)
        return lin.weight.grad.T

    lin_grad = linear_grad()
    if onednn_computes(dtype, n * V * D):
        if dtype == torch.float16:
            return
        torch.backends.mkldnn.enabled = False
        try:
            exact_grad = linear_grad()
        finally:
            torch.backends.mkldnn.enabled = True
        if len(idx.unique()) == n:
            assert torch.equal(lin_grad, subnormals_flushed(emb.weight.grad))
        lin_grad = exact_grad
    if len(idx.unique()) == n:
        assert torch.equal(emb.weight.grad, lin_grad)
    bound = n * torch.finfo(dtype).eps * up.float().abs().sum(0).max().item()
    torch.testing.assert_close(emb.weight.grad.float(), lin_grad.float(), rtol=0, atol=bound)


@proves("onehot-nonfinite")
@given(V=st.integers(2, 12), D=dims, bad=st.sampled_from([float("inf"), float("-inf"),
                                                           float("nan")]),
       selected=st.booleans(), data=st.data())
def test_a_nonfinite_entry_poisons_its_column_of_the_product(V, D, bad, selected, data):
    """An inf or nan at column ``d`` of row ``r`` makes column ``d`` of the one-hot product nan
    for every id other than ``r`` (all outputs, when no id selects ``r``); the outputs of id
    ``r`` keep the value, as the lookup does; the other columns equal the lookup."""
    W = data.draw(tables(V, D, special=False))
    row, col = data.draw(st.integers(0, V - 1)), data.draw(st.integers(0, D - 1))
    W[row, col] = bad
    others = [v for v in range(V) if v != row]
    ids = data.draw(st.lists(st.sampled_from(others), min_size=1, max_size=20))
    if selected:
        ids.insert(data.draw(st.integers(0, len(ids))), row)
    idx = torch.tensor(ids)
    lookup = F.embedding(idx, W)
    product = F.one_hot(idx, V).float() @ W
    assert torch.isfinite(lookup[idx != row]).all()
    assert torch.isnan(product[idx != row, col]).all()
    torch.testing.assert_close(product[idx == row], lookup[idx == row], rtol=0, atol=0,
                               equal_nan=True)  # inf stays inf, -inf stays -inf, nan stays nan
    keep = [d for d in range(D) if d != col]
    assert torch.equal(product[:, keep], lookup[:, keep])


@proves("onehot-autocast")
@example(case=(BF16_CORNER.float(), torch.zeros(8, dtype=torch.long)))  # a float32 subnormal
@given(case=wide_lookups(dtypes=st.just(torch.float32)))
def test_autocast_runs_the_onehot_linear_in_bfloat16_but_not_the_lookup(case):
    """Under CPU autocast to bfloat16, for a float32 table within bfloat16's range, the lookup
    still returns the table's rows, exactly, while the one-hot Linear returns bfloat16: the
    lookup's rows rounded to bfloat16 (8 significant bits: a relative error of at most 2**-8
    for a normal number), except that a subnormal number can come out as zero where oneDNN
    computes the bfloat16 product."""
    W, idx = case
    V, D = W.shape
    big = torch.finfo(torch.bfloat16).max  # past it, rounding gives inf: a non-finite table
    W = W.clamp(-big, big)
    emb, lin = nn.Embedding.from_pretrained(W), onehot_linear(W)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        looked_up = emb(idx)
        product = lin(F.one_hot(idx.long(), V).float())
    assert looked_up.dtype == torch.float32 and torch.equal(looked_up, W[idx])
    assert product.dtype == torch.bfloat16
    rounded = looked_up.bfloat16()
    if onednn_computes(torch.bfloat16, idx.numel() * V * D):
        rounded = subnormals_flushed(rounded)
    assert torch.equal(product, rounded)
    normal = rounded.isfinite() & (rounded.abs() >= torch.finfo(torch.bfloat16).tiny)
    assert torch.finfo(torch.bfloat16).eps == 2**-7  # 8 significant bits: rounding errs by 2**-8
    error = (product.float() - looked_up).abs()[normal]
    assert (error <= looked_up.abs()[normal] * 2**-8).all()


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
