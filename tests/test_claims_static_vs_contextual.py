"""Property tests for the general sentences of ``docs/static-vs-contextual.md``.

Each test's docstring quotes the sentence it proves. (The page's first general claim, that a
lookup depends on its own id only, is proven in ``tests/test_claims_lookup.py``.)
"""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from tests.claim_register import proves


@proves("static-attention-permutation")
@settings(max_examples=25, deadline=None)
@given(
    head_dim=st.sampled_from([1, 4, 8]),
    heads=st.integers(1, 4),
    length=st.integers(1, 40),
    batch=st.integers(1, 3),
    norm_first=st.booleans(),
    scale=st.sampled_from([0.01, 1.0, 10.0]),
    data=st.data(),
    seed=st.integers(0, 2**16),
)
def test_attention_without_positions_reorders_with_its_input(
    head_dim, heads, length, batch, norm_first, scale, data, seed
):
    """ "Reordering the input reorders the output" (up to float rounding): for any encoder layer
    (pre- or post-norm, in eval mode, the fast path included, and under ``no_grad``) or bare
    ``nn.MultiheadAttention`` without a mask, and any sequence and permutation,
    ``layer(x[:, perm]) == layer(x)[:, perm]``."""
    d = head_dim * heads
    perm = torch.tensor(data.draw(st.permutations(range(length)), label="perm"))
    torch.manual_seed(seed)
    layer = nn.TransformerEncoderLayer(
        d, nhead=heads, dim_feedforward=2 * d, batch_first=True, norm_first=norm_first
    ).eval()
    attn = nn.MultiheadAttention(d, heads, batch_first=True)
    x = torch.randn(batch, length, d) * scale
    for grad in (False, True):  # no_grad takes the fused fast path of the encoder layer
        with torch.set_grad_enabled(grad):
            torch.testing.assert_close(layer(x[:, perm]), layer(x)[:, perm])
            torch.testing.assert_close(
                attn(x[:, perm], x[:, perm], x[:, perm])[0], attn(x, x, x)[0][:, perm]
            )
