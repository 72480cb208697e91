"""nn.EmbeddingBag equals nn.Embedding followed by a per-bag reduction, in values and gradients.

Run it from the repository root: ``python -m snippets.sparsity.bag_vs_embedding``. For each mode
(``sum``, ``mean``, ``max``) it feeds the same ragged bags (1-D ``input`` plus ``offsets``, one bag
empty) to an ``nn.EmbeddingBag`` and to an ``nn.Embedding`` holding the same ``[V, D]`` table whose
output is reduced bag by bag in Python, then asserts that outputs (``[B, D]``) and weight
gradients (``[V, D]``) agree; ``sum`` is also checked with ``per_sample_weights``. An empty bag
gives a row of zeros in every mode (where ``Tensor.mean`` would give ``nan`` and ``Tensor.max``
would raise). Raises ``AssertionError`` if a check fails. The page "Sparsity" includes its
regions by name and shows ``bag_vs_embedding.out``.
"""

from __future__ import annotations

import torch
from torch import nn


# --8<-- [start:reference]
def reduce_bags(rows: torch.Tensor, offsets: torch.Tensor, mode: str,
                weights: torch.Tensor | None = None) -> torch.Tensor:
    """Reduce looked-up rows [L, D] bag by bag: the bag b is rows[offsets[b]:offsets[b + 1]].

    ``mode`` is "sum", "mean" or "max"; ``weights`` [L] scales each row first (sum only).
    An empty bag gives zeros, as nn.EmbeddingBag does. Returns [B, D], B = len(offsets).
    """
    if weights is not None:
        rows = rows * weights[:, None]
    ends = [*offsets[1:].tolist(), len(rows)]
    out = []
    for start, end in zip(offsets.tolist(), ends, strict=True):
        bag = rows[start:end]
        if len(bag) == 0:
            out.append(rows.new_zeros(rows.shape[1]))
        elif mode == "sum":
            out.append(bag.sum(dim=0))
        elif mode == "mean":
            out.append(bag.mean(dim=0))
        else:
            out.append(bag.max(dim=0).values)
    return torch.stack(out)
# --8<-- [end:reference]


def main() -> None:
    # --8<-- [start:compare]
    V, D = 10, 4
    ids = torch.tensor([3, 1, 3, 7, 2, 9, 4, 1])  # L = 8 ids in B = 4 bags
    offsets = torch.tensor([0, 3, 3, 5])  # bags: [3, 1, 3], [], [7, 2], [9, 4, 1]
    weights = torch.tensor([0.5, 2.0, 1.0, -1.0, 3.0, 1.0, 0.25, 2.0])  # one per id

    for mode, psw in [("sum", None), ("sum", weights), ("mean", None), ("max", None)]:
        torch.manual_seed(0)
        bag = nn.EmbeddingBag(V, D, mode=mode)  # weight: [V, D]
        emb = nn.Embedding(V, D)
        with torch.no_grad():
            emb.weight.copy_(bag.weight)

        out_bag = bag(ids, offsets, per_sample_weights=psw)  # [B, D]
        out_ref = reduce_bags(emb(ids), offsets, mode, psw)  # [B, D]
        torch.testing.assert_close(out_bag, out_ref)
        assert not out_bag[1].any()  # the empty bag: zeros

        upstream = torch.randn(len(offsets), D)
        out_bag.backward(upstream)
        out_ref.backward(upstream)
        torch.testing.assert_close(bag.weight.grad, emb.weight.grad)
        label = f"{mode}{' + per_sample_weights' if psw is not None else ''}"
        nonzero = int((bag.weight.grad != 0).sum())  # of V * D = 40 gradient entries
        if mode == "max":  # each output number sends its gradient to the one row that won it
            assert nonzero <= 3 * D  # 3 non-empty bags, D numbers each
        print(f"{label:<26} values and gradients agree; non-zero gradient entries: {nonzero}")
    # --8<-- [end:compare]


if __name__ == "__main__":
    main()
