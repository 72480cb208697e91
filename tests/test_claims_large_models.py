"""Property tests for the general sentences of docs/large-models.md.

Each test's docstring quotes (or closely paraphrases) the sentence it proves. The page shows one
example per claim; these tests draw many (Hypothesis), so a sentence saying "any", "every" or
"only" is checked as generally as it is written.
"""

from __future__ import annotations

import os
import warnings

import pytest
import torch
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from torch import nn

from scripts import ROOT
from snippets.large_models.quantized_tables import lookup, quantize_embedding
from snippets.large_models.sharded_table import P, hashed_rows
from tests.claim_register import proves
from tests.markdown_model import includes_in
from tests.small_models import tied_families

os.environ.setdefault("HF_HUB_OFFLINE", "1")

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- Tying -----------------------------------------------------------------------------------


@proves("large-tying-on-meta")
@settings(max_examples=8, deadline=None)
@given(vocab=st.integers(8, 5000), heads=st.integers(1, 4), head_dim=st.sampled_from([8, 16]))
def test_tying_is_made_at_construction_on_meta(vocab, heads, head_dim):
    """ "The tie is made when the model is constructed, so it already holds on the meta device":
    for any vocabulary and width, GPT-2, BERT and T5 hold one Parameter at both ends, Llama with
    ``tie_word_embeddings=False`` two, and the table is ``[vocab_size, hidden_size]``."""
    for cls, config, names in tied_families(vocab, heads, head_dim, llama_tied=False):
        tied = len(names) > 1
        with torch.device("meta"):
            model = cls(config)
        table, head = model.get_input_embeddings(), model.get_output_embeddings()
        assert table.weight.is_meta and table.weight.shape == (vocab, heads * head_dim)
        assert (head.weight is table.weight) == tied, cls.__name__


# --- Positions -------------------------------------------------------------------------------


def _rotary(head_dim: int):
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import (
        LlamaRotaryEmbedding,
        apply_rotary_pos_emb,
    )

    config = LlamaConfig(
        vocab_size=16,
        hidden_size=head_dim,
        intermediate_size=16,
        num_hidden_layers=1,
        num_attention_heads=1,
        num_key_value_heads=1,
        bos_token_id=0,
        eos_token_id=0,
    )
    rope = LlamaRotaryEmbedding(config)

    def rotate(x: torch.Tensor, position: int) -> torch.Tensor:
        cos, sin = rope(x, torch.tensor([[position]]))
        return apply_rotary_pos_emb(x, x, cos, sin)[0]

    return rotate


@proves("large-rotary-offset")
@FAST
@given(
    head_dim=st.sampled_from([8, 16, 64, 128]),
    m=st.integers(0, 4000),
    n=st.integers(0, 4000),
    shift=st.integers(-4000, 4000),
    seed=st.integers(0, 2**16),
)
def test_rotary_score_depends_only_on_the_offset(head_dim, m, n, shift, seed):
    """ "The rotated dot product depends only on how far apart the two positions are", and "a
    rotation keeps lengths": for any query, key, positions m, n and shift s,
    score(m, n) == score(m + s, n + s)."""
    if min(m + shift, n + shift) < 0:
        shift = -min(m, n)
    rotate = _rotary(head_dim)
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, 1, 1, 1, head_dim, generator=g, dtype=torch.float32)
    before = (rotate(q, m) * rotate(k, n)).sum()
    after = (rotate(q, m + shift) * rotate(k, n + shift)).sum()
    scale = (q.norm() * k.norm()).item()
    # float32 angles of thousands of radians carry about 1e-4 rad of rounding
    torch.testing.assert_close(before, after, rtol=0, atol=2e-3 * scale)
    torch.testing.assert_close(rotate(q, m).norm(), q.norm(), rtol=1e-5, atol=1e-6)


# --- Precision -------------------------------------------------------------------------------

#: Every normal float32 value, the largest ones included (2**-126 <= |x| <= 3.4028235e38).
normal_f32 = st.floats(width=32, allow_nan=False, allow_infinity=False).filter(
    lambda x: abs(x) >= 2**-126
)
#: Where bfloat16 overflows: halfway between its largest finite number and 2**128.
BF16_HALFWAY = (2 - 2**-8) * 2.0**127
#: Where float16 overflows: halfway between 65,504 and 2**16.
FP16_HALFWAY = 65_520.0


@proves("large-rounding-bounds")
@FAST
@given(values=st.lists(normal_f32, min_size=1, max_size=64))
@example(
    values=[
        3.3895313892515355e38,
        3.396177326406364e38,
        3.3961775292304601e38,
        -3.4028234663852886e38,
        2**-126,
        -(2**-126),
    ]
)
def test_bfloat16_rounds_every_normal_entry_within_2_to_minus_8(values):
    """ "The bound 2^-8 for bfloat16 holds for every normal float32 value that does not overflow"
    (magnitudes from 2^-126 up to (2 - 2^-8) * 2^127, values between bfloat16's largest finite
    number and that point rounding down to it), "from the halfway point up they round to
    infinity"."""
    w = torch.tensor(values, dtype=torch.float32)
    b = w.bfloat16()
    overflows = w.double().abs() >= BF16_HALFWAY
    assert torch.equal(torch.isinf(b), overflows)
    rel = ((b.double() - w.double()) / w.double()).abs()
    assert (rel[~overflows] <= 2**-8).all()


@proves("large-rounding-bounds")
@FAST
@given(
    values=st.lists(
        st.floats(min_value=2**-14, max_value=2.0**17, width=32), min_size=1, max_size=64
    ),
    signs=st.lists(st.booleans(), min_size=64, max_size=64),
)
@example(
    values=[2**-14, 65_504.0, 65_519.0, 65_519.99609375, 65_520.0, 70_000.0], signs=[True] * 64
)
def test_float16_rounds_normal_range_entries_within_2_to_minus_11(values, signs):
    """ "2^-11 for float16 holds only for magnitudes from 2^-14 up to 65,520 [...] (from there on:
    infinity)"; the example on the page shows smaller entries breaking it."""
    w = torch.tensor([v if s else -v for v, s in zip(values, signs, strict=False)])
    h = w.half()
    overflows = w.double().abs() >= FP16_HALFWAY
    assert torch.equal(torch.isinf(h), overflows)
    rel = ((h.double() - w.double()) / w.double()).abs()
    assert (rel[~overflows] <= 2**-11).all()


@proves("large-autocast-lookup")
@FAST
@given(
    V=st.integers(1, 200),
    D=st.integers(1, 32),
    n=st.integers(0, 50),
    dtype=st.sampled_from([torch.float32, torch.bfloat16, torch.float16, torch.float64]),
    autocast_dtype=st.sampled_from([torch.bfloat16, torch.float16]),
    mode=st.sampled_from([None, "sum", "mean", "max"]),
    seed=st.integers(0, 2**16),
)
def test_autocast_leaves_every_lookup_unchanged(V, D, n, dtype, autocast_dtype, mode, seed):
    """ "The embedding is not on autocast's list of ops: it returns rows of whatever dtype the
    table has", bit for bit the rows it returns outside autocast, while a Linear is cast; for a
    table of any floating dtype, CPU autocast to bfloat16 or float16, and pooled lookups
    (``nn.EmbeddingBag``, every mode) as well."""
    g = torch.Generator().manual_seed(seed)
    table = torch.randn(V, D, generator=g).to(dtype)
    if mode is None:
        emb = nn.Embedding.from_pretrained(table)
        ids = torch.randint(V, (n,), generator=g)
        args = (ids,)
    else:
        emb = nn.EmbeddingBag.from_pretrained(table, mode=mode)
        ids = torch.randint(V, (n,), generator=g)
        cuts = torch.randint(n + 1, (3,), generator=g).sort().values
        args = (ids, torch.cat([torch.zeros(1, dtype=torch.long), cuts]))
    lin = nn.Linear(D, 3)
    with torch.autocast("cpu", dtype=autocast_dtype):
        rows = emb(*args)
        y = lin(rows.float())
    assert rows.dtype == dtype and torch.equal(rows, emb(*args))
    assert y.dtype == autocast_dtype


@proves("large-quantized-half-step")
@settings(max_examples=25, deadline=None)
@given(
    V=st.integers(1, 60),
    D=st.integers(1, 96),
    std=st.floats(1e-3, 10.0),
    seed=st.integers(0, 2**16),
    bits=st.sampled_from([8, 4]),
)
@example(V=3, D=5, std=1.0, seed=0, bits=4)  # an odd width at 4 bits: refused
@example(V=3, D=5, std=1.0, seed=0, bits=8)  # and at 8 bits: fine
def test_quantized_rows_stay_within_half_a_step_and_take_the_stated_bytes(V, D, std, seed, bits):
    """ "Every entry is within half a quantization step of its row" (8 and 4 bits) unless the
    step would be below float32's eps, where "every entry snaps to the row's minimum" (an error
    up to the row's range); and a row takes D + 8 bytes in 8 bits and D/2 + 4 bytes in 4 bits
    (``table_mib``'s 8-bit formula), for any shape: at 4 bits an odd width is refused, by the
    packing operator (``RuntimeError``) and by ``quantize_embedding`` (``ValueError``)."""
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(V, D, generator=g) * std
    table = nn.Embedding.from_pretrained(W)
    prepack = (
        torch.ops.quantized.embedding_bag_byte_prepack
        if bits == 8
        else torch.ops.quantized.embedding_bag_4bit_prepack
    )
    if bits == 4 and D % 2:
        with pytest.raises(RuntimeError, match="multiple of 2"):
            prepack(W)
        with pytest.raises(ValueError, match="even width"):
            quantize_embedding(table, bits)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = lookup(quantize_embedding(table, bits), torch.arange(V))
    assert rows.shape == (V, D)
    row_range = W.max(dim=1).values - W.min(dim=1).values
    step = row_range / (2**bits - 1)
    slack = 1.02 if bits == 4 else 1.001  # 4-bit rows keep a float16 scale and offset
    eps = torch.finfo(torch.float32).eps
    bound = torch.where(step > eps, step / 2 * slack, row_range)
    tiny = 1e-6 * W.abs().max()  # float rounding of the offset itself
    assert ((rows - W).abs().max(dim=1).values <= bound + tiny).all()

    nbytes = prepack(W).nbytes
    assert nbytes == V * (D + 8 if bits == 8 else D // 2 + 4)
    if bits == 8:
        # Imported here: its module imports transformers, which would slow every collection.
        from snippets.large_models.real_models import table_mib

        assert nbytes == table_mib(V, D, "8-bit") * 2**20


# --- Tables too big for one device -----------------------------------------------------------


@proves("large-hashing-in-range")
@FAST
@given(
    ids=st.lists(st.integers(0, P - 1), max_size=100),
    num_rows=st.integers(1, 10**9),
    seed=st.integers(0, 1000),
)
def test_hashed_rows_are_always_in_range_and_deterministic(ids, num_rows, seed):
    """ "Keep M rows and look up row h(id) mod M": for any ids in [0, P) and any M, every row is
    in [0, M), and the same id always gets the same row."""
    t = torch.tensor(ids, dtype=torch.int64)
    rows = hashed_rows(t, num_rows, seed)
    assert rows.shape == t.shape and rows.dtype == torch.int64
    if len(ids):
        assert 0 <= rows.min() and rows.max() < num_rows
    assert torch.equal(rows, hashed_rows(t, num_rows, seed))
    with pytest.raises(ValueError):
        hashed_rows(torch.tensor([P]), num_rows, seed)


# --- The page's output includes stay aligned --------------------------------------------------


def test_output_line_ranges_cover_whole_blocks():
    """Every ``file.out:a:b`` include on the page starts and ends a block of the output (a blank
    line or the file's edge on both sides), so a shifted output cannot show a cut block."""
    page = (ROOT / "docs" / "large-models.md").read_text(encoding="utf-8")
    found = [
        (inc.path, inc.start, inc.end)
        for inc in includes_in(page)
        if inc.path.endswith(".out") and inc.end is not None
    ]
    assert len(found) >= 8
    for path, a, b in found:
        lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
        start, end = a or 1, b
        assert 1 <= start <= end <= len(lines), (path, a, b)
        assert all(lines[i].strip() for i in range(start - 1, end)), (path, a, b, "blank inside")
        assert start == 1 or not lines[start - 2].strip(), (path, a, b, "starts mid-block")
        assert end == len(lines) or not lines[end].strip(), (path, a, b, "ends mid-block")
