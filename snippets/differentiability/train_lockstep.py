"""An nn.Embedding model and a one-hot nn.Linear model, initialised identically, train in lockstep.

Run it: ``python snippets/differentiability/train_lockstep.py``. Two small models learn a point
in the plane for each of ``V`` ids (a regression, mean squared error), side by side, with AdamW
on the same mini-batches: one starts with ``nn.Embedding(V, D)``, the other with
``nn.Linear(V, D, bias=False)`` fed ``F.one_hot(ids, V).float()``; both end in the same
``nn.Linear(D, 2)`` head. After every step the script checks that the table gradients are exactly
zero in the same places (the embedding's rows and the Linear's columns of ids not in the batch),
and that the gradients, the losses, the heads and the tables (the Linear's transposed) agree to
float tolerance (``torch.testing.assert_close``). It raises ``AssertionError`` at the first step
where they drift apart. The page "Differentiability" includes its regions by name;
``train_lockstep.out`` beside it is the output shown there.
"""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn


# --8<-- [start:embedding_model]
class EmbeddingModel(nn.Module):
    """A point per id through an embedding: ids ``(N,)`` int64 -> points ``(N, 2)`` float32."""

    def __init__(self, vocab: int, dim: int) -> None:
        super().__init__()
        self.table = nn.Embedding(vocab, dim)  # weight [V, D]
        self.head = nn.Linear(dim, 2)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.table(ids))
# --8<-- [end:embedding_model]


# --8<-- [start:onehot_model]
class OneHotModel(nn.Module):
    """The same with a bias-free Linear on one-hot input: ids ``(N,)`` -> points ``(N, 2)``."""

    def __init__(self, vocab: int, dim: int) -> None:
        super().__init__()
        self.vocab = vocab
        self.table = nn.Linear(vocab, dim, bias=False)  # weight [D, V]: the table transposed
        self.head = nn.Linear(dim, 2)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.table(F.one_hot(ids, self.vocab).float()))
# --8<-- [end:onehot_model]


def main() -> None:
    """Train both models for 40 steps and check, step by step, that they stay equal."""
    # --8<-- [start:setup]
    torch.manual_seed(0)
    V, D, steps = 12, 4, 40
    emb_model = EmbeddingModel(V, D)
    lin_model = OneHotModel(V, D)
    with torch.no_grad():
        lin_model.table.weight.copy_(emb_model.table.weight.T)  # same table, transposed
    lin_model.head = copy.deepcopy(emb_model.head)  # same head
    untrained = copy.deepcopy(emb_model)  # kept to measure progress at the end

    # The data: a fixed target point for each id, learned from random batches of 8 ids.
    target = torch.randn(V, 2)
    batches = torch.Generator().manual_seed(0)

    opt_emb = torch.optim.AdamW(emb_model.parameters(), lr=0.05)
    opt_lin = torch.optim.AdamW(lin_model.parameters(), lr=0.05)
    # --8<-- [end:setup]

    # --8<-- [start:loop]
    for step in range(1, steps + 1):
        ids = torch.randint(V, (8,), generator=batches)  # repeated ids are likely
        losses = []
        for model, opt in ((emb_model, opt_emb), (lin_model, opt_lin)):
            opt.zero_grad()
            loss = F.mse_loss(model(ids), target[ids])
            loss.backward()
            opt.step()
            losses.append(loss.item())

        # The table gradients: zero rows (Embedding) and zero columns (Linear), just for unused ids.
        unused = torch.ones(V, dtype=torch.bool)
        unused[ids] = False
        assert not emb_model.table.weight.grad[unused].any()
        assert not lin_model.table.weight.grad[:, unused].any()
        assert emb_model.table.weight.grad[~unused].any(dim=1).all()  # and only there
        assert lin_model.table.weight.grad[:, ~unused].any(dim=0).all()
        torch.testing.assert_close(emb_model.table.weight.grad, lin_model.table.weight.grad.T)

        # Lockstep, to float tolerance: same loss, same table (transposed), same head.
        torch.testing.assert_close(losses[0], losses[1])
        torch.testing.assert_close(emb_model.table.weight, lin_model.table.weight.T)
        torch.testing.assert_close(emb_model.head.weight, lin_model.head.weight)
        torch.testing.assert_close(emb_model.head.bias, lin_model.head.bias)
        if step in (1, 10, 20, 30, 40):
            emb_loss, lin_loss = losses
            print(f"step {step:2d}: loss {emb_loss:.4f} (Embedding) {lin_loss:.4f} (one-hot)")
    # --8<-- [end:loop]

    # --8<-- [start:check]
    with torch.no_grad():
        start = F.mse_loss(untrained(torch.arange(V)), target)
        end = F.mse_loss(emb_model(torch.arange(V)), target)
        torch.testing.assert_close(lin_model(torch.arange(V)), emb_model(torch.arange(V)))
    assert end < start / 4  # it learned: the error over all ids fell by more than 4x
    print(f"loss over all {V} ids: untrained {start:.4f}, trained {end:.4f}, same in both models")
    # --8<-- [end:check]


if __name__ == "__main__":
    main()
