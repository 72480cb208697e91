"""Property tests of the general sentences of docs/layout-transposition.md that
tests/test_claims_lookup.py does not already prove."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

from tests.claim_register import proves


@proves("linear-row-per-output")
@given(
    n=st.integers(0, 6),
    fan_in=st.integers(1, 48),
    fan_out=st.integers(1, 48),
    seed=st.integers(0, 2**16),
)
def test_output_j_of_a_linear_reads_row_j_of_its_weight(n, fan_in, fan_out, seed):
    """``F.linear(x, W, b)`` is ``x @ W.T + b`` for a weight ``[out, in]``; each row of a
    contiguous weight is contiguous, and output ``j`` is ``x @ W[j] + b[j]`` (float32, up to
    rounding: the sums may run in another order)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, fan_in, generator=g)
    W, b = torch.randn(fan_out, fan_in, generator=g), torch.randn(fan_out, generator=g)
    y = F.linear(x, W, b)
    assert y.shape == (n, fan_out)
    torch.testing.assert_close(y, x @ W.T + b)
    assert W.T.data_ptr() == W.data_ptr()  # the transpose is a view
    for j in range(fan_out):
        assert W[j].is_contiguous()
        torch.testing.assert_close(y[:, j], x @ W[j] + b[j])
