"""Which rows of an embedding table move at each optimizer step: SGD, Adam, AdamW, SparseAdam.

Run it: ``python snippets/differentiability/optimizers.py``. It trains the same small table with
several optimizers on the same four mini-batches, prints which rows changed at every step, and
raises ``AssertionError`` if the pattern differs from what the page "Differentiability" states:

* plain SGD (no momentum, no weight decay) moves exactly the rows looked up in that step;
* SGD with momentum and Adam keep moving rows looked up in *earlier* steps (their running
  averages are not zero), but never move a row whose gradient has always been zero;
* Adam with ``weight_decay`` (an L2 term added to the gradient) and AdamW (decoupled decay,
  default ``weight_decay=0.01``) move every row at every step;
* with ``sparse=True`` gradients, ``SparseAdam``, ``SGD`` and ``Adagrad`` only touch the rows in
  the batch.

``optimizers.out`` beside it is the output shown on the page; the figure
``rows_moved_per_step`` in ``snippets/differentiability/figures.py`` draws :func:`rows_moved`.
Update rules: https://docs.pytorch.org/docs/2.15/generated/torch.optim.Adam.html and
https://docs.pytorch.org/docs/2.15/generated/torch.optim.AdamW.html.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch
from torch import nn

#: Table size and the four mini-batches every optimizer sees, in order.
NUM_EMBEDDINGS, EMBEDDING_DIM = 6, 3
BATCHES = ([0, 1], [2, 2], [3], [0])  # rows 4 and 5 are never looked up
LR = 0.1

#: name -> (sparse gradients?, optimizer factory taking the parameters)
OPTIMIZERS: dict[str, tuple[bool, Callable]] = {
    "SGD": (False, lambda p: torch.optim.SGD(p, lr=LR)),
    "SGD momentum=0.9": (False, lambda p: torch.optim.SGD(p, lr=LR, momentum=0.9)),
    "Adam": (False, lambda p: torch.optim.Adam(p, lr=LR)),
    "Adam weight_decay=0.01": (False, lambda p: torch.optim.Adam(p, lr=LR, weight_decay=0.01)),
    "AdamW": (False, lambda p: torch.optim.AdamW(p, lr=LR)),  # weight_decay=0.01 by default
    "SparseAdam (sparse=True)": (True, lambda p: torch.optim.SparseAdam(list(p), lr=LR)),
    "SGD (sparse=True)": (True, lambda p: torch.optim.SGD(p, lr=LR)),
    "Adagrad (sparse=True)": (True, lambda p: torch.optim.Adagrad(p, lr=LR)),
}


def rows_moved(name: str) -> list[list[int]]:
    """Train a fresh table with optimizer ``name`` (a key of ``OPTIMIZERS``) on ``BATCHES``.

    The table is ``nn.Embedding(NUM_EMBEDDINGS, EMBEDDING_DIM)`` under ``torch.manual_seed(0)``
    and the loss is ``emb(batch).pow(2).sum()``. Returns, for each step, the sorted row ids whose
    values changed at all (exact comparison). Raises ``KeyError`` for an unknown name.
    """
    # --8<-- [start:loop]
    sparse, make = OPTIMIZERS[name]
    torch.manual_seed(0)
    emb = nn.Embedding(NUM_EMBEDDINGS, EMBEDDING_DIM, sparse=sparse)
    opt = make(emb.parameters())
    moved = []
    for batch in BATCHES:
        before = emb.weight.detach().clone()
        opt.zero_grad()
        emb(torch.tensor(batch)).pow(2).sum().backward()
        with warnings.catch_warnings():
            # Adagrad warns that sparse invariant checks are off: harmless here.
            warnings.simplefilter("ignore", UserWarning)
            opt.step()
        changed = (emb.weight.detach() != before).any(dim=1)
        moved.append(changed.nonzero().flatten().tolist())
    # --8<-- [end:loop]
    return moved


def main() -> None:
    """Print the rows moved per step for every optimizer and check the page's claims."""
    # --8<-- [start:run]
    moved = {name: rows_moved(name) for name in OPTIMIZERS}
    print("batches:", [list(b) for b in BATCHES])
    for name, steps in moved.items():
        print(f"{name:>24}: {steps}")

    batch_rows = [sorted(set(b)) for b in BATCHES]
    everything = list(range(NUM_EMBEDDINGS))
    assert moved["SGD"] == batch_rows  # only the looked-up rows
    for name in ("SGD momentum=0.9", "Adam"):
        seen_so_far = [[0, 1], [0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3]]
        assert moved[name] == seen_so_far  # rows seen earlier keep moving
        assert all(4 not in step and 5 not in step for step in moved[name])  # never-seen rows stay
    for name in ("Adam weight_decay=0.01", "AdamW"):
        assert moved[name] == [everything] * len(BATCHES)  # decay touches every row
    for name in ("SparseAdam (sparse=True)", "SGD (sparse=True)", "Adagrad (sparse=True)"):
        assert moved[name] == batch_rows
    # --8<-- [end:run]


if __name__ == "__main__":
    main()
