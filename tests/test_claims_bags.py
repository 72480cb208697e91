"""Property tests: ``nn.EmbeddingBag`` against ``nn.Embedding`` plus a reduction, its ``offsets``,
``include_last_offset`` and ``per_sample_weights``, and the CSR correspondence, for generated
bags (ragged, empty, 2-D; int32 and int64 ids; tables of every floating dtype, with special
values)."""

from __future__ import annotations

import math

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
    bits,
    exact_or_rounded,
    float32_matmul_setting,
    kept_or_flushed,
    reduced_settings,
    same_but_signed_zeros,
    within_bfloat16_range,
)
from tests.strategies import (
    ALL_TABLE_DTYPES,
    id_lists,
    index_dtypes,
    randn,
    seeds,
    special_tables,
    tables,
)

dims = st.integers(1, 5)
modes = st.sampled_from(["sum", "mean", "max"])
REDUCE = {"sum": lambda r: r.sum(0), "mean": lambda r: r.mean(0), "max": lambda r: r.max(0).values}


@st.composite
def bags(draw, V: int, min_bags: int = 1) -> tuple[list[list[int]], bool]:
    """``(bags, as_2d)``: a list of bags of ids in ``[0, V)``; ``as_2d`` when all have one length
    and the case is to be fed as a 2-D tensor (else 1-D ids with offsets; empty bags allowed)."""
    if draw(st.booleans()):
        B, L = draw(st.integers(1, 4)), draw(st.integers(1, 5))
        flat = draw(id_lists(V, B * L))
        return [flat[b * L : (b + 1) * L] for b in range(B)], True
    lengths = draw(st.lists(st.integers(0, 5), min_size=min_bags, max_size=5))
    flat = draw(id_lists(V, sum(lengths)))
    starts = np.cumsum([0, *lengths]).tolist()
    return [flat[s:e] for s, e in zip(starts, starts[1:], strict=False)], False


def as_input(
    groups: list[list[int]], as_2d: bool, dtype: torch.dtype, include_last_offset: bool = False
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """``(input, offsets)`` for ``nn.EmbeddingBag``: 2-D ``[B, L]`` ids, or concatenated 1-D ids
    with the start of each bag (plus ``len(input)`` at the end with ``include_last_offset``)."""
    if as_2d:
        return torch.tensor(groups, dtype=dtype), None
    flat = torch.tensor([i for g in groups for i in g], dtype=dtype)
    starts = np.cumsum([0, *[len(g) for g in groups]]).tolist()
    offsets = starts if include_last_offset else starts[:-1]
    return flat, torch.tensor(offsets, dtype=dtype)


def reduce_like_the_bag(emb: nn.Embedding, groups: list[list[int]], mode: str) -> torch.Tensor:
    """``nn.Embedding`` then each bag's sum, mean or max, in Python: ``[len(groups), D]``."""
    return torch.stack(
        [
            REDUCE[mode](emb(torch.tensor(g, dtype=torch.long))) if g else emb.weight[:0].sum(0)
            for g in groups  # an empty bag: zeros, still attached to the table for backward
        ]
    )


@proves("bag-equals-reduction")
@given(
    V=st.integers(1, 10),
    D=dims,
    mode=modes,
    dtype=st.sampled_from(ALL_TABLE_DTYPES),
    index_dtype=index_dtypes,
    last=st.booleans(),
    sparse=st.booleans(),
    seed=seeds,
    data=st.data(),
)
def test_bag_equals_embedding_then_reduction(
    V, D, mode, dtype, index_dtype, last, sparse, seed, data
):
    """For every mode and table dtype, ragged bags with empty ones, or 2-D input, and any table
    without NaN (subnormals, ``-0.0``, values near the max and ``±inf`` included):
    ``nn.EmbeddingBag`` gives each bag the sum, mean or element-wise max of its rows (an empty
    bag: zeros), and the same weight gradient as ``nn.Embedding`` followed by that reduction,
    also as a sparse gradient (``sparse=True``, sum and mean); ``include_last_offset=True`` with
    ``len(input)`` appended to the offsets changes nothing. "The same" is to the rounding of the
    dtype: ``assert_close``'s tolerance for float32 and float64; in float16 and bfloat16, where a
    repeated id's contributions can cancel, both gradients are within ``(n + 2) · eps`` of the
    sum of their absolute contributions from the float64 gradient (``n`` lookups)."""
    sparse = sparse and mode != "max"  # max refuses sparse=True (test_sparse_refusals)
    W = data.draw(special_tables(V, D, dtype, infinities=True))
    groups, as_2d = data.draw(bags(V))
    ids, offsets = as_input(groups, as_2d, index_dtype, include_last_offset=last and not as_2d)
    bag = nn.EmbeddingBag.from_pretrained(
        W.clone(), freeze=False, mode=mode, sparse=sparse, include_last_offset=last and not as_2d
    )
    emb = nn.Embedding.from_pretrained(W.clone(), freeze=False)
    out = bag(ids, offsets)
    reference = reduce_like_the_bag(emb, groups, mode)
    assert out.shape == (len(groups), D) and out.dtype == dtype
    torch.testing.assert_close(out, reference, equal_nan=True)  # inf - inf: NaN in both
    up = randn((len(groups), D), seed, dtype)
    out.backward(up)
    reference.backward(up)
    grad = bag.weight.grad
    if sparse:
        assert grad.layout == torch.sparse_coo
        grad = grad.to_dense()
    if dtype in (torch.float32, torch.float64):
        torch.testing.assert_close(grad, emb.weight.grad)
        return
    exact = {}
    for name, upstream in (("grad", up.double()), ("scale", up.double().abs())):
        emb64 = nn.Embedding.from_pretrained(W.double(), freeze=False)  # W exactly, in float64
        reduce_like_the_bag(emb64, groups, mode).backward(upstream)
        exact[name] = emb64.weight.grad
    n = sum(len(g) for g in groups)
    bound = (n + 2) * torch.finfo(dtype).eps * exact["scale"] + torch.finfo(dtype).tiny
    for got in (grad, emb.weight.grad):
        assert ((got.double() - exact["grad"]).abs() <= bound).all(), (got, exact["grad"])


@st.composite
def tables_with_nan(draw) -> tuple[torch.Tensor, list[list[int]], bool, int | None]:
    """``(W, bags, as_2d, padding_idx)``: a table of any dtype holding at least one NaN (and maybe
    ``±inf``, subnormals, ``-0.0``), bags of its ids as :func:`bags` draws them, and a
    ``padding_idx`` or ``None``."""
    V, D = draw(st.integers(1, 10)), draw(dims)
    W = draw(
        special_tables(V, D, draw(st.sampled_from(ALL_TABLE_DTYPES)), infinities=True, nan=True)
    )
    W[draw(st.integers(0, V - 1)), draw(st.integers(0, D - 1))] = math.nan
    groups, as_2d = draw(bags(V))
    return W, groups, as_2d, draw(st.none() | st.integers(0, V - 1))


@proves("bag-max-nan")
@example(case=(torch.tensor([[1.0], [math.nan], [3.0]]), [[0, 1, 2]], True, None))  # the page's
@given(case=tables_with_nan())
def test_max_keeps_a_nan_only_from_the_first_row(case):
    """``mode="max"`` with NaN in the table: a column of a bag is NaN exactly when the bag's first
    row that is not ``padding_idx`` is NaN there; otherwise it is the largest of the other values
    (``torch.max`` returns NaN as soon as one is present). ``sum`` and ``mean`` give NaN where the
    reduction by hand does."""
    W, groups, as_2d, pad = case
    ids, offsets = as_input(groups, as_2d, torch.long)
    out = F.embedding_bag(ids, W, offsets, mode="max", padding_idx=pad)
    for b, g in enumerate(groups):
        rows = W[[i for i in g if i != pad]]
        if not len(rows):
            assert not out[b].any()  # nothing but padding, or empty: zeros
            continue
        skipped = torch.where(rows.isnan(), torch.tensor(-math.inf, dtype=W.dtype), rows)
        expected = torch.where(rows[0].isnan(), rows[0], skipped.max(dim=0).values)
        torch.testing.assert_close(out[b], expected, equal_nan=True, rtol=0, atol=0)
    emb = nn.Embedding.from_pretrained(W)
    for mode in ("sum", "mean"):
        got = F.embedding_bag(ids, W, offsets, mode=mode)
        assert torch.equal(got.isnan(), reduce_like_the_bag(emb, groups, mode).isnan())


@proves("sparse-refusals")
@given(bag=st.booleans(), mode=modes, sparse=st.booleans(), scale=st.booleans(), data=st.data())
def test_options_that_refuse_each_other(bag, mode, sparse, scale, data):
    """``sparse=True`` with ``scale_grad_by_freq=True`` is accepted until ``backward()``, which
    raises RuntimeError (``nn.Embedding`` and ``nn.EmbeddingBag``); ``mode="max"`` refuses
    ``sparse=True`` and ``scale_grad_by_freq=True`` in the forward pass (ValueError); every other
    combination works."""
    ids = torch.tensor([data.draw(id_lists(5, data.draw(st.integers(1, 6))))])
    layer = (
        nn.EmbeddingBag(5, 3, mode=mode, sparse=sparse, scale_grad_by_freq=scale)
        if bag
        else nn.Embedding(5, 3, sparse=sparse, scale_grad_by_freq=scale)
    )
    if bag and mode == "max" and (sparse or scale):
        with pytest.raises(ValueError, match="max mode does not support"):
            layer(ids)
        return
    out = layer(ids)
    if sparse and scale:
        with pytest.raises(RuntimeError, match="scale_grad_by_freq not supported with sparse"):
            out.sum().backward()
    else:
        out.sum().backward()
        assert (layer.weight.grad.layout == torch.sparse_coo) == sparse


@proves("bag-include-last-offset")
@given(V=st.integers(1, 10), D=dims, mode=modes, index_dtype=index_dtypes, data=st.data())
def test_indptr_offsets_with_and_without_include_last_offset(V, D, mode, index_dtype, data):
    """An ``indptr`` (``B + 1`` offsets ending at ``len(input)``) with ``include_last_offset=True``
    gives the same ``B`` bags as its first ``B`` entries without the flag, exactly; passed without
    the flag it adds one more bag, empty, so all zeros."""
    W = data.draw(tables(V, D, special=False))
    groups, _ = data.draw(bags(V))
    ids, indptr = as_input(groups, False, index_dtype, include_last_offset=True)
    with_last = F.embedding_bag(ids, W, indptr, mode=mode, include_last_offset=True)
    assert torch.equal(with_last, F.embedding_bag(ids, W, indptr[:-1], mode=mode))
    extra = F.embedding_bag(ids, W, indptr, mode=mode)
    assert extra.shape == (len(groups) + 1, D) and not extra[-1].any()
    assert torch.equal(extra[:-1], with_last)


@st.composite
def short_last_offset(draw) -> tuple[torch.Tensor, torch.Tensor, int]:
    """``(ids, offsets, V)`` with ``include_last_offset`` offsets whose last entry ends the last,
    non-empty bag before ``len(ids)``: at least one id trails after it."""
    V = draw(st.integers(1, 10))
    lengths = draw(st.lists(st.integers(0, 4), min_size=0, max_size=3))
    last_len, trailing = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    flat = draw(id_lists(V, sum(lengths) + last_len + trailing))
    starts = np.cumsum([0, *lengths, last_len]).tolist()
    return torch.tensor(flat), torch.tensor(starts), V


@proves("bag-short-last-offset")
@example(case=(torch.tensor([0, 1, 2]), torch.tensor([0, 2]), 3), D=2, seed=0)  # pytorch#191965
@given(case=short_last_offset(), D=dims, seed=seeds)
def test_a_short_last_offset_gives_three_semantics(case, D, seed):
    """A PyTorch bug on the CPU. pytorch#191965 reports the three forward answers of a float32
    table; the kernel paths and the backward are this site's own measurements, on the pinned
    release. With ``include_last_offset=True`` and a last offset below ``len(input)``, the
    ids after it ("trailing") are handled differently by each mode and kernel:

    * the general kernel (float64, or any ``padding_idx``, even an id not in the input): every
      mode includes them, forward and backward;
    * float32, bfloat16 and float16 without ``padding_idx``: either the general kernel's answers
      or, on PyTorch's fast path, ``sum`` leaves them out, ``mean`` leaves them out of the sum
      but counts them in the divisor, ``max`` includes them. On that path the backward of a
      float32 ``sum`` gives their rows whatever lies in memory after the upstream gradient (read
      here from a known buffer). ``mean``'s backward gives them the last bag's gradient share.

    Fails, on purpose, when a release changes any of this: docs/sparsity.md must then change.
    """
    ids, offsets, V = case
    W = randn((V, D), seed, torch.float64)
    start, end = int(offsets[-2]), int(offsets[-1])
    kept, trailing = ids[start:end], ids[end:]
    everything = ids[start:]
    unused = torch.cat([W, torch.zeros(1, D, dtype=W.dtype)])  # row V: an id not in the input
    fast_path = {}
    for dtype in (torch.float32, torch.bfloat16, torch.float16, torch.float64):
        Wd = W.to(dtype)

        def last(table, **options):
            return {
                m: F.embedding_bag(
                    ids, table, offsets, mode=m, include_last_offset=True, **options
                )[-1]
                for m in ("sum", "mean", "max")
            }

        def close(out, s, mean):
            return torch.allclose(
                out["sum"].double(), s.double(), rtol=1e-2, atol=1e-2
            ) and torch.allclose(out["mean"].double(), mean.double(), rtol=1e-2, atol=1e-2)

        general = (Wd[everything].sum(0), Wd[everything].mean(0))
        fast = (Wd[kept].sum(0), Wd[kept].sum(0) / len(everything))
        out = last(Wd)
        with_padding = last(unused.to(dtype), padding_idx=V)
        assert close(with_padding, *general), dtype
        if dtype == torch.float64:
            assert close(out, *general)
        elif not close(out, *general):
            assert close(out, *fast), dtype
            fast_path[dtype] = True
        for answer in (out, with_padding):
            assert torch.equal(answer["max"], Wd[everything].max(0).values)

    # Backward of float32 sum: upstream is a view of the first B rows of a larger buffer whose
    # next row holds 7.0. On the fast path the trailing ids' rows receive exactly that; on the
    # general kernel, the last bag's gradient.
    B = len(offsets) - 1
    buffer = torch.cat([randn((B, D), seed + 1), torch.full((1, D), 7.0)])
    weight = W.float().requires_grad_()
    F.embedding_bag(ids, weight, offsets, mode="sum", include_last_offset=True).backward(buffer[:B])
    only_trailing = [int(i) for i in trailing.unique() if int(i) not in ids[:end].tolist()]
    counts = torch.bincount(trailing, minlength=V)
    received = torch.full((D,), 7.0) if fast_path.get(torch.float32) else buffer[B - 1]
    for i in only_trailing:
        torch.testing.assert_close(weight.grad[i], received * counts[i])
    weight = W.float().requires_grad_()
    F.embedding_bag(ids, weight, offsets, mode="mean", include_last_offset=True).backward(
        buffer[:B]
    )
    for i in only_trailing:
        share = buffer[B - 1] / len(everything) * counts[i]
        torch.testing.assert_close(weight.grad[i], share)


@proves("bag-per-sample-weights")
@given(V=st.integers(1, 10), D=dims, seed=seeds, data=st.data())
def test_per_sample_weights_scale_rows_before_the_sum(V, D, seed, data):
    """``per_sample_weights`` multiplies each looked-up row before its bag is summed (float32
    rounding); ``mode="mean"`` and ``"max"`` refuse it with NotImplementedError."""
    W = data.draw(tables(V, D, special=False))
    groups, as_2d = data.draw(bags(V))
    ids, offsets = as_input(groups, as_2d, torch.long)
    weights = randn(tuple(ids.shape), seed)
    out = F.embedding_bag(ids, W, offsets, mode="sum", per_sample_weights=weights)
    flat_w = weights.reshape(-1).tolist()
    pos = 0
    for b, g in enumerate(groups):
        expected = sum((flat_w[pos + k] * W[i] for k, i in enumerate(g)), torch.zeros(D))
        pos += len(g)
        torch.testing.assert_close(out[b], expected)
    for mode in ("mean", "max"):
        with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
            F.embedding_bag(ids, W, offsets, mode=mode, per_sample_weights=weights)


@st.composite
def csr_matrices(draw, dtype: np.dtype) -> scipy.sparse.csr_matrix:
    """A SciPy ``csr_matrix`` of ``dtype`` and shape ``[N, V]``: empty rows, and rows whose columns
    repeat or are out of order (not SciPy's canonical form) included; ``indices`` and ``indptr``
    as SciPy stores them (int32 here)."""
    N, V = draw(st.integers(0, 6)), draw(st.integers(1, 10))
    rows = [draw(st.lists(st.integers(0, V - 1), max_size=6)) for _ in range(N)]
    values = draw(
        st.lists(st.integers(-3, 3), min_size=sum(map(len, rows)), max_size=sum(map(len, rows)))
    )
    indptr = np.cumsum([0, *map(len, rows)])
    return scipy.sparse.csr_matrix(
        (
            np.array(values, dtype=dtype),
            np.array([c for r in rows for c in r], dtype=np.int32),
            indptr.astype(np.int32),
        ),
        shape=(N, V),
    )


def bag_of_csr(X: scipy.sparse.csr_matrix, W: torch.Tensor, weights: bool = True) -> torch.Tensor:
    """``EmbeddingBag(mode="sum")`` on X's CSR arrays, as they are (views, SciPy's dtypes)."""
    return F.embedding_bag(
        torch.from_numpy(X.indices),
        W,
        torch.from_numpy(X.indptr),
        mode="sum",
        include_last_offset=True,
        per_sample_weights=torch.from_numpy(X.data) if weights else None,
    )


def assert_equal_to_rounding(
    got: torch.Tensor, want: torch.Tensor, scale: torch.Tensor, terms: int
) -> None:
    """``got`` equals ``want`` to float rounding: the same ``inf`` or NaN where ``want`` is not
    finite, elsewhere within ``(terms + 2) · eps · scale`` (``scale``: the sum of the absolute
    values of the terms, so that a sum that cancels is judged by the size of its terms)."""
    finite = want.isfinite()
    torch.testing.assert_close(got[~finite], want[~finite], equal_nan=True, rtol=0, atol=0)
    finfo = torch.finfo(want.dtype)
    bound = (terms + 2) * finfo.eps * scale.to(want.dtype) + finfo.tiny
    assert ((got - want).abs()[finite] <= bound[finite]).all(), (got, want)


@st.composite
def csr_cases(draw) -> tuple[scipy.sparse.csr_matrix, torch.Tensor]:
    """``(X, W)``: a :func:`csr_matrices` ``X`` of float32 or float64 and a ``[V, D]`` table of
    the same dtype without NaN (``±inf``, subnormals, ``-0.0``, values near the max)."""
    dtype = draw(st.sampled_from([torch.float32, torch.float64]))
    X = draw(csr_matrices({torch.float32: np.float32, torch.float64: np.float64}[dtype]))
    return X, draw(special_tables(X.shape[1], draw(dims), dtype, infinities=True))


@proves("csr-correspondence")
@example(
    case=(
        scipy.sparse.csr_matrix(np.array([[2.0, 0.0], [0.0, 0.0]], dtype=np.float32)),
        torch.tensor([[1.0, -2.0], [math.inf, 3.0]]),
    )
)  # an inf in a row X never uses
@given(case=csr_cases())
def test_bag_on_csr_arrays_is_the_sparse_matrix_product(case):
    """For any SciPy ``csr_matrix`` ``X`` whose data has the table's dtype (empty rows, repeated
    and unsorted columns, explicit zeros included) and any table without NaN (``±inf``,
    subnormals, ``-0.0`` included), as long as no partial sum can overflow:
    ``EmbeddingBag(mode="sum")`` on ``indices``, ``offsets=indptr``, ``per_sample_weights=data``,
    ``include_last_offset=True`` equals ``X @ W`` to float rounding, and equals the bias-free Linear
    on dense ``X`` when ``W`` is finite; an ``inf`` in a row ``X`` never uses makes the Linear's
    output NaN and leaves the bag as it was. Data of another dtype (SciPy's int64 counts, or the
    other float width) is refused with RuntimeError. Summing the rows at a row's indices without
    the weights is right when every stored entry is 1."""
    X, W = case
    (N, V), dtype = X.shape, W.dtype
    finite_W = torch.where(W.isfinite(), W, 0).double().abs().numpy()
    scale = torch.from_numpy(abs(X).astype(np.float64) @ finite_W)
    assume((scale <= torch.finfo(dtype).max / 16).all())  # no partial sum overflows, in any order
    terms = max(np.diff(X.indptr), default=0)
    bag = bag_of_csr(X, W)
    assert_equal_to_rounding(bag, torch.from_numpy(X @ W.numpy()), scale, terms)
    lin = nn.Linear(V, W.shape[1], bias=False, dtype=dtype)
    with torch.no_grad():
        lin.weight.copy_(W.T)
        if W.isfinite().all():
            assert_equal_to_rounding(bag, lin(torch.from_numpy(X.toarray())), scale, V + terms)
    unused = sorted(set(range(V)) - set(X.indices.tolist()))
    if N and unused:
        W_inf = W.clone()
        W_inf[unused[0]] = math.inf
        torch.testing.assert_close(bag_of_csr(X, W_inf), bag, equal_nan=True, rtol=0, atol=0)
        with torch.no_grad():
            lin.weight.copy_(W_inf.T)
            assert lin(torch.from_numpy(X.toarray())).isnan().all()  # 0 · inf in every entry
    for other in (np.int64, np.float64 if dtype == torch.float32 else np.float32):
        with pytest.raises(RuntimeError, match="same type"):
            bag_of_csr(X.astype(other), W)
    if (X.data == 1).all():
        torch.testing.assert_close(bag_of_csr(X, W, weights=False), bag, equal_nan=True)


#: Every integer dtype, unsigned ones included (torch promotes uint16, uint32 and uint64 with
#: nothing but themselves).
INT_DTYPES = [
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.uint16,
    torch.uint32,
    torch.uint64,
]


def common_dtype(a: torch.dtype, b: torch.dtype) -> torch.dtype | None:
    """``torch.promote_types(a, b)``, or ``None`` where torch refuses to promote the pair."""
    try:
        return torch.promote_types(a, b)
    except RuntimeError:
        return None


@proves("bag-offsets-dtypes")
@given(
    ids_dtype=st.sampled_from(INT_DTYPES), offsets_dtype=st.sampled_from(INT_DTYPES), data=st.data()
)
def test_ids_and_offsets_are_promoted_to_a_common_dtype(ids_dtype, offsets_dtype, data):
    """``input`` and ``offsets`` need not share a dtype: they are promoted to a common one, which
    must be int64 or int32 (then the result equals the int64 one exactly); otherwise, or where no
    common dtype exists, a RuntimeError."""
    W = data.draw(tables(6, 3, special=False))
    groups, _ = data.draw(bags(6))
    ids, offsets = as_input(groups, False, torch.long)
    reference = F.embedding_bag(ids, W, offsets, mode="sum")
    if common_dtype(ids_dtype, offsets_dtype) in (torch.int64, torch.int32):
        out = F.embedding_bag(ids.to(ids_dtype), W, offsets.to(offsets_dtype), mode="sum")
        assert torch.equal(out, reference)
    else:
        with pytest.raises(RuntimeError, match="Long, Int|Promotion for uint16"):
            F.embedding_bag(ids.to(ids_dtype), W, offsets.to(offsets_dtype), mode="sum")


@st.composite
def spelling_cases(draw) -> tuple[torch.Tensor, torch.Tensor]:
    """``(W, idx)``: a finite table (subnormals, ``-0.0`` and values near the max included) of
    float32, float64 or bfloat16, small or large enough for blocked matrix products, and 0 to 16
    int64 ids."""
    V = draw(st.integers(1, 12) | st.sampled_from([600, 3000]))
    D = draw(dims | st.sampled_from([64, 130]))
    W = draw(
        special_tables(V, D, draw(st.sampled_from([torch.float32, torch.float64, torch.bfloat16])))
    )
    return W, torch.tensor(draw(id_lists(V, draw(st.integers(0, 16)))), dtype=torch.long)


def large_spelling_case() -> tuple[torch.Tensor, torch.Tensor]:
    """A 3000 x 130 float32 table (blocked matrix products) with a -0.0 and a subnormal in row 7,
    and 16 ids that look row 7 up twice."""
    W = randn((3000, 130), 0)
    W[7, 0], W[7, 1] = -0.0, 1e-40
    others = torch.randint(3000, (14,), generator=torch.Generator().manual_seed(0))
    return W, torch.cat([torch.tensor([7, 7]), others])


def bfloat16_corner_case() -> tuple[torch.Tensor, torch.Tensor]:
    """A [600, 64] bfloat16 table with a subnormal number in row 5, and ids that look it up."""
    W = torch.zeros(600, 64, dtype=torch.bfloat16)
    W[5, 0] = torch.finfo(torch.bfloat16).tiny / 4
    return W, torch.tensor([5, 5, 0, 599])


@pytest.mark.cuda
@proves("bag-scale-grad-cuda")
@given(
    V=st.integers(1, 10), D=dims, mode=st.sampled_from(["sum", "mean"]), seed=seeds, data=st.data()
)
def test_scale_grad_by_freq_on_cuda_divides_by_each_ids_own_count(V, D, mode, seed, data):
    """On a CUDA device, ``nn.EmbeddingBag(scale_grad_by_freq=True)`` in ``sum`` and ``mean``
    mode divides each lookup's share of its bag's gradient by how often its id occurs in the whole
    call, for ragged bags (empty ones included) and 2-D input: the gradient computed by hand in
    float64 on the CPU, to float32 rounding. (The CPU kernel before torch 2.14.0 divides some ids
    by another id's count: docs/sparsity.md.)"""
    groups, as_2d = data.draw(bags(V))
    ids, offsets = as_input(groups, as_2d, torch.long)
    W = randn((V, D), seed)
    up = randn((len(groups), D), seed + 1)
    bag = nn.EmbeddingBag.from_pretrained(
        W.clone(), freeze=False, mode=mode, scale_grad_by_freq=True
    ).cuda()
    bag(ids.cuda(), None if offsets is None else offsets.cuda()).backward(up.cuda())
    flat = torch.tensor([i for g in groups for i in g], dtype=torch.long)
    bag_of = torch.tensor([b for b, g in enumerate(groups) for _ in g], dtype=torch.long)
    sizes = torch.tensor([max(len(g), 1) for g in groups], dtype=torch.float64)
    share = up.double()[bag_of] / (sizes[bag_of, None] if mode == "mean" else 1.0)
    counts = torch.bincount(flat, minlength=V).double()
    right = torch.zeros(V, D, dtype=torch.float64).index_add_(0, flat, share / counts[flat, None])
    torch.testing.assert_close(bag.weight.grad.cpu().double(), right, rtol=1e-5, atol=1e-6)


@proves("spellings-exact")
@example(case=(torch.tensor([[-0.0, 1.0], [2.0, -3.0]]), torch.tensor([0, 0, 1])))  # a signed zero
@example(case=large_spelling_case())
@example(case=bfloat16_corner_case())
@given(case=spelling_cases())
def test_every_spelling_of_the_lookup_is_exact(case):
    """For any finite table and 1-D ids, every spelling on docs/api-map.md equals
    ``F.embedding(idx, W)`` exactly: ``nn.Embedding.from_pretrained``, ``W[idx]`` and
    ``index_select`` bit for bit; ``embedding_bag`` with bags of one id, the one-hot product, the
    one-hot Linear, ``torch.sparse.mm`` and SciPy's CSR product bit for bit except that a ``-0.0``
    of the table may come out as ``+0.0`` (SciPy: float32 and float64), and that a bfloat16
    product may return a subnormal number as zero, on CPUs whose bfloat16 instructions flush it
    (:func:`tests.cpu_outcomes.kept_or_flushed`: one of the two outcomes, nothing else). This is
    at the default float32 matmul precision. Under each reduced one
    (:data:`tests.cpu_outcomes.REDUCED_PRECISION`) the PyTorch spellings are computed again: for
    a float32 table within bfloat16's range each is the lookup exactly or within bfloat16
    rounding of it (:func:`tests.cpu_outcomes.exact_or_rounded`); for the other dtypes, the
    outcomes above."""
    W, idx = case
    (V, D), N, dtype = W.shape, len(idx), W.dtype
    onehot = F.one_hot(idx, V).to(dtype)
    coo = torch.sparse_coo_tensor(
        torch.stack([torch.arange(N), idx]),
        torch.ones(N, dtype=dtype),
        (N, V),
        check_invariants=True,
    )

    def spellings(W: torch.Tensor) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
        """The spellings of the page that copy (``exact``) and those that add (``signed``)."""
        lin = nn.Linear(V, D, bias=False, dtype=dtype)
        with torch.no_grad():
            lin.weight.copy_(W.T)
            exact = {
                "from_pretrained": nn.Embedding.from_pretrained(W)(idx),
                "W[idx]": W[idx],
                "index_select": W.index_select(0, idx),
            }
            signed = {
                "embedding_bag": F.embedding_bag(idx[:, None], W, mode="sum"),
                "one_hot @ W": onehot @ W,
                "Linear": lin(onehot),
                "sparse.mm": torch.sparse.mm(coo, W),
            }
        return exact, signed

    def check(exact: dict, signed: dict, ref: torch.Tensor, reduced: bool) -> None:
        for name, out in exact.items():
            assert torch.equal(bits(out), bits(ref)), name
        for name, out in signed.items():
            if dtype == torch.float32 and reduced:
                exact_or_rounded(out, ref)
            elif dtype == torch.bfloat16 and name in ("one_hot @ W", "Linear"):
                kept_or_flushed(out, ref)
            else:
                assert same_but_signed_zeros(out, ref), name

    ref = F.embedding(idx, W)
    exact, signed = spellings(W)
    if dtype != torch.bfloat16:
        csr = scipy.sparse.csr_matrix(
            (np.ones(N, dtype=W.numpy().dtype), idx.numpy(), np.arange(N + 1)), shape=(N, V)
        )
        signed["SciPy CSR"] = torch.from_numpy(csr @ W.numpy())
    check(exact, signed, ref, reduced=False)
    W = within_bfloat16_range(W)
    ref = F.embedding(idx, W)
    for setting in reduced_settings():
        with float32_matmul_setting(setting):
            exact, signed = spellings(W)
        check(exact, signed, ref, reduced=True)
