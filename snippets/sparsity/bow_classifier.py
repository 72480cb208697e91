"""A bag-of-words classifier trained twice: EmbeddingBag on CSR input vs Linear on dense input.

Run it from the repository root: ``python -m snippets.sparsity.bow_classifier``. Twelve labelled
sentences are vectorised into a SciPy CSR count matrix ``X`` of shape ``[12, V]`` (float32) with
the vectoriser of ``snippets/sparsity/csr_correspondence.py``. Two models with the same initial
parameters are trained full-batch with plain SGD:

* ``BagModel``: ``nn.EmbeddingBag(V, D, mode="sum", sparse=True)`` fed the CSR arrays, then a
  ``nn.Linear(D, 2)`` head;
* ``DenseModel``: ``nn.Linear(V, D, bias=False)`` on the densified ``X``, then the same head.

After every step it asserts that the parameters (the bag's ``[V, D]`` table against the Linear's
``[D, V]`` weight, transposed) and the losses agree. Raises ``AssertionError`` otherwise. The page
"Sparsity" includes its regions by name and shows ``bow_classifier.out``.
"""

from __future__ import annotations

import scipy.sparse as sp
import torch
import torch.nn.functional as F
from torch import nn

from snippets.sparsity.csr_correspondence import fit_vocabulary, vectorise

#: (sentence, label): 0 = pets, 1 = weather. Written for this page.
DATA = [
    ("the cat sat on the mat", 0),
    ("a dog chased the cat", 0),
    ("the puppy wants a walk", 0),
    ("my cat sleeps all day", 0),
    ("the dog barks at night", 0),
    ("feed the cat and the dog", 0),
    ("rain falls all day", 1),
    ("the sun is out today", 1),
    ("a cold wind at night", 1),
    ("snow and rain tomorrow", 1),
    ("the storm brings wind and rain", 1),
    ("sun and clouds today", 1),
]


# --8<-- [start:models]
class BagModel(nn.Module):
    """Sum of one [D] row per word (weighted by its count), then a linear head to 2 classes."""

    def __init__(self, num_words: int, dim: int) -> None:
        super().__init__()
        self.bag = nn.EmbeddingBag(
            num_words, dim, mode="sum", sparse=True, include_last_offset=True
        )  # weight [V, D]; offsets will be X.indptr, N + 1 of them
        self.head = nn.Linear(dim, 2)

    def forward(self, X: sp.csr_matrix) -> torch.Tensor:  # X: [N, V] CSR -> logits [N, 2]
        h = self.bag(
            torch.from_numpy(X.indices),
            offsets=torch.from_numpy(X.indptr),
            per_sample_weights=torch.from_numpy(X.data),
        )
        return self.head(h)


class DenseModel(nn.Module):
    """The same function as a Linear on the dense count matrix."""

    def __init__(self, num_words: int, dim: int) -> None:
        super().__init__()
        self.proj = nn.Linear(num_words, dim, bias=False)  # [D, V]
        self.head = nn.Linear(dim, 2)

    def forward(self, X: torch.Tensor) -> torch.Tensor:  # X: [N, V] dense -> logits [N, 2]
        return self.head(self.proj(X))
# --8<-- [end:models]


def main() -> None:
    # --8<-- [start:setup]
    texts, labels = [t for t, _ in DATA], torch.tensor([y for _, y in DATA])
    vocab = fit_vocabulary(texts)
    X = vectorise(texts, vocab)  # CSR [12, V]
    X_dense = torch.from_numpy(X.toarray())  # [12, V], for the Linear model only
    V, D = len(vocab), 4

    torch.manual_seed(0)
    bag_model = BagModel(V, D)
    dense_model = DenseModel(V, D)
    with torch.no_grad():  # the same starting point
        dense_model.proj.weight.copy_(bag_model.bag.weight.T)
        dense_model.head.load_state_dict(bag_model.head.state_dict())

    opt_bag = torch.optim.SGD(bag_model.parameters(), lr=0.5)  # SGD takes sparse gradients
    opt_dense = torch.optim.SGD(dense_model.parameters(), lr=0.5)
    # --8<-- [end:setup]

    # --8<-- [start:train]
    for step in range(1, 31):
        loss_bag = F.cross_entropy(bag_model(X), labels)
        loss_dense = F.cross_entropy(dense_model(X_dense), labels)
        for opt, loss in ((opt_bag, loss_bag), (opt_dense, loss_dense)):
            opt.zero_grad()
            loss.backward()
        assert bag_model.bag.weight.grad.is_sparse  # a COO gradient, one entry per id in X
        opt_bag.step()
        opt_dense.step()

        torch.testing.assert_close(loss_bag, loss_dense)
        torch.testing.assert_close(bag_model.bag.weight, dense_model.proj.weight.T)
        torch.testing.assert_close(bag_model.head.weight, dense_model.head.weight)
        torch.testing.assert_close(bag_model.head.bias, dense_model.head.bias)
        if step in (1, 5, 10, 20, 30):
            print(f"step {step:2d}: loss {loss_bag:.4f} (bag) {loss_dense:.4f} (dense)")

    predicted = bag_model(X).argmax(dim=1)
    assert torch.equal(predicted, labels)  # it fits its 12 sentences
    print("train accuracy:", (predicted == labels).float().mean().item())
    # --8<-- [end:train]


if __name__ == "__main__":
    main()
