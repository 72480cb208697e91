"""Three ways the padding row changes although ``padding_idx`` blocks the lookup's gradient.

Run it: ``python snippets/padding_idx/row_still_moves.py``. Each region builds a small
``nn.Embedding`` (float32 table ``[V, D]``) with ``padding_idx=0`` and shows one mechanism that
writes row 0 anyway:

* ``max_norm``: the forward pass rescales, in place, every looked-up row whose norm exceeds
  ``max_norm``, the padding row included;
* a tied output projection (``logits = h @ emb.weight.T``): the softmax over the vocabulary sends
  gradient into row 0 through the second use of the weight;
* ``torch.optim.AdamW``: decoupled weight decay multiplies every row by ``1 - lr * weight_decay``
  per step, gradient or not, so a non-zero padding row shrinks.

A fourth region shows ``torch.optim.Adam`` with ``weight_decay``: the decay enters the gradient, so
a non-zero padding row moves by about ``lr`` per step while ``weight_decay * |w|`` is well above
Adam's ``eps`` (``1e-8``), and by much less below that.

It prints one line per check and raises ``AssertionError`` if a check fails. The page
"padding_idx" includes its regions by name; ``row_still_moves.out`` beside it is the output shown
on the page, compared by ``tests/test_snippets.py``.

Sources: ``F.embedding`` (``max_norm`` renormalises in place) and ``torch.optim.AdamW`` (default
``weight_decay=0.01``, decay applied as ``param *= 1 - lr * weight_decay``) in PyTorch 2.15,
https://docs.pytorch.org/docs/2.15/generated/torch.nn.functional.embedding.html and
https://docs.pytorch.org/docs/2.15/generated/torch.optim.AdamW.html; ``torch.optim.Adam``
(default ``eps=1e-8``), https://docs.pytorch.org/docs/2.15/generated/torch.optim.Adam.html;
decoupled weight decay: Loshchilov and Hutter, https://arxiv.org/abs/1711.05101; weight tying,
proposed independently, months apart in 2016, by Press and Wolf,
https://arxiv.org/abs/1608.05859, and by Inan, Khosravi and Socher,
https://arxiv.org/abs/1611.01462.
"""

import torch
import torch.nn.functional as F
from torch import nn

PAD = 0


def max_norm_rescales() -> None:
    """A non-zero padding row longer than ``max_norm`` is rescaled by the forward pass."""
    # --8<-- [start:max_norm]
    table = torch.tensor([[3.0, 4.0, 0.0],  # row 0 (the pad): norm 5
                          [0.6, 0.0, 0.8],  # norm 1
                          [0.0, 2.0, 0.0]])  # norm 2, never looked up below
    emb = nn.Embedding.from_pretrained(table.clone(), freeze=False, padding_idx=PAD, max_norm=1.0)

    out = emb(torch.tensor([1, PAD, PAD]))  # a forward pass, no backward, no optimizer

    torch.testing.assert_close(emb.weight[PAD], torch.tensor([0.6, 0.8, 0.0]))  # 5 -> 1
    assert torch.equal(emb.weight[2], table[2])  # rows not looked up are left alone
    assert torch.equal(out[1], emb.weight[PAD])  # and the output is the rescaled row

    # The default zero row has norm 0, so max_norm never touches it.
    torch.manual_seed(0)
    fresh = nn.Embedding(3, 3, padding_idx=PAD, max_norm=1.0)
    fresh(torch.tensor([1, PAD]))
    assert not fresh.weight[PAD].any()
    print("max_norm:", table[PAD].tolist(), "->", [round(x, 4) for x in emb.weight[PAD].tolist()])
    # --8<-- [end:max_norm]


def tied_projection_sends_gradient() -> None:
    """Reusing ``emb.weight`` as the output layer gives row 0 a gradient through the logits."""
    # --8<-- [start:tied]
    torch.manual_seed(0)
    V, D = 6, 4
    emb = nn.Embedding(V, D, padding_idx=PAD)
    ids = torch.tensor([[3, 5, 2, PAD, PAD]])  # one sequence, two pads at the end
    targets = torch.tensor([[5, 2, 4, PAD, PAD]])  # next-token targets, padded the same way

    h = emb(ids)  # [1, 5, D]
    logits = h @ emb.weight.T  # tied output projection: [1, 5, V]
    loss = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=PAD)
    loss.backward()

    # Even with the pad positions ignored in the loss, every real position's softmax has a
    # "pad" class whose logit is h · weight[PAD]: its gradient lands in row 0.
    assert emb.weight.grad[PAD].abs().sum() > 0

    with torch.no_grad():
        emb.weight -= 0.5 * emb.weight.grad  # one plain SGD step
    assert emb.weight[PAD].abs().sum() > 0  # the pad row is no longer zero...
    assert emb(torch.tensor([PAD])).abs().sum() > 0  # ...so pad positions now output non-zeros
    print("tied: grad norm of row 0 =", round(emb.weight.grad[PAD].norm().item(), 4))

    # A non-zero row (as it is now) gets this gradient just the same.
    emb.weight.grad = None
    h = emb(ids)
    F.cross_entropy((h @ emb.weight.T).reshape(-1, V), targets.reshape(-1),
                    ignore_index=PAD).backward()
    assert emb.weight.grad[PAD].abs().sum() > 0
    # --8<-- [end:tied]


def adamw_shrinks_nonzero_row() -> None:
    """AdamW's decoupled weight decay scales a non-zero padding row by ``(1 - lr*wd)`` per step."""
    # --8<-- [start:adamw]
    torch.manual_seed(0)
    table = torch.randn(5, 3)  # a "pretrained" table: row 0 is not zero
    emb = nn.Embedding.from_pretrained(table.clone(), freeze=False, padding_idx=PAD)
    opt = torch.optim.AdamW(emb.parameters(), lr=0.1)  # weight_decay defaults to 0.01
    assert opt.defaults["weight_decay"] == 0.01

    steps = 10
    for _ in range(steps):
        opt.zero_grad()
        emb(torch.tensor([[1, 2, PAD, PAD]])).pow(2).sum().backward()
        assert not emb.weight.grad[PAD].any()  # padding_idx still blocks the lookup's gradient
        opt.step()

    # Adam's moments for row 0 stay zero, so its Adam step is 0; only the decay acts.
    shrink = (1 - 0.1 * 0.01) ** steps
    torch.testing.assert_close(emb.weight[PAD], table[PAD] * shrink)
    assert (emb.weight[PAD].abs() < table[PAD].abs()).all()

    # A zero row is a fixed point of the decay: 0 * (1 - lr*wd) = 0.
    torch.manual_seed(0)
    zero = nn.Embedding(5, 3, padding_idx=PAD)
    opt = torch.optim.AdamW(zero.parameters(), lr=0.1)
    for _ in range(steps):
        opt.zero_grad()
        zero(torch.tensor([[1, 2, PAD, PAD]])).pow(2).sum().backward()
        opt.step()
    assert not zero.weight[PAD].any()
    print(f"AdamW: row 0 scaled by {shrink:.6f} after {steps} steps")
    # --8<-- [end:adamw]

    # --8<-- [start:adam_l2]
    # Adam with weight_decay adds wd * weight to the *gradient*, so row 0 gets a non-zero
    # gradient, and Adam's normalised step moves it by about lr per step, not by a factor.
    emb = nn.Embedding.from_pretrained(table.clone(), freeze=False, padding_idx=PAD)
    opt = torch.optim.Adam(emb.parameters(), lr=0.1, weight_decay=0.01)
    for step in range(steps):
        opt.zero_grad()
        emb(torch.tensor([[1, 2, PAD, PAD]])).pow(2).sum().backward()
        opt.step()
        if step == 0:  # Adam's first step is about lr * sign(gradient) in every coordinate
            torch.testing.assert_close(table[PAD] - emb.weight[PAD], 0.1 * table[PAD].sign(),
                                       atol=1e-5, rtol=0)
    before, after = table[PAD].norm().item(), emb.weight[PAD].norm().item()
    assert after < 0.6 * before  # far more than AdamW's factor 0.990045

    # A zero row gets gradient 0 + wd * 0 = 0 and stays put.
    torch.manual_seed(0)
    zero = nn.Embedding(5, 3, padding_idx=PAD)
    opt = torch.optim.Adam(zero.parameters(), lr=0.1, weight_decay=0.01)
    for _ in range(steps):
        opt.zero_grad()
        zero(torch.tensor([[1, 2, PAD, PAD]])).pow(2).sum().backward()
        opt.step()
    assert not zero.weight[PAD].any()
    print(f"Adam(weight_decay): norm of row 0 {before:.4f} -> {after:.4f}")

    # "About lr" needs wd * |w| well above Adam's eps (1e-8): the first step is
    # lr * g / (|g| + eps) with g = wd * w, so a tiny weight_decay gives a much smaller step.
    emb = nn.Embedding.from_pretrained(table.clone(), freeze=False, padding_idx=PAD)
    opt = torch.optim.Adam(emb.parameters(), lr=0.1, weight_decay=1e-9)
    assert opt.defaults["eps"] == 1e-8
    emb(torch.tensor([[1, 2, PAD, PAD]])).pow(2).sum().backward()
    opt.step()
    g = 1e-9 * table[PAD]  # the pad row's whole gradient
    first = table[PAD] - emb.weight[PAD]
    torch.testing.assert_close(first, 0.1 * g / (g.abs() + 1e-8))
    assert first.abs().max() < 0.02  # far below lr = 0.1
    print("Adam(weight_decay=1e-9): first step of row 0", [round(x, 4) for x in first.tolist()])
    # --8<-- [end:adam_l2]


def main() -> None:
    max_norm_rescales()
    tied_projection_sends_gradient()
    adamw_shrinks_nonzero_row()


if __name__ == "__main__":
    main()
