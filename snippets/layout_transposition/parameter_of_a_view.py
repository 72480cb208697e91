"""``lin.weight = nn.Parameter(emb.weight.T)`` shares the embedding's memory, but is not tying.

The new Parameter is a second leaf tensor that happens to alias the embedding's storage. So:

* ``parameters()`` lists two Parameters and counts the ``V * D`` numbers twice;
* each use sends its gradient to its own ``.grad``; neither holds the sum;
* plain SGD happens to land both updates in the shared memory (so the values move as if tied),
  but Adam normalises each Parameter's gradient on its own, so in its first step a row used by
  both gets two updates of about ``lr``: twice the tied move when its two gradients share a sign,
  and no move at all when their signs are opposite (where the tied Parameter, which normalises
  their sum, moves by ``lr`` unless the sum is zero);
* converting the module to another dtype or device (``.double()``, ``.to(device)``) gives each
  Parameter its own new storage, and the sharing is gone without a message; a conversion that
  changes nothing (``.float()`` or ``.to("cpu")`` on a float32 CPU model) keeps it.

Run it: ``python snippets/layout_transposition/parameter_of_a_view.py``; it raises
``AssertionError`` if PyTorch behaves differently. ``parameter_of_a_view.out`` is what it prints.
Sources: ``torch/nn/parameter.py`` and ``Module._apply`` in ``torch/nn/modules/module.py``
(PyTorch v2.15.0).
"""

import torch
import torch.nn.functional as F
from torch import nn

V, D = 6, 4  # num_embeddings, embedding_dim


def make_pair() -> tuple[nn.Embedding, nn.Linear]:
    """An ``nn.Embedding(V, D)`` and an ``nn.Linear(V, D, bias=False)`` whose weight is
    ``nn.Parameter(emb.weight.T)``: shape ``[D, V]``, float32, aliasing the embedding's memory."""
    torch.manual_seed(0)
    emb = nn.Embedding(V, D)
    lin = nn.Linear(V, D, bias=False)
    lin.weight = nn.Parameter(emb.weight.T)
    return emb, lin


def main() -> None:
    # --8<-- [start:shares]
    emb, lin = make_pair()  # lin.weight = nn.Parameter(emb.weight.T)
    assert lin.weight.data_ptr() == emb.weight.data_ptr()  # one block of memory...
    assert lin.weight is not emb.weight  # ...two Parameters
    with torch.no_grad():
        emb.weight[2, 0] = 7.0
    assert lin.weight[0, 2] == 7.0  # an in-place edit shows through both

    model = nn.ModuleDict({"emb": emb, "lin": lin})
    assert len(list(model.parameters())) == 2
    assert sum(p.numel() for p in model.parameters()) == 2 * V * D  # 48 numbers, counted twice
    # --8<-- [end:shares]

    # --8<-- [start:separate]
    emb, lin = make_pair()
    a = torch.tensor([1, 4])  # ids looked up through the embedding
    b = torch.tensor([4, 2])  # ids fed to the Linear as one-hot rows
    loss = emb(a).sum() + lin(F.one_hot(b, V).float()).sum()
    loss.backward()

    rows = lambda g: g.abs().sum(dim=1).nonzero().flatten().tolist()  # noqa: E731
    assert rows(emb.weight.grad) == [1, 4]  # only the embedding's own use
    assert rows(lin.weight.grad.T) == [2, 4]  # only the Linear's own use
    print("emb.weight.grad rows:", rows(emb.weight.grad),
          "| lin.weight.grad.T rows:", rows(lin.weight.grad.T))
    # --8<-- [end:separate]

    # --8<-- [start:optimizers]
    def one_step(opt_class, lin_weight: float) -> tuple[torch.Tensor, torch.Tensor]:
        """Move of rows 0..V-1 (column 0) after one step on the loss
        ``emb(a).sum() + lin_weight * lin(one_hot(b)).sum()``: aliased pair vs. one tied Parameter.
        Row 4 is used by both terms: its two gradients are ``1`` and ``lin_weight``."""
        emb, lin = make_pair()
        start = emb.weight.detach().clone()
        (emb(a).sum() + lin_weight * lin(F.one_hot(b, V).float()).sum()).backward()
        opt_class([emb.weight, lin.weight], lr=0.1).step()
        pair_move = (emb.weight.detach() - start)[:, 0]

        tied = nn.Parameter(start.clone())  # real tying: one Parameter used twice
        onehot = F.one_hot(b, V).float()
        (F.embedding(a, tied).sum() + lin_weight * F.linear(onehot, tied.T).sum()).backward()
        opt_class([tied], lr=0.1).step()
        return pair_move, (tied.detach() - start)[:, 0]

    for lin_weight in (1.0, -2.0):
        pair, tied = one_step(torch.optim.SGD, lin_weight)
        torch.testing.assert_close(pair, tied)  # SGD: the two updates add up in shared memory

    moves = {}
    for lin_weight in (1.0, -2.0):  # row 4's gradients: +1 and +1, then +1 and -2
        pair, tied = one_step(torch.optim.Adam, lin_weight)
        torch.testing.assert_close(pair[[1, 2]], tied[[1, 2]])  # rows one layer uses: as tied
        moves[lin_weight] = pair[4].item(), tied[4].item()
    # Adam's first step moves each Parameter by about lr = 0.1: row 4 gets two such steps.
    close = {"rtol": 0, "atol": 1e-6}
    torch.testing.assert_close(moves[1.0], (-0.2, -0.1), **close)  # same sign: twice the tied move
    torch.testing.assert_close(moves[-2.0], (0.0, 0.1), **close)  # opposite signs: they cancel
    for lin_weight, (pair_move, tied_move) in moves.items():
        pair_move, tied_move = round(pair_move, 1) + 0.0, round(tied_move, 1) + 0.0  # no -0.0
        print(f"Adam, row 4, gradients +1 and {lin_weight:+g}: aliased pair moves "
              f"{pair_move:+.1f}, one tied Parameter {tied_move:+.1f}")
    # --8<-- [end:optimizers]

    # --8<-- [start:breaks]
    emb, lin = make_pair()
    model = nn.ModuleDict({"emb": emb, "lin": lin})
    for same in (model.float(), model.to("cpu"), model.to(torch.float32)):  # nothing to convert
        assert same.emb.weight.data_ptr() == same.lin.weight.data_ptr()  # still shared
    model = model.double()  # a new dtype; likewise .to("cuda"), .half(), ...
    assert model.emb.weight.data_ptr() != model.lin.weight.data_ptr()  # sharing is gone
    # --8<-- [end:breaks]


if __name__ == "__main__":
    main()
