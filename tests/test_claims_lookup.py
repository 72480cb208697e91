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
from hypothesis import assume, example, given
from hypothesis import strategies as st
from torch import nn

from tests.claim_register import proves
from tests.cpu_outcomes import (
    BF16_OVERFLOW,
    BF16_TINY,
    REDUCED_PRECISION,
    X86_BF16_FLAGS,
    bits,
    exact_or_rounded,
    float32_matmul_setting,
    kept_or_flushed,
    legacy_precision,
    reduced_settings,
    same_but_signed_zeros,
    within_bfloat16_range,
    x86_cpu_flags,
)
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
            any_floats(dtype, finite)
        )
    idx = data.draw(id_tensors(V, shape=data.draw(shapes(max_dims=5, max_side=3))))
    emb = nn.Embedding.from_pretrained(W)
    out = emb(idx)
    assert out.shape == (*idx.shape, D) and out.dtype == dtype
    spellings = (
        F.embedding(idx, W),
        W[idx],
        W.index_select(0, idx.reshape(-1)).reshape(*idx.shape, D),
    )
    for other in spellings:
        assert torch.equal(bits(out), bits(other))
        assert torch.equal(out, other) == (not out.isnan().any())


ALL_DTYPES = [
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.uint16,
    torch.uint32,
    torch.uint64,
    torch.bool,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.complex64,
    torch.float8_e4m3fn,
]


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


@proves("ids-in-range")
@example(V=5, ids=[-1], seed=0)  # the page's two cases
@example(V=5, ids=[0, 5], seed=0)
@given(V=sizes, ids=st.lists(st.integers(-15, 15), min_size=1, max_size=6), seed=seeds)
def test_max_norm_rescales_rows_before_the_ids_are_checked(V, ids, seed):
    """With ``max_norm``, a call with an id outside ``[0, V)`` raises IndexError, after it has
    rescaled in place the rows of its distinct ids, taken in increasing order, up to the first
    id that Python-style indexing rejects (below ``-V`` or from ``V`` up): a negative id from
    ``-V`` up rescales the row it counts from the end. Rows longer than ``max_norm`` change;
    no other row does."""
    assume(any(not 0 <= i < V for i in ids))
    W = randn((V, 3), seed) * 2  # rows of norm about 3.5, most above max_norm = 1
    emb = nn.Embedding.from_pretrained(W.clone(), freeze=False, max_norm=1.0)
    with pytest.raises(IndexError, match="out of range"):
        emb(torch.tensor(ids))
    rescaled = set()
    for i in sorted(set(ids)):
        if not -V <= i < V:
            break  # select() raises here
        if W[i].norm() > 1.0:
            rescaled.add(i % V)
    changed = (emb.weight.detach() != W).any(dim=1).nonzero().flatten().tolist()
    assert changed == sorted(rescaled)


def onehot_linear(W: torch.Tensor) -> nn.Linear:
    """A bias-free ``nn.Linear(V, D)`` holding the ``[V, D]`` table ``W`` transposed."""
    lin = nn.Linear(W.shape[0], W.shape[1], bias=False, dtype=W.dtype)
    with torch.no_grad():
        lin.weight.copy_(W.T)
    return lin


#: The page's bfloat16 corner: 8 lookups of row 0 in a [64, 16] table, 8192 multiply-adds.
BF16_CORNER = torch.zeros(64, 16, dtype=torch.bfloat16)
BF16_CORNER[0, 0] = torch.finfo(torch.bfloat16).tiny / 4  # a subnormal number


#: A large float32 case, past the blocked paths of the matrix product: 257 ids, a [3000, 65]
#: table with a subnormal number, a negative zero and float32's largest number in looked-up rows.
LARGE_IDS = torch.randint(3000, (257,), generator=torch.Generator().manual_seed(0))
LARGE_TABLE = randn((3000, 65), 0)
LARGE_TABLE[LARGE_IDS[:3], 7] = torch.tensor(
    [torch.finfo(torch.float32).tiny / 4, -0.0, torch.finfo(torch.float32).max]
)


@proves("onehot-forward-exact")
@example(case=(torch.tensor([[-0.0, 1.5], [2.0, -3.0]]), torch.tensor([0, 1])))  # a signed zero
@example(case=(BF16_CORNER, torch.zeros(8, dtype=torch.long)))  # bfloat16 subnormal, 8192 MACs
@example(case=(BF16_CORNER[:16], torch.zeros(16, dtype=torch.long)))  # 4096 multiply-adds
@example(case=(BF16_CORNER.half(), torch.zeros(8, dtype=torch.long)))  # float16, same size
@example(case=(LARGE_TABLE, LARGE_IDS))  # 257 · 3000 · 65 multiply-adds in float32
@example(case=(LARGE_TABLE.double(), LARGE_IDS))  # and in float64
@given(case=wide_lookups())
def test_onehot_product_equals_lookup_exactly(case):
    """On the CPU, for a finite table (subnormals, signed zeros and values near the dtype's max
    included, tables up to 300 x 70) and any ids: ``one_hot(idx, V) @ W`` and the one-hot
    ``nn.Linear`` equal the lookup exactly (the same bits, except that a ``-0.0`` may become
    ``+0.0``) for float32 and float64 at every size, at the default float32 matmul precision.
    For bfloat16 and float16 the product is one of two outcomes, whichever this CPU's
    instructions give (:func:`kept_or_flushed`): the lookup exactly, or the lookup with its
    subnormal numbers as zeros; never anything else. And ``torch.sparse.mm`` with a COO one-hot
    and SciPy's CSR one-hot product equal it too (float32 and float64, 1-D ids).

    Under each reduced float32 precision (:data:`REDUCED_PRECISION`) the same products are run
    again: a float32 table within bfloat16's range gives the lookup exactly or within bfloat16
    rounding of it (:func:`exact_or_rounded`), whichever the library computes here; the other
    dtypes give what they give at the default."""
    W, idx = case
    V, dtype = W.shape[0], W.dtype
    onehot = F.one_hot(idx, V).to(dtype)

    def products(W: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return onehot @ W, onehot_linear(W)(onehot)

    def check(outs: tuple[torch.Tensor, ...], ref: torch.Tensor, reduced: bool) -> None:
        for out in outs:
            if dtype == torch.float32 and reduced:
                exact_or_rounded(out, ref)
            elif dtype in (torch.float32, torch.float64):
                assert same_but_signed_zeros(out, ref)
            else:
                kept_or_flushed(out, ref)

    ref = F.embedding(idx, W)
    check(products(W), ref, reduced=False)
    if idx.dim() == 1 and dtype in (torch.float32, torch.float64):  # the spellings of api-map.md
        N = len(idx)
        coo = torch.sparse_coo_tensor(
            torch.stack([torch.arange(N), idx]),
            torch.ones(N, dtype=dtype),
            (N, V),
            check_invariants=True,
        )
        assert torch.equal(torch.sparse.mm(coo, W), ref)
        csr = scipy.sparse.csr_matrix((np.ones(N), idx.numpy(), np.arange(N + 1)), shape=(N, V))
        assert torch.equal(torch.from_numpy(csr.astype(W.numpy().dtype) @ W.numpy()), ref)
    W = within_bfloat16_range(W)
    ref = F.embedding(idx, W)
    for setting in reduced_settings():
        with float32_matmul_setting(setting):
            outs = products(W)
        check(outs, ref, reduced=True)


def test_a_cpu_without_bfloat16_instructions_keeps_the_subnormal():
    """On an x86 CPU without bfloat16 arithmetic instructions (no AVX512_BF16, AMX-BF16 or
    AVX-NE-CONVERT in /proc/cpuinfo), the page's bfloat16 product keeps the subnormal number:
    only those instructions flush it, so the flushed outcome must not appear here."""
    flags = x86_cpu_flags()
    if flags is None:
        pytest.skip("reads /proc/cpuinfo's flags, on x86 Linux only")
    if flags & X86_BF16_FLAGS:
        pytest.skip(f"this CPU has {', '.join(sorted(flags & X86_BF16_FLAGS))}: either outcome")
    idx = torch.zeros(8, dtype=torch.long)
    product = F.one_hot(idx, 64).bfloat16() @ BF16_CORNER
    assert kept_or_flushed(product, F.embedding(idx, BF16_CORNER)) == "kept"


@proves("onehot-grad")
@example(V=6, D=4, n=200, seed=0, pool=[0, 1, 2, 3, 4, 5], dtype=torch.float32)  # the page's
@example(V=64, D=16, n=8, seed=1, pool=None, dtype=torch.bfloat16)  # 8192, no repeats
@example(V=300, D=70, n=64, seed=3, pool=None, dtype=torch.float32)  # 64·300·70, no repeats
@given(
    V=st.integers(1, 12) | st.integers(13, 300),
    D=st.integers(1, 5) | st.integers(6, 70),
    n=st.integers(0, 64),
    seed=seeds,
    pool=st.none(),
    dtype=float_table_dtypes,
)
def test_onehot_weight_gradients_agree(V, D, n, seed, pool, dtype):
    """Weight gradients of the lookup and of the one-hot Linear (transposed) agree: exactly when
    no id repeats; to rounding otherwise, within ``n · eps · sum |upstream|`` per entry (the
    additions of a repeated id's contributions happen in another order). Float32 and float64
    exactly; bfloat16 and float16 with the forward pass's two outcomes when no id repeats (a
    subnormal upstream number reaches the Linear's gradient as itself or as zero,
    :func:`kept_or_flushed`). This is at the default float32 matmul precision; under each
    reduced one (:data:`REDUCED_PRECISION`) the float32 Linear's gradient is the lookup's
    exactly or within bfloat16 rounding of each upstream number, ``2**-8 · sum |upstream|`` per
    entry, plus the float32 summation's ``n · eps · sum |upstream|`` (:func:`exact_or_rounded`)."""
    gen = torch.Generator().manual_seed(seed)
    if pool is None:
        idx = (
            torch.randperm(V, generator=gen)[:n]
            if seed % 2
            else torch.randint(V, (n,), generator=gen)
        )  # half the cases without repeats
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
    repeats = len(idx.unique()) < n
    if not repeats:
        if dtype in (torch.float32, torch.float64):
            assert torch.equal(emb.weight.grad, lin_grad)
        else:
            kept_or_flushed(lin_grad, emb.weight.grad)
            lin_grad = emb.weight.grad  # checked: the bound below is for repeated ids
    bound = n * torch.finfo(dtype).eps * up.float().abs().sum(0).max().item()
    torch.testing.assert_close(emb.weight.grad.float(), lin_grad.float(), rtol=0, atol=bound)
    if dtype == torch.float32:
        spread = torch.zeros(V, D).index_add_(0, idx, up.abs())  # sum |upstream| per entry
        slack = n * torch.finfo(dtype).eps * spread if repeats else 0.0
        for setting in reduced_settings():
            with float32_matmul_setting(setting):
                reduced = linear_grad()
            exact_or_rounded(reduced, emb.weight.grad, spread, slack)


@proves("onehot-nonfinite")
@given(
    V=st.integers(2, 12),
    D=dims,
    bad=st.sampled_from([float("inf"), float("-inf"), float("nan")]),
    selected=st.booleans(),
    data=st.data(),
)
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
    torch.testing.assert_close(
        product[idx == row], lookup[idx == row], rtol=0, atol=0, equal_nan=True
    )  # inf stays inf, -inf stays -inf, nan stays nan
    keep = [d for d in range(D) if d != col]
    assert torch.equal(product[:, keep], lookup[:, keep])


@proves("onehot-autocast")
@example(case=(BF16_CORNER.float(), torch.zeros(8, dtype=torch.long)))  # a float32 subnormal
@given(case=wide_lookups(dtypes=st.just(torch.float32)))
def test_autocast_runs_the_onehot_linear_in_bfloat16_but_not_the_lookup(case):
    """Under CPU autocast to bfloat16, for a float32 table within bfloat16's range, the lookup
    still returns the table's rows, exactly, while the one-hot Linear returns bfloat16: the
    lookup's rows rounded to bfloat16 (8 significant bits: a relative error of at most 2**-8
    for a normal number), except that a subnormal number can come out as zero, on CPUs whose
    bfloat16 instructions flush it (:func:`kept_or_flushed`)."""
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
    kept_or_flushed(product, rounded)
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


def test_kept_or_flushed_accepts_the_two_outcomes_only():
    """The two documented outcomes pass, and a result that changed a normal number, or made a
    subnormal number something other than zero, fails."""
    ref = BF16_CORNER[:2].clone()
    ref[1, 3] = 1.5
    assert kept_or_flushed(ref.clone(), ref) == "kept"
    flushed = ref.clone()
    flushed[0, 0] = 0
    assert kept_or_flushed(flushed, ref) == "flushed"
    for where, wrong in (((1, 3), 1.25), ((0, 0), torch.finfo(torch.bfloat16).tiny / 2)):
        other = ref.clone()
        other[where] = wrong
        with pytest.raises(AssertionError):
            kept_or_flushed(other, ref)


def test_exact_or_rounded_accepts_the_two_outcomes_only():
    """The exact result and the result rounded to bfloat16 (a subnormal number as zero too)
    pass; an error of 2**-7 of a number, a non-finite result, or a subnormal number grown past
    2**-126 fails."""
    ref = randn((4, 8), 0)
    ref[0, 0], ref[0, 1] = BF16_TINY / 4, -0.0
    assert exact_or_rounded(ref.clone(), ref) == "exact"
    rounded = ref.bfloat16().float()
    assert not torch.equal(rounded, ref) and exact_or_rounded(rounded, ref) == "rounded"
    flushed = rounded.clone()
    flushed[0, 0] = 0
    assert exact_or_rounded(flushed, ref) == "rounded"
    for where, wrong in (
        ((1, 3), ref[1, 3] * (1 + 2**-7)),
        ((2, 2), float("nan")),
        ((0, 0), 3 * BF16_TINY),
    ):
        other = ref.clone()
        other[where] = wrong
        with pytest.raises(AssertionError):
            exact_or_rounded(other, ref)
    with pytest.raises(AssertionError, match="range"):
        exact_or_rounded(ref * 0, torch.full((1,), BF16_OVERFLOW))


def test_each_reduced_setting_is_set_and_then_restored():
    """Inside :func:`float32_matmul_setting` the named knob is set (and the two reduced levels of
    ``set_float32_matmul_precision`` set oneDNN's to TF32 and bfloat16, as the page says); after
    it, even after an error in the body, every precision setting reads as before."""
    if legacy_precision() is None:
        pytest.skip("this process mixes PyTorch's old and new precision settings already")
    backends = torch.backends

    def state() -> tuple:
        return (
            torch.get_float32_matmul_precision(),
            backends.fp32_precision,
            backends.mkldnn.matmul.fp32_precision,
            backends.cuda.matmul.fp32_precision,
            backends.cuda.matmul.allow_tf32,
        )

    before = state()
    inside = {}
    for setting in REDUCED_PRECISION:
        with pytest.raises(ZeroDivisionError), float32_matmul_setting(setting):
            inside[setting] = (
                torch.get_float32_matmul_precision() if setting.startswith("precision=") else None,
                backends.mkldnn.matmul.fp32_precision,
                backends.cuda.matmul.allow_tf32,
            )
            raise ZeroDivisionError("an error in the body")
        assert state() == before, setting
    assert inside["precision=high"][:2] == ("high", "tf32")
    assert inside["precision=medium"][:2] == ("medium", "bf16")
    assert inside["mkldnn.matmul=bf16"][1] == "bf16"
    assert inside["cuda.matmul.allow_tf32"][2] is True
    with pytest.raises(ValueError):
        with float32_matmul_setting("precision=low"):
            pass
