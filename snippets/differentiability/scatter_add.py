"""The backward of an embedding lookup is a scatter-add into a zero table-shaped tensor.

Run it: ``python snippets/differentiability/scatter_add.py``. It computes ``weight.grad`` three
ways (autograd through ``nn.Embedding``, autograd through a bias-free ``nn.Linear`` on one-hot
input, and a hand-written ``index_add_``), prints which rows received gradient, and raises
``AssertionError`` if the three differ or if a row breaks the rule "row *v* = sum of the upstream
gradients at every position holding *v*". The page "Differentiability" includes its regions by
name; ``scatter_add.out`` beside it is the output shown there. The figure
``grad_heatmap_repeated_id`` in ``snippets/differentiability/figures.py`` draws
:func:`example` so the picture and the page use the same numbers.

Source of the rule: PyTorch's reference decomposition ``embedding_dense_backward`` in
https://github.com/pytorch/pytorch/blob/v2.15.0/torch/_decomp/decompositions.py (a zero table,
then an accumulating ``index_put``).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

#: Table size and the batch used on the page and in the figure.
NUM_EMBEDDINGS, EMBEDDING_DIM = 8, 4
IDS = [[1, 5, 1], [6, 1, 3]]  # id 1 appears three times; ids 0, 2, 4, 7 not at all


def example() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Return ``(idx, upstream, grad)`` for the page's batch.

    ``idx`` is int64 of shape ``(2, 3)``; ``upstream`` is the float32 gradient arriving at the
    embedding's output, shape ``(2, 3, EMBEDDING_DIM)``, drawn from a generator seeded with 1;
    ``grad`` is ``nn.Embedding(NUM_EMBEDDINGS, EMBEDDING_DIM).weight.grad``
    after ``out.backward(upstream)``, float32 of shape ``(NUM_EMBEDDINGS, EMBEDDING_DIM)``.
    """
    torch.manual_seed(0)
    emb = nn.Embedding(NUM_EMBEDDINGS, EMBEDDING_DIM)
    idx = torch.tensor(IDS)
    upstream = torch.randn(*idx.shape, EMBEDDING_DIM, generator=torch.Generator().manual_seed(1))
    emb(idx).backward(upstream)
    return idx, upstream, emb.weight.grad


def main() -> None:
    """Compute the weight gradient three ways and check they agree; print a row summary."""
    # --8<-- [start:setup]
    torch.manual_seed(0)
    V, D = 8, 4  # num_embeddings, embedding_dim
    idx = torch.tensor([[1, 5, 1], [6, 1, 3]])  # 2 sequences of 3 ids; id 1 three times

    emb = nn.Embedding(V, D)
    lin = nn.Linear(V, D, bias=False)
    with torch.no_grad():
        lin.weight.copy_(emb.weight.T)  # same table, Linear's [out, in] layout

    # dL/d(output): whatever the layers above send back (its own generator, seeded)
    upstream = torch.randn(2, 3, D, generator=torch.Generator().manual_seed(1))
    emb(idx).backward(upstream)
    lin(F.one_hot(idx, V).float()).backward(upstream)
    # --8<-- [end:setup]

    # --8<-- [start:three_ways]
    by_hand = torch.zeros(V, D).index_add_(0, idx.reshape(-1), upstream.reshape(-1, D))

    assert emb.weight.grad.shape == (V, D)  # [num_embeddings, embedding_dim], like the table
    torch.testing.assert_close(emb.weight.grad, lin.weight.grad.T)  # one-hot Linear, transposed
    torch.testing.assert_close(emb.weight.grad, by_hand)  # a scatter-add written by hand
    # --8<-- [end:three_ways]

    # --8<-- [start:rows]
    grad = emb.weight.grad
    counts = torch.bincount(idx.reshape(-1), minlength=V)  # how often each id was looked up
    for v in range(V):
        positions = (idx == v).nonzero().tolist()
        expected = sum((upstream[n, t] for n, t in positions), torch.zeros(D))
        torch.testing.assert_close(grad[v], expected)  # row v = sum over positions holding v
        if counts[v] == 0:
            assert torch.equal(grad[v], torch.zeros(D))  # exactly zero, not merely small
        print(f"row {v}: looked up {counts[v]}x at {positions}")
    # --8<-- [end:rows]

    # The figure draws example(): it must be this very gradient.
    assert torch.equal(example()[2], grad)


if __name__ == "__main__":
    main()
