"""Default initialisation of nn.Embedding against nn.Linear, measured at GPT-2's size.

``nn.Embedding`` draws its table from N(0, 1). ``nn.Linear(in_features, out_features)`` draws its
weight from U(-1/sqrt(in_features), 1/sqrt(in_features)) (``kaiming_uniform_`` with ``a=sqrt(5)``),
whose standard deviation is ``1/sqrt(3 * in_features)``. At ``V = 50257`` (GPT-2's vocabulary) and
``D = 768`` (GPT-2 small's width) the script builds each layer, measures the standard deviation of
its weight and the mean length of one id's vector, and then measures what a tied output projection
does to the first loss of a language model under each initialisation.

Run it: ``python snippets/layout_transposition/init_scale.py`` (on a CPU; each ``[50257, 768]``
float32 table it builds is 50257 * 768 * 4 bytes, about 154 MB). It raises ``AssertionError`` if a
measurement disagrees with the formula. ``init_scale.out`` is what it prints. Sources:
``reset_parameters`` in ``torch/nn/modules/sparse.py`` and ``torch/nn/modules/linear.py`` (PyTorch
v2.15.0), and https://github.com/pytorch/pytorch/issues/57109 for the ``a=sqrt(5)`` simplification.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

V, D = 50_257, 768  # GPT-2: vocabulary size, width of the small model


def main() -> None:
    assert round(V * D * 4 / 1e6) == 154  # MB per float32 table, as the docstring says
    # --8<-- [start:scales]
    torch.manual_seed(0)
    print(f"{'layer':<24}{'init':<18}{'std: formula':>13}{'measured':>11}{'‖id vector‖':>13}")
    for name, make, fan_in in (
        ("nn.Embedding(V, D)", lambda: nn.Embedding(V, D), None),
        ("nn.Linear(V, D)", lambda: nn.Linear(V, D, bias=False), V),  # the one-hot stand-in
        ("nn.Linear(D, V)", lambda: nn.Linear(D, V, bias=False), D),  # an output projection
    ):
        w = make().weight.detach()
        if fan_in is None:
            init, std, id_vectors = "N(0, 1)", 1.0, w  # id v is row v of [V, D]
        else:
            bound = 1 / math.sqrt(fan_in)
            assert w.abs().max() <= bound  # U(-bound, bound)
            init, std = f"U(±{bound:.3g})", bound / math.sqrt(3)  # std of U(-a, a) is a/√3
            id_vectors = w.T if w.shape == (D, V) else w  # id v is column v of [D, V]
        torch.testing.assert_close(w.std().item(), std, rtol=2e-3, atol=0)
        norm = id_vectors.norm(dim=1).mean().item()
        torch.testing.assert_close(norm, math.sqrt(D) * std, rtol=2e-3, atol=0)  # ≈ √D · std
        print(f"{name:<24}{init:<18}{std:>13.4g}{w.std().item():>11.5g}{norm:>13.4g}")
        del w, id_vectors

    assert round(math.sqrt(3 * V), 1) == 388.3  # Embedding's std / Linear(V, D)'s std
    assert round(math.sqrt(3 * D), 1) == 48.0  # Embedding's std / Linear(D, V)'s std
    # --8<-- [end:scales]

    # --8<-- [start:tied_loss]
    torch.manual_seed(0)
    h = F.layer_norm(torch.randn(64, D), (D,))  # 64 final hidden states: mean 0, variance 1
    targets = torch.randint(V, (64,))
    uniform_loss = math.log(V)  # the loss of a model that predicts every token equally
    print(f"\nfirst loss, ln V = {uniform_loss:.3f}")
    losses, tops = {}, {}  # first loss; mean probability of the likeliest token
    for init, how, draw in (
        ("N(0, 1)", "lm_head.weight = wte.weight", lambda w: nn.init.normal_(w)),
        ("U(±1/√D)", "wte.weight = lm_head.weight",
         lambda w: nn.init.uniform_(w, -1 / math.sqrt(D), 1 / math.sqrt(D))),
        ("N(0, 0.02)", "re-initialised, as nanoGPT", lambda w: nn.init.normal_(w, std=0.02)),
    ):
        table = draw(torch.empty(V, D))  # the one [V, D] table both ends share
        logits = h @ table.T  # the output end: lm_head(h)
        # h has variance 1 per vector, so a logit's std is about √D times the table's
        torch.testing.assert_close(logits.std(), math.sqrt(D) * table.std(), rtol=0.05, atol=0)
        losses[init] = loss = F.cross_entropy(logits, targets).item()
        tops[init] = top = logits.softmax(dim=-1).max(dim=-1).values.mean().item()
        print(f"{init:<11}{how:<30}logit std {logits.std().item():6.3f}   "
              f"top probability {top:.4f}   loss {loss:7.3f}")
        del table, logits

    assert losses["N(0, 1)"] > 10 * uniform_loss  # logits ~28 wide: confidently wrong
    assert tops["N(0, 1)"] > 0.8  # the softmax is close to one-hot on an arbitrary token
    assert tops["U(±1/√D)"] < 0.001 and tops["N(0, 0.02)"] < 0.001  # close to uniform (1/V)
    assert abs(losses["U(±1/√D)"] - uniform_loss) < 0.3
    assert abs(losses["N(0, 0.02)"] - uniform_loss) < 0.3
    # --8<-- [end:tied_loss]


if __name__ == "__main__":
    main()
