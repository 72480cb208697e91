"""Hypothesis strategies for the property tests of the site's general claims (tests/test_claims_*).

Tables are drawn as a seed for ``torch.randn`` plus a few entries overwritten with values that
Hypothesis picks (zeros of both signs, subnormals, huge and tiny numbers), so that shrinking
stays quick and the corners of floating point are still reached. Ids are drawn as Python lists
so that Hypothesis can shrink them, from the whole table or from a pool of one to three ids
(heavy repeats).
"""

from __future__ import annotations

import math

import torch
from hypothesis import strategies as st

#: The index dtypes nn.Embedding and nn.EmbeddingBag accept.
INDEX_DTYPES = (torch.int64, torch.int32)
#: The table dtypes the pages discuss.
TABLE_DTYPES = (torch.float32, torch.float64, torch.bfloat16)

index_dtypes = st.sampled_from(INDEX_DTYPES)
table_dtypes = st.sampled_from(TABLE_DTYPES)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


@st.composite
def shapes(draw, max_dims: int = 3, max_side: int = 4, min_dims: int = 0) -> tuple[int, ...]:
    """An index shape: ``()`` (one id) up to ``max_dims`` dims of size 0 to ``max_side``."""
    return tuple(draw(st.lists(st.integers(0, max_side), min_size=min_dims, max_size=max_dims)))


@st.composite
def id_lists(draw, num_embeddings: int, size: int) -> list[int]:
    """``size`` ids in ``[0, num_embeddings)``: spread over the table, or repeats of 1 to 3 ids."""
    if draw(st.booleans()):
        pool = draw(st.lists(st.integers(0, num_embeddings - 1), min_size=1, max_size=3))
        return draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size))
    return draw(st.lists(st.integers(0, num_embeddings - 1), min_size=size, max_size=size))


@st.composite
def id_tensors(
    draw,
    num_embeddings: int,
    shape: tuple[int, ...] | None = None,
    dtype: torch.dtype | None = None,
) -> torch.Tensor:
    """Ids of ``shape`` (drawn when ``None``) and ``dtype`` (int64 or int32 when ``None``)."""
    shape = draw(shapes()) if shape is None else shape
    dtype = draw(index_dtypes) if dtype is None else dtype
    values = draw(id_lists(num_embeddings, math.prod(shape)))
    return torch.tensor(values, dtype=dtype).reshape(shape)


def finite_floats(dtype: torch.dtype) -> st.SearchStrategy[float]:
    """Finite numbers representable in ``dtype`` (subnormals and signed zeros included)."""
    if dtype == torch.float64:
        return st.floats(allow_nan=False, allow_infinity=False)
    if dtype == torch.float32:
        return st.floats(allow_nan=False, allow_infinity=False, width=32)
    # bfloat16: float32 values, rounded to bfloat16 by the tensor; keep them below its max.
    big = 1.9921875 * 2.0**127  # bfloat16's largest finite value
    return st.floats(min_value=-big, max_value=big, width=32).map(
        lambda x: float(torch.tensor(x).bfloat16().float())
    )


@st.composite
def tables(
    draw,
    num_embeddings: int,
    embedding_dim: int,
    dtype: torch.dtype = torch.float32,
    special: bool = True,
) -> torch.Tensor:
    """A finite ``[num_embeddings, embedding_dim]`` table of ``dtype``.

    Standard normal draws from a drawn seed; with ``special``, up to three entries are then
    replaced by finite values Hypothesis picks (subnormals, ``-0.0``, values near the dtype's max).
    """
    gen = torch.Generator().manual_seed(draw(seeds))
    table = torch.randn(num_embeddings, embedding_dim, generator=gen, dtype=torch.float64)
    table = table.to(dtype)
    if special and table.numel():
        for _ in range(draw(st.integers(0, 3))):
            row = draw(st.integers(0, num_embeddings - 1))
            col = draw(st.integers(0, embedding_dim - 1))
            table[row, col] = draw(finite_floats(dtype))
    return table


def randn(shape: tuple[int, ...], seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Standard normal numbers of ``shape`` and ``dtype`` from a generator seeded with ``seed``."""
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=gen, dtype=torch.float64).to(dtype)


#: Every floating dtype a table can have on the CPU, float16 included.
FLOAT_TABLE_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

float_table_dtypes = st.sampled_from(FLOAT_TABLE_DTYPES)


def corner_values(dtype: torch.dtype, finite: bool = True) -> st.SearchStrategy[float]:
    """The corners of ``dtype``'s numbers: both zeros, subnormal numbers of both signs (the
    smallest one included), the smallest normal number and the largest finite one, of both
    signs; with ``finite=False`` also ``inf``, ``-inf`` and ``nan``. Every value is exactly
    representable in ``dtype``."""
    info = torch.finfo(dtype)
    tiny, smallest = info.tiny, info.tiny * info.eps  # 2**-126 and 2**-133 for bfloat16
    values = [0.0, -0.0, tiny / 4, -tiny / 4, smallest, -smallest, tiny, -tiny, info.max, -info.max]
    if not finite:
        values += [math.inf, -math.inf, math.nan]
    return st.sampled_from(values)


def any_floats(dtype: torch.dtype, finite: bool = True) -> st.SearchStrategy[float]:
    """Numbers representable in ``dtype`` (float16 included), as Hypothesis picks them, or one of
    :func:`corner_values`; ``nan`` and the infinities only with ``finite=False``."""
    if dtype == torch.float16:
        picked = st.floats(width=16, allow_nan=not finite, allow_infinity=not finite)
    elif finite:
        picked = finite_floats(dtype)
    else:
        picked = finite_floats(dtype) | st.sampled_from([math.inf, -math.inf, math.nan])
    return picked | corner_values(dtype, finite)


@st.composite
def wide_lookups(
    draw, dtypes: st.SearchStrategy[torch.dtype] = float_table_dtypes, finite: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(W, idx)``: int64 ids and a ``[V, D]`` table of a drawn dtype. Half the cases are
    small (``V`` up to 12, ``D`` up to 5, ids of any shape as :func:`id_tensors` draws them);
    the other half are large (``V`` from 65 to 300, ``D`` from 17 to 70, 4 to 64 ids in one or
    two dimensions), so that ``N·V·D`` is past 16·16·16, where PyTorch hands a bfloat16 or
    float16 CPU matrix product to oneDNN. Up to four entries (at least one in a large case), in
    rows the ids look up whenever there are ids, are then replaced by :func:`corner_values`
    (two times in three) or by any value of the dtype: the corners reach the output."""
    dtype = draw(dtypes)
    if draw(st.booleans()):
        V, D = draw(st.integers(1, 12)), draw(st.integers(1, 5))
        idx = draw(id_tensors(V, dtype=torch.int64))
        replaced = draw(st.integers(0, 4))
    else:
        V, D = draw(st.integers(65, 300)), draw(st.integers(17, 70))
        n = draw(st.integers(4, 64))
        shape = draw(st.sampled_from([(n,), (2, n // 2), (n // 4, 4)]))
        idx = draw(id_tensors(V, shape=shape, dtype=torch.int64))
        replaced = draw(st.integers(1, 4))
    table = randn((V, D), draw(seeds), dtype)
    rows = sorted(set(idx.reshape(-1).tolist())) or list(range(V))
    values = st.one_of(
        corner_values(dtype, finite), corner_values(dtype, finite), any_floats(dtype, finite)
    )
    for _ in range(replaced):
        row, col = draw(st.sampled_from(rows)), draw(st.integers(0, D - 1))
        table[row, col] = draw(values)
    return table, idx


#: Every floating dtype an embedding table can have on the CPU, float16 included.
ALL_TABLE_DTYPES = (*TABLE_DTYPES, torch.float16)

all_table_dtypes = st.sampled_from(ALL_TABLE_DTYPES)
#: ``num_embeddings``: mostly small tables, sometimes one above 1000 rows, where the CPU backward
#: of a lookup splits the table between threads (``parallel_for`` over rows, grain 1000).
table_rows = st.one_of(st.integers(1, 12), st.integers(1001, 1300))
#: Every floating dtype a table can have on the CPU: the ones the pages discuss, and float16.
ALL_TABLE_DTYPES = (torch.float32, torch.float64, torch.bfloat16, torch.float16)


def dtype_floats(
    dtype: torch.dtype, infinities: bool = False, nan: bool = False
) -> st.SearchStrategy[float]:
    """Numbers representable in ``dtype`` (any of :data:`ALL_TABLE_DTYPES`): subnormals, signed
    zeros and values near the dtype's max included; ``±inf`` with ``infinities``, NaN with
    ``nan``."""
    if dtype == torch.bfloat16:
        extra = [math.inf, -math.inf] * infinities + [math.nan] * nan
        finite = finite_floats(torch.bfloat16)
        return st.one_of(finite, st.sampled_from(extra)) if extra else finite
    width = {torch.float64: 64, torch.float32: 32, torch.float16: 16}[dtype]
    return st.floats(width=width, allow_infinity=infinities, allow_nan=nan)


@st.composite
def special_tables(
    draw,
    num_embeddings: int,
    embedding_dim: int,
    dtype: torch.dtype,
    infinities: bool = False,
    nan: bool = False,
) -> torch.Tensor:
    """A ``[num_embeddings, embedding_dim]`` table of ``dtype`` (float16 included): standard
    normal draws, then up to three entries replaced by :func:`dtype_floats` values (subnormals,
    ``-0.0``, values near the max; ``±inf`` with ``infinities``, NaN with ``nan``)."""
    table = draw(tables(num_embeddings, embedding_dim, dtype, special=False))
    if table.numel():
        for _ in range(draw(st.integers(0, 3))):
            row = draw(st.integers(0, num_embeddings - 1))
            col = draw(st.integers(0, embedding_dim - 1))
            table[row, col] = draw(dtype_floats(dtype, infinities, nan))
    return table
