"""Moving one table between nn.Embedding's ``[V, D]`` layout and nn.Linear's ``[D, V]`` layout.

Three ways, and what each does with memory:

* ``copy_`` (under ``torch.no_grad()``) copies values into the destination's own row-major storage;
* ``nn.Embedding.from_pretrained`` wraps the tensor it is given, without a copy, frozen by default;
* ``load_state_dict`` copies values in, checks shapes by key, and cannot tell a square table from
  its transpose, in either direction; an output projection ``nn.Linear(D, V)`` (``[V, D]``)
  loads into an embedding correctly.

Run it: ``python snippets/layout_transposition/moving_weights.py``. It raises ``AssertionError``
if PyTorch behaves differently; ``moving_weights.out`` beside it is what it prints, shown on the
page "Layout transposition" and compared by ``tests/test_snippets.py``. Sources:
``torch/nn/modules/sparse.py`` (``Embedding.from_pretrained``, ``Embedding.__init__``) and
``torch/nn/modules/module.py`` (``Module.load_state_dict``) in PyTorch v2.15.0.
"""

import torch
import torch.nn.functional as F
from torch import nn

V, D = 6, 4  # num_embeddings, embedding_dim


def main() -> None:
    # --8<-- [start:copy]
    torch.manual_seed(0)
    emb = nn.Embedding(V, D)  # weight [V, D] = [6, 4]
    lin = nn.Linear(V, D, bias=False)  # weight [D, V] = [4, 6]

    try:
        lin.weight.copy_(emb.weight.T)  # outside no_grad: autograd refuses
    except RuntimeError as err:
        print("copy_ without no_grad:", err)
    else:
        raise AssertionError("an in-place write to a leaf that requires grad should raise")

    with torch.no_grad():
        lin.weight.copy_(emb.weight.T)
    assert torch.equal(lin.weight, emb.weight.T)  # same numbers, transposed
    assert lin.weight.data_ptr() != emb.weight.data_ptr()  # in the Linear's own memory,
    assert lin.weight.stride() == (V, 1) and lin.weight.is_contiguous()  # still row-major [D, V]

    idx = torch.tensor([5, 0, 3])
    assert torch.equal(lin(F.one_hot(idx, V).float()), emb(idx))
    print("copy_: equal outputs, separate memory, lin.weight stride", lin.weight.stride())
    # --8<-- [end:copy]

    # --8<-- [start:from_pretrained]
    torch.manual_seed(0)
    lin = nn.Linear(V, D, bias=False)
    shared = nn.Embedding.from_pretrained(lin.weight.T)  # wraps the view: no copy
    assert shared.weight.shape == (V, D)
    assert shared.weight.data_ptr() == lin.weight.data_ptr()  # the Linear's memory
    assert shared.weight.stride() == (1, V) and not shared.weight.is_contiguous()
    assert not shared.weight.requires_grad  # freeze=True is the default
    with torch.no_grad():
        lin.weight.mul_(2)  # a training step on the Linear...
    assert torch.equal(shared.weight, lin.weight.T)  # ...silently edits the "pretrained" table

    # An independent, trainable, row-major table: detach, transpose, then make it contiguous.
    own = nn.Embedding.from_pretrained(lin.weight.detach().T.contiguous(), freeze=False)
    assert own.weight.data_ptr() != lin.weight.data_ptr()
    assert own.weight.stride() == (D, 1) and own.weight.requires_grad
    # .clone() is not enough: it keeps the column-major strides of the view.
    assert lin.weight.detach().T.clone().stride() == (1, V)
    # A Linear with one output has a [1, V] weight whose .T is contiguous already:
    # .contiguous() then returns the same memory, and only .clone() copies.
    thin = nn.Linear(V, 1, bias=False)
    assert thin.weight.detach().T.contiguous().data_ptr() == thin.weight.data_ptr()
    assert thin.weight.detach().T.clone().data_ptr() != thin.weight.data_ptr()

    # from_pretrained is a classmethod: calling it on an instance ignores that instance.
    template = nn.Embedding(V, D)
    made = template.from_pretrained(own.weight.detach())
    assert made is not template and not torch.equal(made.weight, template.weight)
    print("from_pretrained(lin.weight.T): shares memory, stride", tuple(shared.weight.stride()),
          "frozen:", not shared.weight.requires_grad)
    # --8<-- [end:from_pretrained]

    # --8<-- [start:load_state_dict]
    torch.manual_seed(0)
    lin = nn.Linear(V, D, bias=False)
    emb = nn.Embedding(V, D)
    try:
        emb.load_state_dict(lin.state_dict())  # same key "weight", shapes [4, 6] and [6, 4]
    except RuntimeError as err:
        print(str(err).splitlines()[-1].strip())
    else:
        raise AssertionError("a [D, V] weight should not load into a [V, D] table")

    emb.load_state_dict({"weight": lin.weight.T})  # transpose the value, keep the key
    assert torch.equal(emb.weight, lin.weight.T)
    assert emb.weight.data_ptr() != lin.weight.data_ptr() and emb.weight.is_contiguous()

    # Into a Linear that has a bias: the table has none to give.
    with_bias = nn.Linear(V, D)
    result = with_bias.load_state_dict({"weight": emb.weight.T}, strict=False)
    assert result.missing_keys == ["bias"] and torch.equal(with_bias.weight, lin.weight)

    # An output projection Linear(D, V) stores [V, D], row v for id v: it loads correctly.
    head = nn.Linear(D, V, bias=False)
    emb.load_state_dict(head.state_dict())
    assert torch.equal(emb.weight, head.weight)  # id v's row, as in weight tying

    # A square table loads either way round, and nothing warns you.
    sq_emb, sq_lin = nn.Embedding(D, D), nn.Linear(D, D, bias=False)
    sq_emb.load_state_dict(sq_lin.state_dict())
    assert torch.equal(sq_emb.weight, sq_lin.weight)  # id v got row v of the Linear's weight,
    assert not torch.equal(sq_emb.weight, sq_lin.weight.T)  # not column v, its vector
    sq_back = nn.Linear(D, D, bias=False)  # and back: the embedding's table into a Linear
    sq_back.load_state_dict(sq_emb.state_dict())
    assert torch.equal(sq_back.weight, sq_emb.weight)  # column v is now row v of the table,
    assert not torch.equal(sq_back.weight, sq_emb.weight.T)  # not id v's vector
    print("square [4, 4]: loaded both ways without error, untransposed")
    # --8<-- [end:load_state_dict]


if __name__ == "__main__":
    main()
