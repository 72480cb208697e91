"""nn.Embedding equals a bias-free nn.Linear on one-hot input: forward values and weight gradients.

Run it: ``python snippets/lookup_tables/onehot_equivalence.py``. It prints what it checks and
raises ``AssertionError`` if any check fails. The page "Embeddings as lookup tables" includes its
regions by name; ``onehot_equivalence.out`` beside it is the output shown on the page, compared by
``tests/test_snippets.py``.
"""

import torch
import torch.nn.functional as F
from torch import nn


def main() -> None:
    # --8<-- [start:setup]
    torch.manual_seed(0)
    V, D = 5, 3  # num_embeddings, embedding_dim
    idx = torch.tensor([2, 3, 1, 3])  # N = 4 lookups; id 3 appears twice

    emb = nn.Embedding(V, D)  # weight: [V, D], one row per id
    lin = nn.Linear(V, D, bias=False)  # weight: [D, V], computes x @ weight.T
    with torch.no_grad():
        lin.weight.copy_(emb.weight.T)  # same numbers, transposed layout
    # --8<-- [end:setup]

    # --8<-- [start:forward]
    onehot = F.one_hot(idx, num_classes=V).float()  # [N, V]
    out_emb = emb(idx)  # [N, D]
    out_lin = lin(onehot)  # [N, D]

    torch.testing.assert_close(out_emb, out_lin)  # same values...
    assert torch.equal(out_emb, emb.weight[idx])  # ...and they are rows of the table
    print("forward:", tuple(out_emb.shape), "equal:", torch.equal(out_emb, out_lin))
    # --8<-- [end:forward]

    # --8<-- [start:backward]
    upstream = torch.randn(len(idx), D)  # any gradient arriving from the layers above
    out_emb.backward(upstream)
    out_lin.backward(upstream)

    # Linear's weight gradient is [D, V]: transpose it to compare with the embedding's [V, D].
    torch.testing.assert_close(emb.weight.grad, lin.weight.grad.T)
    touched = emb.weight.grad.abs().sum(dim=1) != 0
    print("grad rows touched:", touched.nonzero().flatten().tolist())
    # id 3 was looked up twice: its row holds the sum of both upstream rows
    torch.testing.assert_close(emb.weight.grad[3], upstream[1] + upstream[3])
    # ids 0 and 4 were not looked up: their rows are exactly zero
    assert not emb.weight.grad[[0, 4]].any()
    # --8<-- [end:backward]


if __name__ == "__main__":
    main()
